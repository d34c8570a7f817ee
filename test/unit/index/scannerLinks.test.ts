import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '../../../src/core/config';
import { indexPaths } from '../../../src/node/index/indexer';
import { scanRoots } from '../../../src/node/index/scanner';
import { openStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

/**
 * Layout: workspace/docs is indexed; it links to /etc/passwd, to a file in the sibling folder notes/, to a file
 * of its own, and to the notes folder itself (linked folders are never walked).
 */
describe('scanner and linked files outside the indexed folders', function () {
  this.timeout(120_000);
  let top: ReturnType<typeof temporaryFolder>;
  let workspace: string;
  let docs: string;
  let notesFile: string;

  beforeEach(() => {
    top = temporaryFolder('haiku-links-');
    workspace = path.join(top.path, 'workspace');
    writeFiles(workspace, { 'docs/a.md': '# Alpha\n\nAlpha text.\n', 'notes/n.md': '# Notes\n\nA sibling note.\n' });
    docs = path.join(workspace, 'docs');
    notesFile = fs.realpathSync(path.join(workspace, 'notes/n.md'));
    fs.symlinkSync('/etc/passwd', path.join(docs, 'passwd.txt'));
    fs.symlinkSync('../notes/n.md', path.join(docs, 'sibling.md'));
    fs.symlinkSync('a.md', path.join(docs, 'inside.md'));
    fs.symlinkSync('../notes', path.join(docs, 'notes-folder'));
    fs.symlinkSync('missing.md', path.join(docs, 'dangling.md'));
  });

  afterEach(() => {
    top.cleanup();
  });

  it('is off by default in the configuration', () => {
    assert.equal(defaultConfig().index.followLinksOutside, false);
  });

  it('skips and reports links whose real path is outside the indexed folders; links inside are indexed', async () => {
    const scan = await scanRoots({ roots: [docs], baseFolder: workspace });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['docs/a.md', 'docs/inside.md']);
    assert.deepEqual(scan.linksOutside, [
      { path: 'docs/passwd.txt', target: '/etc/passwd' },
      { path: 'docs/sibling.md', target: notesFile },
    ]);
    assert.deepEqual(scan.unreadable, [], 'a dangling link is nothing to index, not an unreadable path');
  });

  it('counts a link into another folder indexed in the same run as inside', async () => {
    const scan = await scanRoots({ roots: [docs, path.join(workspace, 'notes')], baseFolder: workspace });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['docs/a.md', 'docs/inside.md', 'docs/sibling.md', 'notes/n.md']);
    assert.deepEqual(scan.linksOutside, [{ path: 'docs/passwd.txt', target: '/etc/passwd' }]);
  });

  it('checks a link named explicitly as a root against its base folder', async () => {
    const scan = await scanRoots({ roots: [path.join(docs, 'passwd.txt'), path.join(docs, 'sibling.md')], baseFolder: workspace });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['docs/sibling.md']);
    assert.deepEqual(scan.linksOutside, [{ path: 'docs/passwd.txt', target: '/etc/passwd' }]);
  });

  it('follows every link when followLinksOutside is on', async () => {
    const scan = await scanRoots({ roots: [docs], baseFolder: workspace, followLinksOutside: true });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['docs/a.md', 'docs/inside.md', 'docs/passwd.txt', 'docs/sibling.md']);
    assert.deepEqual(scan.linksOutside, []);
  });

  it('indexes no /etc/passwd by default, reports the skipped links, and removes one indexed while the setting was on', async () => {
    const database = path.join(top.path, 'db');
    const store = await openStore({ uri: database });
    try {
      const followed = await indexPaths({ roots: [docs], baseFolder: workspace, store, followLinksOutside: true });
      assert.deepEqual([...followed.added].sort(), ['docs/a.md', 'docs/inside.md', 'docs/passwd.txt', 'docs/sibling.md']);
      assert.ok((await store.search('root', { limit: 5 })).some((result) => result.uri.endsWith('/docs/passwd.txt')));

      const contained = await indexPaths({ roots: [docs], baseFolder: workspace, store });
      assert.deepEqual(contained.linksOutside, [
        { path: 'docs/passwd.txt', target: '/etc/passwd' },
        { path: 'docs/sibling.md', target: notesFile },
      ]);
      assert.deepEqual([...contained.removed].sort(), ['docs/passwd.txt', 'docs/sibling.md']);
      assert.deepEqual((await store.listDocuments()).map((document) => document.relativePath).sort(), ['docs/a.md', 'docs/inside.md']);
      assert.deepEqual(await store.search('root', { limit: 5 }), []);
    } finally {
      await store.close();
    }
  });
});
