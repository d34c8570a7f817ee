import * as assert from 'node:assert/strict';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { VECTOR_CACHE_WARM_DELAY_MS } from '../../../src/node/store/vectorSearch';
import { HashingEmbedder, temporaryFolder } from '../../support/indexFixtures';
import { markdownWrite } from '../../support/documentWrites';
import { vectorSearchOf, withChunkQueriesNoted } from '../../support/chunkQueries';

const CORPUS: Record<string, string> = {
  'solar.md': '# Solar panels\n\nSolar panels convert sunlight into electricity for the house roof.\n',
  'wind.md': '# Wind\n\nTurbines turn wind into electricity; a wind farm powers houses, and wind speed matters.\n',
  'battery.md': '# Batteries\n\nA battery stores electricity from panels at night for the house.\n',
  'roof.md': '# Roof repair\n\nRepair the roof before installing panels; the roof must carry the panels.\n',
  'garden.md': '# Garden\n\nPlant tomatoes in sunlight and water the garden daily.\n',
};

describe('First vector query of a process', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let store: LanceStore | undefined;

  beforeEach(async () => {
    folder = temporaryFolder('haiku-first-vector-');
    const embedder = new HashingEmbedder();
    const writer = await openStore({ uri: `${folder.path}/db`, embedder });
    await writer.writeDocuments(await Promise.all(Object.entries(CORPUS).map(([name, text]) => markdownWrite(name, text, embedder))));
    await writer.close();
    // A fresh store, as a new process opens it: nothing resident yet.
    store = await openStore({ uri: `${folder.path}/db`, embedder });
  });

  afterEach(async () => {
    await store?.close();
    folder.cleanup();
  });

  it('is answered by LanceDB without loading every vector, with the results the resident cache gives', async () => {
    const vectors = vectorSearchOf(store!);
    for (const mode of ['vector', 'hybrid'] as const) {
      const first = await store!.searchWith('electricity for the house', { mode, limit: 4, rerank: false });
      assert.ok(first.length > 0);
      // Loading the cache loads the resident rows with it; the first query must not have waited for that.
      assert.equal(vectors.residentRow(first[0].chunkId), undefined, `the first ${mode} query loaded the vector cache`);
      await vectors.warm();
      assert.notEqual(vectors.residentRow(first[0].chunkId), undefined, 'warm() loads the cache');
      const warm = await store!.searchWith('electricity for the house', { mode, limit: 4, rerank: false });
      assert.deepEqual(warm.map((hit) => hit.chunkId), first.map((hit) => hit.chunkId));
      for (let index = 0; index < first.length; index++) {
        assert.ok(Math.abs(warm[index].score - first[index].score) < 1e-4, `score of hit ${index}: ${warm[index].score} vs ${first[index].score}`);
      }
      vectors.invalidate();
    }
  });

  it("takes a first hybrid search's rows from its candidate queries, with no lookup by id (it loads the id index)", async () => {
    const { result: hits, conditions } = await withChunkQueriesNoted(store!, () => store!.searchWith('electricity for the house', { mode: 'hybrid', limit: 4, rerank: false }));
    assert.ok(hits.length > 0 && hits.every((hit) => hit.content.length > 0));
    assert.deepEqual(conditions.filter((condition) => /^id IN/.test(condition)), []);
  });

  it('fetches a margin for rows of superseded versions, so a replaced document costs no second scan', async () => {
    const vectors = vectorSearchOf(store!);
    const embedder = new HashingEmbedder();
    // Replaced, before the upkeep that deletes the old rows: the old solar chunk stays in the table, nearest the query.
    await store!.writeDocuments([await markdownWrite('solar.md', '# Solar panels\n\nThe panels were sold last spring.\n', embedder)]);
    vectors.invalidate();
    const { result: hits, vectorQueries } = await withChunkQueriesNoted(store!, () =>
      store!.searchWith('Solar panels convert sunlight into electricity for the house roof.', { mode: 'vector', limit: 4, rerank: false }),
    );
    assert.equal(hits.length, 4);
    assert.ok(!hits.some((hit) => hit.content.includes('convert sunlight')), 'the superseded version is no hit');
    assert.equal(vectorQueries.length, 1);
  });

  it('loads the cache in the background shortly after the first query', async () => {
    const vectors = vectorSearchOf(store!);
    const [hit] = await store!.searchWith('sunlight', { mode: 'vector', limit: 1, rerank: false });
    const deadline = Date.now() + VECTOR_CACHE_WARM_DELAY_MS + 30_000;
    while (vectors.residentRow(hit.chunkId) === undefined) {
      assert.ok(Date.now() < deadline, 'the cache never loaded after the first query');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('starts loading the cache only after the first scan ended, however long that scan took', async () => {
    const vectors = vectorSearchOf(store!);
    const tables = (vectors as unknown as { tables: { chunks: { query(): unknown; countRows(): Promise<number> } } }).tables;
    // The real table, with its scans slowed past the warm delay (a loaded machine) and its cache-load reads noted.
    const chunks = tables.chunks;
    const events: string[] = [];
    const query = chunks.query.bind(chunks);
    const countRows = chunks.countRows.bind(chunks);
    tables.chunks = Object.assign(Object.create(chunks) as typeof chunks, {
      query: () => {
        const builder = query() as { nearestTo(vector: number[]): { toArray(): Promise<unknown> } };
        const nearestTo = builder.nearestTo.bind(builder);
        return Object.assign(builder, {
          nearestTo: (vector: number[]) => {
            const vectorQuery = nearestTo(vector) as Record<string, unknown>;
            const toArrow = (vectorQuery.toArrow as () => Promise<unknown>).bind(vectorQuery);
            vectorQuery.toArrow = async () => {
              events.push('scan');
              await new Promise((resolve) => setTimeout(resolve, VECTOR_CACHE_WARM_DELAY_MS * 2));
              const result = await toArrow();
              events.push('scan done');
              return result;
            };
            return vectorQuery;
          },
        });
      },
      countRows: () => {
        events.push('cache load');
        return countRows();
      },
    });
    try {
      await store!.searchWith('sunlight', { mode: 'vector', limit: 1, rerank: false });
      await new Promise((resolve) => setTimeout(resolve, VECTOR_CACHE_WARM_DELAY_MS + 200));
      assert.deepEqual(events.slice(0, 3), ['scan', 'scan done', 'cache load']);
    } finally {
      tables.chunks = chunks;
    }
  });

  it('drops a background load that a write overtook, so the cache never misses a document', async () => {
    const vectors = vectorSearchOf(store!);
    await store!.searchWith('sunlight', { mode: 'vector', limit: 1, rerank: false });
    // The write lands while (or before) the delayed load reads the table.
    await new Promise((resolve) => setTimeout(resolve, VECTOR_CACHE_WARM_DELAY_MS));
    const embedder = new HashingEmbedder();
    await store!.writeDocuments([await markdownWrite('tidal.md', '# Tidal\n\nTidal turbines make electricity from sea currents.\n', embedder)]);
    await vectors.warm();
    const found = await store!.searchWith('tidal turbines sea currents', { mode: 'vector', limit: 1, rerank: false });
    assert.match(found[0].uri, /tidal\.md$/);
  });
});
