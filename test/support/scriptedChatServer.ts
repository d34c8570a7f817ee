import type * as http from 'node:http';
import { sendJson, startLocalTestServer } from './httpJson';

/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benchmarks. Each request to
 * `/v1/chat/completions` consumes the next scripted reply; every request body is recorded so tests can assert on
 * the tools offered and the messages sent. Answers in SSE when the request asks for `stream: true`, else JSON.
 */

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

export type ScriptedReply =
  | { text?: string; toolCalls?: ScriptedToolCall[]; delayMs?: number; finishReason?: string }
  | { status: number; body: unknown; delayMs?: number }
  /** Accept the connection and never answer (timeouts). */
  | { hang: true };

export type ScriptStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  /** The parsed JSON body. */
  body: ChatRequestBody;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: unknown } }>;
  temperature?: number;
  [key: string]: unknown;
}

export interface ScriptedChatServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Appends replies to the script. */
  push(...steps: ScriptStep[]): void;
  /** Replies not consumed yet. */
  remaining(): number;
  close(): Promise<void>;
}

export interface ScriptedChatServerOptions {
  /** Characters per SSE chunk of tool-call arguments (default 7), so arguments arrive split across chunks. */
  argumentChunkSize?: number;
}

/** The names of the tools offered in a recorded request. */
export function offeredToolNames(request: RecordedRequest): string[] {
  return (request.body.tools ?? []).map((entry) => entry.function.name).sort();
}

/** The system prompt of a recorded request. */
export function systemPrompt(request: RecordedRequest): string {
  return request.body.messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');
}

/** The tool messages of a recorded request: tool call id → content. */
export function toolMessages(request: RecordedRequest): Array<{ toolCallId: string; content: string }> {
  return request.body.messages
    .filter((message) => message.role === 'tool')
    .map((message) => ({ toolCallId: message.tool_call_id ?? '', content: typeof message.content === 'string' ? message.content : JSON.stringify(message.content) }));
}

/** The content of the last tool result a request sent back ('' when none). */
export function lastToolText(request: RecordedRequest): string {
  return toolMessages(request).at(-1)?.content ?? '';
}

let callCounter = 0;

function toolCallsWithIds(calls: ScriptedToolCall[]): Array<Required<ScriptedToolCall> & { argumentText: string }> {
  return calls.map((call) => ({
    ...call,
    id: call.id ?? `call_${++callCounter}`,
    argumentText: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

export async function startScriptedChatServer(script: ScriptStep[] = [], options: ScriptedChatServerOptions = {}): Promise<ScriptedChatServer> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const chunkSize = options.argumentChunkSize ?? 7;
  const server = await startLocalTestServer((request, text, response) => {
    void (async () => {
      const path = request.url ?? '';
      if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
        sendJson(response, 404, { error: { message: `no route ${request.method} ${path}` } });
        return;
      }
      const body = JSON.parse(text) as ChatRequestBody;
      const recorded: RecordedRequest = { body, path, headers: request.headers };
      requests.push(recorded);
      const step = queue.shift();
      if (step === undefined) {
        sendJson(response, 500, { error: { message: `script exhausted at request ${requests.length}` } });
        return;
      }
      const reply = typeof step === 'function' ? step(recorded) : step;
      if ('hang' in reply) {
        server.hold(response);
        return;
      }
      if (reply.delayMs) {
        await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      }
      if ('status' in reply) {
        response.writeHead(reply.status, { 'content-type': 'application/json' });
        response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
        return;
      }
      const calls = toolCallsWithIds(reply.toolCalls ?? []);
      const finishReason = reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
      const base = { id: `chatcmpl-${requests.length}`, created: 1_700_000_000, model: body.model };
      if (!body.stream) {
        sendJson(response, 200, {
          ...base,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              finish_reason: finishReason,
              message: {
                role: 'assistant',
                content: reply.text ?? null,
                tool_calls: calls.length > 0 ? calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentText } })) : undefined,
              },
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        });
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (delta: unknown, finish: string | null = null) =>
        response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      send({ role: 'assistant', content: '' });
      if (reply.text) {
        // Two pieces, so clients see more than one text delta.
        const middle = Math.ceil(reply.text.length / 2);
        send({ content: reply.text.slice(0, middle) });
        send({ content: reply.text.slice(middle) });
      }
      calls.forEach((call, index) => {
        send({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
        for (let offset = 0; offset < call.argumentText.length; offset += chunkSize) {
          send({ tool_calls: [{ index, function: { arguments: call.argumentText.slice(offset, offset + chunkSize) } }] });
        }
      });
      send({}, finishReason);
      response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
      response.end('data: [DONE]\n\n');
    })();
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    push: (...steps) => queue.push(...steps),
    remaining: () => queue.length,
    close: server.close,
  };
}
