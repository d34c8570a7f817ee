import * as assert from 'node:assert/strict';
import type * as lancedb from '@lancedb/lancedb';
import { VECTOR_INDEX_MIN_REFINED } from '../../../src/core/limits';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { VECTOR_INDEX_NAME } from '../../../src/node/store/storeTables';
import type { DocumentWrite } from '../../../src/node/store/storeWriter';
import { HashingEmbedder, temporaryFolder } from '../../support/indexFixtures';
import { markdownWrite } from '../../support/documentWrites';
import { chunksTableOf, vectorSearchOf, withChunkQueriesNoted } from '../../support/chunkQueries';

/** Enough one-chunk notes for two IVF partitions (`VECTOR_INDEX_ROWS_PER_PARTITION`). */
const NOTES = 2_000;
/** The fold builds the index from this many rows here (`VECTOR_INDEX_MIN_ROWS` in production). */
const MIN_ROWS = 1_000;
const VOCABULARY = Array.from({ length: 3_000 }, (_, index) => `w${index.toString(36)}`);

/** Deterministic pseudo-random words: note `index` has 24 of them, so notes overlap like real text does. */
function noteWords(index: number): string[] {
  let seed = index * 2654435761 + 1;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  return Array.from({ length: 24 }, () => VOCABULARY[Math.floor(next() ** 2 * VOCABULARY.length)]);
}

function noteWrites(embedder: HashingEmbedder, indexes: readonly number[], words: (index: number) => string[] = noteWords): Promise<DocumentWrite[]> {
  return Promise.all(indexes.map((index) => markdownWrite(`notes/n${index}.md`, `${words(index).join(' ')}\n`, embedder)));
}

async function vectorIndexOf(store: LanceStore): Promise<lancedb.IndexConfig | undefined> {
  return (await chunksTableOf(store).listIndices()).find((index) => index.name === VECTOR_INDEX_NAME);
}

/** A query near note `index`: half of its words. */
function nearQuery(index: number): string {
  return noteWords(index).slice(0, 12).join(' ');
}

describe("The chunks' ANN vector index", function () {
  this.timeout(300_000);
  const embedder = new HashingEmbedder(64);
  let folder: ReturnType<typeof temporaryFolder>;
  let database: string;
  let store: LanceStore | undefined;

  before(async () => {
    folder = temporaryFolder('haiku-vector-index-');
    database = `${folder.path}/db`;
    const writer = await openStore({ uri: database, embedder });
    writer.testHooks.vectorIndexMinRows = MIN_ROWS;
    await writer.writeDocuments(await noteWrites(embedder, Array.from({ length: NOTES }, (_, index) => index)));
    await writer.optimize();
    await writer.close();
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  after(() => folder.cleanup());

  it('is built by the fold over every row once the table has its threshold of rows', async () => {
    store = await openStore({ uri: database, embedder });
    const index = await vectorIndexOf(store);
    assert.equal(index?.indexType, 'IvfRq', JSON.stringify(index));
    const stats = await chunksTableOf(store).indexStats(VECTOR_INDEX_NAME);
    assert.equal(stats?.numIndexedRows, NOTES);
    assert.equal(stats?.numUnindexedRows, 0);
    assert.equal(stats?.distanceType, 'dot');
  });

  it("answers a fresh process's first vector searches through it, with the exact search's hits", async () => {
    store = await openStore({ uri: database, embedder });
    const vectors = vectorSearchOf(store);
    const queries = Array.from({ length: 30 }, (_, index) => nearQuery(index * 61));
    const first: string[][] = [];
    const firstScores = new Map<string, number>();
    const { vectorQueries } = await withChunkQueriesNoted(store, async () => {
      for (const query of queries) {
        const hits = await store!.searchWith(query, { mode: 'vector', limit: 10, rerank: false });
        first.push(hits.map((hit) => hit.chunkId));
        hits.forEach((hit) => firstScores.set(`${query}\u0000${hit.chunkId}`, hit.score));
        // Each query as a process's first: nothing resident.
        vectors.invalidate();
      }
    });
    const plans = await Promise.all(vectorQueries.map((query) => query.explainPlan()));
    assert.ok(plans.length >= queries.length);
    for (const plan of plans) {
      assert.match(plan, new RegExp(`ANNSubIndex: name=${VECTOR_INDEX_NAME}`), plan);
      // A top 10 is re-ranked from at least VECTOR_INDEX_MIN_REFINED candidates, not 5 × its 13 rows.
      const candidates = Number(/ANNSubIndex: name=\S+, k=(\d+)/.exec(plan)?.[1]);
      assert.ok(candidates >= VECTOR_INDEX_MIN_REFINED, plan);
    }
    await vectors.warm();
    let found = 0;
    let sameTop = 0;
    for (const [position, query] of queries.entries()) {
      const exact = await store.searchWith(query, { mode: 'vector', limit: 10, rerank: false });
      const exactIds = exact.map((hit) => hit.chunkId);
      found += first[position].filter((id) => exactIds.includes(id)).length;
      sameTop += first[position][0] === exactIds[0] ? 1 : 0;
      for (const hit of exact) {
        const indexed = firstScores.get(`${query}\u0000${hit.chunkId}`);
        if (indexed !== undefined) {
          // Re-ranked by the exact vectors: the same score as the resident cache's.
          assert.ok(Math.abs(indexed - hit.score) < 1e-4, `${indexed} vs ${hit.score}`);
        }
      }
    }
    const recall = found / (queries.length * 10);
    assert.ok(recall >= 0.9, `recall@10 of the indexed search against the exact one: ${recall}`);
    assert.equal(sameTop, queries.length, 'the nearest note is always found first');
  });

  it('finds rows written after it was built (scanned exactly beside it) and never a replaced version', async () => {
    store = await openStore({ uri: database, embedder });
    store.testHooks.vectorIndexMinRows = MIN_ROWS;
    const replacedWords = (index: number) => noteWords(index).map((word) => `${word}x`);
    // Note 5 replaced by other words, note NOTES added; no fold, so neither is in the index.
    await store.writeDocuments([...(await noteWrites(embedder, [5], replacedWords)), ...(await noteWrites(embedder, [NOTES]))]);
    const stats = await chunksTableOf(store).indexStats(VECTOR_INDEX_NAME);
    assert.ok((stats?.numUnindexedRows ?? 0) >= 2, JSON.stringify(stats));
    vectorSearchOf(store).invalidate();
    const added = await store.searchWith(nearQuery(NOTES), { mode: 'vector', limit: 3, rerank: false });
    assert.match(added[0].uri, new RegExp(`n${NOTES}\\.md$`));
    vectorSearchOf(store).invalidate();
    const replaced = await store.searchWith(replacedWords(5).slice(0, 12).join(' '), { mode: 'vector', limit: 3, rerank: false });
    assert.match(replaced[0].uri, /n5\.md$/);
    assert.match(replaced[0].content, /x\b/, 'the replacement, not the indexed version');
    vectorSearchOf(store).invalidate();
    const old = await store.searchWith(nearQuery(5), { mode: 'vector', limit: 10, rerank: false });
    const oldText = noteWords(5).join(' ');
    assert.ok(old.length > 0);
    assert.ok(!old.some((hit) => hit.content.includes(oldText)), 'a superseded version is never a hit');
  });

  it('is not built below its threshold, and dropped by a fold that finds the table below it', async () => {
    store = await openStore({ uri: `${folder.path}/small`, embedder });
    await store.writeDocuments(await noteWrites(embedder, [1, 2, 3, 4, 5, 6, 7, 8]));
    await store.optimize();
    assert.equal(await vectorIndexOf(store), undefined);
    assert.match((await store.searchWith(nearQuery(3), { mode: 'vector', limit: 1, rerank: false }))[0].uri, /n3\.md$/);

    store.testHooks.vectorIndexMinRows = 8;
    await store.writeDocuments(await noteWrites(embedder, [9]));
    await store.optimize();
    assert.equal((await vectorIndexOf(store))?.indexType, 'IvfRq');
    store.testHooks.vectorIndexMinRows = 100;
    await store.writeDocuments(await noteWrites(embedder, [10]));
    await store.optimize();
    assert.equal(await vectorIndexOf(store), undefined);
    vectorSearchOf(store).invalidate();
    assert.match((await store.searchWith(nearQuery(10), { mode: 'vector', limit: 1, rerank: false }))[0].uri, /n10\.md$/);
  });

  it('leaves the search exact when its build fails, and the fold and every document whole', async () => {
    store = await openStore({ uri: `${folder.path}/failing`, embedder });
    store.testHooks.vectorIndexMinRows = 4;
    const failures: unknown[] = [];
    store.testHooks.vectorIndexFailed = (error) => failures.push(error);
    const chunks = chunksTableOf(store);
    const createIndex = chunks.createIndex.bind(chunks);
    // A full disk, for the vector index only.
    chunks.createIndex = (column, options) => (column === 'vector' ? Promise.reject(new Error('No space left on device')) : createIndex(column, options));
    await store.writeDocuments(await noteWrites(embedder, [1, 2, 3, 4, 5, 6, 7, 8]));
    await store.optimize();
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /No space left/);
    assert.equal(await vectorIndexOf(store), undefined);
    assert.equal((await store.listDocuments()).length, 8);
    assert.match((await store.search(nearQuery(6)))[0].uri, /n6\.md$/, 'the full-text index was built');
    assert.match((await store.searchWith(nearQuery(7), { mode: 'vector', limit: 1, rerank: false }))[0].uri, /n7\.md$/);
  });

  it('goes with the vector column when the embedder changes width, and comes back with the next fold', async () => {
    const path = `${folder.path}/resized`;
    store = await openStore({ uri: path, embedder });
    store.testHooks.vectorIndexMinRows = 4;
    await store.writeDocuments(await noteWrites(embedder, [1, 2, 3, 4, 5, 6, 7, 8]));
    await store.optimize();
    assert.equal((await vectorIndexOf(store))?.indexType, 'IvfRq');
    await store.close();

    const wider = new HashingEmbedder(128);
    store = await openStore({ uri: path, embedder: wider });
    store.testHooks.vectorIndexMinRows = 4;
    await store.reset();
    assert.equal(await vectorIndexOf(store), undefined, 'an index trained on the old vectors is gone with them');
    await store.writeDocuments(await noteWrites(wider, [1, 2, 3, 4, 5, 6, 7, 8]));
    await store.optimize();
    const index = await vectorIndexOf(store);
    assert.equal(index?.indexType, 'IvfRq');
    vectorSearchOf(store).invalidate();
    assert.match((await store.searchWith(nearQuery(2), { mode: 'vector', limit: 1, rerank: false }))[0].uri, /n2\.md$/);
  });
});
