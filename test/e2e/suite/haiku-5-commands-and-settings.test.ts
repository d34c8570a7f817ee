import * as assert from 'node:assert';
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** The tree's context actions, the index commands, and index settings (another database, include patterns). */
describe('Haiku: commands and index settings', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  it('registers every command and tool package.json declares (tools with their tags)', async () => {
    const manifest = vscode.extensions.getExtension('haiku-dev.haiku')!.packageJSON as { contributes: { commands: Array<{ command: string }>; languageModelTools: Array<{ name: string; tags: string[] }> } };
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepStrictEqual(manifest.contributes.commands.map((command) => command.command).filter((command) => !registered.has(command)), []);
    for (const tool of manifest.contributes.languageModelTools) {
      const found = vscode.lm.tools.find((candidate) => candidate.name === tool.name);
      assert.ok(found, `${tool.name} is registered`);
      assert.deepStrictEqual([...found.tags].sort(), [...tool.tags].sort());
    }
  });

  it('asks about a section, re-indexes a document and the current file', async () => {
    const guides = (await api.sectionsTree.getChildren())[0];
    const document = (await api.sectionsTree.getChildren(guides)).find((node) => node.kind === 'document' && node.document.format === 'html')!;
    const [section] = await api.sectionsTree.getChildren(document);
    assert.ok(section.kind === 'section');
    const query = await vscode.commands.executeCommand<string>('haiku.askAboutSection', section);
    assert.strictEqual(query, `@haiku What does the section "${section.section.title}" of guides/gc-guide.html say?`);
    const jobs = api.indexJobs.length;
    await vscode.commands.executeCommand('haiku.reindexDocument', section);
    assert.strictEqual(api.indexJobs.length, jobs + 1);
    assert.strictEqual(api.indexJobs.at(-1)?.kind, 'files');
    await vscode.window.showTextDocument(workspaceUri('guides/features.md'));
    await vscode.commands.executeCommand('haiku.indexCurrentFile');
    assert.strictEqual(api.indexJobs.length, jobs + 2);
    assert.strictEqual(api.indexJobs.at(-1)?.failed.length, 0);
    assert.strictEqual(api.indexService.current.documents, 5);
  });

  it('rebuilds the index from scratch', async () => {
    await vscode.commands.executeCommand('haiku.rebuildIndex');
    const last = api.indexJobs.at(-1)!;
    assert.strictEqual(last.kind, 'full');
    assert.strictEqual(last.indexed, 5, JSON.stringify(last));
    assert.strictEqual(api.indexService.current.documents, 5);
  });

  it('include patterns narrowed to match no file prune the index; widened again, it is whole', async () => {
    const settings = vscode.workspace.getConfiguration('haiku');
    const before = api.indexJobs.length;
    try {
      await settings.update('index.include', ['**/*.nothing'], vscode.ConfigurationTarget.Global);
      await waitFor(async () => {
        await api.indexService.whenIdle();
        return api.indexService.current.state === 'ready' && api.indexService.current.documents === 0 && api.indexJobs.length > before;
      }, () => `the old documents pruned (status ${JSON.stringify(api.indexService.current)}; jobs since: ${JSON.stringify(api.indexJobs.slice(before))})`);
      assert.strictEqual(api.indexJobs.at(-1)?.kind, 'full');
      assert.strictEqual(api.indexJobs.at(-1)?.removed, 5, JSON.stringify(api.indexJobs.at(-1)));
      await waitFor(async () => (await api.sectionsTree.getChildren()).length === 0, 'the tree to empty');
    } finally {
      await settings.update('index.include', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(async () => {
      await api.indexService.whenIdle();
      return api.indexService.current.documents === 5;
    }, 'the five documents back');
  });

  it('follows index settings: another database folder and include patterns; an empty index answers with a fix', async () => {
    const settings = vscode.workspace.getConfiguration('haiku');
    const emptyDatabase = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-e2e-db-'));
    try {
      // The database first, so narrowing the include patterns prunes the new index, not the workspace's own.
      await settings.update('index.databaseUri', emptyDatabase, vscode.ConfigurationTarget.Global);
      await settings.update('index.include', ['**/*.nothing'], vscode.ConfigurationTarget.Global);
      await waitFor(async () => {
        await api.indexService.whenIdle();
        const status = api.indexService.current;
        return status.state === 'ready' && status.documents === 0 && api.indexService.openDatabaseUri === emptyDatabase;
      }, () => `an empty index at ${emptyDatabase} (${JSON.stringify(api.indexService.current)})`);
      assert.ok(fs.readdirSync(emptyDatabase).length > 0, 'the store lives in the configured folder');
      await waitFor(async () => (await api.sectionsTree.getChildren()).length === 0, 'the tree to empty (welcome view)');
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      const record = await askHaiku(api, '@haiku /ask What is in the documents?');
      assert.strictEqual(record.error?.code, 'empty_index');
      assert.deepStrictEqual(record.buttons, ['haiku.buildIndex']);
    } finally {
      // Include patterns first, for the same reason.
      await settings.update('index.include', undefined, vscode.ConfigurationTarget.Global);
      await settings.update('index.databaseUri', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(async () => {
      await api.indexService.whenIdle();
      return api.indexService.openDatabaseUri !== undefined && api.indexService.openDatabaseUri !== emptyDatabase && api.indexService.current.documents === 5;
    }, 'the workspace index back with its five documents');
    fs.rmSync(emptyDatabase, { recursive: true, force: true });
  });
});
