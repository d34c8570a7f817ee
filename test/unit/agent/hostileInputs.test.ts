import * as assert from 'node:assert';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startScriptedChatServer, toolMessages, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { askScripted } from './agentHarness';
import { buildCorpusIndex, type CorpusIndex } from './corpusIndex';
import { normalizeCitedId, registerCitations } from '../../../src/core/agent/citations';
import { startQuestion } from '../../../src/core/agent/conversationState';
import { CITE_MAX_IDS, CITED_ID_MAX_CHARS, SEARCH_QUERY_MAX_CHARS } from '../../../src/core/limits';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';
import type { SandboxFactory } from '../../../src/core/agent/agentRun';
import { createKnowledgeBaseSandboxHost } from '../../../src/core/analysis/knowledgeBaseSandboxHost';

/** Runs `work` and returns the longest time the event loop of this (host) thread was blocked meanwhile (ms). */
async function longestBlock(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
  }
  return histogram.max / 1e6;
}

// Generous for a loaded CI machine; the old code blocked for 13.6 s (cite tool) and 116 s (cite()).
const BLOCK_BOUND_MS = 500;

describe('agent: hostile inputs are refused at once (bounded host time)', function () {
  this.timeout(60_000);
  let corpus: CorpusIndex;
  let server: ScriptedChatServer;
  before(async () => {
    corpus = await buildCorpusIndex();
    // Warm up (module loading and compilation block the thread once); the measurements below are of the tools.
    const warmUp = await startScriptedChatServer([{ toolCalls: [{ name: 'rag_search', arguments: { query: 'cache' } }] }, { text: 'ok' }]);
    await askScripted(warmUp, corpus.store);
    await warmUp.close();
    await (await createCodeSandbox({ host: createKnowledgeBaseSandboxHost({ knowledgeBase: corpus.store }) })).dispose();
  });
  after(async () => {
    await corpus?.close();
  });
  beforeEach(async () => {
    // Tool arguments in one chunk, and moderate sizes: this measures Haiku's tools, not the SDK's parsing of the
    // arguments (a 1.2 MB argument costs the SDK about a second on its own).
    server = await startScriptedChatServer([], { argumentChunkSize: 10_000_000 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('normalises a 400,000-space id in linear time', () => {
    const started = performance.now();
    assert.strictEqual(normalizeCitedId(`[a${' '.repeat(400_000)}b]`), `a${' '.repeat(400_000)}b`);
    assert.strictEqual(normalizeCitedId(`${' '.repeat(400_000)}`), '');
    assert.ok(performance.now() - started < BLOCK_BOUND_MS, `${(performance.now() - started).toFixed(0)} ms`);
  });

  it('registerCitations skips ids longer than a chunk id and repairs only a bounded number of junk ids', async () => {
    const state = startQuestion(undefined, undefined);
    const junk = Array.from({ length: CITE_MAX_IDS }, (_, index) => `zz${index}`.padEnd(CITED_ID_MAX_CHARS, 'q'));
    const started = performance.now();
    const report = await registerCitations(state, corpus.store, [`x${' '.repeat(150_000)}y`, ...junk]);
    const elapsed = performance.now() - started;
    assert.strictEqual(report.accepted.length, 0);
    assert.strictEqual(report.unknown[0], 'x … (150002 characters)');
    assert.ok(elapsed < 5_000, `${elapsed.toFixed(0)} ms`);
  });

  it('rag_cite and rag_search refuse oversized ids, id lists and queries with a message the model reads', async () => {
    const hugeId = `a${' '.repeat(150_000)}b`;
    server.push(
      { toolCalls: [
        { name: 'rag_cite', arguments: { chunk_ids: [hugeId] } },
        { name: 'rag_cite', arguments: { chunk_ids: Array.from({ length: CITE_MAX_IDS + 1 }, (_, index) => `id${index}`) } },
        { name: 'rag_cite', arguments: { chunk_ids: 'x,'.repeat(60_000) } },
        { name: 'rag_search', arguments: { query: 'cache '.repeat(20_000) } },
      ] },
      { text: 'done' },
    );
    const blocked = await longestBlock(() => askScripted(server, corpus.store));
    const [hugeIdAnswer, manyIdsAnswer, hugeStringAnswer, queryAnswer] = toolMessages(server.requests[1]).map((message) => message.content);
    assert.match(hugeIdAnswer, /^Nothing was registered: A chunk id of 150002 characters was passed \(a … \(150002 characters\)\); chunk ids are 28 characters/);
    assert.match(manyIdsAnswer, new RegExp(`^Nothing was registered: ${CITE_MAX_IDS + 1} chunk ids in one cite call; at most ${CITE_MAX_IDS}`));
    assert.match(hugeStringAnswer, /^Nothing was registered: A chunk id of 120000 characters/);
    assert.match(queryAnswer, new RegExp(`^No search ran: The query is 119999 characters long; at most ${SEARCH_QUERY_MAX_CHARS}`));
    console.log(`      longest host block over the hostile tool calls: ${blocked.toFixed(1)} ms`);
    assert.ok(blocked < BLOCK_BOUND_MS, `the host thread was blocked for ${blocked.toFixed(0)} ms`);
  });

  it('the sandbox refuses oversized cite ids, id lists, queries and paths before any host work', async () => {
    const createSandbox: SandboxFactory = (host) => createCodeSandbox({ host, limits: { codeTimeoutSeconds: 20 } });
    const program = `
      const outcomes = [];
      for (const attempt of [
        () => cite('a' + ' '.repeat(400000) + 'b'),
        () => cite(Array.from({ length: ${CITE_MAX_IDS + 1} }, (_, index) => 'id' + index)),
        () => search('cache '.repeat(400000)),
        () => readFile('/documents/' + 'x'.repeat(1000000)),
        () => listDir('/' + '../'.repeat(400000)),
      ]) {
        try { await attempt(); outcomes.push('accepted'); } catch (error) { outcomes.push(error.name + ': ' + error.message.slice(0, 60)); }
      }
      console.log(outcomes.join('\\n'));`;
    server.push({ toolCalls: [{ name: 'execute_code', arguments: { code: program } }] }, { text: 'done' });
    const blocked = await longestBlock(() => askScripted(server, corpus.store, { mode: 'analysis', createSandbox }));
    const output = toolMessages(server.requests[1])[0].content.trim().split('\n');
    assert.deepStrictEqual(output.map((line) => line.replace(/:.*/, '')), ['RangeError', 'RangeError', 'RangeError', 'RangeError', 'RangeError'], output.join('\n'));
    assert.match(output[0], /A chunk id of 400002 characters/);
    assert.match(output[3], /readFile\(path\): the path is 1000011 characters long/);
    console.log(`      longest host block over the hostile sandbox calls: ${blocked.toFixed(1)} ms`);
    assert.ok(blocked < BLOCK_BOUND_MS, `the host thread was blocked for ${blocked.toFixed(0)} ms`);
  });
});
