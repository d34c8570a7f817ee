import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

describe('documents gone after a scan (one-file runs, as the watcher makes them)', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;
  let documents: string;

  beforeEach(async () => {
    folder = temporaryFolder('haiku-gone-');
    documents = path.join(folder.path, 'documents');
    writeFiles(documents, { 'a.md': '# A\n\nAlpha text.\n', 'b.md': '# B\n\nBravo text.\n', 'sub/c.md': '# C\n\nCharlie text.\n' });
    store = await openStore({ uri: path.join(folder.path, 'index') });
    await indexPaths({ roots: [documents], baseFolder: documents, store });
  });

  afterEach(async () => {
    await store.close();
    folder.cleanup();
  });

  const storedPaths = async () => (await store.listDocuments()).map((document) => document.relativePath).sort();

  it('an edited file root removes nothing else; a deleted file root removes its own document only', async () => {
    fs.appendFileSync(path.join(documents, 'a.md'), '\nMore alpha.\n');
    const edited = await indexPaths({ roots: [path.join(documents, 'a.md')], baseFolder: documents, store, optimize: false });
    assert.deepEqual({ updated: edited.updated, removed: edited.removed }, { updated: ['a.md'], removed: [] });

    fs.rmSync(path.join(documents, 'b.md'));
    const deleted = await indexPaths({ roots: [path.join(documents, 'b.md')], baseFolder: documents, store, optimize: false });
    assert.deepEqual(deleted.removed, ['b.md']);
    assert.deepEqual(await storedPaths(), ['a.md', 'sub/c.md']);
  });

  it('a found file root beside a folder root still removes what the folder lost', async () => {
    fs.rmSync(path.join(documents, 'sub/c.md'));
    const summary = await indexPaths({ roots: [path.join(documents, 'a.md'), path.join(documents, 'sub')], baseFolder: documents, store, optimize: false });
    assert.deepEqual(summary.removed, ['sub/c.md']);
    assert.deepEqual(await storedPaths(), ['a.md', 'b.md']);
  });
});
