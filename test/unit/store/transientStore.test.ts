import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { HashingEmbedder, temporaryFolder, writeFiles } from '../../support/indexFixtures';

/** Forty notes about fruit: each names its own fruit and shares the word "orchard". */
function notes(edition: string): Record<string, string> {
  const fruits = ['apple', 'banana', 'cherry', 'damson', 'elderberry', 'fig', 'grape', 'hazelnut'];
  return Object.fromEntries(
    Array.from({ length: 40 }, (_, index) => [`notes/note-${String(index).padStart(2, '0')}.md`, `# Note ${index}\n\nThe ${fruits[index % fruits.length]} orchard, ${edition} edition, row ${index}.\n`]),
  );
}

/**
 * Every hit of a search with its document (the limit is above the 40 notes, so no tie decides what is left out), best
 * first, tied scores in chunk order: LanceDB orders equal BM25 scores differently from one query to the next.
 */
async function answers(store: LanceStore, query: string): Promise<unknown[]> {
  const results = await store.searchWith(query, { mode: 'fullText', limit: 50, rerank: false });
  assert.deepEqual(results.map((result) => result.rank), results.map((_, index) => index + 1));
  const documents = await Promise.all(results.map((result) => store.getDocument(result.documentId)));
  return results
    .map(({ rank: _rank, ...result }, index) => ({ result, document: documents[index] }))
    .sort((left, right) => right.result.score - left.result.score || (left.result.chunkId < right.result.chunkId ? -1 : 1));
}

/** The reader's full cache of every document's state (undefined until something read all of them). */
function fullStatesCache(store: LanceStore): unknown {
  return (store as unknown as { reader: { documentsCache: unknown } }).reader.documentsCache;
}

describe('A transient store (one request, then closed: a one-shot `haiku search`)', function () {
  this.timeout(120_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let indexFolder: string;
  const documents = () => path.join(folder.path, 'docs');

  before(async () => {
    folder = temporaryFolder('haiku-transient-');
    indexFolder = path.join(folder.path, 'index');
    writeFiles(documents(), notes('first'));
    const writer = await openStore({ uri: indexFolder });
    try {
      await indexPaths({ roots: [documents()], baseFolder: documents(), store: writer });
      // Edits without upkeep: superseded rows and recent copies stay in the tables, as after the watcher's runs.
      writeFiles(documents(), { 'notes/note-03.md': '# Note 3\n\nThe damson orchard, second edition, quince row.\n', 'notes/note-11.md': '# Note 11\n\nThe damson orchard, second edition, medlar row.\n' });
      await indexPaths({ roots: [documents()], baseFolder: documents(), store: writer, optimize: false });
    } finally {
      await writer.close();
    }
  });

  after(() => folder.cleanup());

  it('answers as a long-lived store does, superseded rows left out, without reading every document', async () => {
    const transient = await openStore({ uri: indexFolder, readOnly: true, transient: true });
    const lasting = await openStore({ uri: indexFolder, readOnly: true });
    try {
      for (const query of ['damson orchard', 'quince', 'first edition', 'orchard', 'nothing-matches-this']) {
        assert.deepEqual(await answers(transient, query), await answers(lasting, query), query);
      }
      const damson = await transient.searchWith('damson first', { mode: 'fullText', limit: 40, rerank: false });
      assert.ok(damson.length > 0);
      assert.ok(!damson.some((result) => result.content.includes('first') && ['notes/note-03.md', 'notes/note-11.md'].includes(result.uri.split('/docs/')[1] ?? '')), 'a superseded version was returned');
      assert.equal(fullStatesCache(transient), undefined, 'the transient store read every document');
      assert.notEqual(fullStatesCache(lasting), undefined);
      // Anything that needs every document still gets them all.
      assert.equal((await transient.listDocuments()).length, 40);
      assert.equal((await transient.getDocument('no-such-document')), undefined);
    } finally {
      await transient.close();
      await lasting.close();
    }
  });

  it('answers a hybrid search without reading every document either (its vector scan checks liveness the same way)', async () => {
    const embedder = new HashingEmbedder(64);
    const withVectors = path.join(folder.path, 'index-with-vectors');
    const writer = await openStore({ uri: withVectors, embedder });
    try {
      await indexPaths({ roots: [documents()], baseFolder: documents(), store: writer, embedder });
    } finally {
      await writer.close();
    }
    const transient = await openStore({ uri: withVectors, readOnly: true, transient: true, embedder });
    const lasting = await openStore({ uri: withVectors, readOnly: true, embedder });
    try {
      const hybrid = (store: LanceStore) => store.searchWith('damson orchard quince', { mode: 'hybrid', limit: 5, rerank: false });
      const [fromTransient, fromLasting] = [await hybrid(transient), await hybrid(lasting)];
      assert.ok(fromTransient.length > 0);
      assert.deepEqual(new Set(fromTransient.map((result) => result.chunkId)), new Set(fromLasting.map((result) => result.chunkId)));
      assert.equal(fullStatesCache(transient), undefined, 'the transient store read every document');
    } finally {
      await transient.close();
      await lasting.close();
    }
  });

  it('reads the documents again after a failed read, instead of keeping the failure', async () => {
    const transient = await openStore({ uri: indexFolder, readOnly: true, transient: true });
    const tables = (transient as unknown as { tables: { documents: { query(): { toArrow(): Promise<unknown> } } } }).tables;
    const documentsTable = tables.documents;
    let failures = 1;
    tables.documents = Object.assign(Object.create(documentsTable) as typeof documentsTable, {
      query: () => {
        const query = documentsTable.query();
        if (failures-- > 0) {
          // The read fails when it runs, as a disk error does (the builder itself is fine).
          query.toArrow = () => Promise.reject(new Error('the disk went away (injected)'));
        }
        return query;
      },
    });
    try {
      await assert.rejects(transient.searchWith('quince', { mode: 'fullText', limit: 3, rerank: false }), /injected/);
      const [hit] = await transient.searchWith('quince', { mode: 'fullText', limit: 3, rerank: false });
      assert.match(hit?.content ?? '', /quince row/);
      assert.equal((await transient.getDocument(hit.documentId))?.relativePath, 'notes/note-03.md');
    } finally {
      tables.documents = documentsTable;
      await transient.close();
    }
  });
});
