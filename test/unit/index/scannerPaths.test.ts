import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { resolveRoots, scanRoots } from '../../../src/node/index/scanner';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

describe('scanner path containment', () => {
  let workspace: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    workspace = temporaryFolder('haiku-scan-paths-');
  });

  afterEach(() => {
    workspace.cleanup();
  });

  it('keeps the base folder for a root named ..notes inside it (a child, not a step up), so ids keep their folder', async () => {
    writeFiles(workspace.path, { '..notes/a.md': '# A\n\ntext\n' });
    const [root] = resolveRoots(['..notes'], workspace.path, workspace.path);
    assert.equal(root.baseFolder, workspace.path);
    const scan = await scanRoots({ roots: [path.join(workspace.path, '..notes/a.md')], baseFolder: workspace.path });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['..notes/a.md']);
  });

  it('does not take a sibling folder sharing the prefix (index2) for the base folder (index)', () => {
    writeFiles(workspace.path, { 'index/a.md': 'a', 'index2/b.md': 'b' });
    const [root] = resolveRoots([path.join(workspace.path, 'index2')], path.join(workspace.path, 'index'), workspace.path);
    assert.equal(root.baseFolder, path.join(workspace.path, 'index2'));
  });

  it('applies .gitignore rules inside a folder named ..notes', async () => {
    writeFiles(workspace.path, { '.gitignore': 'secret.md\n', '..notes/secret.md': 'secret', '..notes/keep.md': 'keep' });
    // Folders starting with a dot are left out by the default include globs; this pattern names it.
    const scan = await scanRoots({ roots: [workspace.path], baseFolder: workspace.path, include: ['..notes/*.md'] });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['..notes/keep.md']);
  });

  it('holds file roots to .gitignore and the include globs when asked (watcher events); a named file is indexed regardless', async () => {
    writeFiles(workspace.path, {
      '.gitignore': 'coverage/\n*.draft.md\n',
      'coverage/report/index.html': '<p>report</p>',
      'notes/idea.draft.md': 'draft',
      'notes/idea.md': 'idea',
      'notes/data.bin': 'binary',
    });
    const files = ['coverage/report/index.html', 'notes/idea.draft.md', 'notes/idea.md', 'notes/data.bin'].map((file) => path.join(workspace.path, file));
    const followed = await scanRoots({ roots: files, baseFolder: workspace.path, fileRootsFollowRules: true });
    assert.deepEqual(followed.files.map((file) => file.relativePath), ['notes/idea.md']);
    const named = await scanRoots({ roots: files, baseFolder: workspace.path });
    assert.deepEqual(named.files.map((file) => file.relativePath), ['coverage/report/index.html', 'notes/data.bin', 'notes/idea.draft.md', 'notes/idea.md']);
    const unignored = await scanRoots({ roots: files, baseFolder: workspace.path, fileRootsFollowRules: true, respectGitignore: false });
    assert.deepEqual(unignored.files.map((file) => file.relativePath), ['coverage/report/index.html', 'notes/idea.draft.md', 'notes/idea.md']);
  });
});
