import * as vscode from 'vscode';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3StreamResult } from '@ai-sdk/provider';
import {
  callOptionsToChatRequest,
  contentFromStreamParts,
  requestCharacters,
  StreamPartTranslator,
  type ChatMessageData,
  type ChatPartData,
} from './languageModelMapping';
import { CancelledError } from '../core/errors';

/**
 * `vscode.LanguageModelDataPart` where the running engine has it (stable after the 1.104 API we build against,
 * present in e.g. 1.139); undefined on older engines, which then get the text placeholder.
 */
export function dataPartClass(): { image(data: Uint8Array, mimeType: string): unknown } | undefined {
  const candidate = (vscode as unknown as { LanguageModelDataPart?: { image?: unknown } }).LanguageModelDataPart;
  return typeof candidate?.image === 'function' ? (candidate as { image(data: Uint8Array, mimeType: string): unknown }) : undefined;
}

function toVscodePart(part: ChatPartData): vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart {
  switch (part.kind) {
    case 'text':
      return new vscode.LanguageModelTextPart(part.value);
    case 'toolCall':
      return new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input);
    case 'toolResult': {
      const dataPart = part.images && part.images.length > 0 ? dataPartClass() : undefined;
      const images = new Map((dataPart ? part.images ?? [] : []).map((image) => [image.textIndex, image]));
      return new vscode.LanguageModelToolResultPart(part.callId, part.texts.map((text, index) => {
        const image = images.get(index);
        return image && dataPart ? dataPart.image(image.data, image.mimeType) : new vscode.LanguageModelTextPart(text);
      }));
    }
  }
}

/**
 * Whether the chat's model takes images: an explicit `haiku.model.vision` wins; otherwise the model's own
 * capability where the engine reports it (`capabilities.imageInput`, or `supportsImageToText` as VS Code 1.1xx
 * builds expose it at run time; neither is in the 1.104 typings); otherwise `fallback` (the setting's default).
 */
export function chatModelVision(model: vscode.LanguageModelChat, fallback: boolean): boolean {
  const setting = vscode.workspace.getConfiguration('haiku').inspect<boolean>('model.vision');
  const explicit = setting?.workspaceFolderValue ?? setting?.workspaceValue ?? setting?.globalValue;
  if (typeof explicit === 'boolean') {
    return explicit;
  }
  const capabilities = (model as unknown as { capabilities?: { imageInput?: unknown; supportsImageToText?: unknown } }).capabilities;
  const reported = capabilities?.imageInput ?? capabilities?.supportsImageToText;
  return typeof reported === 'boolean' ? reported : fallback;
}

export function toVscodeMessages(messages: readonly ChatMessageData[]): vscode.LanguageModelChatMessage[] {
  return messages.map((message) => {
    const parts = message.parts.map(toVscodePart);
    return message.role === 'user'
      ? vscode.LanguageModelChatMessage.User(parts as Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart>)
      : vscode.LanguageModelChatMessage.Assistant(parts as Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart>);
  });
}

/**
 * Presents the model the user picked in the chat (`request.model`) as an AI SDK `LanguageModelV3`, so the
 * agent runs unchanged on Copilot, a BYOK model or any extension's model. Cancellation of the AI SDK call
 * cancels the VS Code request.
 */
export function languageModelFromChat(model: vscode.LanguageModelChat, options: { justification?: string } = {}): LanguageModelV3 {
  async function doStream(callOptions: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const request = callOptionsToChatRequest(callOptions);
    const cancellation = new vscode.CancellationTokenSource();
    const abortSignal = callOptions.abortSignal;
    if (abortSignal?.aborted) {
      throw new CancelledError('The model request');
    }
    const onAbort = (): void => cancellation.cancel();
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    const release = (): void => {
      abortSignal?.removeEventListener('abort', onAbort);
      cancellation.dispose();
    };
    let response: vscode.LanguageModelChatResponse;
    try {
      response = await model.sendRequest(toVscodeMessages(request.messages), {
        justification: options.justification,
        tools: request.tools.length > 0 ? request.tools : undefined,
        toolMode: request.toolMode === 'required' ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto,
        modelOptions: request.modelOptions,
      }, cancellation.token);
    } catch (error) {
      release();
      throw error;
    }
    const translator = new StreamPartTranslator(requestCharacters(request.messages));
    const iterator = response.stream[Symbol.asyncIterator]();
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        for (const part of translator.start()) {
          controller.enqueue(part);
        }
      },
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) {
            for (const part of translator.finish()) {
              controller.enqueue(part);
            }
            controller.close();
            release();
            return;
          }
          const value = next.value;
          const parts = value instanceof vscode.LanguageModelTextPart
            ? translator.translate({ kind: 'text', value: value.value })
            : value instanceof vscode.LanguageModelToolCallPart
              ? translator.translate({ kind: 'toolCall', callId: value.callId, name: value.name, input: value.input })
              : [];
          for (const part of parts) {
            controller.enqueue(part);
          }
        } catch (error) {
          release();
          controller.error(abortSignal?.aborted ? new CancelledError('The model request') : error);
        }
      },
      cancel() {
        cancellation.cancel();
        release();
      },
    });
    return { stream, request: { body: { messages: request.messages.length, tools: request.tools.map((tool) => tool.name) } } };
  }

  return {
    specificationVersion: 'v3',
    provider: `vscode-lm.${model.vendor}`,
    modelId: model.id,
    supportedUrls: {},
    doStream,
    async doGenerate(callOptions: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      const { stream } = await doStream(callOptions);
      const parts: LanguageModelV3StreamPart[] = [];
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          break;
        }
        parts.push(next.value);
      }
      const finish = parts.find((part) => part.type === 'finish');
      if (!finish || finish.type !== 'finish') {
        throw new Error('The chat model ended its response without finishing.');
      }
      return { content: contentFromStreamParts(parts), finishReason: finish.finishReason, usage: finish.usage, warnings: [] };
    },
  };
}
