import * as assert from 'node:assert';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { createOpenAiCompatibleModel } from '../../../src/node/agent/openAiCompatibleModel';
import { runAgent } from '../../../src/core/agent/runAgent';
import { HaikuError } from '../../../src/core/errors';
import { cliErrorText } from '../../../src/node/config/cliErrorWording';
import { closedPort } from '../../support/httpJson';
import { MemoryKnowledgeBase } from '../../support/memoryKnowledgeBase';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';

const knowledgeBase = new MemoryKnowledgeBase([{ id: 'doc', title: 'Doc', chunks: [{ id: 'chunk-1', content: 'hello world' }] }]);

async function failureOf(baseUrl: string, options: { requestTimeoutMs?: number; abortSignal?: AbortSignal } = {}): Promise<HaikuError> {
  const { model, description } = createOpenAiCompatibleModel({ baseUrl, name: 'qwen3:8b', requestTimeoutMs: options.requestTimeoutMs });
  try {
    await runAgent({ model, modelDescription: description, knowledgeBase, question: 'hi', mode: 'rag', maxRetries: 0, abortSignal: options.abortSignal });
  } catch (error) {
    assert.ok(error instanceof HaikuError, `expected a HaikuError, got ${String(error)}`);
    assert.ok(!error.message.includes('\n'), 'one line');
    return error;
  }
  assert.fail('the run should have failed');
}

describe('agent: OpenAI-compatible model', function () {
  this.timeout(20_000);
  let server: ScriptedChatServer;
  beforeEach(async () => {
    server = await startScriptedChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('posts to /chat/completions with temperature 0.3, a placeholder key, and reasoning_effort only when thinking', async () => {
    server.push({ text: 'a' }, { text: 'b' });
    const plain = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'qwen3:8b' });
    await generateText({ model: plain.model, prompt: 'hi' });
    const thinking = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'qwen3:8b', thinking: true, apiKey: 'secret', temperature: 0.7 });
    await generateText({ model: thinking.model, prompt: 'hi' });
    const [first, second] = server.requests;
    assert.strictEqual(first.path, '/v1/chat/completions');
    assert.strictEqual(first.body.model, 'qwen3:8b');
    assert.strictEqual(first.body.temperature, 0.3);
    assert.strictEqual(first.body.reasoning_effort, undefined);
    assert.strictEqual(first.headers.authorization, 'Bearer not-needed');
    assert.strictEqual(second.body.temperature, 0.7);
    assert.strictEqual(second.body.reasoning_effort, 'medium');
    assert.strictEqual(second.headers.authorization, 'Bearer secret');
  });

  it('the scripted server splits streamed tool-call arguments across SSE chunks (and the SDK reassembles them)', async () => {
    const call = { name: 'lookup', arguments: { key: 'a fairly long argument value that spans several chunks' } };
    server.push({ toolCalls: [call] }, { toolCalls: [call] }, { text: 'done' });
    const response = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', stream: true, messages: [] }) });
    const events = (await response.text()).split('\n\n').filter((line) => line.startsWith('data: {'));
    const pieces = events.flatMap((line) => (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { tool_calls?: Array<{ function?: { arguments?: string } }> } }> }).choices)
      .flatMap((choice) => choice.delta?.tool_calls ?? [])
      .map((delta) => delta.function?.arguments ?? '')
      .filter((piece) => piece !== '');
    assert.ok(pieces.length > 5);
    assert.deepStrictEqual(JSON.parse(pieces.join('')), call.arguments);
    const { model } = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'm' });
    const seen: string[] = [];
    const result = streamText({
      model,
      prompt: 'x',
      stopWhen: stepCountIs(2),
      tools: { lookup: tool({ inputSchema: z.object({ key: z.string() }), execute: async ({ key }) => (seen.push(key), 'ok') }) },
    });
    assert.strictEqual(await result.text, 'done');
    assert.strictEqual(server.requests.length, 3);
    assert.strictEqual(server.requests[1].body.stream, true);
    assert.deepStrictEqual(seen, [call.arguments.key]);
  });

  it('runs a tool loop over non-streaming JSON responses too', async () => {
    server.push({ toolCalls: [{ name: 'lookup', arguments: { key: 'alpha' } }] }, { text: 'alpha is 1' });
    const { model } = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'm' });
    const seen: string[] = [];
    const result = await generateText({
      model,
      prompt: 'what is alpha',
      stopWhen: stepCountIs(3),
      tools: { lookup: tool({ inputSchema: z.object({ key: z.string() }), execute: async ({ key }) => (seen.push(key), '1') }) },
    });
    assert.deepStrictEqual(seen, ['alpha']);
    assert.strictEqual(result.text, 'alpha is 1');
    assert.strictEqual(server.requests[0].body.stream, undefined);
  });

  it('rejects a missing model name and a malformed base URL with actionable messages', () => {
    assert.throws(() => createOpenAiCompatibleModel({ name: '' }), (error: HaikuError) => error.code === 'invalid_settings' && error.remedy?.settings?.[0] === 'qa.model.name');
    assert.throws(() => createOpenAiCompatibleModel({ name: 'm', baseUrl: 'not a url' }), (error: HaikuError) => error.code === 'invalid_settings');
  });

  it('an unreachable server is model_unreachable and names the URL and what to do', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await failureOf(baseUrl);
    assert.strictEqual(error.code, 'model_unreachable');
    assert.match(error.message, new RegExp(`Cannot reach the model server at ${baseUrl.replace(/[.]/g, '\\.')}.*ECONNREFUSED.*ollama serve`));
    // The setting is named by each front end: here the CLI's flag, variable and config key.
    assert.match(cliErrorText(error, new Set(['base-url'])), /ollama serve.*--base-url, HAIKU_BASE_URL or "qa\.model\.base_url" in haiku\.config\.json/);
  });

  it('an unknown model (404) is model_failed and says how to fix the name', async () => {
    server.push({ status: 404, body: { error: { message: "model 'qwen3:8b' not found, try pulling it first" } } });
    const error = await failureOf(server.baseUrl);
    assert.strictEqual(error.code, 'model_failed');
    assert.match(error.message, /does not know the model 'qwen3:8b' \(404: model 'qwen3:8b' not found/);
    assert.match(cliErrorText(error, new Set(['model', 'base-url'])), /--model, HAIKU_MODEL or "qa\.model\.name" in haiku\.config\.json/);
  });

  it('a model without tool calling (400 or a server error mentioning tools) is model_failed naming the cause', async () => {
    server.push({ status: 400, body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools' } } }, { status: 500, body: { error: 'this model cannot use tools' } });
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await failureOf(server.baseUrl);
      assert.strictEqual(error.code, 'model_failed');
      assert.match(error.message, /does not support tool calling \(server said: .*tools\)\. Pick a model with tool support/);
    }
  });

  it('a server that does not answer in time is model_failed; an abort is cancelled', async () => {
    server.push({ hang: true }, { hang: true });
    const timedOut = await failureOf(server.baseUrl, { requestTimeoutMs: 300 });
    assert.strictEqual(timedOut.code, 'model_failed');
    assert.match(timedOut.message, /did not answer in time/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await failureOf(server.baseUrl, { abortSignal: controller.signal });
    assert.strictEqual(cancelled.code, 'cancelled');
  });
});
