import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import type { SectionsTreeNode } from '../../../src/vscode/sectionsTree';
import { activateHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** Activation, the first index build of the fixture workspace, and the Sections view on real documents. */
describe('Haiku: activation, indexing and the Sections view', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
  });

  it('activates cheaply and indexes the five fixture documents', async () => {
    console.log(`activation took ${api.activationMs.toFixed(1)} ms`);
    assert.ok(api.activationMs < 500, `activation took ${api.activationMs} ms`);
    const started = Date.now();
    await waitForIndex(api);
    console.log(`first index build ready after ${Date.now() - started} ms more: ${JSON.stringify(api.indexService.current)}`);
    const status = api.indexService.current;
    assert.strictEqual(status.documents, 5);
    assert.ok(status.chunks > 20, `${status.chunks} chunks`);
    const full = api.indexJobs.find((entry) => entry.kind === 'full');
    assert.ok(full && full.failed.length === 0, JSON.stringify(full));
  });

  it('shows documents grouped by folder, then their section trees (the UI asks the provider)', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.haiku');
    await waitFor(() => api.treeChildrenRequests > 0, 'the Sections view to ask for children');
    const roots = await api.sectionsTree.getChildren();
    assert.deepStrictEqual(roots.map((node) => (node.kind === 'folder' ? node.path : node.kind === 'document' ? node.document.relativePath : node.kind)), ['guides', 'papers', 'README.md']);
    const guides = await api.sectionsTree.getChildren(roots[0]);
    assert.deepStrictEqual(guides.map((node) => node.kind === 'document' && node.document.relativePath).sort(), ['guides/features.md', 'guides/gc-guide.html']);
    const features = guides.find((node) => node.kind === 'document' && node.document.relativePath === 'guides/features.md')!;
    const [top] = await api.sectionsTree.getChildren(features);
    assert.ok(top.kind === 'section' && top.section.title === 'Features');
    const subsections = await api.sectionsTree.getChildren(top);
    const titles = subsections.map((node) => node.kind === 'section' && node.section.title);
    assert.ok(titles.includes('Hot Module Replacement') && titles.includes('TypeScript'), titles.join(', '));
    const item = api.sectionsTree.getTreeItem(subsections[0]);
    assert.strictEqual(item.contextValue, 'haiku.section');
    assert.match(String(item.description), /^L\d+$/);
    const papers = await api.sectionsTree.getChildren(roots[1]);
    const pdf = papers.find((node) => node.kind === 'document' && node.document.format === 'pdf')!;
    const pdfSections = await api.sectionsTree.getChildren(pdf);
    assert.ok(pdfSections.length > 0, 'the PDF has sections');
    assert.match(String(api.sectionsTree.getTreeItem(pdfSections[0]).description), /^p\. \d+$/);
  });

  it('opens a Markdown section at its header line and a PDF section in its read-only rendering', async () => {
    const guides = (await api.sectionsTree.getChildren())[0];
    const features = (await api.sectionsTree.getChildren(guides)).find((node) => node.kind === 'document' && node.document.format === 'markdown')!;
    const [top] = await api.sectionsTree.getChildren(features);
    const hmr = (await api.sectionsTree.getChildren(top)).find((node) => node.kind === 'section' && node.section.title === 'Hot Module Replacement') as Extract<SectionsTreeNode, { kind: 'section' }>;
    await vscode.commands.executeCommand('haiku.openSection', hmr);
    const editor = vscode.window.activeTextEditor!;
    assert.strictEqual(editor.document.uri.toString(), workspaceUri('guides/features.md').toString());
    assert.strictEqual(editor.document.lineAt(editor.selection.start.line).text, '## Hot Module Replacement');

    const papers = (await api.sectionsTree.getChildren())[1];
    const pdf = (await api.sectionsTree.getChildren(papers)).find((node) => node.kind === 'document' && node.document.format === 'pdf')!;
    const [pdfSection] = await api.sectionsTree.getChildren(pdf);
    assert.ok(pdfSection.kind === 'section');
    await vscode.commands.executeCommand('haiku.openSection', pdfSection);
    // A PDF section opens on its page in the PDF viewer (the viewer's drawing is asserted in haiku-8).
    await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputCustom && input.viewType === 'haiku.pdfViewer' && pdf.kind === 'document' && input.uri.toString() === pdf.document.uri;
    }, 'the PDF viewer on the section\'s file');
    // "Open as Text" shows the read-only rendering; the section's header line is there.
    await vscode.commands.executeCommand('haiku.openPdfAsText');
    const rendering = await waitFor(() => vscode.window.activeTextEditor?.document.uri.scheme === 'haiku-doc' ? vscode.window.activeTextEditor : undefined, 'the text rendering');
    const headerLine = rendering.document.getText().split('\n').findIndex((line) => /^#{1,6} /.test(line) && line.includes(pdfSection.section.title.slice(0, 10)));
    assert.ok(headerLine >= 0, `the rendering has the header of "${pdfSection.section.title}"`);
    rendering.selection = new vscode.Selection(headerLine, 0, headerLine, 0);
    // The tree follows the cursor in renderings too.
    await waitFor(() => {
      const [node] = api.sectionsView.selection;
      return node && node.kind === 'section' && node.key === pdfSection.key;
    }, () => `the tree to select "${pdfSection.section.title}" (selected: ${api.sectionsView.selection.map((node) => node.key).join()})`);
  });

  it('reveals the section under the cursor and copies a citation of it', async () => {
    const document = await vscode.workspace.openTextDocument(workspaceUri('guides/features.md'));
    const line = document.getText().split('\n').indexOf('### Transpile Only') + 2;
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(line, 0, line, 0) });
    const selected = await waitFor(() => {
      const [node] = api.sectionsView.selection;
      return node && node.kind === 'section' && node.section.title === 'Transpile Only' ? node : undefined;
    }, 'the tree to select "Transpile Only"');
    const citation = await vscode.commands.executeCommand<string>('haiku.copyCitation', selected);
    assert.strictEqual(citation, `Features › Transpile Only — guides/features.md#L${line - 1}`);
    assert.strictEqual(await vscode.env.clipboard.readText(), citation);
  });
});
