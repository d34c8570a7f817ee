import * as assert from 'node:assert';
import type { ModelMessage } from 'ai';
import { lastToolText, offeredToolNames, systemPrompt, toolMessages, type RecordedRequest } from '../../support/scriptedChatServer';
import { askScripted, useScriptedCorpus } from './agentHarness';
import { chunkContaining, chunkIdsIn, failingSearchKnowledgeBase, RecordingKnowledgeBase } from './corpusIndex';
import { EARLIER_EVIDENCE_MARKER } from '../../../src/core/agent/contextManagement';
import { streamAgent } from '../../../src/core/agent/agentStream';
import type { AgentEvent } from '../../../src/core/agent/agentEvents';
import type { HaikuError } from '../../../src/core/errors';
import { createOpenAiCompatibleModel } from '../../../src/node/agent/openAiCompatibleModel';

function search(query: string, limit?: number) {
  return { name: 'rag_search', arguments: limit === undefined ? { query } : { query, limit } };
}

function cite(chunkIds: string[]) {
  return { name: 'rag_cite', arguments: { chunk_ids: chunkIds } };
}

/** Notice lines appended to a request's instructions. */
function notices(request: RecordedRequest): string {
  return systemPrompt(request).split('\n').filter((line) => line.startsWith('Notice:')).join('\n');
}

describe('agent: rag tool set (real LanceDB index of Vite guide pages)', function () {
  this.timeout(60_000);
  const fixture = useScriptedCorpus();

  it('renders hits with chunk id, rank of n, source, type and content; "No results found." when empty; streams events', async () => {
    fixture.server.push(
      { toolCalls: [search('dependency pre-bundling cache', 3), search('xylophonequartz')] },
      (request) => ({ toolCalls: [cite(chunkIdsIn(toolMessages(request)[0].content).slice(0, 1))] }),
      { text: 'Vite caches pre-bundled dependencies.' },
    );
    const { answer, events } = await askScripted(fixture.server, fixture.corpus.store);
    const [first, second] = toolMessages(fixture.server.requests[1]);
    const ids = chunkIdsIn(first.content);
    assert.ok(ids.length >= 1 && ids.length <= 3);
    assert.match(first.content, new RegExp(`^\\[${ids[0]}\\] \\[rank 1 of ${ids.length}\\]\\nSource: "[^"]+"( > [^\\n]+)?\\nType: \\w+\\nContent:\\n`));
    assert.strictEqual(second.content, 'No results found.');
    assert.strictEqual(answer.answer, 'Vite caches pre-bundled dependencies.');
    assert.deepStrictEqual(answer.citations.map((citation) => [citation.index, citation.chunkId]), [[1, ids[0]]]);
    assert.strictEqual(answer.citationStatus, 'grounded');
    assert.deepStrictEqual(
      events.filter((event) => event.type === 'search-started').map((event) => (event as { query: string }).query),
      ['dependency pre-bundling cache', 'xylophonequartz'],
    );
    assert.ok(events.some((event) => event.type === 'citation-added'));
    assert.deepStrictEqual(
      events.filter((event) => event.type === 'step-finished').map((event) => (event as { toolNames: string[] }).toolNames),
      [['rag_search', 'rag_search'], ['rag_cite'], []],
    );
    assert.strictEqual(events.filter((event) => event.type === 'text-delta').map((event) => (event as { text: string }).text).join(''), answer.answer);
  });

  it('budget units: a response with 1 search spends a unit, one with 4 spends a second unit on 3 and is refused the 4th', async () => {
    fixture.server.push(
      { toolCalls: [search('cache')] },
      { toolCalls: [search('modes'), search('env variables'), search('GitHub Pages'), search('Netlify')] },
      { toolCalls: [search('Vercel')] },
      { text: 'done' },
    );
    const { answer, events } = await askScripted(fixture.server, fixture.corpus.store, { settings: { maxSearches: 2 } });
    const second = toolMessages(fixture.server.requests[2]).slice(1);
    assert.strictEqual(second.length, 4);
    for (const message of second.slice(0, 3)) {
      assert.doesNotMatch(message.content, /budget spent/i);
      assert.ok(chunkIdsIn(message.content).length > 0);
    }
    assert.match(second[3].content, /^Search budget spent/);
    assert.match(lastToolText(fixture.server.requests[3]), /^Search budget spent/);
    // The tool stays declared (a model calling it must not hit "unknown tool"); a notice names it once spent.
    assert.deepStrictEqual(offeredToolNames(fixture.server.requests[3]), ['rag_cite', 'rag_search']);
    assert.strictEqual(notices(fixture.server.requests[1]), '');
    assert.match(notices(fixture.server.requests[2]), /search budget of this question is spent; rag_search will not run again/);
    assert.strictEqual(events.filter((event) => event.type === 'search-finished' && event.refused).length, 2);
    assert.deepStrictEqual(Object.keys(answer.state.searches), ['cache', 'modes', 'env variables', 'GitHub Pages']);
  });

  it('budget units: 3 searches in one response share one unit; a search in a later response needs a new one', async () => {
    fixture.server.push({ toolCalls: [search('cache'), search('modes'), search('Netlify')] }, { toolCalls: [search('Vercel')] }, { text: 'ok' });
    await askScripted(fixture.server, fixture.corpus.store, { settings: { maxSearches: 1 } });
    const first = toolMessages(fixture.server.requests[1]);
    assert.strictEqual(first.length, 3);
    assert.ok(first.every((message) => !/budget spent/i.test(message.content)));
    assert.match(lastToolText(fixture.server.requests[2]), /^Search budget spent/);
  });

  it('collapses evidence a sibling search of the same response already returned to a reference line', async () => {
    fixture.server.push(
      { toolCalls: [search('dependency pre-bundling'), search('pre-bundling dependencies esbuild')] },
      { toolCalls: [search('pre-bundling dependencies esbuild')] },
      { text: 'ok' },
    );
    await askScripted(fixture.server, fixture.corpus.store);
    const [first, second] = toolMessages(fixture.server.requests[1]);
    const references = [...second.content.matchAll(/^\[([^\]]+)\] \[rank (\d+) of (\d+)\] Already shown above in the results for "dependency pre-bundling"; not repeated\.$/gm)];
    assert.ok(references.length >= 1, second.content.slice(0, 400));
    const firstIds = chunkIdsIn(first.content);
    for (const [, id] of references) {
      assert.ok(firstIds.includes(id), `${id} was shown by the sibling`);
    }
    // Every block of the second search is either new evidence or a reference, never a repeat.
    assert.strictEqual(chunkIdsIn(second.content).filter((id) => firstIds.includes(id)).length, references.length);
    // A later response is a new response: the same search shows everything in full.
    const later = lastToolText(fixture.server.requests[2]);
    assert.doesNotMatch(later, /Already shown above/);
    assert.strictEqual(chunkIdsIn(later).length, chunkIdsIn(second.content).length);
  });

  it('request limit: rag_search is withdrawn, rag_cite stays for two requests that call a rag tool, then no tools', async () => {
    fixture.server.push(
      { toolCalls: [search('cache')] },
      { toolCalls: [search('modes')] },
      { toolCalls: [cite([])] },
      (request) => ({ toolCalls: [cite(chunkIdsIn(toolMessages(request)[0].content).slice(0, 1))] }),
      { text: 'From what I found: the cache lives in node_modules/.vite.' },
    );
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { settings: { requestLimit: 2 } });
    assert.deepStrictEqual(fixture.server.requests.map(offeredToolNames), [['rag_cite', 'rag_search'], ['rag_cite', 'rag_search'], ['rag_cite'], ['rag_cite'], []]);
    assert.match(notices(fixture.server.requests[2]), /request limit of this question is reached for rag; only rag_cite remains/);
    assert.doesNotMatch(notices(fixture.server.requests[2]), /rag_search/, 'a notice never names a withdrawn tool');
    assert.match(notices(fixture.server.requests[4]), /tools are gone/);
    assert.doesNotMatch(notices(fixture.server.requests[4]), /rag_cite/);
    assert.strictEqual(answer.requests, 5);
    assert.strictEqual(answer.citationStatus, 'grounded');
  });

  it('request limit: a call to a withdrawn rag_search is refused by the SDK, runs nothing, and uses up cite grace', async () => {
    fixture.server.push({ toolCalls: [search('cache')] }, { toolCalls: [search('modes')] }, { toolCalls: [search('Netlify')] }, { text: 'done' });
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { settings: { requestLimit: 1 } });
    assert.match(lastToolText(fixture.server.requests[2]), /rag_search/);
    assert.deepStrictEqual(Object.keys(answer.state.searches), ['cache']);
    assert.deepStrictEqual(fixture.server.requests.map(offeredToolNames), [['rag_cite', 'rag_search'], ['rag_cite'], ['rag_cite'], []]);
    assert.strictEqual(answer.answer, 'done');
  });

  it('streamAgent yields the typed events as an async iterable and resolves the answer', async () => {
    fixture.server.push({ toolCalls: [search('cache')] }, (request) => ({ toolCalls: [cite(chunkIdsIn(lastToolText(request)).slice(0, 1))], text: 'Let me cite. ' }), { text: 'Done.' });
    const { model } = createOpenAiCompatibleModel({ baseUrl: fixture.server.baseUrl, name: 'scripted' });
    const stream = streamAgent({ model, knowledgeBase: fixture.corpus.store, question: 'Where is the cache?', mode: 'rag' });
    const seen: AgentEvent[] = [];
    for await (const event of stream.events) {
      seen.push(event);
    }
    const answer = await stream.answer;
    assert.deepStrictEqual(
      [...new Set(seen.map((event) => event.type))],
      ['search-started', 'search-finished', 'step-finished', 'text-delta', 'citation-added'],
    );
    const finished = seen.find((event) => event.type === 'search-finished');
    assert.ok(finished && finished.type === 'search-finished' && finished.results?.length === finished.resultCount && finished.resultCount > 0);
    const deltas = seen.filter((event): event is Extract<AgentEvent, { type: 'text-delta' }> => event.type === 'text-delta');
    assert.deepStrictEqual([...new Set(deltas.map((event) => event.stepNumber))], [1, 2], 'text deltas say which response they belong to');
    assert.strictEqual(answer.answer, 'Done.', 'the answer is the last response with text');
  });

  it('request limit: a new run starts a fresh limit; null disables it', async () => {
    fixture.server.push({ toolCalls: [search('cache')] }, { text: 'first' }, { toolCalls: [search('cache')] }, { toolCalls: [search('modes')] }, { text: 'second' });
    const first = await askScripted(fixture.server, fixture.corpus.store, { settings: { requestLimit: 1 } });
    assert.deepStrictEqual(offeredToolNames(fixture.server.requests[1]), ['rag_cite']);
    await askScripted(fixture.server, fixture.corpus.store, { settings: { requestLimit: null }, state: first.answer.state });
    assert.deepStrictEqual(fixture.server.requests.slice(2).map(offeredToolNames), [
      ['rag_cite', 'rag_search'],
      ['rag_cite', 'rag_search'],
      ['rag_cite', 'rag_search'],
    ]);
  });

  it('rag_cite: asks again when nothing resolves; strips brackets, repairs a near miss, reports unknown ids', async () => {
    let shown: string[] = [];
    fixture.server.push(
      { toolCalls: [search('GitHub Pages deploy workflow')] },
      (request) => {
        shown = chunkIdsIn(lastToolText(request));
        return { toolCalls: [cite(['definitely-not-a-chunk'])] };
      },
      () => ({ toolCalls: [cite([`[${shown[0].slice(0, 8)}${shown[0].slice(9)}]`, ` [${shown[1] ?? shown[0]}] `, 'ffffffff-0000-4000-8000-000000000000'])] }),
      { text: 'ok' },
    );
    const { answer } = await askScripted(fixture.server, fixture.corpus.store);
    assert.ok(shown.length >= 2, 'two hits to cite');
    assert.match(lastToolText(fixture.server.requests[2]), /^None of the 1 chunk id\(s\) matched.*Copy chunk ids verbatim/);
    const report = lastToolText(fixture.server.requests[3]);
    assert.match(report, /^Registered 2 citation\(s\)\. Repaired near-miss id\(s\): .* → /);
    assert.match(report, /Ignored 1 unresolvable id\(s\): ffffffff-0000-4000-8000-000000000000\.$/);
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [shown[0], shown[1]]);
  });

  it('rag_cite falls back to the store for ids not shown in this run, but only within the filter', async () => {
    const unseen = await chunkContaining(fixture.corpus.store, 'dep-pre-bundling.md', 'optimizeDeps.include');
    const outside = await chunkContaining(fixture.corpus.store, 'env-and-mode.md', 'import.meta.env');
    fixture.server.push({ toolCalls: [cite([unseen.chunkId, outside.chunkId])] }, { text: 'ok' });
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { documentFilter: "relative_path = 'dep-pre-bundling.md'" });
    assert.strictEqual(lastToolText(fixture.server.requests[1]), `Registered 1 citation(s). Ignored 1 unresolvable id(s): ${outside.chunkId}.`);
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [unseen.chunkId]);
    assert.strictEqual(answer.citations[0].content, unseen.content, 'a citation from the store holds the raw chunk');
  });

  it('an empty rag_cite records "ungrounded"; filter and citation index persist, searches reset, indexes keep growing', async () => {
    fixture.server.push({ toolCalls: [search('GitHub Pages')] }, (request) => ({ toolCalls: [cite(chunkIdsIn(lastToolText(request)).slice(0, 1))] }), { text: 'a' });
    const first = await askScripted(fixture.server, fixture.corpus.store, { documentFilter: "relative_path = 'static-deploy.md'" });
    const carried = JSON.parse(JSON.stringify(first.answer.state));
    fixture.server.push({ toolCalls: [search('Netlify')] }, { toolCalls: [cite([])] }, { text: 'I cannot find enough information in the knowledge base to answer this question.' });
    const second = await askScripted(fixture.server, fixture.corpus.store, { state: carried });
    assert.strictEqual(second.answer.citationStatus, 'ungrounded');
    assert.deepStrictEqual(second.answer.citations, []);
    assert.strictEqual(second.answer.state.documentFilter, "relative_path = 'static-deploy.md'");
    assert.deepStrictEqual(Object.keys(second.answer.state.searches), ['Netlify']);
    fixture.server.push({ toolCalls: [search('Vercel')] }, (request) => ({ toolCalls: [cite([...chunkIdsIn(lastToolText(request)).slice(0, 1), first.answer.citations[0].chunkId])] }), { text: 'c' });
    const third = await askScripted(fixture.server, fixture.corpus.store, { state: second.answer.state });
    const firstId = first.answer.citations[0].chunkId;
    const newId = chunkIdsIn(lastToolText(fixture.server.requests.at(-2)!))[0];
    assert.notStrictEqual(newId, firstId);
    // A new chunk gets the next display index; a chunk cited in an earlier question keeps its own.
    assert.deepStrictEqual(third.answer.citations.map((citation) => [citation.chunkId, citation.index]), [[newId, 2], [firstId, 1]]);
  });

  it('citation policy (opt-in): an answer built on evidence but not cited gets one redirect, then the repeated answer', async () => {
    fixture.server.push(
      { toolCalls: [search('cache')] },
      { text: 'The cache is in node_modules/.vite.' },
      (request) => ({ toolCalls: [cite(chunkIdsIn(toolMessages(request)[0].content).slice(0, 1))] }),
      { text: 'The cache is in node_modules/.vite.' },
      { toolCalls: [search('modes')] },
      { text: 'Modes exist.' },
      { text: 'Still no citation.' },
    );
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { settings: { citationPolicy: true } });
    const redirect = fixture.server.requests[2].body.messages.at(-1)!;
    assert.strictEqual(redirect.role, 'user');
    assert.match(String(redirect.content), /^\[haiku\/citation-redirect\] .*Do not change the answer/);
    assert.strictEqual(answer.citationStatus, 'grounded');
    assert.strictEqual(answer.citations.length, 1);
    assert.strictEqual(answer.answer, 'The cache is in node_modules/.vite.');
    assert.strictEqual(answer.requests, 4);
    assert.deepStrictEqual(answer.responseMessages.map((message) => message.role), ['assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    // Asked at most once per question: a model that still does not cite keeps its answer, status stays missing.
    const second = await askScripted(fixture.server, fixture.corpus.store, { settings: { citationPolicy: true }, state: answer.state });
    assert.strictEqual(fixture.server.requests.length, 7);
    assert.strictEqual(second.answer.citationStatus, 'missing');
    assert.strictEqual(second.answer.answer, 'Still no citation.');
    // Off by default: no redirect.
    fixture.server.push({ toolCalls: [search('cache')] }, { text: 'plain' });
    const third = await askScripted(fixture.server, fixture.corpus.store, { state: second.answer.state });
    assert.strictEqual(third.answer.citationStatus, 'missing');
    assert.strictEqual(fixture.server.requests.length, 9);
  });

  it('searching after citing makes the question "missing" again; citing in the same response as a search does not ground it', async () => {
    fixture.server.push(
      { toolCalls: [search('cache')] },
      (request) => ({ toolCalls: [cite(chunkIdsIn(lastToolText(request)).slice(0, 1)), search('modes')] }),
      { text: 'ok' },
    );
    const { answer } = await askScripted(fixture.server, fixture.corpus.store);
    assert.strictEqual(answer.citationStatus, 'missing');
  });

  it('replaces large evidence returns of earlier turns with a marker, keeping tool-call pairing and current evidence', async () => {
    const longResult = 'x'.repeat(2000);
    const history: ModelMessage[] = [
      { role: 'user', content: 'earlier question' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'old-1', toolName: 'rag_search', input: { query: 'old' } },
          { type: 'tool-call', toolCallId: 'old-2', toolName: 'rag_cite', input: { chunk_ids: [] } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'old-1', toolName: 'rag_search', output: { type: 'text', value: longResult } },
          { type: 'tool-result', toolCallId: 'old-2', toolName: 'rag_cite', output: { type: 'text', value: 'Registered 0 citation(s).' } },
        ],
      },
      { role: 'assistant', content: 'earlier answer' },
    ];
    fixture.server.push({ toolCalls: [search('cache')] }, { text: 'ok' });
    const { answer } = await askScripted(fixture.server, fixture.corpus.store, { history });
    for (const request of fixture.server.requests) {
      const tools = toolMessages(request);
      assert.strictEqual(tools.find((message) => message.toolCallId === 'old-1')?.content, EARLIER_EVIDENCE_MARKER);
      assert.strictEqual(tools.find((message) => message.toolCallId === 'old-2')?.content, 'Registered 0 citation(s).');
      const calls = request.body.messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.id);
      assert.ok(calls.includes('old-1') && calls.includes('old-2'), 'tool calls stay paired with their results');
      assert.ok(!JSON.stringify(request.body).includes(longResult));
    }
    assert.ok(chunkIdsIn(lastToolText(fixture.server.requests[1])).length > 0, 'current-turn evidence is intact');
    assert.strictEqual(history[2].role === 'tool' && history[2].content[0].type === 'tool-result' && history[2].content[0].output.type === 'text' && history[2].content[0].output.value, longResult, 'the caller history is untouched');
    // What this question added can be appended to the history for the next one.
    assert.deepStrictEqual(answer.responseMessages.map((message) => message.role), ['assistant', 'tool', 'assistant']);
  });

  it('routing: /ask offers only rag tools, /analyze only analysis tools, both when routing is not deferred', async () => {
    const neverCalled = async () => {
      throw new Error('not used');
    };
    fixture.server.push({ text: 'a' }, { text: 'b' }, { text: 'c' });
    await askScripted(fixture.server, fixture.corpus.store, { mode: 'rag', createSandbox: neverCalled });
    await askScripted(fixture.server, fixture.corpus.store, { mode: 'analysis', createSandbox: neverCalled });
    await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', deferLoading: false, createSandbox: neverCalled });
    assert.deepStrictEqual(fixture.server.requests.map(offeredToolNames), [
      ['rag_cite', 'rag_search'],
      ['cite', 'execute_code', 'search'],
      ['cite', 'execute_code', 'rag_cite', 'rag_search', 'search'],
    ]);
    assert.doesNotMatch(systemPrompt(fixture.server.requests[0]), /load_capability/, 'dedicated agents are not deferred');
    assert.doesNotMatch(systemPrompt(fixture.server.requests[1]), /load_capability/);
    assert.match(systemPrompt(fixture.server.requests[0]), /rag_search/);
    assert.doesNotMatch(systemPrompt(fixture.server.requests[0]), /execute_code/);
    assert.doesNotMatch(systemPrompt(fixture.server.requests[1]), /rag_search/);
    assert.match(systemPrompt(fixture.server.requests[2]), /Choosing tools/);
    const executeCode = fixture.server.requests[1].body.tools!.find((entry) => entry.function.name === 'execute_code')!;
    assert.match(executeCode.function.description ?? '', /\/documents\/\{id\}\/toc\.json/);
  });

  it('prepends the domain preamble', async () => {
    fixture.server.push({ text: 'hi' });
    await askScripted(fixture.server, fixture.corpus.store, { settings: { domainPreamble: 'The corpus is the Vite documentation; readers are web developers.' } });
    assert.match(systemPrompt(fixture.server.requests[0]), /^The corpus is the Vite documentation; readers are web developers\.\n\nYou are a research assistant/);
  });

  it('an invalid document filter fails the question before the model is called', async () => {
    fixture.server.push({ text: 'should not be reached' });
    await assert.rejects(
      askScripted(fixture.server, fixture.corpus.store, { documentFilter: 'relative_path = ' }),
      (error: HaikuError) => error.code === 'invalid_filter' && /filter is not valid at character 17/.test(error.message),
    );
    assert.strictEqual(fixture.server.requests.length, 0, 'the model was never called');
  });

  it('a search that fails (real LanceDB error) goes back to the model as a tool result; the run goes on', async () => {
    const failingSearch = failingSearchKnowledgeBase(fixture.corpus.store);
    fixture.server.push({ toolCalls: [search('cache'), search('"zebrafinch token"')] }, { toolCalls: [cite([])] }, { text: 'The search failed, so I cannot say.' });
    const { answer, events } = await askScripted(fixture.server, failingSearch);
    const [first, second] = toolMessages(fixture.server.requests[1]);
    assert.match(first.content, /^The search failed: .*filter is not valid.* try other keywords/s);
    assert.match(second.content, /^The search failed: /);
    assert.strictEqual(answer.answer, 'The search failed, so I cannot say.');
    assert.strictEqual(fixture.server.requests.length, 3);
    const finished = events.filter((event) => event.type === 'search-finished') as Array<{ error?: string }>;
    assert.strictEqual(finished.length, 2);
    assert.ok(finished.every((event) => typeof event.error === 'string' && event.error.length > 0));
  });

  it('nothing the model writes widens the document filter', async () => {
    const recording = new RecordingKnowledgeBase(fixture.corpus.store);
    fixture.server.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'pre-bundling cache GitHub', filter: '1=1', limit: 10 } }] }, { text: 'ok' });
    const { answer } = await askScripted(fixture.server, recording, { documentFilter: "relative_path = 'static-deploy.md'" });
    assert.deepStrictEqual(recording.searchCalls.map((call) => [call.options?.filter, call.options?.expand]), [["relative_path = 'static-deploy.md'", true]]);
    const results = answer.state.searches['pre-bundling cache GitHub'];
    assert.ok(results.length > 0);
    assert.ok(results.every((result) => result.uri.endsWith('static-deploy.md')));
    const schema = fixture.server.requests[0].body.tools!.find((entry) => entry.function.name === 'rag_search')!.function.parameters as { properties: Record<string, unknown> };
    assert.deepStrictEqual(Object.keys(schema.properties).sort(), ['limit', 'query']);
  });
});
