import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SectionsViewNode } from '../../../src/vscode/sectionsTree';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, EXTENSION_ID, invokeToolText, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** Slides and sheets in the workspace: named by their own places in the tree and in tool hits; citations open their rendering at the chunk. */
describe('Haiku: slide decks and spreadsheets', () => {
  let api: HaikuTestApi;
  const folder = () => workspaceUri('decks');

  before(async function () {
    this.timeout(300_000);
    api = await activateHaiku();
    await waitForIndex(api);
    const fixtures = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'test', 'fixtures', 'formats');
    await vscode.workspace.fs.createDirectory(folder());
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder(), 'review.pptx'), fs.readFileSync(path.join(fixtures, 'pptx', 'powerpoint_sample.pptx')));
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder(), 'numbers.xlsx'), fs.readFileSync(path.join(fixtures, 'xlsx', 'xlsx_01.xlsx')));
    await waitForIndex(api, 7);
  });

  after(async function () {
    this.timeout(120_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(folder(), { recursive: true });
    await waitFor(async () => {
      await api.indexService.whenIdle();
      return api.indexService.current.state === 'ready' && api.indexService.current.documents === 5;
    }, 'the decks gone from the index', 120_000);
  });

  async function documentNode(relativePath: string): Promise<SectionsViewNode> {
    const roots = await api.sectionsTree.getChildren();
    const decks = roots.find((node) => node.kind === 'folder' && node.path === 'decks');
    assert.ok(decks, `a decks folder among ${roots.map((node) => node.kind).join(', ')}`);
    const node = (await api.sectionsTree.getChildren(decks)).find((child) => child.kind === 'document' && child.document.relativePath === relativePath);
    assert.ok(node, `${relativePath} in the tree`);
    return node;
  }

  it('the tree shows one section per slide and per sheet, described as "slide n" and "sheet name"', async () => {
    const deck = await documentNode('decks/review.pptx');
    const slides = (await api.sectionsTree.getChildren(deck)).map((node) => api.sectionsTree.getTreeItem(node));
    assert.deepStrictEqual(slides.map((item) => [item.label, item.description]), [['Test Table Slide', 'slide 1'], ['Second slide title', 'slide 2'], ['Slide 3', 'slide 3']]);
    const book = await documentNode('decks/numbers.xlsx');
    const sheets = (await api.sectionsTree.getChildren(book)).map((node) => api.sectionsTree.getTreeItem(node));
    assert.deepStrictEqual(sheets.map((item) => item.label), ['Sheet1', 'Sheet2', 'Sheet3']);
    assert.ok(sheets.every((item) => String(item.description).startsWith(`sheet ${String(item.label)}`)), sheets.map((item) => item.description).join(', '));
  });

  it('a hit names its slide, and its chunk opens the deck\'s rendering with the chunk selected', async function () {
    this.timeout(120_000);
    const hits = await invokeToolText('haiku_search', { query: 'rectangle shape with this text inside', limit: 3 });
    assert.match(hits, /decks\/review\.pptx slide 2/, hits);
    const chunkId = /decks\/review\.pptx slide 2[^\n]*\nchunk: (\S+) · score/.exec(hits)?.[1];
    assert.ok(chunkId, hits);
    await vscode.commands.executeCommand('haiku.openChunk', chunkId);
    const editor = await waitFor(() => {
      const active = vscode.window.activeTextEditor;
      return active && active.document.uri.scheme !== 'file' && active.document.getText().includes('Second slide title') ? active : undefined;
    }, () => `the deck's rendering open (active: ${vscode.window.activeTextEditor?.document.uri.toString()})`);
    assert.ok(!editor.selection.isEmpty, 'the chunk is selected');
    assert.match(editor.document.getText(editor.selection), /A rectangle shape with this text inside/);
  });

  it('a sheet\'s hit names the sheet and its cells', async function () {
    this.timeout(120_000);
    const hits = await invokeToolText('haiku_search', { query: 'col-1 col-2 col-3 col-4', limit: 5 });
    assert.match(hits, /decks\/numbers\.xlsx sheet Sheet2, [A-Z]+\d+:[A-Z]+\d+/, hits);
  });
});
