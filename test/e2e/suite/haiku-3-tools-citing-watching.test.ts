import * as assert from 'node:assert';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, invokeToolText, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** The language-model tools, "Insert Citation", and the index following file creates, edits and deletes. */
describe('Haiku: language-model tools, citing while writing, file watching', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  it('registers the three tools with vscode.lm and they answer from the index', async () => {
    const names = vscode.lm.tools.map((tool) => tool.name);
    for (const name of ['haiku_search', 'haiku_listDocuments', 'haiku_readSection']) {
      assert.ok(names.includes(name), `${name} in vscode.lm.tools`);
    }
    const hits = await invokeToolText('haiku_search', { query: 'garbage collector pacer GOGC', limit: 3 });
    // Expansion merges overlapping hits, so up to three come back.
    assert.match(hits, /^[123] hits for "garbage collector pacer GOGC"/);
    assert.match(hits, /\[1\] guides\/gc-guide\.html L\d+/);
    assert.match(hits, /chunk: \S+ · score/);
    const scoped = await invokeToolText('haiku_search', { query: 'garbage collector', path: 'guides/features.md' });
    assert.ok(!scoped.includes('gc-guide.html'), 'the path scopes the search');
    const documents = await invokeToolText('haiku_listDocuments', {});
    assert.match(documents, /^5 documents:/);
    assert.match(documents, /papers\/multi_page\.pdf .*\(pdf/);
    const toc = await invokeToolText('haiku_readSection', { document: 'features.md' });
    assert.match(toc, /Sections of guides\/features\.md/);
    const section = await invokeToolText('haiku_readSection', { document: 'guides/features.md', section: 'TypeScript > Transpile Only' });
    assert.match(section, /^guides\/features\.md L\d+–L\d+ — Transpile Only\n\n### Transpile Only\n\nNote that Vite only performs transpilation/);
    assert.match(await invokeToolText('haiku_readSection', { document: 'nope.md' }), /No indexed document matches/);
  });

  it('inserts a Markdown citation link to the chosen chunk at the cursor', async () => {
    const notes = workspaceUri('notes/e2e-citations.md');
    await vscode.workspace.fs.writeFile(notes, new TextEncoder().encode('# Notes\n\nHMR: \n'));
    try {
      const editor = await vscode.window.showTextDocument(notes);
      editor.selection = new vscode.Selection(2, 5, 2, 5);
      const link = await vscode.commands.executeCommand<string>('haiku.insertCitation', { query: 'Hot Module Replacement HMR API', pickFirst: true });
      assert.match(link, /^\[Features › [^\]]+\]\(\.\.\/guides\/features\.md#L\d+(-L\d+)?\)$/);
      assert.strictEqual(editor.document.lineAt(2).text, `HMR: ${link}`);
      const pdfLink = await vscode.commands.executeCommand<string>('haiku.insertCitation', { query: 'multi page pdf', pickFirst: true });
      if (pdfLink?.includes('.pdf')) {
        assert.match(pdfLink, /\(\.\.\/papers\/multi_page\.pdf#page=\d+\)$/);
      }
      // The live quick pick: the query is typed in, hits arrive after the debounce, Enter takes the first.
      editor.selection = new vscode.Selection(0, 0, 0, 0);
      const pending = vscode.commands.executeCommand<string>('haiku.insertCitation', { query: 'garbage collector GOGC pacing' });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      const live = await pending;
      assert.match(live, /\(\.\.\/guides\/gc-guide\.html#L\d+(-L\d+)?\)$/);
      assert.ok(editor.document.lineAt(0).text.startsWith(live));
      await editor.document.save();
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(workspaceUri('notes'), { recursive: true });
    }
  });

  it('follows a created, edited and deleted file in the index and the tree', async () => {
    const file = workspaceUri('guides/e2e-watched.md');
    const findDocument = async () => (await (await api.knowledgeBase()).listDocuments()).find((document) => document.relativePath === 'guides/e2e-watched.md');
    const sectionTitles = async (): Promise<string[]> => {
      const guides = (await api.sectionsTree.getChildren())[0];
      const node = (await api.sectionsTree.getChildren(guides)).find((candidate) => candidate.kind === 'document' && candidate.document.relativePath === 'guides/e2e-watched.md');
      if (!node) {
        return [];
      }
      const [top] = await api.sectionsTree.getChildren(node);
      return top ? (await api.sectionsTree.getChildren(top)).map((child) => (child.kind === 'section' ? child.section.title : '')) : [];
    };
    try {
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('# Watched\n\n## Alpha\n\nThe zyxwvut alpha paragraph.\n'));
      await waitFor(findDocument, 'the created file to be indexed');
      await waitFor(async () => (await sectionTitles()).join() === 'Alpha', 'the tree to show the new document');
      const hits = await (await api.knowledgeBase()).search('zyxwvut');
      assert.strictEqual(hits[0]?.title, 'Watched');

      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('# Watched\n\n## Alpha\n\nThe zyxwvut alpha paragraph.\n\n## Beta\n\nA qponmlk beta paragraph.\n'));
      await waitFor(async () => (await sectionTitles()).join() === 'Alpha,Beta', 'the tree to show the edited sections');
      assert.strictEqual((await (await api.knowledgeBase()).search('qponmlk'))[0]?.headings.at(-1), 'Beta');
    } finally {
      await vscode.workspace.fs.delete(file);
    }
    await waitFor(async () => (await findDocument()) === undefined, 'the deleted file to leave the index');
    await waitFor(async () => (await sectionTitles()).length === 0, 'the tree to drop the deleted document');
    assert.strictEqual(api.indexService.current.documents, 5);
  });

  it('indexes the files of a folder moved into the workspace or renamed in it (the watcher reports the folder alone)', async () => {
    // Written outside the workspace (beside it, so the rename stays on one file system), then moved in whole:
    // the file watcher sees one created folder and nothing for the files inside it.
    const outside = path.join(path.dirname(workspaceUri('').fsPath), `haiku-moved-${process.pid}-${Date.now()}`);
    await fs.mkdir(path.join(outside, 'inner'), { recursive: true });
    await fs.writeFile(path.join(outside, 'inner', 'moved.md'), '# Moved\n\nThe vwxmoved paragraph arrived with its folder.\n');
    await fs.writeFile(path.join(outside, 'top.md'), '# Top\n\nThe second vwxmoved note.\n');
    const moved = workspaceUri('moved-in');
    const renamed = workspaceUri('moved-renamed');
    const movedPaths = async () => (await (await api.knowledgeBase()).listDocuments()).map((document) => document.relativePath).filter((relativePath) => /^moved-(in|renamed)\//.test(relativePath)).sort();
    try {
      await fs.rename(outside, moved.fsPath);
      await waitFor(async () => (await movedPaths()).length === 2, 'the moved folder\'s two notes to be indexed', 30_000);
      assert.deepStrictEqual(await movedPaths(), ['moved-in/inner/moved.md', 'moved-in/top.md']);
      assert.strictEqual((await (await api.knowledgeBase()).search('vwxmoved')).length > 0, true);
      // Renaming the folder reports a deleted folder and a created one: the notes follow it under the new name.
      await vscode.workspace.fs.rename(moved, renamed);
      await waitFor(async () => (await movedPaths()).join() === 'moved-renamed/inner/moved.md,moved-renamed/top.md', 'the notes to follow the renamed folder', 30_000);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
      await vscode.workspace.fs.delete(moved, { recursive: true }).then(undefined, () => undefined);
      await vscode.workspace.fs.delete(renamed, { recursive: true }).then(undefined, () => undefined);
    }
    await waitFor(async () => (await movedPaths()).length === 0, 'the moved notes to leave the index when the folder is deleted');
  });

  it('leaves out files a .gitignore ignores when they appear (build output), as a full sync does; Index Current File still indexes one', async () => {
    const area = workspaceUri('ignored-area');
    const areaPaths = async () => (await (await api.knowledgeBase()).listDocuments()).map((document) => document.relativePath).filter((relativePath) => relativePath.startsWith('ignored-area/')).sort();
    try {
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(area, '.gitignore'), new TextEncoder().encode('build/\n'));
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(area, 'kept.md'), new TextEncoder().encode('# Kept\n\nA note that is kept.\n'));
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(area, 'build', 'report.md'), new TextEncoder().encode('# Report\n\nGenerated output.\n'));
      await waitFor(async () => (await areaPaths()).includes('ignored-area/kept.md'), 'the kept note to be indexed', 30_000);
      // Every event has been handled once the service is idle after a debounce.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await api.indexService.whenIdle();
      assert.deepStrictEqual(await areaPaths(), ['ignored-area/kept.md']);
      await api.indexService.indexFiles([vscode.Uri.joinPath(area, 'build', 'report.md')]);
      assert.deepStrictEqual(await areaPaths(), ['ignored-area/build/report.md', 'ignored-area/kept.md'], 'a file named by a command is indexed whatever .gitignore says');
    } finally {
      await vscode.workspace.fs.delete(area, { recursive: true });
    }
    await waitFor(async () => (await areaPaths()).length === 0, 'the area to leave the index');
  });

  it('pauses and resumes: changes made while paused are indexed on resume', async () => {
    const file = workspaceUri('guides/e2e-paused.md');
    await vscode.commands.executeCommand('haiku.pauseIndexing');
    assert.strictEqual(api.indexService.current.state, 'paused');
    try {
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('# Paused\n\nWritten while indexing was paused.\n'));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.strictEqual(api.indexService.current.documents, 5, 'nothing indexed while paused');
      await vscode.commands.executeCommand('haiku.resumeIndexing');
      await waitFor(() => api.indexService.current.documents === 6 && api.indexService.current.state === 'ready', 'the paused change to be indexed after resume');
    } finally {
      await vscode.workspace.fs.delete(file);
    }
    await waitFor(() => api.indexService.current.documents === 5, 'the index back at five documents');
  });
});
