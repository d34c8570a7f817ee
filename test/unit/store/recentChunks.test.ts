import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import { RECENT_CHUNKS_MAX_ROWS } from '../../../src/core/limits';
import { loadScifactCorpus, loadScifactQueries, writeScifactFiles } from '../../../scripts/scifactCorpus';
import { createConversionPool, type ConversionPool } from '../../../src/node/convert/conversionPool';
import { indexPaths } from '../../../src/node/index/indexer';
import type { SearchResult } from '../../../src/core/model/search';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { RECENT_CHUNKS_TABLE, singleTokenPieces } from '../../../src/node/store/recentChunks';
import { CHUNKS_TABLE } from '../../../src/node/store/schema';
import { FULL_TEXT_INDEX_NAME } from '../../../src/node/store/storeTables';
import { temporaryFolder } from '../../support/indexFixtures';
import { scifactAvailable, skipUnlessScifact } from '../../support/paths';

/** What is on disk: rows in the recent table, and rows the main FTS index does not cover yet. */
async function fullTextState(indexFolder: string): Promise<{ recentRows: number; mainUnindexed: number }> {
  const connection = await lancedb.connect(indexFolder);
  try {
    let recentRows = 0;
    if ((await connection.tableNames()).includes(RECENT_CHUNKS_TABLE)) {
      recentRows = await (await connection.openTable(RECENT_CHUNKS_TABLE)).countRows();
    }
    const stats = await (await connection.openTable(CHUNKS_TABLE)).indexStats(FULL_TEXT_INDEX_NAME);
    return { recentRows, mainUnindexed: stats?.numUnindexedRows ?? 0 };
  } finally {
    connection.close();
  }
}


describe('Recent chunks: edits searchable at once, without rebuilding the main FTS index', function () {
  this.timeout(240_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;
  let pool: ConversionPool;
  let documents: string;
  let indexFolder: string;
  if (!scifactAvailable) {
    // The dataset is optional (a clone alone has none): say so instead of failing while the suite loads.
    it('needs the SciFact dataset', function () {
      skipUnlessScifact(this);
    });
    return;
  }
  const corpus = loadScifactCorpus(600);

  beforeEach(async () => {
    folder = temporaryFolder('haiku-recent-');
    indexFolder = path.join(folder.path, 'index');
    documents = path.join(folder.path, 'documents');
    writeScifactFiles(documents, corpus);
    store = await openStore({ uri: indexFolder });
    pool = createConversionPool();
    await indexPaths({ roots: [documents], baseFolder: documents, store, conversionPool: pool });
  });

  afterEach(async () => {
    await pool.dispose();
    await store.close();
    folder.cleanup();
  });

  /** Re-indexes one file the way the VS Code watcher does (optimize left to the debounce). */
  async function edit(file: string, sentence: string): Promise<void> {
    fs.appendFileSync(file, `\n${sentence}\n`);
    const summary = await indexPaths({ roots: [file], baseFolder: documents, store, optimize: false, conversionPool: pool });
    assert.equal(summary.updated.length, 1);
  }

  it('finds edited files through the recent table, and ranks like a full rebuild (scores on the main index scale)', async () => {
    const edited = corpus.filter((_, index) => index % 30 === 7).map((document) => path.join(documents, `${document._id}.md`));
    for (const [index, file] of edited.entries()) {
      await edit(file, `A note about zebrafinch${index} added while editing.`);
    }
    const first = await store.searchWith('zebrafinch3', { mode: 'fullText', limit: 3, rerank: false });
    assert.equal(first[0]?.uri, `file://${edited[3]}`);
    assert.match(first[0].content, /zebrafinch3 added/);
    const before = await fullTextState(indexFolder);
    assert.ok(before.recentRows > 0, 'the edits were copied to the recent table');
    assert.ok(before.mainUnindexed > 0, 'the main FTS index was not rebuilt for the search');

    // The same queries after the fold (main index rebuilt with every row): the rankings agree, and an edited
    // file's chunk scores within 15% of its folded score. Without the rescaling of recent scores (their IDFs
    // come from a 20-document table) 45 of these 60 lists stay identical and edited chunks score far lower.
    const queries = [...loadScifactQueries().values()].slice(0, 60);
    const editedUris = new Set(edited.map((file) => `file://${file}`));
    const recentRankings: SearchResult[][] = [];
    for (const query of queries) {
      recentRankings.push(await store.searchWith(query, { mode: 'fullText', limit: 10, rerank: false }));
    }
    // A read-only process sees the edited rows twice: flat-searched in the main table (it cannot know they were
    // copied) and in the recent table. It must rank like the writer.
    const reader = await openStore({ uri: indexFolder, readOnly: true });
    const readerRankings: SearchResult[][] = [];
    try {
      for (const query of queries) {
        readerRankings.push(await reader.searchWith(query, { mode: 'fullText', limit: 10, rerank: false }));
      }
    } finally {
      await reader.close();
    }
    await store.optimize();
    const after = await fullTextState(indexFolder);
    assert.deepEqual(after, { recentRows: 0, mainUnindexed: 0 });
    let identical = 0;
    let overlap = 0;
    let readerIdentical = 0;
    const scoreGaps: string[] = [];
    for (const [index, query] of queries.entries()) {
      const folded = await store.searchWith(query, { mode: 'fullText', limit: 10, rerank: false });
      const recentIds = recentRankings[index].map((result) => result.chunkId);
      identical += folded.map((result) => result.chunkId).join() === recentIds.join() ? 1 : 0;
      readerIdentical += folded.map((result) => result.chunkId).join() === readerRankings[index].map((result) => result.chunkId).join() ? 1 : 0;
      overlap += folded.filter((result) => recentIds.includes(result.chunkId)).length / Math.max(1, folded.length);
      for (const result of folded.filter((hit) => editedUris.has(hit.uri))) {
        const before = recentRankings[index].find((hit) => hit.chunkId === result.chunkId);
        if (!before || Math.abs(before.score - result.score) / result.score > 0.15) {
          scoreGaps.push(`query ${index}: ${result.chunkId} scored ${before?.score.toFixed(2) ?? 'absent'} before the fold, ${result.score.toFixed(2)} after`);
        }
      }
    }
    assert.deepEqual(scoreGaps, []);
    assert.ok(identical >= queries.length * 0.85, `identical top-10 lists: ${identical} of ${queries.length}`);
    // Taking the flat search's score where a row is in both gave 3 lists fewer than the writer here; the higher score, none.
    assert.ok(readerIdentical >= identical - 1, `identical top-10 lists in the read-only process: ${readerIdentical} of ${queries.length}, the writer ${identical}`);
    assert.ok(overlap / queries.length >= 0.97, `mean top-10 overlap ${(overlap / queries.length).toFixed(3)}`);
    assert.equal((await store.searchWith('zebrafinch3', { mode: 'fullText', limit: 1, rerank: false }))[0]?.uri, `file://${edited[3]}`);
  });

  it('never returns a superseded version or a removed file from the recent table', async () => {
    const [kept, removed] = [path.join(documents, `${corpus[10]._id}.md`), path.join(documents, `${corpus[11]._id}.md`)];
    await edit(kept, 'First version mentions quokkaone.');
    await edit(kept, 'Second version mentions quokkatwo.');
    await edit(removed, 'Soon gone, mentions quokkagone.');
    fs.rmSync(removed);
    await indexPaths({ roots: [documents], baseFolder: documents, store, optimize: false, conversionPool: pool, removeMissing: true });
    const found = await store.searchWith('quokkaone quokkatwo quokkagone', { mode: 'fullText', limit: 10, rerank: false });
    assert.deepEqual(found.map((result) => result.uri), [`file://${kept}`]);
    assert.match(found[0].content, /quokkatwo/);
    assert.ok((await fullTextState(indexFolder)).recentRows > 0);
  });

  it('another process reading the index finds a changed file at once, in its new version only, and never writes', async () => {
    const file = path.join(documents, `${corpus[20]._id}.md`);
    fs.writeFileSync(file, '# Wombat notes\n\nThis version mentions a numbat.\n');
    const reader = await openStore({ uri: indexFolder, readOnly: true });
    const readerFinds = async (word: string) => (await reader.searchWith(word, { mode: 'fullText', limit: 5, rerank: false })).map((result) => result.uri);
    try {
      await indexPaths({ roots: [file], baseFolder: documents, store, optimize: false, conversionPool: pool });
      fs.writeFileSync(file, '# Wombat notes\n\nThis version mentions a wallaroo.\n');
      await indexPaths({ roots: [file], baseFolder: documents, store, optimize: false, conversionPool: pool });
      await reader.refresh();
      // The writer has neither searched nor run its upkeep (as if killed after its switch): its rows are in no
      // FTS index, and the reader flat-searches them instead of losing the file until the next fold.
      assert.ok((await fullTextState(indexFolder)).mainUnindexed > 0);
      const versions = await reader.tableVersions();
      assert.deepEqual(await readerFinds('wallaroo'), [`file://${file}`]);
      assert.deepEqual(await readerFinds('numbat'), [], 'the superseded version is never returned');
      await reader.refresh();
      assert.deepEqual(await reader.tableVersions(), versions, 'the reader wrote nothing');
      await store.searchWith('wallaroo', { mode: 'fullText', limit: 1, rerank: false });
      await store.optimize();
      await reader.refresh();
      assert.deepEqual(await readerFinds('wallaroo'), [`file://${file}`]);
      assert.deepEqual(await fullTextState(indexFolder), { recentRows: 0, mainUnindexed: 0 });
    } finally {
      await reader.close();
    }
  });

  it('an index run that changed a few files copies them instead of rebuilding the main index; rows without a copy make it fold', async () => {
    const [first, second, third] = [30, 31, 32].map((index) => path.join(documents, `${corpus[index]._id}.md`));
    fs.appendFileSync(first, '\nA sentence about okapione.\n');
    fs.appendFileSync(second, '\nA sentence about okapitwo.\n');
    const run = await indexPaths({ roots: [documents], baseFolder: documents, store, conversionPool: pool });
    assert.equal(run.updated.length, 2);
    const afterRun = await fullTextState(indexFolder);
    assert.ok(afterRun.recentRows > 0 && afterRun.mainUnindexed > 0, `no fold at the end of the run: ${JSON.stringify(afterRun)}`);
    assert.equal((await store.searchWith('okapitwo', { mode: 'fullText', limit: 1, rerank: false }))[0]?.uri, `file://${second}`);
    const reader = await openStore({ uri: indexFolder, readOnly: true });
    try {
      assert.equal((await reader.searchWith('okapione', { mode: 'fullText', limit: 1, rerank: false }))[0]?.uri, `file://${first}`);
    } finally {
      await reader.close();
    }

    // Another writer's rows that never got their copy (it closed before its upkeep, as if killed): the next run folds.
    const other = await openStore({ uri: indexFolder });
    fs.appendFileSync(third, '\nA sentence about okapithree.\n');
    await indexPaths({ roots: [third], baseFolder: documents, store: other, optimize: false, conversionPool: pool });
    await other.close();
    assert.ok((await fullTextState(indexFolder)).mainUnindexed > afterRun.mainUnindexed);
    fs.appendFileSync(first, '\nAnother sentence about okapifour.\n');
    await indexPaths({ roots: [documents], baseFolder: documents, store, conversionPool: pool });
    assert.deepEqual(await fullTextState(indexFolder), { recentRows: 0, mainUnindexed: 0 });
    for (const [word, file] of [['okapione', first], ['okapitwo', second], ['okapithree', third], ['okapifour', first]]) {
      assert.equal((await store.searchWith(word, { mode: 'fullText', limit: 1, rerank: false }))[0]?.uri, `file://${file}`, word);
    }
  });

  it(`past ${RECENT_CHUNKS_MAX_ROWS} rows the main index is rebuilt instead of copying`, async () => {
    const big = path.join(documents, 'big.md');
    fs.writeFileSync(big, Array.from({ length: RECENT_CHUNKS_MAX_ROWS + 50 }, (_, index) => `## Part ${index}\n\nSection text number ${index} about capybara${index}.\n`).join('\n'));
    await indexPaths({ roots: [big], baseFolder: documents, store, optimize: false, conversionPool: pool });
    const found = await store.searchWith(`capybara${RECENT_CHUNKS_MAX_ROWS + 10}`, { mode: 'fullText', limit: 1, rerank: false });
    assert.equal(found[0]?.uri, `file://${big}`);
    assert.deepEqual(await fullTextState(indexFolder), { recentRows: 0, mainUnindexed: 0 });
  });
});

describe('singleTokenPieces', () => {
  it('splits a query where the simple tokenizer does, lower-cased, once each', () => {
    assert.deepEqual(singleTokenPieces('COVID-19 and covid, apoE4/apoE3 «Zürich» x'.concat('y'.repeat(41))), ['covid', '19', 'and', 'apoe4', 'apoe3', 'zürich']);
  });

  it('keeps what the tokenizer keeps: words under 40 bytes, vowel signs inside a word', () => {
    assert.deepEqual(singleTokenPieces(`${'a'.repeat(39)} ${'b'.repeat(40)}`), ['a'.repeat(39)]);
    // 13 Thai letters are 39 bytes, 14 are 42; the vowel sign U+0E34 is alphabetic to the tokenizer.
    assert.deepEqual(singleTokenPieces(`${'ก'.repeat(13)} ${'ข'.repeat(14)} คิง`), ['ก'.repeat(13), 'คิง']);
  });
});
