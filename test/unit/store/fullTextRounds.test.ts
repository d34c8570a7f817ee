import * as assert from 'node:assert/strict';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import { openStore, type LanceStore, type OpenStoreOptions } from '../../../src/node/store/lanceStore';
import { storageOptionsFor, type ObjectStorageSettings } from '../../../src/node/store/objectStorage';
import { CHUNKS_TABLE } from '../../../src/node/store/schema';
import { FULL_TEXT_INDEX_NAME } from '../../../src/node/store/storeTables';
import { withChunkQueriesNoted } from '../../support/chunkQueries';
import { markdownWrite } from '../../support/documentWrites';
import { temporaryFolder } from '../../support/indexFixtures';
import { startObjectStorage, type LocalObjectStorage } from './objectStorageServer';

const CORPUS: Record<string, string> = {
  'solar.md': '# Solar panels\n\nSolar panels convert sunlight into electricity for the house roof.\n',
  'wind.md': '# Wind\n\nTurbines turn wind into electricity; a wind farm powers houses.\n',
  'garden.md': '# Garden\n\nPlant tomatoes in sunlight and water the garden daily.\n',
};
const LATE_FILE = ['tidal.md', '# Tidal power\n\nBarrages make electricity from the tide of the estuary.\n'] as const;

/** Rows of the chunks table its FTS index does not cover. */
async function unindexedRows(uri: string, storage?: ObjectStorageSettings): Promise<number> {
  const connection = await lancedb.connect(uri, { storageOptions: storageOptionsFor(uri, storage) });
  try {
    return (await (await connection.openTable(CHUNKS_TABLE)).indexStats(FULL_TEXT_INDEX_NAME))?.numUnindexedRows ?? 0;
  } finally {
    connection.close();
  }
}

/**
 * An index whose FTS index covers `CORPUS`, then (with `late`) one more file written by another writer that closed
 * before its upkeep (as if killed after its switch): its rows are in the table, not in the index.
 */
async function buildIndex(options: Pick<OpenStoreOptions, 'uri' | 'storage'>, late: boolean): Promise<void> {
  const writer = await openStore(options);
  await writer.writeDocuments(await Promise.all(Object.entries(CORPUS).map(([name, text]) => markdownWrite(name, text))));
  await writer.optimize();
  await writer.close();
  if (late) {
    const other = await openStore(options);
    await other.writeDocuments([await markdownWrite(...LATE_FILE)]);
    await other.close();
  }
}

/** A fresh reader's full-text search, with the full-text queries it asked of the chunks table. */
async function firstSearch(options: Pick<OpenStoreOptions, 'uri' | 'storage'>, query: string): Promise<{ files: string[]; fast: boolean[] }> {
  const reader: LanceStore = await openStore({ ...options, readOnly: true });
  try {
    const noted = await withChunkQueriesNoted(reader, () => reader.searchWith(query, { mode: 'fullText', limit: 5, rerank: false }));
    return { files: noted.result.map((result) => result.uri.split('/').pop()!), fast: noted.fullTextQueries.map((noted) => noted.fast) };
  } finally {
    await reader.close();
  }
}

describe("A fresh process's first full-text query", function () {
  this.timeout(120_000);

  describe('on a local disk', () => {
    let folder: ReturnType<typeof temporaryFolder>;
    beforeEach(() => {
      folder = temporaryFolder('haiku-fulltext-rounds-');
    });
    afterEach(() => folder.cleanup());

    it('asks the FTS index once when it covers every row', async () => {
      const uri = `${folder.path}/db`;
      await buildIndex({ uri }, false);
      assert.equal(await unindexedRows(uri), 0);
      const found = await firstSearch({ uri }, 'electricity');
      assert.deepEqual(new Set(found.files), new Set(['solar.md', 'wind.md']));
      assert.deepEqual(found.fast, [true]);
    });

    it('searches rows another writer left unindexed in its one round, with no round that guesses they are indexed', async () => {
      const uri = `${folder.path}/db`;
      await buildIndex({ uri }, true);
      assert.ok((await unindexedRows(uri)) > 0);
      const found = await firstSearch({ uri }, 'estuary electricity');
      assert.equal(found.files[0], 'tidal.md');
      assert.deepEqual(found.fast, [false]);
    });
  });

  describe('on object storage', () => {
    let storage: LocalObjectStorage;
    before(async () => {
      storage = await startObjectStorage('rounds');
    });
    after(async () => {
      await storage.close();
    });

    it('guesses that the FTS index covers every row, then searches flat once its statistics say not', async () => {
      const options = { uri: 's3://rounds/late', storage: storage.settings() };
      await buildIndex(options, true);
      assert.ok((await unindexedRows(options.uri, options.storage)) > 0);
      const found = await firstSearch(options, 'estuary electricity');
      assert.equal(found.files[0], 'tidal.md');
      assert.deepEqual(found.fast, [true, false]);
    });
  });
});
