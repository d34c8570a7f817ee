import { createOpenAI } from '@ai-sdk/openai';
import { defaultSettingsMiddleware, wrapLanguageModel, type LanguageModel } from 'ai';
import { HaikuError } from '../../core/errors';
import * as limits from '../../core/limits';
import { toolResultImagesMiddleware } from './toolResultImages';
import { connectionErrorCode, isNoServerError, modelUnreachableError, type ModelDescription } from '../../core/agent/modelErrors';

export interface OpenAiCompatibleModelOptions {
  /** e.g. `http://127.0.0.1:11434/v1` (Ollama, the default), LM Studio, vLLM, llama.cpp, OpenAI. */
  baseUrl?: string;
  /** The model name the server knows, e.g. `qwen3:8b`. */
  name: string;
  /** Optional for local servers. */
  apiKey?: string;
  /** Set when the configuration withheld the key from this base URL (`endpointTrust.ts`): creating the model throws it, so nothing is sent. */
  apiKeyWithheld?: string;
  /** Default 0.3. */
  temperature?: number;
  /**
   * The model can see images: search returns then carry the results' pictures (sent as image parts of a user
   * message after the tool replies, the only place chat completions take images). Off, no bytes are read.
   */
  vision?: boolean;
  /**
   * Ask the server to think before answering: sent as `reasoning_effort: "medium"` (OpenAI's field, which Ollama's
   * and vLLM's OpenAI-compatible endpoints map onto their thinking switch). When false nothing is sent, so the
   * server's default applies (some servers reject `reasoning_effort` for models that cannot reason).
   */
  thinking?: boolean;
  /** One request may take this long (default `MODEL_REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /** Replaces `fetch` (tests, proxies). */
  fetch?: typeof fetch;
}

export interface OpenAiCompatibleModel {
  model: LanguageModel;
  /** For error messages. */
  description: ModelDescription;
  vision: boolean;
}

/** Placeholder key: the provider requires one, and local servers ignore it. */
const LOCAL_SERVER_API_KEY = 'not-needed';

/**
 * A chat-completions model on any OpenAI-compatible server (`provider.chat`, never the `/responses` endpoint that
 * the provider's default uses and local servers lack), with temperature and thinking baked in, tool-result images
 * moved to user messages, and a per-request timeout that surfaces as a `model_failed` error.
 */
export function createOpenAiCompatibleModel(options: OpenAiCompatibleModelOptions): OpenAiCompatibleModel {
  if (options.apiKeyWithheld !== undefined) {
    throw new HaikuError('untrusted_endpoint', options.apiKeyWithheld);
  }
  const baseUrl = (options.baseUrl ?? limits.DEFAULT_MODEL_BASE_URL).replace(/\/+$/, '');
  if (options.name.trim() === '') {
    throw new HaikuError('invalid_settings', 'No model name is set: name the chat model to ask, e.g. qwen3:8b.', { remedy: { settings: ['qa.model.name'] } });
  }
  try {
    new URL(baseUrl);
  } catch {
    throw new HaikuError('invalid_settings', `The model base URL '${baseUrl}' is not a URL. Use e.g. ${limits.DEFAULT_MODEL_BASE_URL}.`, { remedy: { settings: ['qa.model.baseUrl'] } });
  }
  const timeoutMs = options.requestTimeoutMs ?? limits.MODEL_REQUEST_TIMEOUT_MS;
  const innerFetch = options.fetch ?? fetch;
  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return innerFetch(input, { ...init, signal }).catch((error: unknown) => {
      // Nothing listens there: fail at once. Without a `cause` the SDK neither wraps nor retries this error.
      if (isNoServerError(error)) {
        throw modelUnreachableError(baseUrl, connectionErrorCode(error) ?? 'connection refused');
      }
      throw error;
    });
  };
  const provider = createOpenAI({
    baseURL: baseUrl,
    apiKey: options.apiKey && options.apiKey !== '' ? options.apiKey : LOCAL_SERVER_API_KEY,
    name: 'openai-compatible',
    fetch: timedFetch,
  });
  const model = wrapLanguageModel({
    model: provider.chat(options.name),
    middleware: [toolResultImagesMiddleware, defaultSettingsMiddleware({
      settings: {
        temperature: options.temperature ?? limits.QA_TEMPERATURE,
        providerOptions: options.thinking ? { openai: { reasoningEffort: 'medium' } } : undefined,
      },
    })],
  });
  return { model, description: { name: options.name, baseUrl }, vision: options.vision ?? false };
}
