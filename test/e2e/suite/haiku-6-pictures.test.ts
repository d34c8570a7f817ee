import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import type { SectionsTreeNode } from '../../../src/vscode/sectionsTree';
import { activateHaiku, askHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** The PDF with two raster figures (test-fixtures/pictures/README.md), copied into the workspace for this suite only. */
const FIXTURE = path.resolve(__dirname, '../../test-fixtures/pictures/picture_classification.pdf');
const RELATIVE_PATH = 'papers/e2e-pictures.pdf';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

type FigureNode = Extract<SectionsTreeNode, { kind: 'figure' }>;

function activeTabInput(): unknown {
  return vscode.window.tabGroups.activeTabGroup.activeTab?.input;
}

/** The image preview (VS Code's media-preview custom editor) showing a `haiku-picture:` file, or undefined. */
function activePictureTab(): vscode.TabInputCustom | undefined {
  const input = activeTabInput();
  return input instanceof vscode.TabInputCustom && input.uri.scheme === 'haiku-picture' ? input : undefined;
}

/** Pictures: figure nodes in the Sections view open in the image preview; runs panel thumbnails; chat references; the picture tools. */
describe('Haiku: pictures in the tree, the runs panel, the chat and the tools', () => {
  let api: HaikuTestApi;
  let figures: FigureNode[];

  before(async function () {
    this.timeout(240_000);
    api = await activateHaiku();
    await waitForIndex(api);
    // A fresh chat session: the earlier suites' turns (and their document filter) must not carry over.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await vscode.workspace.fs.writeFile(workspaceUri(RELATIVE_PATH), fs.readFileSync(FIXTURE));
    await waitFor(async () => (await (await api.knowledgeBase()).listDocuments()).some((document) => document.relativePath === RELATIVE_PATH), `${RELATIVE_PATH} to be indexed`, 180_000);
  });

  after(async function () {
    this.timeout(120_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(workspaceUri(RELATIVE_PATH));
    await waitFor(async () => !(await (await api.knowledgeBase()).listDocuments()).some((document) => document.relativePath === RELATIVE_PATH), `${RELATIVE_PATH} to leave the index`, 60_000);
  });

  it('shows the figures of a PDF as leaf nodes labelled by caption, with the media icon', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.haiku');
    const papers = await waitFor(async () => (await api.sectionsTree.getChildren()).find((node) => node.kind === 'folder' && node.path === 'papers'), 'the papers folder');
    const document = await waitFor(async () => (await api.sectionsTree.getChildren(papers)).find((node) => node.kind === 'document' && node.document.relativePath === RELATIVE_PATH), 'the PDF in the tree');
    figures = (await api.sectionsTree.getChildren(document)).filter((node): node is FigureNode => node.kind === 'figure');
    assert.deepStrictEqual(figures.map((node) => node.label), ['Figure 1: This is an example image.', 'Figure 2: This is an example image.']);
    const item = api.sectionsTree.getTreeItem(figures[0]);
    assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'file-media');
    assert.strictEqual(item.collapsibleState, vscode.TreeItemCollapsibleState.None);
    assert.strictEqual(item.description, 'p. 1');
    assert.strictEqual(item.command?.command, 'haiku.openPicture');
    // The view reveals it (the same node instance answers getParent), as a user would see it.
    // The view must be on screen for a reveal to select (an earlier suite may have left another view focused).
    await vscode.commands.executeCommand('haiku.sections.focus');
    await waitFor(() => api.sectionsView.visible, 'the Sections view to be visible');
    await api.sectionsView.reveal(figures[1], { select: true, focus: true });
    // A refresh of the tree (the index's upkeep after the new file lands) can replace the nodes and drop the
    // selection: the figure is revealed again, from the tree's current nodes, until it is the one selected.
    await waitFor(async () => {
      if (api.sectionsView.selection[0]?.key === figures[1].key) {
        return true;
      }
      const current = (await api.sectionsTree.getChildren(document)).find((node) => node.key === figures[1].key) ?? figures[1];
      await api.sectionsView.reveal(current, { select: true, focus: true });
      return false;
    }, 'the revealed figure to be selected in the Sections view');
  });

  it('opens a figure in VS Code\'s image preview, read-only, with the stored PNG bytes', async () => {
    const item = api.sectionsTree.getTreeItem(figures[0]);
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const tab = await waitFor(activePictureTab, () => `the picture in an image preview (active tab input: ${JSON.stringify(activeTabInput())})`);
    assert.strictEqual(tab.viewType, 'imagePreview.previewEditor');
    assert.match(tab.uri.path, /\/0\/e2e-pictures figure 1\.png$/);
    const bytes = await vscode.workspace.fs.readFile(tab.uri);
    assert.deepStrictEqual([...bytes.slice(0, 4)], PNG_SIGNATURE);
    const stored = await (await api.knowledgeBase()).pictureBytes(figures[0].document.id, '#/pictures/0');
    assert.strictEqual(bytes.byteLength, stored?.bytes.byteLength);
    assert.strictEqual(vscode.workspace.fs.isWritableFileSystem('haiku-picture'), false);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(tab.uri, new Uint8Array([1]))));
  });

  it('answers with the cited figure among the references and shows thumbnails in the runs panel; a click opens the picture', async () => {
    const record = await askHaiku(api, '@haiku /ask Figures Example: what does the example image show?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    const run = api.runsStore.get(record.runId)!;
    const cited = run.citations.find((citation) => citation.relativePath === RELATIVE_PATH && (citation.pictureRefs?.length ?? 0) > 0);
    assert.ok(cited, `a citation of the PDF showing a picture: ${JSON.stringify(run.citations.map((citation) => [citation.relativePath, citation.pictureRefs]))} (filter ${record.documentFilter}; steps ${JSON.stringify(run.steps).slice(0, 600)})`);
    const pictureReferences = record.references.filter((reference) => reference.startsWith('haiku-picture:'));
    assert.strictEqual(pictureReferences.length, cited.pictureRefs!.length, record.references.join(', '));
    const search = run.steps.find((step) => step.kind === 'search');
    assert.ok(search?.kind === 'search' && search.hits.some((hit) => (hit.pictureRefs?.length ?? 0) > 0), 'a hit carries picture refs');

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('haiku.showRuns', run.id);
    const report = await waitFor(() => api.renderReports.find((entry) => entry.runId === run.id && entry.thumbnails > 0), 'the runs webview to draw a thumbnail', 60_000);
    console.log(`runs panel drew ${report.thumbnails} thumbnails for ${report.hits} hits and ${report.citations} citations`);

    // The webview's click message, through the host's check that the run shows this picture.
    await api.runsPanel.handleMessage({ type: 'openPicture', runId: run.id, documentId: cited.documentId!, selfRef: cited.pictureRefs![0] });
    const tab = await waitFor(activePictureTab, 'the clicked thumbnail\'s picture in an image preview');
    assert.match(tab.uri.path, new RegExp(`^/${cited.documentId}/${cited.pictureRefs![0].split('/').pop()}/`));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.runsPanel.handleMessage({ type: 'openPicture', runId: run.id, documentId: cited.documentId!, selfRef: '#/pictures/999' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.strictEqual(activePictureTab(), undefined, 'a picture the run does not show is not opened');
  });

  it('lists a section\'s figure captions in haiku_readSection and returns the image from haiku_readPicture', async () => {
    const cancellation = new vscode.CancellationTokenSource();
    const invoke = (name: string, input: object) => vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cancellation.token);
    const text = (result: vscode.LanguageModelToolResult) => result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    const contents = text(await invoke('haiku_readSection', { document: RELATIVE_PATH }));
    assert.match(contents, /Figures \(2; read the image with haiku_readPicture/);
    assert.match(contents, /- #\/pictures\/1 \(p\. 2\): Figure 2: This is an example image\. \[image\/png \d+×\d+\]/);

    const picture = await invoke('haiku_readPicture', { document: RELATIVE_PATH, picture: '#/pictures/1' });
    assert.match(text(picture), /e2e-pictures\.pdf p\. 2 #\/pictures\/1: Figure 2: This is an example image\./);
    const image = picture.content.find((part): part is { mimeType: string; data: Uint8Array } => typeof part === 'object' && part !== null && 'mimeType' in part && 'data' in part);
    console.log(`haiku_readPicture on VS Code ${vscode.version}: ${image ? `${image.mimeType}, ${image.data.byteLength} bytes` : 'text only'}`);
    assert.ok(image, 'this engine has LanguageModelDataPart: the image part is returned');
    assert.strictEqual(image.mimeType, 'image/png');
    assert.deepStrictEqual([...image.data.slice(0, 4)], PNG_SIGNATURE);
    assert.match(text(await invoke('haiku_readPicture', { document: RELATIVE_PATH, picture: '#/pictures/7' })), /No picture "#\/pictures\/7"[\s\S]*#\/pictures\/0/);
  });
});
