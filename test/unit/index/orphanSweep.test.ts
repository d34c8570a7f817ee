import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

describe('indexPaths: the orphan sweep at the end of a run', function () {
  this.timeout(60_000);

  it('is skipped by a first run into empty tables and done by later runs that write', async () => {
    const folder = temporaryFolder('haiku-orphan-sweep-');
    const documents = path.join(folder.path, 'documents');
    writeFiles(documents, { 'a.md': '# A\n\nAardvarks.\n', 'b.md': '# B\n\nBadgers.\n' });
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    const sweeps: boolean[] = [];
    const optimize = store.optimize.bind(store);
    store.optimize = (options = {}) => {
      sweeps.push(options.sweepOrphans ?? false);
      return optimize(options);
    };
    try {
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      writeFiles(documents, { 'c.md': '# C\n\nCapybaras.\n' });
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      assert.deepEqual(sweeps, [false, true]);
      assert.deepEqual((await store.listDocuments()).map((document) => document.relativePath), ['a.md', 'b.md', 'c.md']);
    } finally {
      await store.close();
      folder.cleanup();
    }
  });
});
