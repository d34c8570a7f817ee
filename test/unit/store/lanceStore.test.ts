import * as assert from 'node:assert/strict';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import { isHaikuError } from '../../../src/core/errors';
import { OPTIMIZE_DEBOUNCE_MS } from '../../../src/core/limits';
import { documentIdForPath } from '../../../src/core/hash';
import { openStore, type DocumentWrite, type LanceStore } from '../../../src/node/store/lanceStore';
import { HashingEmbedder, temporaryFolder } from '../../support/indexFixtures';
import { markdownWrite } from '../../support/documentWrites';

describe('LanceStore', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;

  beforeEach(async () => {
    folder = temporaryFolder('haiku-store-');
    store = await openStore({ uri: folder.path });
  });

  afterEach(async () => {
    await store.close();
    folder.cleanup();
  });

  it('stores documents, items with chunk ids, and content; lists and counts them', async () => {
    await store.writeDocuments([
      await markdownWrite('guide/alpha.md', '# Alpha guide\n\nThe alpha module configures pipelines.\n\n## Setup\n\nInstall the alpha package first.\n'),
      await markdownWrite('beta.md', '# Beta\n\nBeta handles retries with exponential backoff.\n'),
    ]);
    const documents = await store.listDocuments();
    assert.deepEqual(documents.map((document) => document.relativePath), ['beta.md', 'guide/alpha.md']);
    const alpha = documents[1];
    assert.equal(alpha.title, 'Alpha guide');
    assert.equal(alpha.metadata.format, 'markdown');
    assert.match((await store.getDocumentContent(alpha.id)) ?? '', /Install the alpha package/);
    const items = await store.getDocumentItems(alpha.id);
    assert.deepEqual(items.map((item) => item.position), items.map((_, index) => index));
    assert.ok(items.every((item) => item.chunkIds.length > 0), 'every content item is referenced by a chunk');
    const chunks = await store.getChunks(items.flatMap((item) => item.chunkIds));
    assert.ok(chunks.length > 0);
    assert.equal(chunks[0].title, 'Alpha guide');
    const referencedChunkIds = new Set([...items.flatMap((item) => item.chunkIds), ...(await store.getDocumentItems(documents[0].id)).flatMap((item) => item.chunkIds)]);
    assert.deepEqual(await store.stats(), { documents: 2, chunks: (await store.getChunks([...referencedChunkIds])).length });
    assert.equal((await store.findDocument('guide/alpha.md'))?.id, alpha.id);
  });

  it('full-text search finds a word that only occurs in a heading', async () => {
    await store.writeDocuments([
      await markdownWrite('a.md', '# Overview\n\n## Quarantine procedures\n\nWash hands and wait two weeks.\n'),
      await markdownWrite('b.md', '# Other\n\nNothing about that here, only washing cars.\n'),
    ]);
    const results = await store.search('quarantine');
    assert.equal(results.length, 1);
    assert.equal(results[0].content.includes('Quarantine'), false, 'the word is only in the heading trail');
    assert.deepEqual(results[0].headings.slice(-1), ['Quarantine procedures']);
    assert.equal(results[0].rank, 1);
    assert.ok(results[0].score > 0);
  });

  it('keeps the previous version searchable when a replacement fails between writes, then switches cleanly', async () => {
    await store.writeDocuments([await markdownWrite('doc.md', '# Doc\n\nThe original text mentions marmalade.\n')]);
    const id = documentIdForPath('doc.md');
    const itemsBefore = await store.getDocumentItems(id);
    store.testHooks.beforeDocumentSwitch = () => {
      throw new Error('injected failure');
    };
    await assert.rejects(store.writeDocuments([await markdownWrite('doc.md', '# Doc\n\nThe replacement text mentions porcupines.\n')]), /injected failure/);
    store.testHooks.beforeDocumentSwitch = undefined;

    assert.equal((await store.search('marmalade')).length, 1, 'old version still found');
    assert.equal((await store.search('porcupines')).length, 0, 'half-written new version invisible');
    assert.deepEqual(await store.getDocumentItems(id), itemsBefore);
    assert.deepEqual(await store.stats(), { documents: 1, chunks: 1 });

    // A reader opening the same folder from scratch sees the same thing.
    const reader = await openStore({ uri: folder.path });
    assert.equal((await reader.search('porcupines')).length, 0);
    assert.equal((await reader.search('marmalade')).length, 1);
    await reader.close();

    await store.writeDocuments([await markdownWrite('doc.md', '# Doc\n\nThe replacement text mentions porcupines.\n')]);
    assert.equal((await store.search('marmalade')).length, 0);
    assert.equal((await store.search('porcupines')).length, 1);
    await store.optimize({ sweepOrphans: true });
    const raw = await (await lancedb.connect(folder.path)).openTable('chunks');
    assert.equal(await raw.countRows(), 1, 'orphaned and superseded rows are gone after the sweep');
  });

  it('applies a filter before ranking so the limit is honoured, and reports an invalid filter', async () => {
    const writes: DocumentWrite[] = [];
    for (let index = 0; index < 40; index++) {
      writes.push(await markdownWrite(`noise/${index}.md`, `# Noise ${index}\n\nBanana banana banana split recipe number ${index}.\n`));
    }
    const sections = Array.from({ length: 8 }, (_, index) => `## Part ${index}\n\nA banana appears once in part ${index}.\n`).join('\n');
    writes.push(await markdownWrite('target/bananas.md', `# Target\n\n${sections}`));
    await store.writeDocuments(writes);
    const unfiltered = await store.search('banana', { limit: 6 });
    assert.ok(unfiltered.every((result) => result.uri.includes('/noise/')), 'the noise documents outrank the target');
    const filtered = await store.search('banana', { limit: 6, filter: "relative_path LIKE 'target/%'" });
    assert.equal(filtered.length, 6);
    assert.ok(filtered.every((result) => result.uri.endsWith('target/bananas.md')));
    assert.deepEqual(await store.search('banana', { filter: "title = 'nothing matches'" }), []);

    await assert.rejects(store.search('banana', { filter: 'no_such_column = 1' }), (error: unknown) => {
      assert.ok(isHaikuError(error, 'invalid_filter'));
      assert.match(error.message, /no_such_column/);
      return true;
    });
    await assert.rejects(store.search('banana', { filter: "title = 'unterminated" }), (error: unknown) => isHaikuError(error, 'invalid_filter'));
    assert.equal((await store.listDocuments({ filter: "relative_path = 'target/bananas.md'" })).length, 1);
    // Quotes in ids are escaped, never interpolated raw.
    assert.deepEqual(await store.getChunks(["x' OR '1'='1"]), []);
  });

  it('round-trips content exactly when one replaced document switches by update', async () => {
    await store.writeDocuments([await markdownWrite('tricky.md', '# Tricky\n\nPlain first version.\n')]);
    const tricky = "# Tricky\n\nIt's a \"quote\" with a backslash \\n, a tab\t, 'single' quotes '', unicode café 🧬 and $$ or %; -- not a comment\n";
    await store.writeDocuments([await markdownWrite('tricky.md', tricky)]);
    assert.equal(await store.getDocumentContent(documentIdForPath('tricky.md')), tricky);
    const [summary] = await store.listDocuments();
    assert.equal(summary.title, 'Tricky');
    assert.equal((await store.search('unicode café')).length, 1);
    assert.equal((await store.search('plain first version')).length, 0);
  });

  it('lays the rows of a write out in path order, whatever order its documents finished converting in', async () => {
    const paths = ['notes/c.md', 'a.md', 'notes/b.md', 'b.md'];
    const entries = await Promise.all(paths.map((relativePath) => markdownWrite(relativePath, `# ${relativePath}\n\nOne paragraph.\n\nAnother paragraph.\n`)));
    await store.writeDocuments(entries);
    const connection = await lancedb.connect(folder.path);
    const pathById = new Map(entries.map((entry) => [entry.document.id, entry.document.relativePath]));
    for (const name of ['chunks', 'document_items']) {
      // A plain scan returns rows in the order they were written.
      const stored = (await (await connection.openTable(name)).query().select(['document_id']).toArray()).map((row) => pathById.get(String(row.document_id)));
      const runs = stored.filter((relativePath, index) => relativePath !== stored[index - 1]);
      assert.deepEqual(runs, ['a.md', 'b.md', 'notes/b.md', 'notes/c.md'], name);
    }
    connection.close();
  });

  it("leaves a first build's few fragments to the debounced upkeep, every index complete; many fragments are compacted at once", async () => {
    const connection = await lancedb.connect(folder.path);
    const tableState = async () => {
      const state: Record<string, { fragments: number; unindexed: number[] }> = {};
      for (const [name, indexes] of Object.entries({ chunks: ['document_id_idx', 'id_idx', 'search_text_idx'], document_items: ['document_id_idx'], documents: ['id_idx'] })) {
        const table = await connection.openTable(name);
        const unindexed = await Promise.all(indexes.map(async (index) => (await table.indexStats(index))?.numUnindexedRows ?? -1));
        state[name] = { fragments: (await table.stats()).fragmentStats.numFragments, unindexed };
      }
      return state;
    };
    const firstBuildWrite = async (batch: number, files: number) => {
      const entries = await Promise.all(Array.from({ length: files }, (_, index) => markdownWrite(`batch${batch}/note${index}.md`, `# Note ${batch}.${index}\n\nWord batch${batch}word${index} here.\n`)));
      await store.writeDocuments(entries, { scheduleOptimize: false, copyToRecent: false });
    };
    for (let batch = 0; batch < 3; batch++) {
      await firstBuildWrite(batch, 2);
    }
    await store.optimize({ keepRecent: true, compactOnlyIfFragmented: true });
    const complete = { fragments: 3, unindexed: [0] };
    assert.deepEqual(await tableState(), { chunks: { fragments: 3, unindexed: [0, 0, 0] }, document_items: complete, documents: complete });
    assert.equal((await store.search('batch2word1'))[0]?.documentId, documentIdForPath('batch2/note1.md'));
    assert.ok((await store.getDocumentItems(documentIdForPath('batch0/note0.md'))).length > 0);
    // The debounced upkeep compacts them off the run's path.
    const compactedBy = Date.now() + OPTIMIZE_DEBOUNCE_MS + 10_000;
    while (Object.values(await tableState()).some(({ fragments }) => fragments > 1) && Date.now() < compactedBy) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(Object.values(await tableState()).map(({ fragments }) => fragments), [1, 1, 1], 'compacted by the debounced upkeep');
    assert.equal((await store.search('batch2word1'))[0]?.documentId, documentIdForPath('batch2/note1.md'));

    for (let batch = 3; batch < 12; batch++) {
      await firstBuildWrite(batch, 1);
    }
    await store.optimize({ keepRecent: true, compactOnlyIfFragmented: true });
    // 10 fragments each; compaction keeps the indexed ones apart from the rest (LanceDB), so two are left.
    const compacted = (state: Record<string, { fragments: number }>) => Object.values(state).every(({ fragments }) => fragments <= 2);
    assert.ok(compacted(await tableState()), 'more than COMPACTION_MIN_FRAGMENTS fragments are compacted');

    connection.close();
  });

  it('removes documents and their rows', async () => {
    await store.writeDocuments([await markdownWrite('a.md', '# A\n\nApples.\n'), await markdownWrite('b.md', '# B\n\nBananas.\n')]);
    await store.removeDocuments([documentIdForPath('a.md')]);
    assert.deepEqual((await store.listDocuments()).map((document) => document.relativePath), ['b.md']);
    assert.equal((await store.search('apples')).length, 0);
    assert.deepEqual(await store.getDocumentItems(documentIdForPath('a.md')), []);
  });

  it('opens in a "rebuild needed" state when the embedder or the layout changed, and reset() recovers', async () => {
    await store.close();
    const withVectors = await openStore({ uri: folder.path + '/vectors', embedder: new HashingEmbedder(32) });
    await withVectors.writeDocuments([await markdownWrite('a.md', '# A\n\nApples.\n', new HashingEmbedder(32))]);
    await withVectors.close();

    const otherEmbedder = await openStore({ uri: folder.path + '/vectors', embedder: new HashingEmbedder(64) });
    assert.match(otherEmbedder.rebuildNeeded ?? '', /test:hashing-32 \(32 dimensions\).*test:hashing-64/);
    await assert.rejects(otherEmbedder.search('apples'), (error: unknown) => isHaikuError(error, 'rebuild_needed') && error.remedy?.action === 'rebuild_index');
    await otherEmbedder.reset();
    assert.equal(otherEmbedder.rebuildNeeded, undefined);
    // Kept, marked stale, until the rebuild's run re-indexes it with the new embedder (a kill meanwhile loses nothing).
    assert.equal((await otherEmbedder.listDocuments()).length, 1);
    assert.equal(otherEmbedder.vectorDimensions, 64);
    await otherEmbedder.close();

    // No embedder configured: full-text search still works, writes explain what to do.
    const fullTextOnly = await openStore({ uri: folder.path + '/vectors' });
    assert.equal(fullTextOnly.rebuildNeeded, undefined);
    await assert.rejects(fullTextOnly.writeDocuments([await markdownWrite('b.md', '# B\n\nBananas.\n')]), (error: unknown) => isHaikuError(error, 'rebuild_needed'));
    await fullTextOnly.close();

    // An older table layout.
    const settings = await (await lancedb.connect(folder.path)).openTable('settings');
    await settings.update({ where: "id = 'settings'", valuesSql: { schema_version: '0' } });
    store = await openStore({ uri: folder.path });
    assert.match(store.rebuildNeeded ?? '', /layout v0/);
    await assert.rejects(store.search('anything'), (error: unknown) => isHaikuError(error, 'rebuild_needed'));
    await store.reset();
    assert.equal(store.rebuildNeeded, undefined);
  });
});

describe('LanceStore under a killed writer', function () {
  this.timeout(120_000);

  it('shows the previous version after the writer is killed between the new rows and the switch', async () => {
    const { spawn } = await import('node:child_process');
    const path = await import('node:path');
    const folder = temporaryFolder('haiku-kill-');
    try {
      const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, 'fixtures', 'killedWriter.ts'), folder.path], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LANCEDB_LOG: 'error' } });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (data: Buffer) => {
          if (data.toString().includes('paused')) {
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`writer exited (${code}) before pausing`)));
      });
      await new Promise((resolve) => child.once('exit', resolve));

      const raw = await (await lancedb.connect(folder.path)).openTable('chunks');
      assert.ok((await raw.countRows()) > 1, 'the new rows reached the disk before the kill');
      const store = await openStore({ uri: folder.path });
      assert.equal((await store.search('marmalade')).length, 1);
      assert.equal((await store.search('porcupines')).length, 0);
      assert.equal((await store.search('second section')).length, 0);
      assert.deepEqual(await store.stats(), { documents: 1, chunks: 1 });
      await store.optimize({ sweepOrphans: true });
      await raw.checkoutLatest();
      assert.equal(await raw.countRows(), 1, 'the sweep removes the orphaned rows');
      await store.close();
    } finally {
      folder.cleanup();
    }
  });
});

describe('LanceStore: quoted queries', function () {
  this.timeout(60_000);

  it('searches a fully double-quoted query as its words (the FTS index has no positions for phrases)', async () => {
    const folder = temporaryFolder('haiku-quoted-');
    const store = await openStore({ uri: folder.path });
    try {
      await store.writeDocuments([
        await markdownWrite('finch.md', '# Finches\n\nThe zebrafinch token is sung at dawn.\n'),
        await markdownWrite('other.md', '# Other\n\nA token of something else entirely.\n'),
      ]);
      for (const query of ['"zebrafinch"', '"zebrafinch token"', '""zebrafinch""', 'the "zebrafinch token']) {
        const results = await store.search(query);
        assert.ok(results.length > 0, `results for ${query}`);
        assert.ok(results[0].uri.endsWith('finch.md'), `first result for ${query}`);
      }
      assert.deepEqual(await store.search('"'), []);
      assert.deepEqual(await store.search('" "'), []);
    } finally {
      await store.close();
      folder.cleanup();
    }
  });
});

describe('LanceStore: text written without spaces between words', function () {
  this.timeout(60_000);

  /**
   * Writes the files, then checks each query's first result: first while the rows are in the recent table, then
   * after they are folded into the main index.
   */
  async function assertFirstResults(files: ReadonlyArray<[string, string]>, expectations: ReadonlyArray<[string, string]>): Promise<void> {
    const folder = temporaryFolder('haiku-unspaced-');
    const store = await openStore({ uri: folder.path });
    try {
      await store.writeDocuments(await Promise.all(files.map(([name, markdown]) => markdownWrite(name, markdown))));
      const check = async (stage: string) => {
        for (const [query, file] of expectations) {
          const results = await store.search(query);
          assert.ok(results[0]?.uri.endsWith(file), `${stage}: first result for ${query}: ${results.map((result) => result.uri.split('/').pop()).join(', ') || 'none'}`);
        }
      };
      await check('recent table');
      await store.optimize();
      await check('main index');
    } finally {
      await store.close();
      folder.cleanup();
    }
  }

  it('finds words inside CJK sentences, before and after the rows are folded into the main index', async () => {
    await assertFirstResults(
      [
        // One run of 29 characters: over the tokenizer's 40-byte limit as a single token.
        ['ja.md', '# 全文検索\n\n全文検索エンジンは文書の中から言葉を素早く見つけるための仕組みです。\n'],
        ['zh.md', '# 数据库\n\n向量数据库可以存储嵌入并进行相似度搜索。\n'],
        ['ko.md', '# 안내\n\n한국어 문서에서도 검색엔진이 단어를 찾아야 합니다.\n'],
        ['en.md', '# English\n\nA plain English note about search engines and databases.\n'],
      ],
      [['検索', 'ja.md'], ['エンジン', 'ja.md'], ['見つける仕組み', 'ja.md'], ['数据库', 'zh.md'], ['相似度搜索', 'zh.md'], ['库', 'zh.md'], ['검색', 'ko.md'], ['search engines', 'en.md']],
    );
  });

  it('finds words inside Thai, Lao, Khmer and Myanmar sentences, tone marks and subscripts included', async () => {
    await assertFirstResults(
      [
        // Each body is one run without spaces, far over the tokenizer's 40-byte limit as a single token.
        ['th.md', '# คู่มือ\n\nระบบค้นหาข้อความเต็มรูปแบบช่วยให้ผู้ใช้พบคำในเอกสารได้อย่างรวดเร็ว\n'],
        ['lo.md', '# ຄູ່ມື\n\nລະບົບຄົ້ນຫາຂໍ້ຄວາມຊ່ວຍໃຫ້ຜູ້ໃຊ້ພົບຄໍາສັບໃນເອກະສານ\n'],
        ['km.md', '# មគ្គុទ្ទេសក៍\n\nប្រព័ន្ធស្វែងរកអត្ថបទជួយអ្នកប្រើប្រាស់រកពាក្យនៅក្នុងឯកសារ\n'],
        ['my.md', '# လမ်းညွှန်\n\nရှာဖွေရေးစနစ်သည်စာရွက်စာတမ်းများထဲမှစကားလုံးများကိုရှာပေးသည်။\n'],
        ['en.md', '# English\n\nA plain English note about search engines and documents.\n'],
      ],
      [
        ['ค้นหา', 'th.md'], ['เอกสาร', 'th.md'], ['รวดเร็ว', 'th.md'], ['ເອກະສານ', 'lo.md'], ['ຄົ້ນຫາ', 'lo.md'],
        ['ឯកសារ', 'km.md'], ['ស្វែងរក', 'km.md'], ['စာရွက်စာတမ်း', 'my.md'], ['စကားလုံး', 'my.md'], ['search engines', 'en.md'],
      ],
    );
  });
});
