import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadScifactCorpus, loadScifactQueries, writeScifactFiles } from '../../../scripts/scifactCorpus';
import { createConversionPool } from '../../../src/node/convert/conversionPool';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder } from '../../support/indexFixtures';

// The bench's watcher case: a bulk load, searches, then one file re-indexed 8 times in a burst (optimize left
// to the debounce) and searched at once. When the bulk load's FTS index had been rebuilt with
// `createIndex(replace)`, LanceDB 0.31.0's small-limit queries after the next incremental fold missed the
// file's new rows (they ranked another document first). The miss was intermittent before the fix.
describe('LanceStore: full-text search right after a burst of re-indexes of one file', function () {
  this.timeout(60_000);

  it('ranks the re-indexed file first for a term only its newest version has', async () => {
    const folder = temporaryFolder('haiku-reindex-burst-');
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    const pool = createConversionPool();
    try {
      // 2,000 documents: enough for the end-of-run fold to build the FTS index afresh (as the bench's 5k do).
      const corpus = loadScifactCorpus(2000);
      const documents = path.join(folder.path, 'documents');
      writeScifactFiles(documents, corpus);
      await indexPaths({ roots: [documents], baseFolder: documents, store, conversionPool: pool });
      for (const query of [...loadScifactQueries().values()].slice(0, 200)) {
        await store.searchWith(query, { mode: 'fullText', limit: 10, rerank: false });
      }
      const changed = path.join(documents, `${corpus[42]._id}.md`);
      for (let round = 0; round < 5; round++) {
        for (let edit = 0; edit < 8; edit++) {
          fs.appendFileSync(changed, `\nAn added sentence about benchmark token${round}x${edit}.\n`);
          const summary = await indexPaths({ roots: [changed], baseFolder: documents, store, optimize: false, conversionPool: pool });
          assert.equal(summary.updated.length, 1);
        }
        const found = await store.searchWith(`benchmark token${round}x7`, { mode: 'fullText', limit: 1, rerank: false });
        assert.equal(found[0]?.uri, `file://${changed}`, `round ${round}: found ${found.map((hit) => hit.uri).join(', ') || 'nothing'}`);
      }
    } finally {
      await pool.dispose();
      await store.close();
      folder.cleanup();
    }
  });
});
