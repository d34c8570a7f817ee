import * as vscode from 'vscode';
import type { LanguageModelV3, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { HaikuConfig } from '../core/config';
import { errorMessage } from '../core/errors';
import { MODEL_VENDOR, SEARCH_ONLY_MODEL_ID } from './contributionIds';
import { chatMessagesToPrompt, type ChatMessageData, type ChatPartData } from './languageModelMapping';
import { configuredModelNames, type SettingReader } from './settingsMapping';

/** Converts what VS Code hands a provider into plain message data. */
function toMessageData(messages: readonly vscode.LanguageModelChatRequestMessage[]): ChatMessageData[] {
  return messages.map((message) => ({
    role: message.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user',
    parts: message.content.flatMap((part): ChatPartData[] => {
      if (part instanceof vscode.LanguageModelTextPart) {
        return [{ kind: 'text', value: part.value }];
      }
      if (part instanceof vscode.LanguageModelToolCallPart) {
        return [{ kind: 'toolCall', callId: part.callId, name: part.name, input: part.input }];
      }
      if (part instanceof vscode.LanguageModelToolResultPart) {
        const texts = part.content.map((inner) => (inner instanceof vscode.LanguageModelTextPart ? inner.value : typeof inner === 'string' ? inner : JSON.stringify(inner)));
        return [{ kind: 'toolResult', callId: part.callId, texts }];
      }
      return [];
    }),
  }));
}

/**
 * Offers the models of the configured OpenAI-compatible endpoint (`haiku.model.baseUrl` + `haiku.model.name`) in
 * the chat's model picker (vendor `haiku`), so `@haiku` and any other chat feature work without a Copilot
 * subscription, e.g. against Ollama.
 */
export class EndpointModelProvider implements vscode.LanguageModelChatProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changeEmitter.event;
  /** Whether another vendor offers a chat model (undefined until first asked; see `watchOtherModels`). */
  private otherModelsExist: boolean | undefined;

  constructor(
    private readonly read: SettingReader,
    private readonly getConfig: () => Promise<HaikuConfig>,
    private readonly createModel: (config: HaikuConfig, name: string) => Promise<LanguageModelV3>,
  ) {}

  /** Settings changed: the picker asks again. */
  refresh(): void {
    this.changeEmitter.fire();
  }

  provideLanguageModelChatInformation(): vscode.LanguageModelChatInformation[] {
    const baseUrl = String(this.read('model.baseUrl') ?? '').trim();
    const names = baseUrl === '' ? [] : configuredModelNames(this.read);
    if (names.length === 0) {
      // With no model at all VS Code never calls a participant ("Language model unavailable"): this entry lets
      // `@haiku` run, search, and say how to set a model up.
      return this.otherModelsExist === false ? [searchOnlyModel()] : [];
    }
    return names.map((name) => ({
      id: name,
      name,
      family: 'openai-compatible',
      version: '1',
      detail: baseUrl,
      tooltip: `${name} at ${baseUrl} (Haiku)`,
      maxInputTokens: 32_768,
      maxOutputTokens: 4_096,
      capabilities: { toolCalling: true, imageInput: this.read('model.vision') === true },
    }));
  }

  async provideLanguageModelChatResponse(
    model: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    if (model.id === SEARCH_ONLY_MODEL_ID) {
      // Another participant (or the chat itself) asked the search-only entry: it answers with what to do.
      progress.report(new vscode.LanguageModelTextPart(vscode.l10n.t('No language model is set up. Pick a model in the model picker, or set haiku.model.baseUrl and haiku.model.name to an OpenAI-compatible endpoint (for example Ollama). Without a model, Haiku: Search and `@haiku /search` still find passages in the workspace documents.')));
      return;
    }
    const config = await this.getConfig();
    const languageModel = await this.createModel(config, model.id);
    const abort = new AbortController();
    const cancellation = token.onCancellationRequested(() => abort.abort());
    try {
      const tools: LanguageModelV3FunctionTool[] = (options.tools ?? []).map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        inputSchema: (tool.inputSchema ?? { type: 'object', properties: {} }) as LanguageModelV3FunctionTool['inputSchema'],
      }));
      const { stream } = await languageModel.doStream({
        prompt: chatMessagesToPrompt(toMessageData(messages)),
        tools: tools.length > 0 ? tools : undefined,
        toolChoice: tools.length > 0 ? { type: options.toolMode === vscode.LanguageModelChatToolMode.Required ? 'required' : 'auto' } : undefined,
        abortSignal: abort.signal,
      });
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          break;
        }
        const part = next.value;
        if (part.type === 'text-delta') {
          progress.report(new vscode.LanguageModelTextPart(part.delta));
        } else if (part.type === 'tool-call') {
          let input: object = {};
          try {
            input = JSON.parse(part.input || '{}') as object;
          } catch {
            input = { raw: part.input };
          }
          progress.report(new vscode.LanguageModelToolCallPart(part.toolCallId, part.toolName, input));
        } else if (part.type === 'error') {
          throw part.error instanceof Error ? part.error : new Error(errorMessage(part.error));
        }
      }
    } finally {
      cancellation.dispose();
    }
  }

  async provideTokenCount(_model: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    const content = typeof text === 'string' ? text : text.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : JSON.stringify(part))).join('');
    return Math.ceil(content.length / 4);
  }

  /**
   * Keeps `otherModelsExist` current: asked at once and whenever the chat models change. The provider never asks
   * inside `provideLanguageModelChatInformation` (the question would call it again).
   */
  watchOtherModels(log: (message: string) => void = () => undefined): vscode.Disposable {
    const check = async (): Promise<void> => {
      const others = (await vscode.lm.selectChatModels()).some((model) => model.vendor !== MODEL_VENDOR);
      if (others !== this.otherModelsExist) {
        this.otherModelsExist = others;
        this.refresh();
        // The workbench resolves an extension vendor's models lazily: asking once puts the entry in the picker.
        await vscode.lm.selectChatModels({ vendor: MODEL_VENDOR });
      }
    };
    const run = (): void => void check().catch((error: unknown) => log(`Listing the chat models: ${errorMessage(error)}`));
    run();
    return vscode.lm.onDidChangeChatModels(run);
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}

/** The picker entry that stands for "no model": `@haiku` answers with a search or with guidance. */
function searchOnlyModel(): vscode.LanguageModelChatInformation {
  return {
    id: SEARCH_ONLY_MODEL_ID,
    name: vscode.l10n.t('Haiku: search only (no model)'),
    family: 'haiku-search-only',
    version: '1',
    detail: vscode.l10n.t('set haiku.model.baseUrl for answers'),
    tooltip: vscode.l10n.t('No chat model is available: @haiku can search, and says how to set a model up.'),
    maxInputTokens: 32_768,
    maxOutputTokens: 4_096,
    // Agent mode's picker lists only models that call tools.
    capabilities: { toolCalling: true },
  };
}

export function registerEndpointModelProvider(provider: EndpointModelProvider): vscode.Disposable {
  const registration = vscode.lm.registerLanguageModelChatProvider(MODEL_VENDOR, provider);
  return vscode.Disposable.from(registration, provider.watchOtherModels());
}
