import * as assert from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, EXTENSION_ID, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

// s3rver ships no types; only these calls are used. Resolved from the repository's node_modules (external in the suite bundle).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };

/** Every object below a folder of s3rver's store (its files mirror the keys): what "no new table version" is checked on. */
function objectsBelow(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Publishes the samples workspace with the bundled CLI, as a CI job would. */
function publish(folder: string, uri: string, endpoint: string): Promise<void> {
  const extensionPath = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), 'index', '.', '--db', uri, '--endpoint', endpoint, '--source-root', '.', '--quiet', '--exclude', '.vscode/**'], {
      cwd: folder,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', LANCEDB_LOG: 'error', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (output += data.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`haiku index exited ${code}: ${output}`))));
  });
}

/** A team index published to a local S3 server, consumed read-only: tree, @haiku /search, never a write. */
describe('Haiku: team index on object storage (read-only)', () => {
  let api: HaikuTestApi;
  let server: { close(): Promise<void> } | undefined;
  let storeFolder: string;
  const uri = 's3://team/samples';

  before(async function () {
    this.timeout(300_000);
    api = await activateHaiku();
    await waitForIndex(api);
    storeFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-e2e-s3rver-'));
    const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: storeFolder, configureBuckets: [{ name: 'team' }] });
    const address = await s3rver.run();
    server = s3rver;
    const endpoint = `http://127.0.0.1:${address.port}`;
    await publish(vscode.workspace.workspaceFolders![0].uri.fsPath, uri, endpoint);
    // Keys in the secret storage (bound to the endpoint), the rest in settings.
    const settings = vscode.workspace.getConfiguration('haiku');
    await settings.update('index.storage.endpoint', endpoint, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('haiku.setApiKey', 'storageAccessKeyId', 'S3RVER');
    await vscode.commands.executeCommand('haiku.setApiKey', 'storageSecretAccessKey', 'S3RVER');
    await settings.update('index.mode', 'remote-readonly', vscode.ConfigurationTarget.Global);
    await settings.update('index.databaseUri', uri, vscode.ConfigurationTarget.Global);
    await waitFor(() => {
      const status = api.indexService.current;
      return api.indexService.openDatabaseUri === uri && status.state === 'ready' && status.documents === 5;
    }, () => `the published index open read-only (${JSON.stringify(api.indexService.current)}, open: ${api.indexService.openDatabaseUri}, config: ${JSON.stringify({ ...api.config().index, include: undefined, exclude: undefined, storage: { ...api.config().index.storage, accessKeyId: api.config().index.storage.accessKeyId ? 'set' : 'unset', secretAccessKey: undefined } })})`, 120_000);
  });

  after(async function () {
    this.timeout(120_000);
    const settings = vscode.workspace.getConfiguration('haiku');
    await settings.update('index.mode', undefined, vscode.ConfigurationTarget.Global);
    await settings.update('index.databaseUri', undefined, vscode.ConfigurationTarget.Global);
    await settings.update('index.storage.endpoint', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('haiku.setApiKey', 'storageAccessKeyId', '');
    await vscode.commands.executeCommand('haiku.setApiKey', 'storageSecretAccessKey', '');
    await server?.close();
    fs.rmSync(storeFolder, { recursive: true, force: true });
    await waitFor(async () => {
      await api.indexService.whenIdle();
      return api.indexService.openDatabaseUri !== uri && api.indexService.current.documents === 5;
    }, 'the workspace index back', 180_000);
  });

  it('shows the tree, answers @haiku /search from the bucket, and never writes it', async function () {
    this.timeout(300_000);
    const published = path.join(storeFolder, 'team', 'samples');
    const before = objectsBelow(published);
    assert.ok(before.some((file) => file.includes(`${path.sep}_versions${path.sep}`)), 'the published tables are in the bucket');

    const roots = await api.sectionsTree.getChildren();
    assert.ok(roots.length > 0, 'the tree shows the published documents');
    const record = await askHaiku(api, '@haiku /search garbage collector pacing');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.ok(record.anchors.length > 0, 'hits with anchors');
    const [search] = api.runsStore.get(record.runId)!.steps;
    assert.ok(search.kind === 'search' && search.hits[0].relativePath === 'guides/gc-guide.html', JSON.stringify(search));
    // Published paths map onto this workspace's copy of the files.
    const [hit] = await (await api.knowledgeBase()).search('Hot Module Replacement HMR API native ESM', { limit: 1 });
    assert.strictEqual(hit.uri, workspaceUri('guides/features.md').toString());

    // Indexing requests do nothing; a refresh reads only.
    const jobs = api.indexJobs.length;
    await vscode.commands.executeCommand('haiku.buildIndex');
    await vscode.window.showTextDocument(workspaceUri('guides/features.md'));
    await vscode.commands.executeCommand('haiku.indexCurrentFile');
    await vscode.commands.executeCommand('haiku.refreshIndex');
    await api.indexService.whenIdle();
    assert.strictEqual(api.indexJobs.length, jobs, 'no indexing job ran');
    assert.deepStrictEqual(objectsBelow(published), before, 'no new table version, no lease object: nothing was written');
    assert.strictEqual(api.indexService.current.state, 'ready');
  });
});
