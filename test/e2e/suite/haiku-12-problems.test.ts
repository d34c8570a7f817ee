import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { SectionsViewNode } from '../../../src/vscode/sectionsTree';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

const FOLDER = 'problems-e2e';
/** Over the default 50 MiB file size limit (text formats have no smaller share since big Markdown converts in segments). */
const OVERSIZED_BYTES = 51 * 1024 * 1024;

/**
 * Files Haiku cannot index are visible where users look: a warning on the file in the Problems panel (the reason,
 * and the setting to change when one fixes it), the count on the status item, and a "Not indexed (n)" node in the
 * Sections view with each file's actions. Fixing or deleting the file clears them.
 */
describe('Haiku: a corrupt PDF and an oversized file are shown, not only logged', () => {
  let api: HaikuTestApi;
  const brokenPdf = () => workspaceUri(`${FOLDER}/broken.pdf`);
  const hugeText = () => workspaceUri(`${FOLDER}/huge.md`);
  const haikuDiagnostics = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source === 'Haiku');
  const notIndexedRoot = async () => (await api.sectionsTree.getChildren()).find((node) => node.kind === 'notIndexed');

  before(async function () {
    this.timeout(240_000);
    api = await activateHaiku();
    await waitForIndex(api);
    await vscode.workspace.fs.writeFile(brokenPdf(), new TextEncoder().encode(`%PDF-1.7\n${'garbage '.repeat(200)}`));
    const line = 'An oversized note, over the file size limit.\n';
    await vscode.workspace.fs.writeFile(hugeText(), new TextEncoder().encode(`# Huge\n\n${line.repeat(Math.ceil(OVERSIZED_BYTES / line.length))}`));
    await waitFor(() => haikuDiagnostics(brokenPdf()).length > 0 && haikuDiagnostics(hugeText()).length > 0, 'both files in the Problems panel', 180_000).catch((error: Error) => {
      throw new Error(`${error.message}; status ${JSON.stringify(api.indexService.current)}; not indexed ${JSON.stringify(api.indexService.notIndexed)}; last jobs ${JSON.stringify(api.indexJobs.slice(-3))}`);
    });
    // The big file's write may report more than one change: let every queued update finish.
    await api.indexService.whenIdle();
  });

  after(async function () {
    this.timeout(120_000);
    await vscode.workspace.fs.delete(workspaceUri(FOLDER), { recursive: true }).then(undefined, () => undefined);
    await waitFor(async () => {
      await api.indexService.whenIdle();
      const documents = await (await api.knowledgeBase()).listDocuments();
      return !documents.some((document) => document.relativePath.startsWith(`${FOLDER}/`));
    }, 'the folder to leave the index', 60_000);
  });

  it('puts a warning on each file in the Problems panel: the reason, and for the oversized file the size setting', () => {
    const [pdf] = haikuDiagnostics(brokenPdf());
    assert.strictEqual(pdf.severity, vscode.DiagnosticSeverity.Warning);
    assert.strictEqual(pdf.code, 'corrupt_file');
    assert.match(pdf.message, /^Not indexed: .*broken\.pdf/);
    assert.doesNotMatch(pdf.message, /Setting:/);
    const [huge] = haikuDiagnostics(hugeText());
    assert.strictEqual(huge.code, 'file_too_large');
    assert.match(huge.message, /the 50\.0 Mi?B limit/);
    assert.match(huge.message, /Setting: haiku\.index\.maxFileSizeMB\./);
  });

  it('counts them on the status item', async () => {
    await api.indexService.whenIdle();
    const status = api.indexService.current;
    assert.strictEqual(status.state, 'ready');
    assert.strictEqual(status.notIndexed, 2, JSON.stringify(api.indexService.notIndexed));
  });

  it('lists them under "Not indexed (2)" in the Sections view, each with open, setting, retry and log actions', async () => {
    const root = await notIndexedRoot();
    assert.ok(root, 'the Not indexed node is shown');
    assert.strictEqual(api.sectionsTree.getTreeItem(root).label, 'Not indexed (2)');
    const files = await api.sectionsTree.getChildren(root);
    const labels = files.map((node) => String(api.sectionsTree.getTreeItem(node).label));
    assert.deepStrictEqual(labels, [`${FOLDER}/broken.pdf`, `${FOLDER}/huge.md`]);
    const hugeNode = files[1];
    assert.match(String(api.sectionsTree.getTreeItem(hugeNode).tooltip), /haiku\.index\.maxFileSizeMB/);
    const actions = (await api.sectionsTree.getChildren(hugeNode)).map((node) => api.sectionsTree.getTreeItem(node).command!);
    assert.deepStrictEqual(actions.map((command) => command.command), ['vscode.open', 'workbench.action.openSettings', 'haiku.indexCurrentFile', 'haiku.showOutput']);
    assert.deepStrictEqual(actions[1].arguments, ['haiku.index.maxFileSizeMB']);
    // The corrupt PDF has no setting to change: open, retry, log.
    const pdfActions = (await api.sectionsTree.getChildren(files[0])).map((node: SectionsViewNode) => api.sectionsTree.getTreeItem(node).command!.command);
    assert.deepStrictEqual(pdfActions, ['vscode.open', 'haiku.indexCurrentFile', 'haiku.showOutput']);
    // The view shows the node: revealing a file under it resolves its parent and selects the row.
    await vscode.commands.executeCommand('haiku.sections.focus');
    await api.sectionsView.reveal(hugeNode, { select: true, focus: false, expand: true });
    assert.deepStrictEqual(api.sectionsView.selection.map((node) => node.key), [hugeNode.key]);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    // Retry runs the file again: it fails again, and stays listed with its reason.
    await vscode.commands.executeCommand(actions[2].command, ...(actions[2].arguments ?? []));
    assert.strictEqual(haikuDiagnostics(hugeText()).length, 1);
    assert.strictEqual(api.indexService.current.notIndexed, 2);
  });

  it('clears the warning of a file that indexes later (the PDF repaired) and of a file deleted', async function () {
    this.timeout(180_000);
    const realPdf = await vscode.workspace.fs.readFile(workspaceUri('papers/multi_page.pdf'));
    await vscode.workspace.fs.writeFile(brokenPdf(), realPdf);
    await waitFor(() => haikuDiagnostics(brokenPdf()).length === 0, 'the repaired PDF to lose its warning', 120_000);
    assert.ok((await (await api.knowledgeBase()).listDocuments()).some((document) => document.relativePath === `${FOLDER}/broken.pdf`), 'the repaired PDF is indexed');
    assert.strictEqual(api.indexService.current.notIndexed, 1);
    assert.strictEqual(api.sectionsTree.getTreeItem((await notIndexedRoot())!).label, 'Not indexed (1)');
    await vscode.workspace.fs.delete(hugeText());
    await waitFor(() => haikuDiagnostics(hugeText()).length === 0, 'the deleted file to lose its warning', 60_000);
    assert.strictEqual(api.indexService.current.notIndexed, 0);
    assert.strictEqual(await notIndexedRoot(), undefined, 'no Not indexed node once every file indexes');
  });
});
