import * as assert from 'node:assert/strict';
import { expandSearchResults } from '../../../src/core/search/contextExpansion';
import { documentIdForPath } from '../../../src/core/hash';
import { openStore, type LanceStore, type OpenStoreOptions } from '../../../src/node/store/lanceStore';
import { CountingReranker, HashingEmbedder, temporaryFolder } from '../../support/indexFixtures';
import { markdownWrite } from '../../support/documentWrites';

/** Texts where word overlap (vectors) and BM25 (full text) rank differently. */
const CORPUS: Record<string, string> = {
  'solar.md': '# Solar panels\n\nSolar panels convert sunlight into electricity for the house roof.\n',
  'wind.md': '# Wind\n\nTurbines turn wind into electricity; a wind farm powers houses, and wind speed matters.\n',
  'battery.md': '# Batteries\n\nA battery stores electricity from panels at night for the house.\n',
  'roof.md': '# Roof repair\n\nRepair the roof before installing panels; the roof must carry the panels.\n',
  'garden.md': '# Garden\n\nPlant tomatoes in sunlight and water the garden daily.\n',
  'grid.md': '# Grid\n\nThe grid buys surplus electricity; electricity prices vary.\n',
};

describe('SearchEngine', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof temporaryFolder>;
  const stores: LanceStore[] = [];

  async function storeWith(options: Partial<OpenStoreOptions>, files: Record<string, string> = CORPUS): Promise<LanceStore> {
    const store = await openStore({ uri: `${folder.path}/db${stores.length}`, ...options });
    stores.push(store);
    const embedder = options.embedder as HashingEmbedder | undefined;
    await store.writeDocuments(await Promise.all(Object.entries(files).map(([name, text]) => markdownWrite(name, text, embedder))));
    return store;
  }

  beforeEach(() => {
    folder = temporaryFolder('haiku-search-');
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) {
      await store.close();
    }
    folder.cleanup();
  });

  it('fuses full-text and vector rankings with 1-based, weighted RRF (k = 60)', async () => {
    const embedder = new HashingEmbedder(512);
    const store = await storeWith({ embedder });
    const query = 'electricity for the house from panels';
    const fullText = await store.searchWith(query, { mode: 'fullText', limit: 50 });
    const vector = await store.searchWith(query, { mode: 'vector', limit: 50 });
    assert.ok(fullText.length >= 4 && vector.length === 6);
    assert.notDeepEqual(fullText.map((result) => result.chunkId), vector.map((result) => result.chunkId).slice(0, fullText.length), 'the two rankings differ');

    const expected = new Map<string, number>();
    fullText.forEach((result, index) => expected.set(result.chunkId, (expected.get(result.chunkId) ?? 0) + 1 / (60 + index + 1)));
    vector.forEach((result, index) => expected.set(result.chunkId, (expected.get(result.chunkId) ?? 0) + 1 / (60 + index + 1)));
    const hybrid = await store.search(query, { limit: 6 });
    assert.equal(hybrid.length, 6);
    for (const result of hybrid) {
      assert.ok(Math.abs(result.score - expected.get(result.chunkId)!) < 1e-12, `RRF score of ${result.chunkId}`);
    }
    const expectedOrder = [...expected].sort((left, right) => right[1] - left[1]).map(([id]) => id);
    assert.deepEqual(hybrid.map((result) => result.score), [...hybrid.map((result) => result.score)].sort((left, right) => right - left));
    assert.deepEqual(new Set(hybrid.map((result) => result.chunkId)), new Set(expectedOrder.slice(0, 6)));
    assert.deepEqual(hybrid.map((result) => result.rank), [1, 2, 3, 4, 5, 6]);

    // Weight 0 on full text: the fusion follows the vector ranking alone.
    const vectorOnly = await storeWith({ embedder, search: { fullTextWeight: 0 } });
    assert.deepEqual((await vectorOnly.search(query, { limit: 6 })).map((result) => result.chunkId), vector.map((result) => result.chunkId));
  });

  it('embeds each query once per session and never for an empty query', async () => {
    const embedder = new HashingEmbedder(64);
    const store = await storeWith({ embedder });
    const before = embedder.calls;
    assert.deepEqual(await store.search('   '), []);
    assert.equal(embedder.calls, before);
    await store.search('wind farm');
    await store.search('wind farm', { limit: 2 });
    assert.equal(embedder.calls, before + 1);
  });

  it('runs the full-text query of a hybrid search while the query is embedded', async () => {
    const embedder = new HashingEmbedder(64);
    const store = await storeWith({ embedder });
    const events: string[] = [];
    const embed = embedder.embed.bind(embedder);
    embedder.embed = async (texts, options) => {
      events.push('embedding');
      await new Promise((resolve) => setTimeout(resolve, 100));
      events.push('embedded');
      return embed(texts, options);
    };
    const fullTextCandidates = store.fullTextCandidates.bind(store);
    store.fullTextCandidates = async (...args) => {
      events.push('full text');
      const candidates = await fullTextCandidates(...args);
      events.push('full text done');
      return candidates;
    };
    const hits = await store.search('wind farm electricity', { limit: 3 });
    assert.ok(hits.length > 0);
    assert.deepEqual(events.slice(0, 2).sort(), ['embedding', 'full text']);
    assert.ok(events.indexOf('full text done') < events.indexOf('embedded'), events.join(', '));

    // An embedder that fails fails the search with its message, and leaves nothing unhandled.
    embedder.embed = () => Promise.reject(new Error('connection refused'));
    await assert.rejects(store.search('solar roof panels', { limit: 3 }), /Embedding the query failed: connection refused/);
  });

  it('scans resident vectors and LanceDB alike, and keeps the cache current after writes', async () => {
    const embedder = new HashingEmbedder(128);
    const cached = await storeWith({ embedder });
    const scanned = await storeWith({ embedder, vectorCacheMaxBytes: 0 });
    const fetched = await storeWith({ embedder, residentRowsMaxBytes: 0 });
    for (const query of ['electricity', 'roof panels repair', 'garden tomatoes sunlight', 'wind speed']) {
      const left = await cached.searchWith(query, { mode: 'vector', limit: 6 });
      const right = await scanned.searchWith(query, { mode: 'vector', limit: 6 });
      assert.deepEqual(await fetched.searchWith(query, { mode: 'vector', limit: 6 }), left, 'rows fetched per query equal resident rows');
      assert.equal(left.length, right.length);
      left.forEach((result, index) => {
        assert.ok(Math.abs(result.score - right[index].score) < 1e-5, query);
        const tied = left.some((other, otherIndex) => otherIndex !== index && Math.abs(other.score - result.score) < 1e-6);
        if (!tied) {
          assert.equal(result.chunkId, right[index].chunkId, query);
        }
      });
    }
    // The cache is loaded now; a new, a replaced and a removed document must show at once.
    await cached.writeDocuments([await markdownWrite('kite.md', '# Kites\n\nKites fly in strong wind over the beach.\n', embedder)]);
    assert.equal((await cached.searchWith('kites beach', { mode: 'vector', limit: 1 }))[0].title, 'Kites');
    await cached.writeDocuments([await markdownWrite('kite.md', '# Sailing\n\nBoats sail on the lake.\n', embedder)]);
    assert.equal((await cached.searchWith('boats sail lake', { mode: 'vector', limit: 1 }))[0].content, 'Boats sail on the lake.');
    const afterReplace = await cached.searchWith('kites beach strong', { mode: 'vector', limit: 10 });
    assert.ok(afterReplace.every((result) => result.title !== 'Kites'));
    await cached.removeDocuments([documentIdForPath('kite.md')]);
    assert.ok((await cached.searchWith('boats sail lake', { mode: 'vector', limit: 10 })).every((result) => result.title !== 'Sailing'));
  });

  it('reranks a pool of limit × rerankPoolFactor candidates down to limit', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 30; index++) {
      files[`doc${index}.md`] = `# Doc ${index}\n\nMeasurement ${'sensor '.repeat(1 + (index % 5))}reading number ${index}.\n`;
    }
    const reranker = new CountingReranker();
    const store = await storeWith({ reranker, search: { rerankPoolFactor: 4 } }, files);
    const results = await store.search('sensor reading', { limit: 3 });
    assert.equal(reranker.calls.length, 1);
    assert.equal(reranker.calls[0].documents.length, 12);
    assert.equal(reranker.calls[0].topN, 3);
    assert.equal(results.length, 3);
    assert.deepEqual(results.map((result) => result.rank), [1, 2, 3]);
    assert.ok(results[0].score >= results[1].score && results[1].score >= results[2].score);
    // The reranker's scores are what the results carry (occurrences of the query words).
    assert.equal(results[0].score, 6);
  });

  it('expands results with their section when asked, fetching items per document', async () => {
    // Paragraphs of ~180 tokens: one chunk each, so a hit is smaller than its section.
    const filler = (topic: string) => `${topic} rules apply to every employee of the company without exception. `.repeat(15).trim();
    const text = [
      '# Handbook',
      '## Holidays',
      `Employees get twenty days of leave. ${filler('Leave')}`,
      `Unused leave carries over to March. ${filler('Carry-over')}`,
      `Leave requests need approval. ${filler('Approval')}`,
      '## Travel',
      `Book trains for trips under four hours. ${filler('Travel')}`,
      `Hotels are booked by the office. ${filler('Hotel')}`,
    ].join('\n\n');
    const store = await storeWith({}, { 'handbook.md': text, 'other.md': '# Other\n\nUnrelated leave policy notes.\n' });
    const plain = await store.search('carries over March', { limit: 1 });
    const expanded = await store.search('carries over March', { limit: 1, expand: true });
    assert.equal(plain.length, 1);
    assert.doesNotMatch(plain[0].content, /twenty days/, 'the matched chunk alone lacks the rest of its section');
    assert.equal(expanded[0].chunkId, plain[0].chunkId);
    assert.match(expanded[0].content, /twenty days of leave/);
    assert.match(expanded[0].content, /carries over to March/);
    assert.match(expanded[0].content, /need approval/);
    assert.doesNotMatch(expanded[0].content, /Book trains/, 'stays inside the Holidays section');
    assert.equal(expanded[0].rank, 1);
    // Reading only the window of items around the matches gives what expanding over every item gives.
    const many = await store.search('leave employee rules', { limit: 6 });
    const fromAllItems = expandSearchResults(many, await store.itemsForDocuments(many.map((result) => result.documentId)), { maxContextChars: 5000 });
    assert.deepEqual(await store.search('leave employee rules', { limit: 6, expand: true }), fromAllItems);
    // Cached items follow a replacement of the document.
    await store.writeDocuments([await markdownWrite('handbook.md', text.replace('twenty days', 'thirty days'))]);
    const afterEdit = await store.search('carries over March', { limit: 1, expand: true });
    assert.match(afterEdit[0].content, /thirty days of leave/);
    assert.doesNotMatch(afterEdit[0].content, /twenty days/);

    // A long document (600 items), so the window is a small part of it.
    const sections = Array.from({ length: 40 }, (_, section) => [`## Section ${section}`, ...Array.from({ length: 14 }, (_, paragraph) => `Paragraph ${paragraph} of section ${section} mentions ${section === 23 && paragraph === 7 ? 'the unique okapi' : 'ordinary things'} in passing.`)].join('\n\n'));
    const long = await storeWith({ search: { maxContextChars: 800 } }, { 'long.md': `# Long\n\n${sections.join('\n\n')}\n`, 'short.md': '# Short\n\nOrdinary things.\n' });
    const longItems = await long.itemsForDocuments([documentIdForPath('long.md')]);
    assert.ok(longItems.get(documentIdForPath('long.md'))!.length > 500);
    for (const query of ['unique okapi', 'section 23 paragraph', 'ordinary things passing']) {
      const hits = await long.search(query, { limit: 5 });
      const expected = expandSearchResults(hits, await long.itemsForDocuments(hits.map((result) => result.documentId)), { maxContextChars: 800 });
      assert.deepEqual(await long.search(query, { limit: 5, expand: true }), expected, query);
    }
  });
});
