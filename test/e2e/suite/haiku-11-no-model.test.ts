import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { SEARCH_ONLY_MODEL_ID } from '../../../src/vscode/contributionIds';
import type { SearchPickOutcome } from '../../../src/vscode/searchQuickPick';
import type { HaikuTestApi, ParticipantRequestRecord } from '../../../src/vscode/testApi';
import { activateHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/**
 * No language model at all (runTest.ts runs this group with Haiku alone, without test-fixtures/fake-lm): Haiku:
 * Search finds and opens chunks, `@haiku /search` lists hits, and `@haiku` answers with Haiku's own guidance.
 */
describe('Haiku without a language model', function () {
  let api: HaikuTestApi;

  before(async function () {
    if (vscode.extensions.getExtension('haiku-dev.fake-lm')) {
      // A filtered run may load this file in the window that has the fake model too.
      this.skip();
    }
    api = await activateHaiku();
    await waitForIndex(api);
  });

  it('offers only its search-only entry in the model picker', async () => {
    const models = await waitFor(async () => {
      const listed = await vscode.lm.selectChatModels();
      return listed.some((model) => model.id === SEARCH_ONLY_MODEL_ID) && listed;
    }, 'the search-only entry among the chat models', 30_000);
    assert.deepStrictEqual(models.map((model) => `${model.vendor}/${model.id}`), [`haiku/${SEARCH_ONLY_MODEL_ID}`]);
  });

  it('Haiku: Search shows hits as the user types and opens the accepted one with its highlight', async () => {
    let outcome: SearchPickOutcome | undefined;
    const started = Date.now();
    const running = Promise.resolve(vscode.commands.executeCommand<SearchPickOutcome>('haiku.search', 'pre-bundle dependencies')).then((value) => {
      outcome = value;
    });
    // Accepting before the hits arrive does nothing; keep accepting until the pick closes with a chunk opened.
    await waitFor(async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await new Promise((resolve) => setTimeout(resolve, 300));
      return outcome !== undefined;
    }, 'the quick pick to open its first hit', 30_000);
    await running;
    console.log(`Haiku: Search opened a chunk ${Date.now() - started} ms after the command (rows: ${outcome!.rows.length})`);
    assert.ok(outcome!.rows.length > 0);
    const first = outcome!.rows[0]!;
    assert.strictEqual(first.label, 'Features');
    assert.match(first.description ?? '', /guides\/features\.md L\d+/);
    assert.match(first.detail ?? '', /\S/);
    assert.strictEqual(outcome!.opened?.uri, workspaceUri('guides/features.md').toString());
    const editor = vscode.window.activeTextEditor!;
    assert.strictEqual(editor.document.uri.toString(), outcome!.opened!.uri);
    assert.strictEqual(api.lastHighlight?.uri, outcome!.opened!.uri);
    assert.ok(api.highlightShown);
    assert.ok(editor.selection.isEqual(api.lastHighlight!.range), 'the chunk is selected');
    assert.match(editor.document.getText(editor.selection), /bundl|depend/i);
  });

  async function askWithoutModel(query: string): Promise<ParticipantRequestRecord> {
    const before = api.participantRequests.length;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor: 'haiku', id: SEARCH_ONLY_MODEL_ID }, blockOnResponse: true });
    return waitFor(() => {
      const record = api.participantRequests[before];
      return record && record.done ? record : undefined;
    }, `@haiku to answer "${query}"`, 120_000);
  }

  it('@haiku /search lists hits with anchors, no model asked', async () => {
    const record = await askWithoutModel('@haiku /search pre-bundle dependencies');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.route, 'search');
    assert.ok(record.anchors.some((anchor) => anchor.startsWith(workspaceUri('guides/features.md').toString())), record.anchors.join(', '));
  });

  it("@haiku with no model answers with Haiku's guidance and a Search button", async () => {
    const record = await askWithoutModel('@haiku How does Vite pre-bundle dependencies?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.model, `haiku/${SEARCH_ONLY_MODEL_ID}`);
    assert.deepStrictEqual(record.buttons, ['haiku.search', 'workbench.action.openSettings']);
    assert.strictEqual(record.anchors.length, 0);
  });
});
