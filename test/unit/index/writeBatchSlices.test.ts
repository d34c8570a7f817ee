import * as assert from 'node:assert/strict';
import * as lancedb from '@lancedb/lancedb';
import { prepareDocument } from '../../../src/node/convert/prepareDocument';
import { openStore, type DocumentWrite, type LanceStore } from '../../../src/node/store/lanceStore';
import { CHUNKS_TABLE } from '../../../src/node/store/schema';
import { HashingEmbedder, temporaryFolder, writeFiles } from '../../support/indexFixtures';

/** A big write batch (thousands of rows per table) as the indexer sends it, on a real LanceDB store. */
describe('store write batches', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let database: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;
  let batch: DocumentWrite[];

  before(async () => {
    workspace = temporaryFolder('haiku-slices-workspace-');
    database = temporaryFolder('haiku-slices-db-');
    const files: Record<string, string> = {};
    for (let index = 0; index < 1200; index++) {
      // Every 600th file is long enough for a second chunk; the rest give one chunk (and two items) each.
      const extra = index % 600 === 0 ? `\n\n## More\n\n${'Quolls forage at night. '.repeat(120)}\n` : '';
      files[`n${String(index).padStart(4, '0')}.md`] = `# Note ${index}\n\nThe numbat count is ${index}.${extra}\n`;
    }
    writeFiles(workspace.path, files);
    batch = [];
    for (const name of Object.keys(files)) {
      const { document, chunks } = await prepareDocument({ rootPath: workspace.path, filePath: name });
      batch.push({ document, chunks, file: { mtimeMs: 1, size: 1 } });
    }
  });

  beforeEach(async () => {
    store = await openStore({ uri: `${database.path}/${Date.now()}` });
  });

  afterEach(async () => {
    await store.close();
  });

  after(() => {
    workspace.cleanup();
    database.cleanup();
  });

  it('keeps the event loop turning while it converts the rows (the conversion workers get new files meanwhile)', async () => {
    // Warm (JIT-compiled converters), as in an index run after its first batch.
    const warm = await openStore({ uri: `${database.path}/warm` });
    await warm.writeDocuments(batch, { scheduleOptimize: false });
    await warm.close();
    // A stall of the old code (one synchronous conversion of the whole batch) happens on every write; a garbage
    // collection pause left by earlier tests in this process happens now and then: the best of three writes counts.
    const attempts: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const target = attempt === 0 ? store : await openStore({ uri: `${database.path}/attempt-${attempt}` });
      let longestGap = 0;
      let last = performance.now();
      let writing = true;
      const tick = (): void => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
        if (writing) {
          setImmediate(tick);
        }
      };
      setImmediate(tick);
      const started = performance.now();
      await target.writeDocuments(batch, { scheduleOptimize: false });
      const totalMs = performance.now() - started;
      writing = false;
      if (target !== store) {
        await target.close();
      }
      if (longestGap < totalMs / 4) {
        return;
      }
      attempts.push(`${longestGap.toFixed(0)} ms of a ${totalMs.toFixed(0)} ms write`);
    }
    assert.fail(`the longest stretch without a turn of the event loop, in each of three writes: ${attempts.join('; ')}`);
  });

  it('writes every row of every document, in one commit per table', async () => {
    const before = await store.tableVersions();
    await store.writeDocuments(batch, { scheduleOptimize: false });
    const after = await store.tableVersions();
    assert.deepEqual([after.chunks - before.chunks, after.document_items - before.document_items, after.documents - before.documents], [1, 1, 1]);
    const chunks = batch.reduce((sum, entry) => sum + entry.chunks.length, 0);
    assert.deepEqual(await store.stats(), { documents: 1200, chunks });
    assert.equal((await store.search('numbat count 777', { limit: 1 }))[0].uri.endsWith('/n0777.md'), true);
    assert.equal(new Set((await store.search('quolls forage', { limit: 20 })).map((hit) => hit.uri)).size, 2, 'both long notes, and only they, hold quolls');
    const items = await store.getDocumentItems(batch[1100].document.id);
    assert.deepEqual(items.map((item) => item.text), batch[1100].document.items.map((item) => item.text));
  });

  it('writes the vectors of a sliced batch with their rows', async () => {
    const embedder = new HashingEmbedder(64);
    const uri = `${database.path}/vectors`;
    const withVectors = await openStore({ uri, embedder });
    const entries = await Promise.all(batch.map(async (entry) => ({ ...entry, vectors: await embedder.embed(entry.chunks.map((chunk) => chunk.searchText), { kind: 'document' }) })));
    await withVectors.writeDocuments(entries, { scheduleOptimize: false });
    await withVectors.close();
    const connection = await lancedb.connect(uri);
    const chunks = await connection.openTable(CHUNKS_TABLE);
    // Rows on both sides of slice boundaries, and the documents with two chunks.
    for (const index of [0, 1, 510, 511, 512, 600, 1023, 1024, 1199]) {
      for (const [order, chunk] of entries[index].chunks.entries()) {
        const [row] = await chunks.query().where(`id = '${chunk.id}'`).select(['vector']).toArray();
        assert.deepEqual(Array.from(row.vector as Iterable<number>), Array.from(entries[index].vectors[order]), `document ${index}, chunk ${order}`);
      }
    }
    connection.close();
  });
});
