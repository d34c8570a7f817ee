import * as assert from 'node:assert';
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import {
  callOptionsToChatRequest,
  chatMessagesToPrompt,
  contentFromStreamParts,
  imagePlaceholder,
  promptToChatMessages,
  StreamPartTranslator,
} from '../../../src/vscode/languageModelMapping';

/** A prompt shaped like the agent's second request: system, question, a rag_search call and its result. */
const toolLoopPrompt: LanguageModelV3Prompt = [
  { role: 'system', content: 'You answer from the documents.' },
  { role: 'user', content: [{ type: 'text', text: 'What is HMR?' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Let me search.' }, { type: 'tool-call', toolCallId: 'call-1', toolName: 'rag_search', input: { query: 'HMR' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'rag_search', output: { type: 'text', value: '[abc123] Hot Module Replacement' } }] },
];

describe('language model mapping (AI SDK ↔ vscode.lm data)', () => {
  it('turns system text into a user message merged with the question, and tool results into a user message', () => {
    const messages = promptToChatMessages(toolLoopPrompt);
    assert.deepStrictEqual(messages, [
      { role: 'user', parts: [{ kind: 'text', value: 'You answer from the documents.' }, { kind: 'text', value: 'What is HMR?' }] },
      { role: 'assistant', parts: [{ kind: 'text', value: 'Let me search.' }, { kind: 'toolCall', callId: 'call-1', name: 'rag_search', input: { query: 'HMR' } }] },
      { role: 'user', parts: [{ kind: 'toolResult', callId: 'call-1', texts: ['[abc123] Hot Module Replacement'] }] },
    ]);
  });

  it('parses string tool inputs and renders json and error outputs as text', () => {
    const messages = promptToChatMessages([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: '{"a":1}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'json', value: { hits: 2 } } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'd', toolName: 't', output: { type: 'error-text', value: 'boom' } }] },
    ]);
    assert.deepStrictEqual(messages[0].parts[0], { kind: 'toolCall', callId: 'c', name: 't', input: { a: 1 } });
    assert.deepStrictEqual(messages[1].parts, [{ kind: 'toolResult', callId: 'c', texts: ['{"hits":2}'] }, { kind: 'toolResult', callId: 'd', texts: ['boom'] }]);
  });

  it('keeps a vision tool result\'s images in order, as image entries with a text placeholder for engines without data parts', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const messages = promptToChatMessages([
      {
        role: 'tool',
        content: [{
          type: 'tool-result', toolCallId: 'v', toolName: 'rag_search',
          output: { type: 'content', value: [
            { type: 'text', text: '[c1] results' },
            { type: 'text', text: 'Page image 1 of 1, retrieved from the knowledge base for search result [c1] (#/pictures/0). Not provided by the user.' },
            { type: 'image-data', data: Buffer.from(png).toString('base64'), mediaType: 'image/png' },
          ] },
        }],
      },
    ]);
    assert.deepStrictEqual(messages[0].parts, [{
      kind: 'toolResult', callId: 'v',
      texts: ['[c1] results', 'Page image 1 of 1, retrieved from the knowledge base for search result [c1] (#/pictures/0). Not provided by the user.', imagePlaceholder('image/png')],
      images: [{ textIndex: 2, data: png, mimeType: 'image/png' }],
    }]);
  });

  it('maps tools and tool choice', () => {
    const tools = [
      { type: 'function' as const, name: 'rag_search', description: 'Search', inputSchema: { type: 'object' as const, properties: { query: { type: 'string' as const } } } },
      { type: 'function' as const, name: 'rag_cite', inputSchema: { type: 'object' as const } },
    ];
    const auto = callOptionsToChatRequest({ prompt: toolLoopPrompt, tools, temperature: 0.3 });
    assert.deepStrictEqual(auto.tools.map((tool) => tool.name), ['rag_search', 'rag_cite']);
    assert.strictEqual(auto.toolMode, 'auto');
    assert.deepStrictEqual(auto.modelOptions, { temperature: 0.3 });
    const forced = callOptionsToChatRequest({ prompt: toolLoopPrompt, tools, toolChoice: { type: 'tool', toolName: 'rag_cite' } });
    assert.deepStrictEqual(forced.tools.map((tool) => tool.name), ['rag_cite']);
    assert.strictEqual(forced.toolMode, 'required');
    assert.deepStrictEqual(callOptionsToChatRequest({ prompt: toolLoopPrompt, tools, toolChoice: { type: 'none' } }).tools, []);
  });

  it('streams text-start/delta/end around text and a tool-call per call, then finish with usage', () => {
    const translator = new StreamPartTranslator(400);
    const parts: LanguageModelV3StreamPart[] = [
      ...translator.start(),
      ...translator.translate({ kind: 'text', value: 'Hello ' }),
      ...translator.translate({ kind: 'text', value: 'world' }),
      ...translator.translate({ kind: 'toolCall', callId: 'x', name: 'rag_cite', input: { chunk_ids: ['abc'] } }),
      ...translator.translate({ kind: 'text', value: '' }),
      ...translator.finish(),
    ];
    assert.deepStrictEqual(parts.map((part) => part.type), ['stream-start', 'text-start', 'text-delta', 'text-delta', 'text-end', 'tool-call', 'finish']);
    const finish = parts[parts.length - 1];
    assert.ok(finish.type === 'finish');
    assert.strictEqual(finish.finishReason.unified, 'tool-calls');
    assert.strictEqual(finish.usage.inputTokens.total, 100);
    assert.ok((finish.usage.outputTokens.total ?? 0) > 0);
    const toolCall = parts.find((part) => part.type === 'tool-call');
    assert.ok(toolCall?.type === 'tool-call' && JSON.parse(toolCall.input).chunk_ids[0] === 'abc');
    assert.deepStrictEqual(contentFromStreamParts(parts).map((part) => part.type === 'text' ? part.text : part.type), ['Hello world', 'tool-call']);
  });

  it('ends a text-only response with finish reason stop', () => {
    const translator = new StreamPartTranslator(0);
    translator.translate({ kind: 'text', value: 'Done.' });
    const finish = translator.finish();
    assert.deepStrictEqual(finish.map((part) => part.type), ['text-end', 'finish']);
    assert.ok(finish[1].type === 'finish' && finish[1].finishReason.unified === 'stop');
  });

  it('round-trips chat messages back to an AI SDK prompt with tool names restored', () => {
    const prompt = chatMessagesToPrompt(promptToChatMessages(toolLoopPrompt.slice(1)), 'sys');
    assert.deepStrictEqual(prompt.map((message) => message.role), ['system', 'user', 'assistant', 'tool']);
    const tool = prompt[3];
    assert.ok(tool.role === 'tool');
    const result = tool.content[0];
    assert.ok(result.type === 'tool-result' && result.toolName === 'rag_search' && result.output.type === 'text' && result.output.value.includes('abc123'));
  });
});
