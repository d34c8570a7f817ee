import * as assert from 'node:assert/strict';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import { RecentChunks } from '../../../src/node/store/recentChunks';
import type { ChunkRow } from '../../../src/node/store/schema';
import { fullTextIndexConfig } from '../../../src/node/store/storeTables';
import { temporaryFolder } from '../../support/indexFixtures';

type Row = { id: string; document_id: string; generation: string; search_text: string };

const WORDS = ['apple', 'banana', 'cherry', 'damson', 'elder', 'fig', 'grape', 'hazel'];

/** Main rows of 40 documents (generation g1), with an FTS index over them, as a fold leaves the main table. */
function mainRows(): Row[] {
  return Array.from({ length: 40 }, (_, index) => ({
    id: `main-${index}`,
    document_id: `doc-${index}`,
    generation: 'g1',
    search_text: `${WORDS[index % WORDS.length]} ${WORDS[(index * 3) % WORDS.length]} orchard note ${index}`,
  }));
}

/** The recent copies: documents 0–4 re-indexed (g2), and a stale copy of document 5 whose g2 was superseded. */
function recentRows(): Row[] {
  return [
    ...Array.from({ length: 5 }, (_, index) => ({ id: `recent-${index}`, document_id: `doc-${index}`, generation: 'g2', search_text: `apple banana edited ${WORDS[index]} orchard` })),
    { id: 'recent-stale', document_id: 'doc-5', generation: 'g2', search_text: 'apple banana superseded' },
  ];
}

/** Current generations: the five edited documents at g2, the stale copy's document back at g1. */
function isLiveNow(row: { document_id: string; generation: string }): boolean {
  const edited = ['doc-0', 'doc-1', 'doc-2', 'doc-3', 'doc-4'].includes(row.document_id);
  return row.generation === (edited ? 'g2' : 'g1');
}

describe('Recent chunks: side-table reads start before the documents are read', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let connection: lancedb.Connection;
  let main: lancedb.Table;

  beforeEach(async () => {
    folder = temporaryFolder('haiku-recent-liveness-');
    connection = await lancedb.connect(folder.path);
    main = await connection.createTable('chunks', mainRows());
    await main.createIndex('search_text', { config: fullTextIndexConfig() });
    const writer = new RecentChunks(connection);
    await writer.add(recentRows() as unknown as ChunkRow[]);
    await writer.refresh(() => true);
  });

  afterEach(() => {
    connection.close();
    folder.cleanup();
  });

  /** A fresh reader of the side table the writer filled and indexed, as a new process opens it. */
  function freshReader(): RecentChunks {
    return new RecentChunks(connection);
  }

  it('scores the same whether liveness is known at once or arrives after every side-table read', async () => {
    const atOnce = await freshReader().candidates('apple banana', { main, isLive: Promise.resolve(isLiveNow) });
    assert.deepEqual(
      atOnce.map((hit) => hit.id).sort(),
      ['recent-0', 'recent-1', 'recent-2', 'recent-3', 'recent-4'],
      'the superseded copy is left out',
    );
    assert.ok(atOnce.every((hit) => hit.score > 0));
    const late = await freshReader().candidates('apple banana', { main, isLive: new Promise((resolve) => setTimeout(() => resolve(isLiveNow), 300)) });
    assert.deepEqual(late, atOnce);
    const onlyStale = await freshReader().candidates('superseded', { main, isLive: Promise.resolve(isLiveNow) });
    assert.deepEqual(onlyStale, [], 'a word only a superseded copy holds finds nothing');
  });

  it('fails with the documents read, leaving no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const reader = freshReader();
      const failed = new Error('documents table unreadable');
      await assert.rejects(reader.candidates('apple banana', { main, isLive: new Promise((_, reject) => setTimeout(() => reject(failed), 50)) }), failed);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(unhandled, []);
      // The failure is not cached: the next query, with the documents read, scores as usual.
      const retried = await reader.candidates('apple banana', { main, isLive: Promise.resolve(isLiveNow) });
      assert.equal(retried.length, 5);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
