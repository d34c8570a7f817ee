import * as assert from 'node:assert';
import { encode } from 'gpt-tokenizer';
import { lastToolText, offeredToolNames, systemPrompt, toolMessages, type RecordedRequest } from '../../support/scriptedChatServer';
import { askScripted, useScriptedCorpus } from './agentHarness';
import type { SandboxFactory } from '../../../src/core/agent/agentRun';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';

function load(name: 'rag' | 'analysis') {
  return { name: 'load_capability', arguments: { name } };
}

function notices(request: RecordedRequest): string {
  return systemPrompt(request).split('\n').filter((line) => line.startsWith('Notice:')).join('\n');
}

/** Tokens of the request body as sent (JSON), counted with the GPT tokenizer. */
export function requestTokens(request: RecordedRequest): number {
  return encode(JSON.stringify(request.body)).length;
}

describe('agent: routed mode (deferred capabilities, per-capability budgets and request limits)', function () {
  this.timeout(60_000);
  const fixture = useScriptedCorpus();
  const createSandbox: SandboxFactory = (host) => createCodeSandbox({ host, limits: { codeTimeoutSeconds: 10 } });

  it('the first request carries only the loader and one line per capability; loading adds instructions and tools for the rest of the run', async () => {
    fixture.server.push(
      { toolCalls: [load('rag')] },
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'pre-bundling' } }] },
      { toolCalls: [load('analysis'), load('rag')] },
      { text: 'Done.' },
    );
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', createSandbox, question: 'Why does Vite pre-bundle dependencies?' });
    assert.deepStrictEqual(fixture.server.requests.map(offeredToolNames), [
      ['load_capability'],
      ['load_capability', 'rag_cite', 'rag_search'],
      ['load_capability', 'rag_cite', 'rag_search'],
      ['cite', 'execute_code', 'rag_cite', 'rag_search', 'search'],
    ]);
    const [first, second, , fourth] = fixture.server.requests.map(systemPrompt);
    assert.doesNotMatch(first, /## Knowledge-base search|## Document analysis|rag_search|execute_code/, 'no tool-set instructions before loading');
    assert.match(first, /^- rag: .+$/m);
    assert.match(first, /^- analysis: .+$/m);
    assert.match(second, /## Knowledge-base search/);
    assert.doesNotMatch(second, /## Document analysis|^- rag: /m);
    assert.match(second, /^- analysis: /m, 'what is not loaded yet stays a line');
    assert.match(fourth, /## Knowledge-base search[\s\S]*## Document analysis[\s\S]*## Choosing tools/);
    assert.doesNotMatch(fourth, /## Capabilities/);
    const loads = toolMessages(fixture.server.requests[3]).slice(-2).map((message) => message.content);
    assert.match(loads[0], /^Loaded analysis: its tools \(search, execute_code, cite\)/);
    assert.match(loads[1], /^rag is already loaded/);
    assert.strictEqual(answer.requests, 4);
    assert.deepStrictEqual(Object.keys(answer.state.searches), ['pre-bundling']);
  });

  it('the deferred first request is less than half the tokens of the eager one on a real question', async () => {
    const question = 'Why does Vite pre-bundle dependencies, and where is the cache stored?';
    fixture.server.push({ text: 'a' }, { text: 'b' });
    await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', deferLoading: false, createSandbox, question });
    await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', createSandbox, question });
    const [eager, deferred] = fixture.server.requests.map(requestTokens);
    assert.ok(deferred * 2 < eager, `deferred ${deferred} tokens, eager ${eager}`);
  });

  it('each capability has its own request limit and cite window, counted from its load; withdrawing one leaves the other', async () => {
    fixture.server.push(
      { toolCalls: [load('rag'), load('analysis')] },
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'cache' } }] },
      { toolCalls: [{ name: 'search', arguments: { query: 'modes' } }] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [] } }] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [] } }] },
      { text: 'ok' },
    );
    await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', createSandbox, settings: { requestLimit: 1, analysisRequestLimit: 10 } });
    assert.deepStrictEqual(fixture.server.requests.map(offeredToolNames), [
      ['load_capability'],
      ['cite', 'execute_code', 'rag_cite', 'rag_search', 'search'],
      // rag's one request (counted from its load) is spent: only rag_cite stays of rag; analysis keeps everything.
      ['cite', 'execute_code', 'rag_cite', 'search'],
      // The analysis search did not consume rag's cite window.
      ['cite', 'execute_code', 'rag_cite', 'search'],
      ['cite', 'execute_code', 'rag_cite', 'search'],
      ['cite', 'execute_code', 'search'],
    ]);
    assert.match(notices(fixture.server.requests[2]), /request limit of this question is reached for rag; only rag_cite remains/);
    assert.match(notices(fixture.server.requests[5]), /reached and the rag tools are gone\.$/m);
    assert.doesNotMatch(notices(fixture.server.requests[5]), /Give your best answer/, 'other tools remain, so the model is not told to stop');
  });

  it('each capability has its own search budget: a spent rag budget does not stop the analysis search', async () => {
    fixture.server.push(
      { toolCalls: [load('rag'), load('analysis')] },
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'cache' } }] },
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'modes' } }, { name: 'search', arguments: { query: 'deploy' } }] },
      { text: 'ok' },
    );
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', createSandbox, settings: { maxSearches: 1 } });
    const [ragReturn, analysisReturn] = toolMessages(fixture.server.requests[3]).slice(-2).map((message) => message.content);
    assert.match(ragReturn, /^Search budget spent/);
    assert.doesNotMatch(analysisReturn, /budget spent/);
    assert.deepStrictEqual(Object.keys(answer.state.searches).sort(), ['cache', 'deploy']);
    assert.match(notices(fixture.server.requests[2]), /rag_search will not run again/);
    assert.doesNotMatch(notices(fixture.server.requests[2]), /search will not run again[\s\S]*search will not run again/);
    assert.match(lastToolText(fixture.server.requests[3]), /\[rank 1 of/);
  });
});
