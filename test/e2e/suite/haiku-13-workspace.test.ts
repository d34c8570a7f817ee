import * as assert from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, EXTENSION_ID, invokeToolText, waitFor, waitForIndex } from '../haikuSupport';

/** Builds an index of `folder` into `database` with the bundled CLI, as a teammate's job would. */
function buildIndex(folder: string, database: string): Promise<void> {
  const extensionPath = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), 'index', folder, '--db', database, '--quiet'], {
      cwd: folder,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', LANCEDB_LOG: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (output += data.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`haiku index exited ${code}: ${output}`))));
  });
}

/** A notebook whose second cell holds the passage searched for, after a first cell long enough to be its own chunk. */
function teamNotebook(): string {
  const filler = Array.from({ length: 60 }, (_, index) => `Onboarding step ${index + 1} covers badge ${index * 7} and desk ${index * 3} in building ${index % 4}.`).join(' ');
  const cells = [
    { cell_type: 'markdown', metadata: {}, source: ['# Onboarding\n', '\n', filler] },
    { cell_type: 'markdown', metadata: {}, source: ['## Alpaca tally\n', '\n', 'The quarterly alpaca tally counts llamas separately from vicunas.'] },
    { cell_type: 'code', execution_count: 1, metadata: {}, outputs: [{ output_type: 'stream', name: 'stdout', text: ['42 alpacas\n'] }], source: ['print(tally())'] },
  ];
  return JSON.stringify({ cells, metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: 5 }, null, 1);
}

const TEAM_NOTE = '# Team runbook\n\nIntroduction for new people.\n\n## Capybara rotation\n\nThe capybara rotation hands the pager over every Tuesday at noon.\n';

/** `haiku.index.additionalDatabases`: a second index, outside the workspace, searched and cited with the workspace's. */
describe('Haiku: several databases (haiku.index.additionalDatabases)', () => {
  let api: HaikuTestApi;
  let folder: string;

  before(async function () {
    this.timeout(300_000);
    api = await activateHaiku();
    await waitForIndex(api);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-e2e-team-'));
    fs.mkdirSync(path.join(folder, 'notes'));
    fs.writeFileSync(path.join(folder, 'notes', 'runbook.md'), TEAM_NOTE);
    fs.writeFileSync(path.join(folder, 'notes', 'other.md'), '# Other\n\nNothing about rodents here.\n');
    fs.writeFileSync(path.join(folder, 'notes', 'tally.ipynb'), teamNotebook());
    await buildIndex(path.join(folder, 'notes'), path.join(folder, 'team-index'));
    await vscode.workspace.getConfiguration('haiku').update('index.additionalDatabases', { team: path.join(folder, 'team-index') }, vscode.ConfigurationTarget.Global);
    await waitFor(async () => {
      const knowledgeBase = api.indexService.openKnowledgeBase;
      return api.indexService.current.state === 'ready' && knowledgeBase !== undefined
        && (await knowledgeBase.search('capybara rotation', { limit: 5 })).some((result) => result.chunkId.startsWith('team:'));
    }, () => `the team index searched with the workspace's (${JSON.stringify(api.indexService.current)})`, 120_000);
  });

  after(async function () {
    this.timeout(120_000);
    await vscode.workspace.getConfiguration('haiku').update('index.additionalDatabases', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor(() => api.indexService.current.state === 'ready', 'the workspace index alone again', 120_000);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('haiku_search finds the other index\'s passage, and its chunk id opens that file with the chunk selected', async function () {
    this.timeout(120_000);
    const hits = await invokeToolText('haiku_search', { query: 'capybara rotation pager Tuesday', limit: 5 });
    const chunkId = /chunk: (team:\S+) · score/.exec(hits)?.[1];
    assert.ok(chunkId, `a hit from the team index in:\n${hits}`);
    assert.match(hits, /runbook\.md/);
    await vscode.commands.executeCommand('haiku.openChunk', chunkId);
    const editor = await waitFor(() => {
      const active = vscode.window.activeTextEditor;
      return active?.document.uri.fsPath === path.join(folder, 'notes', 'runbook.md') ? active : undefined;
    }, () => `the team file open (active: ${vscode.window.activeTextEditor?.document.uri.toString()})`);
    const selected = editor.document.getText(editor.selection);
    assert.ok(!editor.selection.isEmpty, 'the chunk is selected');
    assert.match(selected, /capybara rotation hands the pager over every Tuesday/, `selection: ${JSON.stringify(selected)}`);
  });

  it('a notebook\'s chunk opens in the notebook editor with its cell selected, not as JSON', async function () {
    this.timeout(120_000);
    const hits = await invokeToolText('haiku_search', { query: 'quarterly alpaca tally llamas vicunas', limit: 3 });
    const chunkId = /chunk: (team:\S+) · score/.exec(hits)?.[1];
    assert.ok(chunkId, `a hit from the team index in:\n${hits}`);
    assert.match(hits, /tally\.ipynb cell \d+/, `hits name the notebook cell:\n${hits}`);
    await vscode.commands.executeCommand('haiku.openChunk', chunkId);
    const editor = await waitFor(() => {
      const active = vscode.window.activeNotebookEditor;
      return active?.notebook.uri.fsPath === path.join(folder, 'notes', 'tally.ipynb') ? active : undefined;
    }, () => `the notebook open in the notebook editor (active text editor: ${vscode.window.activeTextEditor?.document.uri.toString()})`);
    const selected = editor.notebook.cellAt(editor.selection.start);
    assert.ok(editor.selection.start >= 1, `the chunk's own cell, not the first one (selected ${editor.selection.start})`);
    assert.match(selected.document.getText(), /alpaca tally|counts llamas|tally\(\)/, `selected cell: ${selected.document.getText()}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // In the chat, the citation's anchor is the cell itself, so clicking it opens the notebook there too.
    const record = await askHaiku(api, '@haiku /search quarterly alpaca tally llamas vicunas');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    const anchor = record.anchorLocations.find((location) => location.uri.scheme === 'vscode-notebook-cell' && location.uri.path.endsWith('tally.ipynb'));
    assert.ok(anchor, `an anchor on a cell of tally.ipynb among: ${record.anchors.join(', ')}`);
    const cellDocument = await vscode.workspace.openTextDocument(anchor.uri);
    assert.match(cellDocument.getText(), /alpaca tally|counts llamas|tally\(\)/, `anchored cell: ${cellDocument.getText()}`);
  });

  it('@haiku /search cites the other index\'s passage with an anchor on its file and lines', async function () {
    this.timeout(180_000);
    const record = await askHaiku(api, '@haiku /search capybara rotation pager Tuesday');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.route, 'search');
    const teamFile = vscode.Uri.file(path.join(folder, 'notes', 'runbook.md')).toString();
    const location = record.anchorLocations.find((anchor) => anchor.uri.toString() === teamFile);
    assert.ok(location, `an anchor on the team file among: ${record.anchors.join(', ')}`);
    const document = await vscode.workspace.openTextDocument(location.uri);
    assert.match(document.getText(location.range), /capybara rotation hands the pager over/);
  });

  it('the workspace index\'s own hits keep their ids and still open from the workspace', async function () {
    this.timeout(60_000);
    const hits = await invokeToolText('haiku_search', { query: 'garbage collector pacer GOGC', limit: 3 });
    const chunkId = /chunk: (\S+) · score/.exec(hits)?.[1];
    assert.ok(chunkId && !chunkId.includes(':'), hits);
    await vscode.commands.executeCommand('haiku.openChunk', chunkId);
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(path.join('guides', 'gc-guide.html')), 'the workspace file open');
  });
});
