import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';

/**
 * The pure half of the `vscode.LanguageModelChat` ↔ AI SDK adapter: prompts become plain message data (the
 * glue instantiates `vscode.LanguageModelChatMessage`s from it), and VS Code's response parts become V3 stream
 * parts. Kept free of the `vscode` module so it is unit-tested outside the editor.
 */

export type ChatPartData =
  | { kind: 'text'; value: string }
  | { kind: 'toolCall'; callId: string; name: string; input: object }
  | { kind: 'toolResult'; callId: string; texts: string[]; images?: ToolResultImage[] };

/**
 * A picture in a tool result (vision on). `texts[textIndex]` holds its placeholder, which stays when the engine
 * has no image part (`vscode.LanguageModelDataPart`, stable in later VS Code versions than the 1.104 we target).
 */
export interface ToolResultImage {
  textIndex: number;
  data: Uint8Array;
  mimeType: string;
}

/** Stands in for a picture a model cannot be sent (or, in the reverse direction, one we do not pass on). */
export function imagePlaceholder(mimeType: string): string {
  return `[${mimeType} picture omitted: this model cannot be sent images here]`;
}

/** VS Code's chat API has only user and assistant messages: system text and tool results travel as user messages. */
export interface ChatMessageData {
  role: 'user' | 'assistant';
  parts: ChatPartData[];
}

export interface ChatToolData {
  name: string;
  description: string;
  inputSchema: object;
}

export interface ChatRequestData {
  messages: ChatMessageData[];
  tools: ChatToolData[];
  /** `required` maps to `LanguageModelChatToolMode.Required`. */
  toolMode: 'auto' | 'required';
  modelOptions: Record<string, unknown>;
}

function toolResultPart(callId: string, output: LanguageModelV3ToolResultOutput): Extract<ChatPartData, { kind: 'toolResult' }> {
  if (output.type !== 'content') {
    return { kind: 'toolResult', callId, texts: toolResultTexts(output) };
  }
  const texts: string[] = [];
  const images: ToolResultImage[] = [];
  for (const part of output.value) {
    if (part.type === 'text') {
      texts.push(part.text);
    } else if ((part.type === 'image-data' || part.type === 'file-data') && part.mediaType.startsWith('image/')) {
      images.push({ textIndex: texts.length, data: bytesOfBase64(part.data), mimeType: part.mediaType });
      texts.push(imagePlaceholder(part.mediaType));
    } else {
      texts.push(`[${part.type} omitted]`);
    }
  }
  return images.length > 0 ? { kind: 'toolResult', callId, texts, images } : { kind: 'toolResult', callId, texts };
}

function bytesOfBase64(data: string): Uint8Array {
  return Uint8Array.from(atob(data), (character) => character.charCodeAt(0));
}

function toolResultTexts(output: LanguageModelV3ToolResultOutput): string[] {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return [output.value];
    case 'json':
    case 'error-json':
      return [JSON.stringify(output.value)];
    case 'execution-denied':
      return [`Tool execution denied${output.reason ? `: ${output.reason}` : '.'}`];
    default:
      return [JSON.stringify(output)];
  }
}

function asObject(input: unknown): object {
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      return typeof parsed === 'object' && parsed !== null ? parsed : { value: parsed };
    } catch {
      return { value: input };
    }
  }
  return typeof input === 'object' && input !== null ? input : {};
}

/** Converts an AI SDK prompt to VS Code message data; adjacent messages of the same role are merged. */
export function promptToChatMessages(prompt: LanguageModelV3Prompt): ChatMessageData[] {
  const messages: ChatMessageData[] = [];
  const push = (role: ChatMessageData['role'], parts: ChatPartData[]): void => {
    if (parts.length === 0) {
      return;
    }
    const last = messages[messages.length - 1];
    if (last && last.role === role) {
      last.parts.push(...parts);
    } else {
      messages.push({ role, parts });
    }
  };
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        push('user', [{ kind: 'text', value: message.content }]);
        break;
      case 'user':
        push('user', message.content.map((part): ChatPartData => (part.type === 'text'
          ? { kind: 'text', value: part.text }
          : { kind: 'text', value: `[attached file ${part.filename ?? part.mediaType} omitted]` })));
        break;
      case 'assistant': {
        const parts: ChatPartData[] = [];
        for (const part of message.content) {
          if (part.type === 'text' && part.text !== '') {
            parts.push({ kind: 'text', value: part.text });
          } else if (part.type === 'tool-call') {
            parts.push({ kind: 'toolCall', callId: part.toolCallId, name: part.toolName, input: asObject(part.input) });
          } else if (part.type === 'tool-result') {
            // Provider-executed results: VS Code wants tool results in user messages.
            push('assistant', parts.splice(0));
            push('user', [toolResultPart(part.toolCallId, part.output)]);
          }
        }
        push('assistant', parts);
        break;
      }
      case 'tool':
        push('user', message.content.flatMap((part): ChatPartData[] => (part.type === 'tool-result'
          ? [toolResultPart(part.toolCallId, part.output)]
          : [])));
        break;
    }
  }
  return messages;
}

/** The request VS Code gets for one AI SDK call: messages, function tools and the tool mode. */
export function callOptionsToChatRequest(options: LanguageModelV3CallOptions): ChatRequestData {
  const choice = options.toolChoice ?? { type: 'auto' };
  let tools: ChatToolData[] = choice.type === 'none' ? [] : (options.tools ?? []).flatMap((tool) => (tool.type === 'function'
    ? [{ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as object }]
    : []));
  if (choice.type === 'tool') {
    tools = tools.filter((tool) => tool.name === choice.toolName);
  }
  const modelOptions: Record<string, unknown> = {};
  if (options.temperature !== undefined) {
    modelOptions.temperature = options.temperature;
  }
  if (options.maxOutputTokens !== undefined) {
    modelOptions.max_tokens = options.maxOutputTokens;
  }
  return {
    messages: promptToChatMessages(options.prompt),
    tools,
    toolMode: (choice.type === 'required' || choice.type === 'tool') && tools.length > 0 ? 'required' : 'auto',
    modelOptions,
  };
}

/** What a VS Code response stream yields, as plain data. */
export type ResponsePartData = { kind: 'text'; value: string } | { kind: 'toolCall'; callId: string; name: string; input: object };

/** Rough token estimate (VS Code reports no usage): about four characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Turns VS Code response parts into V3 stream parts: text-start/delta/end around text, one tool-call per call. */
export class StreamPartTranslator {
  private openTextId: string | undefined;
  private textCount = 0;
  private toolCalls = 0;
  private outputCharacters = 0;

  constructor(private readonly inputCharacters: number) {}

  start(): LanguageModelV3StreamPart[] {
    return [{ type: 'stream-start', warnings: [] }];
  }

  translate(part: ResponsePartData): LanguageModelV3StreamPart[] {
    if (part.kind === 'text') {
      if (part.value === '') {
        return [];
      }
      const parts: LanguageModelV3StreamPart[] = [];
      if (this.openTextId === undefined) {
        this.openTextId = `text-${this.textCount++}`;
        parts.push({ type: 'text-start', id: this.openTextId });
      }
      this.outputCharacters += part.value.length;
      parts.push({ type: 'text-delta', id: this.openTextId, delta: part.value });
      return parts;
    }
    const input = JSON.stringify(part.input ?? {});
    this.outputCharacters += input.length;
    this.toolCalls++;
    return [...this.closeText(), { type: 'tool-call', toolCallId: part.callId, toolName: part.name, input }];
  }

  finish(): LanguageModelV3StreamPart[] {
    const finishReason: LanguageModelV3FinishReason = this.toolCalls > 0
      ? { unified: 'tool-calls', raw: 'tool_calls' }
      : { unified: 'stop', raw: 'stop' };
    return [...this.closeText(), { type: 'finish', finishReason, usage: this.usage() }];
  }

  usage(): LanguageModelV3Usage {
    const input = Math.ceil(this.inputCharacters / 4);
    const output = Math.ceil(this.outputCharacters / 4);
    return {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: output, reasoning: undefined },
    };
  }

  private closeText(): LanguageModelV3StreamPart[] {
    if (this.openTextId === undefined) {
      return [];
    }
    const id = this.openTextId;
    this.openTextId = undefined;
    return [{ type: 'text-end', id }];
  }
}

/** Characters of a request's messages (for the input-token estimate). */
export function requestCharacters(messages: readonly ChatMessageData[]): number {
  let total = 0;
  for (const message of messages) {
    for (const part of message.parts) {
      total += part.kind === 'text' ? part.value.length : part.kind === 'toolCall' ? JSON.stringify(part.input).length : part.texts.join('').length;
    }
  }
  return total;
}

/** Collects stream parts into `doGenerate` content: text parts joined per id, tool calls as they came. */
export function contentFromStreamParts(parts: readonly LanguageModelV3StreamPart[]): LanguageModelV3Content[] {
  const content: LanguageModelV3Content[] = [];
  let text: { type: 'text'; text: string } | undefined;
  for (const part of parts) {
    if (part.type === 'text-start') {
      text = { type: 'text', text: '' };
      content.push(text);
    } else if (part.type === 'text-delta' && text) {
      text.text += part.delta;
    } else if (part.type === 'text-end') {
      text = undefined;
    } else if (part.type === 'tool-call') {
      content.push(part);
    }
  }
  return content;
}

/**
 * The reverse direction, for the `haiku` model provider: VS Code chat messages (as data) become an AI SDK
 * prompt. Tool results become `tool` messages named after the call they answer.
 */
export function chatMessagesToPrompt(messages: readonly ChatMessageData[], system?: string): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = system ? [{ role: 'system', content: system }] : [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      const content: Array<{ type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }> = [];
      for (const part of message.parts) {
        if (part.kind === 'text') {
          content.push({ type: 'text', text: part.value });
        } else if (part.kind === 'toolCall') {
          toolNames.set(part.callId, part.name);
          content.push({ type: 'tool-call', toolCallId: part.callId, toolName: part.name, input: part.input });
        }
      }
      if (content.length > 0) {
        prompt.push({ role: 'assistant', content });
      }
      continue;
    }
    const results = message.parts.filter((part): part is Extract<ChatPartData, { kind: 'toolResult' }> => part.kind === 'toolResult');
    if (results.length > 0) {
      prompt.push({
        role: 'tool',
        content: results.map((part) => ({ type: 'tool-result' as const, toolCallId: part.callId, toolName: toolNames.get(part.callId) ?? 'unknown', output: { type: 'text' as const, value: part.texts.join('') } })),
      });
    }
    const texts = message.parts.filter((part): part is Extract<ChatPartData, { kind: 'text' }> => part.kind === 'text');
    if (texts.length > 0) {
      prompt.push({ role: 'user', content: texts.map((part) => ({ type: 'text' as const, text: part.value })) });
    }
  }
  return prompt;
}
