import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { activateHaiku, waitFor, workspaceUri } from '../haikuSupport';
import type { HaikuTestApi } from '../../../src/vscode/testApi';

/** A window on a folder with no indexable file: activation stays cheap until a document appears. */
describe('Haiku: a window without documents', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
  });

  it('activates without loading the backend or creating an index, also when the Sections view opens', async () => {
    await waitFor(() => api.indexService.current.state === 'idle', `the idle state (status ${JSON.stringify(api.indexService.current)})`);
    await vscode.commands.executeCommand('workbench.view.extension.haiku');
    await waitFor(() => api.treeChildrenRequests > 0, 'the Sections view to ask for children');
    assert.strictEqual(api.backendLoaded(), false, 'dist/backend.js was loaded');
    assert.strictEqual(fs.existsSync(api.defaultDatabaseUri), false, `an index was created at ${api.defaultDatabaseUri}`);
    assert.deepStrictEqual(api.indexJobs, []);
  });

  it('opens the walkthrough', async () => {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'haiku-dev.haiku#haiku.gettingStarted', false);
    await waitFor(() => vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => /Haiku|Walkthrough|Welcome/i.test(tab.label))), 'the walkthrough tab');
    assert.strictEqual(api.backendLoaded(), false);
  });

  it('with haiku.index.autoIndex off, leaves a new document alone and the backend unloaded', async () => {
    await vscode.workspace.getConfiguration('haiku').update('index.autoIndex', false, vscode.ConfigurationTarget.Workspace);
    await waitFor(() => api.indexService.current.state === 'idle', 'the idle state');
    await vscode.workspace.fs.writeFile(workspaceUri('first-note.md'), Buffer.from('# First note\n\nThe zebrafinch sings at dawn.\n'));
    // Longer than the watcher's debounce: an enabled watcher would have started indexing by now.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await api.indexService.whenIdle();
    assert.strictEqual(api.backendLoaded(), false);
    assert.strictEqual(fs.existsSync(api.defaultDatabaseUri), false);
  });

  it('indexes once automatic indexing is on, then follows the next new document', async () => {
    await vscode.workspace.getConfiguration('haiku').update('index.autoIndex', undefined, vscode.ConfigurationTarget.Workspace);
    const indexed = async (documents: number) => waitFor(async () => {
      await api.indexService.whenIdle();
      return api.indexService.current.documents === documents;
    }, `${documents} indexed documents (status ${JSON.stringify(api.indexService.current)})`, 120_000);
    await indexed(1);
    assert.strictEqual(api.backendLoaded(), true);
    assert.ok(fs.existsSync(api.defaultDatabaseUri));
    const [hit] = await (await api.knowledgeBase()).search('zebrafinch');
    assert.strictEqual(hit?.title, 'First note');
    await vscode.workspace.fs.writeFile(workspaceUri('second-note.md'), Buffer.from('# Second note\n\nThe kestrel hovers.\n'));
    await indexed(2);
  });
});
