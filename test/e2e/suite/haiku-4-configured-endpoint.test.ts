import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { lastToolText, offeredToolNames, startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { activateHaiku, askHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/**
 * An OpenAI-compatible endpoint configured in the settings (a scripted server on 127.0.0.1): its model is offered
 * in the chat's model picker (vendor `haiku`), and `@haiku` answers with it instead of the chat's model.
 */
describe('Haiku: a configured OpenAI-compatible endpoint', () => {
  let api: HaikuTestApi;
  let server: ScriptedChatServer;
  const settings = () => vscode.workspace.getConfiguration('haiku');

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
    server = await startScriptedChatServer();
    // A fresh chat session: the earlier suites' turns (and their document filter) must not carry over.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await settings().update('model.baseUrl', server.baseUrl, vscode.ConfigurationTarget.Global);
    await settings().update('model.name', ['scripted-model'], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await settings().update('model.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await settings().update('model.name', undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it('offers the endpoint\'s model through vscode.lm and streams text and tool calls from it', async () => {
    const [model] = await waitFor(async () => {
      const models = await vscode.lm.selectChatModels({ vendor: 'haiku' });
      return models.length > 0 ? models : undefined;
    }, 'the haiku vendor to offer scripted-model');
    assert.strictEqual(model.id, 'scripted-model');
    server.push({ text: 'pong from the endpoint' });
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('ping')], {}, new vscode.CancellationTokenSource().token);
    let text = '';
    for await (const part of response.text) {
      text += part;
    }
    assert.strictEqual(text, 'pong from the endpoint');
    assert.strictEqual(server.requests[server.requests.length - 1].body.model, 'scripted-model');

    server.push({ toolCalls: [{ name: 'lookup', arguments: { term: 'GOGC' } }] });
    const toolResponse = await model.sendRequest([vscode.LanguageModelChatMessage.User('look it up')], {
      tools: [{ name: 'lookup', description: 'Looks a term up', inputSchema: { type: 'object', properties: { term: { type: 'string' } } } }],
    }, new vscode.CancellationTokenSource().token);
    const calls: vscode.LanguageModelToolCallPart[] = [];
    for await (const part of toolResponse.stream) {
      if (part instanceof vscode.LanguageModelToolCallPart) {
        calls.push(part);
      }
    }
    assert.deepStrictEqual(calls.map((call) => [call.name, call.input]), [['lookup', { term: 'GOGC' }]]);
    assert.deepStrictEqual(offeredToolNames(server.requests[server.requests.length - 1]), ['lookup']);
  });

  it('@haiku answers with the configured model: search, cite, answer with an anchored citation', async () => {
    const before = server.requests.length;
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'when does the garbage collector run GOGC' } }] },
      (request) => {
        // The chat session's earlier turns travel too (their old evidence compacted): read this turn's result.
        const chunkId = /\[([A-Za-z0-9_-]{6,})\]/.exec(lastToolText(request))?.[1] ?? 'missing';
        return { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [chunkId] } }] };
      },
      { text: 'The collector runs as the heap grows, paced by GOGC [1].' },
    );
    const record = await askHaiku(api, '@haiku /ask When does the Go garbage collector run?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.model, 'scripted-model');
    const requests = server.requests.slice(before);
    assert.strictEqual(requests.length, 3);
    assert.deepStrictEqual(offeredToolNames(requests[0]), ['rag_cite', 'rag_search']);
    const run = api.runsStore.get(record.runId)!;
    assert.strictEqual(run.answer, 'The collector runs as the heap grows, paced by GOGC [1].');
    assert.strictEqual(run.citations.length, 1);
    assert.strictEqual(run.citations[0].relativePath, 'guides/gc-guide.html');
    assert.deepStrictEqual(record.chunkLinks.map((link) => [link.text, link.chunkId]), [['[1]', run.citations[0].chunkId]], 'the [1] marker became a link to its chunk');
  });

  it('sends the API key set with "Haiku: Set API Key" (kept in secret storage)', async () => {
    await vscode.commands.executeCommand('haiku.setApiKey', 'model', 'e2e-secret-key');
    try {
      const [model] = await vscode.lm.selectChatModels({ vendor: 'haiku' });
      server.push({ text: 'authorized' });
      const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('who am I?')], {}, new vscode.CancellationTokenSource().token);
      let text = '';
      for await (const part of response.text) {
        text += part;
      }
      assert.strictEqual(text, 'authorized');
      assert.strictEqual(server.requests[server.requests.length - 1].headers.authorization, 'Bearer e2e-secret-key');
      assert.strictEqual(api.config().qa.model.apiKey, 'e2e-secret-key');
    } finally {
      await vscode.commands.executeCommand('haiku.setApiKey', 'model', '');
    }
    assert.strictEqual(api.config().qa.model.apiKey, undefined);
  });

  it('does not send a key stored for one base URL to another one a setting points at', async () => {
    const elsewhere = await startScriptedChatServer();
    // The workspace setting below writes .vscode/settings.json into samples/: remove it afterwards if it is new.
    const workspaceSettingsFolder = workspaceUri('.vscode');
    const hadWorkspaceSettings = await vscode.workspace.fs.stat(workspaceSettingsFolder).then(() => true, () => false);
    await vscode.commands.executeCommand('haiku.setApiKey', 'model', 'bound-secret-key');
    try {
      assert.strictEqual(api.config().qa.model.apiKey, 'bound-secret-key');
      // A workspace setting (as a cloned repository could carry) moves the endpoint.
      await settings().update('model.baseUrl', elsewhere.baseUrl, vscode.ConfigurationTarget.Workspace);
      await waitFor(() => api.config().qa.model.baseUrl === elsewhere.baseUrl, 'the workspace setting to apply');
      assert.strictEqual(api.config().qa.model.apiKey, undefined, 'the key is not handed out for another URL');
      const [model] = await waitFor(async () => {
        const models = await vscode.lm.selectChatModels({ vendor: 'haiku' });
        return models.length > 0 ? models : undefined;
      }, 'the endpoint model');
      elsewhere.push({ text: 'who is asking?' });
      const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('hello')], {}, new vscode.CancellationTokenSource().token);
      for await (const part of response.text) {
        void part;
      }
      // Without a key the client sends its placeholder; the stored key must not appear.
      assert.doesNotMatch(String(elsewhere.requests.at(-1)?.headers.authorization), /bound-secret-key/, 'the key went to the other URL');
    } finally {
      await settings().update('model.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('haiku.setApiKey', 'model', '');
      await elsewhere.close();
      if (!hadWorkspaceSettings) {
        await vscode.workspace.fs.delete(workspaceSettingsFolder, { recursive: true });
      }
    }
  });

  it('stops a question when the chat cancels it, and records the run as cancelled', async () => {
    const before = server.requests.length;
    server.push({ hang: true });
    const answering = askHaiku(api, '@haiku /ask A question nobody answers');
    await waitFor(() => server.requests.length > before, 'the endpoint to receive the request');
    await vscode.commands.executeCommand('workbench.action.chat.cancel');
    const record = await answering;
    assert.strictEqual(record.error?.code, 'cancelled', JSON.stringify(record.error));
    assert.strictEqual(api.runsStore.get(record.runId)?.status, 'cancelled');
  });

  it('turns an unreachable endpoint into a message with a button to its setting', async () => {
    await server.close();
    const record = await askHaiku(api, '@haiku /ask Is anyone there?');
    assert.strictEqual(record.error?.code, 'model_unreachable', JSON.stringify(record.error));
    assert.deepStrictEqual(record.buttons, ['workbench.action.openSettings']);
  });
});
