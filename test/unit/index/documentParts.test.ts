import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../../../src/core/chunker';
import { CONVERSION_PARTS_MIN_ITEMS } from '../../../src/core/limits';
import type { Chunk } from '../../../src/core/model/chunk';
import type { DocumentItem } from '../../../src/core/model/document';
import { createConversionPool, inProcessConversion, type ConversionPool } from '../../../src/node/convert/conversionPool';
import { loadDocument } from '../../../src/node/convert/convertFile';
import { indexPaths } from '../../../src/node/index/indexer';
import * as lancedb from '@lancedb/lancedb';
import { sqlString } from '../../../src/core/search/documentFilter';
import { plainRows } from '../../../src/node/store/arrowRows';
import { openStore, type DocumentPartsWrite } from '../../../src/node/store/lanceStore';
import { CHUNKS_TABLE, DOCUMENTS_TABLE, ITEMS_TABLE, type DocumentRow } from '../../../src/node/store/schema';
import { temporaryFolder } from '../../support/indexFixtures';

/**
 * Markdown over `CONVERSION_PARTS_MIN_ITEMS` items: sections of short paragraphs and lists, every 50th section the same
 * heading and text (chunks with equal text, numbered by occurrence), and a last section whose word is unique.
 */
function bigMarkdown(version: string): string {
  const sections = ['# A big manual\n'];
  for (let index = 0; sections.length * 9 < CONVERSION_PARTS_MIN_ITEMS * 1.3; index++) {
    if (index % 50 === 0) {
      sections.push('## Repeated notice\n\nThe same notice, word for word.\n');
      continue;
    }
    const paragraphs = Array.from({ length: 6 }, (_, paragraph) => `Paragraph ${paragraph} of section ${index} (${version}) describes widget ${index * 7 + paragraph}.`);
    sections.push(`## Section ${index}\n\n${paragraphs.join('\n\n')}\n\n- first point of ${index}\n- second point of ${index}\n`);
  }
  sections.push(`## The last section\n\nOnly the ${version} version says zanzibarquux${version}.\n`);
  return sections.join('\n');
}

interface StoredRows {
  chunks: Array<Record<string, unknown>>;
  items: number;
  metadata: Record<string, unknown>;
}

/** The document's current chunk rows in order (without the write's generation), its item count and its metadata. */
async function storedRows(indexFolder: string, relativePath: string): Promise<StoredRows> {
  const connection = await lancedb.connect(indexFolder);
  const [document] = await plainRows<DocumentRow>((await connection.openTable(DOCUMENTS_TABLE)).query().where(`relative_path = ${sqlString(relativePath)}`));
  assert.ok(document, `${relativePath} is stored`);
  const current = `document_id = ${sqlString(document.id)} AND generation = ${sqlString(document.generation)}`;
  const chunks = await plainRows<Record<string, unknown>>((await connection.openTable(CHUNKS_TABLE)).query().where(current));
  const items = await (await connection.openTable(ITEMS_TABLE)).countRows(current);
  connection.close();
  return {
    chunks: chunks.sort((left, right) => Number(left.chunk_order) - Number(right.chunk_order)).map(({ generation: _generation, ...chunk }) => chunk),
    items,
    metadata: JSON.parse(document.metadata) as Record<string, unknown>,
  };
}

describe('big documents written in parts', function () {
  this.timeout(300_000);
  let workspace: { path: string; cleanup: () => void };
  let pool: ConversionPool;
  const file = () => path.join(workspace.path, 'docs', 'manual.md');

  beforeEach(() => {
    workspace = temporaryFolder('haiku-parts-');
    fs.mkdirSync(path.join(workspace.path, 'docs'));
    fs.writeFileSync(file(), bigMarkdown('first'));
    pool = createConversionPool({ size: 1 });
  });
  afterEach(async () => {
    await pool.dispose();
    workspace.cleanup();
  });

  it('come from the worker in parts that add up to the whole document and its chunks', async () => {
    const whole = await loadDocument({ filePath: file(), rootPath: workspace.path });
    assert.ok(whole.items.length > CONVERSION_PARTS_MIN_ITEMS, `${whole.items.length} items`);
    const prepared = await pool.prepare(file(), { rootPath: workspace.path, inParts: true });
    assert.ok(prepared.parts, 'the document came in parts');
    assert.deepEqual(prepared.document.items, []);
    // The content comes last (only the document's row needs it, at the end).
    assert.equal(prepared.document.content, '');
    const items: DocumentItem[] = [];
    const chunks: Chunk[] = [];
    let partCount = 0;
    let partsWithBoth = 0;
    const refsSent = new Set<string>();
    for await (const part of prepared.parts) {
      partCount++;
      items.push(...part.items);
      part.items.forEach((item) => refsSent.add(item.selfRef));
      // A chunk's items came in its part or an earlier one (chunks name their items by ref).
      for (const chunk of part.chunks) {
        assert.ok(chunk.docItemRefs.every((ref) => refsSent.has(ref)), `chunk ${chunk.order} came before its items`);
      }
      chunks.push(...part.chunks);
      partsWithBoth += part.items.length > 0 && part.chunks.length > 0 ? 1 : 0;
    }
    assert.ok(partCount > 2, `${partCount} parts`);
    // Chunks come along with the items that completed them, not all after the last item.
    assert.ok(partsWithBoth > 0, 'no part held both items and chunks');
    assert.equal(prepared.document.content, whole.content);
    assert.deepEqual(items, whole.items);
    assert.deepEqual(chunks, chunkDocument({ id: whole.id, items: whole.items }));
    // Without `inParts` the same file comes whole.
    const gathered = await pool.prepare(file(), { rootPath: workspace.path });
    assert.equal(gathered.parts, undefined);
    assert.equal(gathered.chunks.length, chunks.length);
  });

  it('are stored exactly as the same document written whole, and replace it atomically on a change', async () => {
    const viaParts = await openStore({ uri: path.join(workspace.path, 'parts-index') });
    const whole = await openStore({ uri: path.join(workspace.path, 'whole-index') });
    try {
      const inParts = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store: viaParts, conversionPool: pool });
      const gathered = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store: whole, conversionPool: inProcessConversion() });
      assert.deepEqual(inParts.failed, []);
      assert.deepEqual(inParts.added, ['docs/manual.md']);
      assert.equal(inParts.chunksWritten, gathered.chunksWritten);
      const [partsRows, wholeRows] = [await storedRows(viaParts.uri, 'docs/manual.md'), await storedRows(whole.uri, 'docs/manual.md')];
      assert.deepEqual(partsRows, wholeRows);
      assert.ok(partsRows.items > CONVERSION_PARTS_MIN_ITEMS, `${partsRows.items} items`);
      assert.equal(partsRows.metadata.itemCount, partsRows.items);
      const hits = await viaParts.searchWith('zanzibarquuxfirst', { mode: 'fullText', limit: 1, rerank: false });
      assert.equal(hits[0]?.content, 'Only the first version says zanzibarquuxfirst.');

      fs.writeFileSync(file(), bigMarkdown('second'));
      const changed = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store: viaParts, conversionPool: pool });
      assert.deepEqual(changed.updated, ['docs/manual.md']);
      assert.equal((await viaParts.stats()).documents, 1);
      assert.equal((await viaParts.searchWith('zanzibarquuxfirst', { mode: 'fullText', limit: 1, rerank: false })).length, 0);
      assert.equal((await viaParts.searchWith('zanzibarquuxsecond', { mode: 'fullText', limit: 1, rerank: false }))[0]?.content, 'Only the second version says zanzibarquuxsecond.');
      assert.equal((await storedRows(viaParts.uri, 'docs/manual.md')).chunks.length, partsRows.chunks.length);
    } finally {
      await viaParts.close();
      await whole.close();
    }
  });

  it('keep the previous version whole when the run is cancelled while the parts are written, and the pool converts on', async () => {
    const store = await openStore({ uri: path.join(workspace.path, 'index') });
    try {
      await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store, conversionPool: pool });
      const before = await storedRows(store.uri, 'docs/manual.md');
      fs.writeFileSync(file(), bigMarkdown('second'));
      const controller = new AbortController();
      // Cancelled once the first part of the new version went in (the store checks between parts).
      const write = store.writeDocumentInParts.bind(store);
      store.writeDocumentInParts = (entry: DocumentPartsWrite, options) => {
        async function* cancelAfterFirst() {
          for await (const part of entry.parts) {
            yield part;
            controller.abort();
          }
        }
        return write({ ...entry, parts: cancelAfterFirst() }, options);
      };
      const cancelled = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store, conversionPool: pool, abortSignal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      store.writeDocumentInParts = write;
      assert.ok(cancelled instanceof Error && /cancel/i.test(cancelled.message), String(cancelled));
      assert.deepEqual(await storedRows(store.uri, 'docs/manual.md'), before);
      assert.equal((await store.searchWith('zanzibarquuxfirst', { mode: 'fullText', limit: 1, rerank: false })).length, 1);
      // The same pool converts the file again: no worker was left waiting for a reader.
      const again = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store, conversionPool: pool });
      assert.deepEqual(again.updated, ['docs/manual.md']);
      assert.equal((await store.searchWith('zanzibarquuxsecond', { mode: 'fullText', limit: 1, rerank: false })).length, 1);
    } finally {
      await store.close();
    }
  });

  it('make the next commit while one is written, and a commit that fails leaves the previous version whole with no write in flight', async () => {
    const store = await openStore({ uri: path.join(workspace.path, 'index') });
    const whole = await openStore({ uri: path.join(workspace.path, 'whole-index') });
    // Small commits: the file's rows take many, each made while the one before is written.
    store.testHooks.addCommitMaxBytes = 256 * 1024;
    const native = (store as unknown as { tables: { chunks: { inner: { add(buffer: Buffer, mode: string): Promise<unknown> } } } }).tables.chunks.inner;
    const add = native.add.bind(native);
    let commits = 0;
    let inFlight = 0;
    let overlapped = false;
    let failAt: number | undefined;
    native.add = async (buffer, mode) => {
      const commit = ++commits;
      inFlight++;
      try {
        // Slow enough that the caller, if it goes on while this is written, takes the next part meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 30));
        if (commit === failAt) {
          throw new Error('No space left on device (injected)');
        }
        return await add(buffer, mode);
      } finally {
        inFlight--;
      }
    };
    const takenWhileWriting = store.writeDocumentInParts.bind(store);
    store.writeDocumentInParts = (entry: DocumentPartsWrite, options) => {
      async function* noteOverlap() {
        for await (const part of entry.parts) {
          overlapped ||= inFlight > 0;
          yield part;
        }
      }
      return takenWhileWriting({ ...entry, parts: noteOverlap() }, options);
    };
    try {
      const first = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store, conversionPool: pool });
      assert.deepEqual(first.failed, []);
      assert.ok(commits > 3, `${commits} commits of chunks`);
      assert.ok(overlapped, 'a part was taken while a commit was written');
      await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store: whole, conversionPool: inProcessConversion() });
      const before = await storedRows(store.uri, 'docs/manual.md');
      assert.deepEqual(before, await storedRows(whole.uri, 'docs/manual.md'));

      fs.writeFileSync(file(), bigMarkdown('second'));
      failAt = commits + 2;
      const failed = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store, conversionPool: pool }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failed instanceof Error && /injected/.test(failed.message), String(failed));
      assert.equal(inFlight, 0, 'a commit outlived the failed write');
      assert.deepEqual(await storedRows(store.uri, 'docs/manual.md'), before);
      assert.equal((await store.searchWith('zanzibarquuxfirst', { mode: 'fullText', limit: 1, rerank: false })).length, 1);

      failAt = undefined;
      const again = await indexPaths({ roots: [path.join(workspace.path, 'docs')], baseFolder: workspace.path, store, conversionPool: pool });
      assert.deepEqual(again.updated, ['docs/manual.md']);
      assert.equal((await store.searchWith('zanzibarquuxsecond', { mode: 'fullText', limit: 1, rerank: false })).length, 1);
    } finally {
      await store.close();
      await whole.close();
    }
  });

  it('stop the worker when the write stops before reading every part, so the pool converts on', async () => {
    const prepared = await pool.prepare(file(), { rootPath: workspace.path, inParts: true });
    const parts = prepared.parts![Symbol.asyncIterator]();
    assert.equal((await parts.next()).done, false);
    await parts.return?.();
    const next = await pool.prepare(file(), { rootPath: workspace.path });
    assert.ok(next.chunks.length > 0);
  });
});
