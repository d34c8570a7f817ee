import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { createAnalyzeTool } from '../../../src/vscode/tools/analyzeTool';
import { activateHaiku, fakeModelRequests, invokeToolText, waitFor, waitForIndex } from '../haikuSupport';

/** haiku_analyze through vscode.lm.invokeTool, haiku_search's limit setting, and Haiku's MCP server in VS Code's MCP list. */
describe('Haiku: agent tools (haiku_analyze, haiku_search limit, MCP server)', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  it('haiku_analyze asks for confirmation before it runs code', async () => {
    const tool = createAnalyzeTool({
      knowledgeBase: () => api.knowledgeBase(),
      relativePathOf: (uri) => uri,
      getConfig: () => api.config(),
      loadAgent: () => Promise.reject(new Error('not needed')),
      loadSandboxFactory: () => Promise.resolve(undefined),
      configuredModel: () => Promise.resolve(undefined),
    });
    const prepared = await tool.prepareInvocation!({ input: { question: 'How many guides?' } }, new vscode.CancellationTokenSource().token);
    assert.match(String(prepared?.confirmationMessages?.title), /Run code over the workspace documents/);
    const message = prepared?.confirmationMessages?.message;
    assert.match(typeof message === 'string' ? message : message?.value ?? '', /How many guides\?.*JavaScript/);
  });

  it('haiku_analyze runs the analysis capability on the chat model through vscode.lm.invokeTool', async () => {
    assert.ok(vscode.lm.tools.some((tool) => tool.name === 'haiku_analyze' && tool.tags.includes('runs-code')), 'registered with its tags');
    const before = fakeModelRequests().length;
    const text = await invokeToolText('haiku_analyze', { question: 'garbage collector pacer' });
    const requests = fakeModelRequests().slice(before);
    assert.ok(requests.length >= 2, `the fake model answered ${requests.length} request(s)`);
    assert.deepStrictEqual([...requests[0].toolNames].sort(), ['cite', 'execute_code', 'search'], 'the analysis tools only');
    // The fake model's code searches, prints the hit count and cites the first hit.
    assert.match(text, /^Analysis done\. hits: [1-9]/);
    assert.match(text, /\nCitations:\n\[1\] guides\/gc-guide\.html L\d+/);
  });

  it('haiku_search honours haiku.search.limit when the model gives no limit', async () => {
    const configuration = vscode.workspace.getConfiguration('haiku');
    await configuration.update('search.limit', 1, vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor(() => api.config().search.limit === 1, 'the new limit');
      await waitForIndex(api);
      assert.match(await invokeToolText('haiku_search', { query: 'garbage collector' }), /^1 hits for "garbage collector"/);
    } finally {
      await configuration.update('search.limit', undefined, vscode.ConfigurationTarget.Workspace);
      await waitForIndex(api);
    }
  });

  it("Haiku's MCP server appears in VS Code's MCP servers: started there, its tools join vscode.lm.tools", async () => {
    assert.ok(!vscode.lm.tools.some((tool) => tool.name.endsWith('search_documents')), 'no MCP tools before the servers start');
    // VS Code's own command starts every server of its MCP list (ours comes from the extension's definition provider).
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    const names = await waitFor(() => {
      const found = vscode.lm.tools.map((tool) => tool.name).filter((name) => /search_documents|ask_question|execute_code/.test(name));
      return found.length >= 3 ? found : undefined;
    }, 'the MCP server tools in vscode.lm.tools', 60_000);
    assert.ok(names.some((name) => name.endsWith('search_documents')), names.join(', '));
  });
});
