import * as assert from 'node:assert';
import { MemoryKnowledgeBase } from '../../support/memoryKnowledgeBase';
import { offeredToolNames, startScriptedChatServer, systemPrompt, toolMessages, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { askScripted } from './agentHarness';
import { EARLIER_EVIDENCE_MARKER } from '../../../src/core/agent/contextManagement';
import type { ModelMessage } from 'ai';

const PUMP = 'c0ffee00-1111-4222-8333-444455556666';
const VALVE = 'beef0000-aaaa-4bbb-8ccc-dddddddddddd';
const BOILER = '0badf00d-9999-4888-8777-666655554444';

function knowledgeBase(): MemoryKnowledgeBase {
  return new MemoryKnowledgeBase([
    {
      id: 'manual',
      title: 'Plant manual',
      chunks: [
        { id: PUMP, content: 'The coolant pump must be inspected every 30 days.', headings: ['Maintenance', 'Pumps'] },
        { id: VALVE, content: 'The relief valve opens at 12 bar.', headings: ['Safety'] },
      ],
    },
    { id: 'notes', title: 'Operator notes', chunks: [{ id: BOILER, content: 'Boiler pump noise is normal during start-up.' }] },
  ]);
}

function search(query: string, limit?: number) {
  return { name: 'rag_search', arguments: limit === undefined ? { query } : { query, limit } };
}

describe('agent: rag tool set', function () {
  this.timeout(20_000);
  let server: ScriptedChatServer;
  beforeEach(async () => {
    server = await startScriptedChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('renders results with chunk id, rank of n, source and content; "No results found." when empty', async () => {
    server.push({ toolCalls: [search('coolant pump'), search('xylophone')] }, { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [PUMP] } }] }, { text: 'Every 30 days.' });
    const { answer, events } = await askScripted(server, knowledgeBase());
    const [first, second] = toolMessages(server.requests[1]);
    assert.match(first.content, new RegExp(`\\[${PUMP}\\] \\[rank 1 of 2\\]`));
    assert.match(first.content, /Source: "Plant manual" > Maintenance > Pumps/);
    assert.match(first.content, /inspected every 30 days/);
    assert.strictEqual(second.content, 'No results found.');
    assert.strictEqual(answer.answer, 'Every 30 days.');
    assert.deepStrictEqual(answer.citations.map((citation) => [citation.index, citation.chunkId, citation.title]), [[1, PUMP, 'Plant manual']]);
    assert.strictEqual(answer.citationStatus, 'grounded');
    assert.deepStrictEqual(
      events.filter((event) => event.type === 'search-started').map((event) => (event as { query: string }).query),
      ['coolant pump', 'xylophone'],
    );
    assert.ok(events.some((event) => event.type === 'citation-added'));
    assert.strictEqual(events.filter((event) => event.type === 'text-delta').map((event) => (event as { text: string }).text).join(''), 'Every 30 days.');
  });

  it('budget units: up to three searches of one response share a unit; a fourth needs another', async () => {
    // Budget 2: response 1 spends a unit on 1 search, response 2 spends the second unit on 3 searches, its 4th is refused.
    server.push(
      { toolCalls: [search('pump')] },
      { toolCalls: [search('valve'), search('boiler'), search('relief'), search('coolant')] },
      { toolCalls: [search('anything')] },
      { text: 'done' },
    );
    const { answer, events } = await askScripted(server, knowledgeBase(), { settings: { maxSearches: 2 } });
    const second = toolMessages(server.requests[2]).slice(1);
    assert.strictEqual(second.length, 4);
    for (const message of second.slice(0, 3)) {
      assert.doesNotMatch(message.content, /budget spent/i);
    }
    assert.match(second[3].content, /Search budget spent/);
    const third = toolMessages(server.requests[3]).at(-1)!;
    assert.match(third.content, /Search budget spent/);
    // The request after the budget is spent carries a notice naming the (still declared) search tool.
    assert.match(systemPrompt(server.requests[2]), /search budget of this question is spent; rag_search/);
    assert.doesNotMatch(systemPrompt(server.requests[1]), /budget of this question is spent/);
    assert.deepStrictEqual(offeredToolNames(server.requests[3]), ['rag_cite', 'rag_search']);
    assert.strictEqual(events.filter((event) => event.type === 'search-finished' && event.refused).length, 2);
    assert.strictEqual(Object.keys(answer.state.searches).length, 4);
  });

  it('budget units: three searches in one response spend one unit, a later response starts a new one', async () => {
    server.push({ toolCalls: [search('pump'), search('valve'), search('boiler')] }, { toolCalls: [search('relief')] }, { text: 'ok' });
    await askScripted(server, knowledgeBase(), { settings: { maxSearches: 1 } });
    const first = toolMessages(server.requests[1]);
    assert.strictEqual(first.length, 3);
    assert.ok(first.every((message) => !/budget spent/i.test(message.content)));
    assert.match(toolMessages(server.requests[2]).at(-1)!.content, /Search budget spent/);
  });

  it('collapses evidence a sibling search of the same response already showed to a reference line', async () => {
    server.push({ toolCalls: [search('coolant pump'), search('pump inspection')] }, { toolCalls: [search('pump')] }, { text: 'ok' });
    await askScripted(server, knowledgeBase());
    const [first, second] = toolMessages(server.requests[1]);
    assert.match(first.content, /inspected every 30 days/);
    assert.match(second.content, new RegExp(`\\[${PUMP}\\] \\[rank \\d of \\d\\] Already shown above in the results for "coolant pump"`));
    assert.doesNotMatch(second.content, /inspected every 30 days/);
    // A later response is a new response: the evidence is shown in full again.
    assert.match(toolMessages(server.requests[2]).at(-1)!.content, /inspected every 30 days/);
  });

  it('request limit: withdraws rag_search, keeps rag_cite for two requests that call a rag tool, then no tools', async () => {
    server.push(
      { toolCalls: [search('pump')] },
      { toolCalls: [search('valve')] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [] } }] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [PUMP] } }] },
      { text: 'Inspect monthly.' },
    );
    const { answer } = await askScripted(server, knowledgeBase(), { settings: { requestLimit: 2 } });
    assert.deepStrictEqual(server.requests.map(offeredToolNames), [['rag_cite', 'rag_search'], ['rag_cite', 'rag_search'], ['rag_cite'], ['rag_cite'], []]);
    assert.match(systemPrompt(server.requests[2]), /only rag_cite remain/);
    const notices = (index: number) => systemPrompt(server.requests[index]).split('\n').filter((line) => line.startsWith('Notice:')).join('\n');
    assert.doesNotMatch(notices(2), /rag_search/, 'a notice never names a withdrawn tool');
    assert.strictEqual(notices(1), '');
    assert.match(systemPrompt(server.requests[4]), /tools are gone/);
    assert.doesNotMatch(systemPrompt(server.requests[4]), /rag_cite remain/);
    assert.strictEqual(answer.answer, 'Inspect monthly.');
    assert.strictEqual(answer.requests, 5);
    assert.strictEqual(answer.citationStatus, 'grounded');
  });

  it('request limit: a fresh run starts a fresh limit; null disables it', async () => {
    server.push({ toolCalls: [search('pump')] }, { text: 'first' }, { toolCalls: [search('pump')] }, { toolCalls: [search('valve')] }, { text: 'second' });
    const first = await askScripted(server, knowledgeBase(), { settings: { requestLimit: 1 } });
    assert.deepStrictEqual(offeredToolNames(server.requests[1]), ['rag_cite']);
    await askScripted(server, knowledgeBase(), { settings: { requestLimit: null }, state: first.answer.state });
    assert.deepStrictEqual(server.requests.slice(2).map(offeredToolNames), [
      ['rag_cite', 'rag_search'],
      ['rag_cite', 'rag_search'],
      ['rag_cite', 'rag_search'],
    ]);
  });

  it('rag_cite strips brackets, repairs a near-miss id, reports unknown ids, and asks again when nothing resolves', async () => {
    const nearMiss = PUMP.slice(0, 10) + PUMP.slice(11); // one character dropped
    server.push(
      { toolCalls: [search('pump valve')] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: ['not-an-id-at-all'] } }] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [`[${nearMiss}]`, `[${VALVE}]`, 'ffffffff-0000-4000-8000-000000000000'] } }] },
      { text: 'ok' },
    );
    const { answer } = await askScripted(server, knowledgeBase());
    assert.match(toolMessages(server.requests[2]).at(-1)!.content, /None of the 1 chunk id\(s\) matched.*Copy chunk ids verbatim/);
    const report = toolMessages(server.requests[3]).at(-1)!.content;
    assert.match(report, /Registered 2 citation\(s\)/);
    assert.match(report, new RegExp(`Repaired near-miss id\\(s\\): \\[${nearMiss}\\] → ${PUMP}`));
    assert.match(report, /Ignored 1 unresolvable id\(s\): ffffffff-0000-4000-8000-000000000000/);
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId).sort(), [PUMP, VALVE].sort());
  });

  it('rag_cite falls back to the store for ids not seen in this run, within the filter; an empty list records ungrounded', async () => {
    server.push(
      { toolCalls: [search('pump')] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [VALVE, BOILER] } }] },
      { text: 'ok' },
    );
    const { answer } = await askScripted(server, knowledgeBase(), { documentFilter: "title = 'Plant manual'" });
    assert.match(toolMessages(server.requests[2]).at(-1)!.content, new RegExp(`Registered 1 citation\\(s\\).*Ignored 1 unresolvable id\\(s\\): ${BOILER}`));
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [VALVE]);

    server.push({ toolCalls: [search('pump')] }, { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [] } }] }, { text: 'not covered' });
    const second = await askScripted(server, knowledgeBase(), { state: answer.state });
    assert.strictEqual(second.answer.citationStatus, 'ungrounded');
    assert.deepStrictEqual(second.answer.citations, []);
    assert.strictEqual(second.answer.state.documentFilter, "title = 'Plant manual'", 'the filter persists between runs');
    assert.ok(second.answer.state.citationIndex[VALVE], 'the citation index accumulates across questions');
  });

  it('display indexes keep increasing across questions; state survives JSON', async () => {
    server.push({ toolCalls: [search('pump')] }, { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [PUMP] } }] }, { text: 'a' });
    const first = await askScripted(server, knowledgeBase());
    const carried = JSON.parse(JSON.stringify(first.answer.state));
    server.push({ toolCalls: [search('valve')] }, { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [VALVE, PUMP] } }] }, { text: 'b' });
    const second = await askScripted(server, knowledgeBase(), { state: carried });
    assert.deepStrictEqual(second.answer.citations.map((citation) => [citation.chunkId, citation.index]), [[VALVE, 2], [PUMP, 1]]);
    assert.deepStrictEqual(Object.keys(second.answer.state.searches), ['valve'], 'searches reset per question');
  });

  it('replaces large evidence returns of earlier turns with a marker, keeping tool-call pairing and current evidence', async () => {
    const longResult = 'x'.repeat(2000);
    const history: ModelMessage[] = [
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'old-1', toolName: 'rag_search', input: { query: 'old' } }, { type: 'tool-call', toolCallId: 'old-2', toolName: 'rag_cite', input: { chunk_ids: [] } }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'old-1', toolName: 'rag_search', output: { type: 'text', value: longResult } },
          { type: 'tool-result', toolCallId: 'old-2', toolName: 'rag_cite', output: { type: 'text', value: 'Registered 0 citation(s).' } },
        ],
      },
      { role: 'assistant', content: 'earlier answer' },
    ];
    server.push({ toolCalls: [search('pump')] }, { text: 'ok' });
    await askScripted(server, knowledgeBase(), { history });
    for (const request of server.requests) {
      const tools = toolMessages(request);
      assert.deepStrictEqual(tools.find((message) => message.toolCallId === 'old-1')?.content, EARLIER_EVIDENCE_MARKER);
      assert.strictEqual(tools.find((message) => message.toolCallId === 'old-2')?.content, 'Registered 0 citation(s).');
      const assistantCalls = request.body.messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.id);
      assert.ok(assistantCalls.includes('old-1') && assistantCalls.includes('old-2'));
      assert.ok(!JSON.stringify(request.body).includes(longResult));
    }
    assert.match(toolMessages(server.requests[1]).at(-1)!.content, /inspected every 30 days/);
  });

  it('routing: /ask offers only rag tools, /analyze only analysis tools, default both', async () => {
    const neverCalled = async () => {
      throw new Error('not used');
    };
    server.push({ text: 'a' }, { text: 'b' }, { text: 'c' });
    await askScripted(server, knowledgeBase(), { mode: 'rag', createSandbox: neverCalled });
    await askScripted(server, knowledgeBase(), { mode: 'analysis', createSandbox: neverCalled });
    await askScripted(server, knowledgeBase(), { mode: 'auto', createSandbox: neverCalled });
    assert.deepStrictEqual(server.requests.map(offeredToolNames), [
      ['rag_cite', 'rag_search'],
      ['cite', 'execute_code', 'search'],
      ['cite', 'execute_code', 'rag_cite', 'rag_search', 'search'],
    ]);
    assert.match(systemPrompt(server.requests[0]), /rag_search/);
    assert.doesNotMatch(systemPrompt(server.requests[0]), /execute_code/);
    assert.doesNotMatch(systemPrompt(server.requests[1]), /rag_search/);
    assert.match(systemPrompt(server.requests[2]), /Choosing tools/);
    const executeCode = server.requests[1].body.tools!.find((entry) => entry.function.name === 'execute_code')!;
    assert.match(executeCode.function.description ?? '', /\/documents\/\{id\}\/toc\.json/);
  });

  it('prepends the domain preamble', async () => {
    server.push({ text: 'hi' });
    await askScripted(server, knowledgeBase(), { settings: { domainPreamble: 'The corpus is a nuclear plant manual for operators.' } });
    assert.match(systemPrompt(server.requests[0]), /^The corpus is a nuclear plant manual for operators\.\n\nYou are a research assistant/);
  });

  it('the model cannot widen the document filter: every search carries it', async () => {
    const base = knowledgeBase();
    server.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'pump', filter: '1=1' } }] }, { text: 'ok' });
    await askScripted(server, base, { documentFilter: "title = 'Operator notes'" });
    assert.deepStrictEqual(base.searchCalls.map((call) => call.options?.filter), ["title = 'Operator notes'"]);
    assert.match(toolMessages(server.requests[1])[0].content, new RegExp(BOILER));
    assert.doesNotMatch(toolMessages(server.requests[1])[0].content, new RegExp(PUMP));
    const schema = server.requests[0].body.tools!.find((entry) => entry.function.name === 'rag_search')!.function.parameters as { properties: Record<string, unknown> };
    assert.deepStrictEqual(Object.keys(schema.properties).sort(), ['limit', 'query']);
  });
});
