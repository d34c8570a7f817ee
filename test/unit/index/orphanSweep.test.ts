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
    const scans: string[] = [];
    store.testHooks.orphanScan = (table) => scans.push(table);
    try {
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      writeFiles(documents, { 'c.md': '# C\n\nCapybaras.\n' });
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      assert.deepEqual(sweeps, [false, true]);
      assert.deepEqual(scans, [], 'the row counts match the documents\' recorded counts: no table is read row by row');
      assert.deepEqual((await store.listDocuments()).map((document) => document.relativePath), ['a.md', 'b.md', 'c.md']);
    } finally {
      await store.close();
      folder.cleanup();
    }
  });

  it('reads the tables row by row only when their counts differ from the documents\' counts, and removes the orphans then', async () => {
    const folder = temporaryFolder('haiku-orphan-count-');
    const documents = path.join(folder.path, 'documents');
    writeFiles(documents, { 'a.md': '# A\n\nAardvarks.\n', 'b.md': '# B\n\n## One\n\nBadgers.\n\n## Two\n\nBison.\n' });
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    const scans: string[] = [];
    store.testHooks.orphanScan = (table) => scans.push(table);
    try {
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      const before = await store.stats();
      // A replacement whose switch fails leaves its chunk and item rows behind: orphans.
      store.testHooks.beforeDocumentSwitch = () => {
        throw new Error('injected failure');
      };
      writeFiles(documents, { 'b.md': '# B\n\nBadgers, replaced.\n' });
      await assert.rejects(indexPaths({ roots: [documents], baseFolder: documents, store }), /injected failure/);
      store.testHooks.beforeDocumentSwitch = undefined;
      await store.optimize({ sweepOrphans: true });
      assert.deepEqual(scans, ['chunks', 'items']);
      scans.length = 0;
      // The orphans are gone: the next sweep trusts the counts again.
      await store.optimize({ sweepOrphans: true });
      assert.deepEqual(scans, []);
      assert.deepEqual(await store.stats(), before);
      assert.equal((await store.search('bison')).length, 1, 'the current version is untouched');
    } finally {
      await store.close();
      folder.cleanup();
    }
  });
});
