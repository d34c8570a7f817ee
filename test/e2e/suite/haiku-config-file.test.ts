import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** The workspace's haiku.config.json under the settings: the file beats a default, a setting the user set beats the file. */
describe('Haiku: the workspace configuration file', () => {
  let api: HaikuTestApi;
  const file = workspaceUri('haiku.config.json').fsPath;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  after(async () => {
    fs.rmSync(file, { force: true });
    await vscode.workspace.getConfiguration('haiku').update('search.limit', undefined, vscode.ConfigurationTarget.Global);
  });

  it('reads the file, lets an explicitly set setting win, and ignores a broken file', async () => {
    const settings = vscode.workspace.getConfiguration('haiku');
    assert.strictEqual(api.config().search.limit, 5);
    fs.writeFileSync(file, JSON.stringify({ search: { limit: 3 }, qa: { max_searches: 2 }, prompts: { domain_preamble: 'Vite and Go guides.' } }));
    await waitFor(() => api.config().search.limit === 3, 'search.limit from haiku.config.json');
    assert.strictEqual(api.config().qa.maxSearches, 2);
    assert.strictEqual(api.config().qa.domainPreamble, 'Vite and Go guides.');
    await settings.update('search.limit', 4, vscode.ConfigurationTarget.Global);
    await waitFor(() => api.config().search.limit === 4, 'the user setting over the file');
    assert.strictEqual(api.config().qa.maxSearches, 2, 'the file still gives what the user did not set');
    // A key the schema does not know: the file is ignored (and reported), the settings apply alone.
    fs.writeFileSync(file, JSON.stringify({ qa: { max_serches: 9 } }));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    await waitFor(() => api.config().qa.maxSearches === 5, 'the default again once the file is broken');
    assert.strictEqual(api.config().search.limit, 4);
  });
});
