import type { EmbeddingModel } from 'ai';
import type { Embedder } from '../../core/embeddings/embedder';
import { CancelledError, HaikuError, errorMessage, throwIfAborted } from '../../core/errors';
import * as limits from '../../core/limits';
import type { OpenAiEmbeddingClient } from './openAiEmbeddingClient';

/** The AI SDK, loaded once per process on the first request (see `openAiEmbeddingClient.ts`). */
let embeddingClient: OpenAiEmbeddingClient | undefined;

function loadEmbeddingClient(): OpenAiEmbeddingClient {
  // A plain `require` (not `import()`): bundles run through vm.Script (cli/entry.ts), and tests load sources through tsx's CommonJS hook.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  embeddingClient ??= (require('./openAiEmbeddingClient') as typeof import('./openAiEmbeddingClient')).openAiEmbeddingClient;
  return embeddingClient;
}

export interface OpenAiCompatibleEmbedderOptions {
  /** Base URL of the OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1` (posts to `{baseUrl}/embeddings`). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Requested from the server (`dimensions` field) and checked on every response. */
  dimensions?: number;
  /**
   * Dimension of the vectors already in the index: checked, never sent. Catches a model switch before
   * mismatched vectors reach the table.
   */
  storedDimensions?: number;
  /** Texts per request (default `EMBEDDING_BATCH_SIZE`). */
  batchSize?: number;
  /** Attempts per request (default `EMBEDDING_MAX_ATTEMPTS`). */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt (default `EMBEDDING_RETRY_BASE_MS`). */
  retryBaseMs?: number;
  /** Time one request may take (default `EMBEDDING_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Prepended to query texts, for asymmetric models (e.g. `search_query: ` for nomic-embed-text). */
  queryPrefix?: string;
  /** Prepended to document texts (e.g. `search_document: `). */
  documentPrefix?: string;
}

/** Why one request failed, and whether another attempt may help. */
interface AttemptFailure {
  error: HaikuError;
  retryable: boolean;
  /** The server's `Retry-After`, when it sent one (ms). */
  retryAfterMs?: number;
}

/**
 * Embeds through any OpenAI-compatible `/embeddings` endpoint (Ollama, vLLM, llama.cpp, LM Studio, OpenAI)
 * via the AI SDK. Batching, retries and timeouts are ours so that each request is predictable and its
 * failure message names the server and what to change.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly id: string;
  /** Made on the first request, when the SDK is loaded. */
  private model: EmbeddingModel | undefined;
  private readonly apiKey: string | undefined;
  private readonly baseUrl: string;
  private readonly modelName: string;
  private readonly requestedDimensions: number | undefined;
  private readonly storedDimensions: number | undefined;
  private readonly batchSize: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  private readonly queryPrefix: string;
  private readonly documentPrefix: string;
  private discoveredDimensions: number | undefined;

  constructor(options: OpenAiCompatibleEmbedderOptions) {
    if (!options.baseUrl.trim()) {
      throw new HaikuError('invalid_settings', 'No embeddings server is configured: give its base URL (e.g. http://127.0.0.1:11434/v1 for Ollama), or turn embeddings off (provider "none", full-text search only).', { remedy: { settings: ['embeddings.baseUrl', 'embeddings.provider'] } });
    }
    if (!options.model.trim()) {
      throw new HaikuError('invalid_settings', `No embeddings model is configured for ${options.baseUrl}: name one (e.g. nomic-embed-text), or turn embeddings off (provider "none", full-text search only).`, { remedy: { settings: ['embeddings.model', 'embeddings.provider'] } });
    }
    for (const [name, value, path] of [['dimensions', options.dimensions, 'embeddings.dimensions'], ['batch size', options.batchSize, 'embeddings.batchSize'], ['attempts', options.maxAttempts, undefined]] as const) {
      if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
        throw new HaikuError('invalid_settings', `The embeddings ${name} must be a positive whole number, not ${value}.`, path ? { remedy: { settings: [path] } } : undefined);
      }
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.modelName = options.model;
    this.id = `openai:${options.model}`;
    this.requestedDimensions = options.dimensions;
    this.storedDimensions = options.storedDimensions;
    this.discoveredDimensions = options.dimensions ?? options.storedDimensions;
    this.batchSize = options.batchSize ?? limits.EMBEDDING_BATCH_SIZE;
    this.maxAttempts = options.maxAttempts ?? limits.EMBEDDING_MAX_ATTEMPTS;
    this.retryBaseMs = options.retryBaseMs ?? limits.EMBEDDING_RETRY_BASE_MS;
    this.timeoutMs = options.timeoutMs ?? limits.EMBEDDING_TIMEOUT_MS;
    this.queryPrefix = options.queryPrefix ?? '';
    this.documentPrefix = options.documentPrefix ?? '';
    this.apiKey = options.apiKey;
  }

  /** Configured or stored dimension, else the one seen in the first response; 0 before any is known. */
  get dimensions(): number {
    return this.discoveredDimensions ?? 0;
  }

  async embed(texts: readonly string[], options: { kind: 'query' | 'document'; abortSignal?: AbortSignal }): Promise<Float32Array[]> {
    const prefix = options.kind === 'query' ? this.queryPrefix : this.documentPrefix;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      throwIfAborted(options.abortSignal, 'Embedding');
      // Servers reject empty inputs; a single space embeds as "nothing" everywhere we tried.
      const batch = texts.slice(start, start + this.batchSize).map((text) => prefix + (text.length > 0 ? text : ' '));
      vectors.push(...(await this.embedBatchWithRetries(batch, options.abortSignal)));
    }
    return vectors;
  }

  private async embedBatchWithRetries(batch: string[], abortSignal: AbortSignal | undefined): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.embedBatchOnce(batch, attempt, abortSignal);
      if (Array.isArray(outcome)) {
        return outcome;
      }
      if (!outcome.retryable || attempt >= this.maxAttempts) {
        throw outcome.error;
      }
      // A rate-limited server's Retry-After wins over our backoff, within the request timeout.
      const backoffMs = this.retryBaseMs * 2 ** (attempt - 1);
      await sleep(Math.min(Math.max(backoffMs, outcome.retryAfterMs ?? 0), this.timeoutMs), abortSignal);
    }
  }

  private async embedBatchOnce(batch: string[], attempt: number, abortSignal: AbortSignal | undefined): Promise<Float32Array[] | AttemptFailure> {
    const client = loadEmbeddingClient();
    // Local servers need no key, but the SDK refuses to run without one.
    this.model ??= client.createOpenAI({ baseURL: this.baseUrl, apiKey: this.apiKey || 'none' }).embedding(this.modelName);
    const timeoutSignal = AbortSignal.timeout(this.timeoutMs);
    const signal = abortSignal ? AbortSignal.any([abortSignal, timeoutSignal]) : timeoutSignal;
    let embeddings: number[][];
    try {
      const result = await client.embedMany({
        model: this.model,
        values: batch,
        maxRetries: 0,
        abortSignal: signal,
        providerOptions: this.requestedDimensions ? { openai: { dimensions: this.requestedDimensions } } : undefined,
      });
      embeddings = result.embeddings;
    } catch (error) {
      if (abortSignal?.aborted) {
        throw new CancelledError('Embedding');
      }
      return this.describeFailure(client, error, attempt, timeoutSignal.aborted);
    }
    if (embeddings.length !== batch.length) {
      return {
        retryable: false,
        error: new HaikuError('embedding_failed', `The embeddings server at ${this.baseUrl} returned ${embeddings.length} vectors for ${batch.length} texts (model "${this.modelName}"). The server is not OpenAI-compatible or is misbehaving; check its base URL.`, { remedy: { settings: ['embeddings.baseUrl'] } }),
      };
    }
    return embeddings.map((embedding) => this.checkedUnitVector(embedding));
  }

  private describeFailure(client: OpenAiEmbeddingClient, error: unknown, attempt: number, timedOut: boolean): AttemptFailure {
    const attempts = `(attempt ${attempt} of ${this.maxAttempts})`;
    if (timedOut) {
      return {
        retryable: true,
        error: new HaikuError('embedding_failed', `The embeddings server at ${this.baseUrl} did not answer within ${this.timeoutMs / 1000} s ${attempts}. Check that it is running and not overloaded, or send smaller batches.`, { cause: error, remedy: { settings: ['embeddings.batchSize'] } }),
      };
    }
    if (client.isApiCallError(error)) {
      const status = error.statusCode;
      if (status === undefined) {
        // No HTTP response at all: refused, reset, DNS.
        const reason = errorMessage(error.cause ?? error).replace(/^Cannot connect to API: /, '');
        return {
          retryable: true,
          error: new HaikuError('embedding_failed', `Cannot reach the embeddings server at ${this.baseUrl}: ${reason}. Start it or change its base URL.`, { cause: error, remedy: { settings: ['embeddings.baseUrl'] } }),
        };
      }
      const detail = excerpt(error.responseBody ?? error.message);
      if (status === 401 || status === 403) {
        return {
          retryable: false,
          error: new HaikuError('embedding_failed', `The embeddings server at ${this.baseUrl} refused the request (HTTP ${status}: ${detail}). Set a valid API key for it.`, { cause: error, remedy: { settings: ['embeddings.apiKey'] } }),
        };
      }
      if (status === 404) {
        return {
          retryable: false,
          error: new HaikuError('embedding_failed', `The embeddings server at ${this.baseUrl} answered HTTP 404 for model "${this.modelName}" (${detail}). Check the model name (is the model pulled or served?) and that the base URL ends with the API prefix, e.g. /v1.`, { cause: error, remedy: { settings: ['embeddings.model', 'embeddings.baseUrl'] } }),
        };
      }
      return {
        retryable: status === 408 || status === 429 || status >= 500,
        retryAfterMs: retryAfterMs(error.responseHeaders),
        error: new HaikuError('embedding_failed', `The embeddings server at ${this.baseUrl} answered HTTP ${status} for model "${this.modelName}" ${attempts}: ${detail}. Check the server's log and the model name.`, { cause: error, remedy: { settings: ['embeddings.model'] } }),
      };
    }
    // The SDK's response validation failed, or something unexpected: not worth retrying.
    return {
      retryable: false,
      error: new HaikuError('embedding_failed', `The embeddings server at ${this.baseUrl} gave an unusable answer for model "${this.modelName}": ${excerpt(errorMessage(error))}. Check that the base URL points at an OpenAI-compatible /embeddings API.`, { cause: error, remedy: { settings: ['embeddings.baseUrl'] } }),
    };
  }

  /** Checks the dimension against what was configured, stored or first seen, and scales to unit length. */
  private checkedUnitVector(embedding: number[]): Float32Array {
    const length = embedding.length;
    if (this.requestedDimensions !== undefined && length !== this.requestedDimensions) {
      throw new HaikuError('embedding_failed', `The embeddings model "${this.modelName}" at ${this.baseUrl} returned ${length}-dimensional vectors, but ${this.requestedDimensions} dimensions were asked for. Ask for ${length} (or leave the dimensions unset), or use a model that supports ${this.requestedDimensions} dimensions.`, { remedy: { settings: ['embeddings.dimensions'] } });
    }
    if (this.storedDimensions !== undefined && length !== this.storedDimensions) {
      throw new HaikuError('embedding_failed', `The embeddings model "${this.modelName}" at ${this.baseUrl} returned ${length}-dimensional vectors, but the index holds ${this.storedDimensions}-dimensional ones. Switch back to the model the index was built with, or rebuild the index.`, { remedy: { settings: ['embeddings.model'], action: 'rebuild_index' } });
    }
    if (this.discoveredDimensions === undefined) {
      if (length === 0) {
        throw new HaikuError('embedding_failed', `The embeddings model "${this.modelName}" at ${this.baseUrl} returned empty vectors. Check the model name.`, { remedy: { settings: ['embeddings.model'] } });
      }
      this.discoveredDimensions = length;
    } else if (length !== this.discoveredDimensions) {
      throw new HaikuError('embedding_failed', `The embeddings model "${this.modelName}" at ${this.baseUrl} returned ${length}-dimensional vectors after earlier ${this.discoveredDimensions}-dimensional ones. Did the model behind the server change? Restart the indexing.`);
    }
    const vector = Float32Array.from(embedding);
    let sumOfSquares = 0;
    for (let index = 0; index < vector.length; index++) {
      sumOfSquares += vector[index] * vector[index];
    }
    if (!Number.isFinite(sumOfSquares)) {
      throw new HaikuError('embedding_failed', `The embeddings model "${this.modelName}" at ${this.baseUrl} returned a vector with non-numeric values. Check the server.`);
    }
    // A zero vector cannot be normalised; it stays zero and simply never matches.
    if (sumOfSquares > 0) {
      const scale = 1 / Math.sqrt(sumOfSquares);
      for (let index = 0; index < vector.length; index++) {
        vector[index] *= scale;
      }
    }
    return vector;
  }
}

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after'];
  if (!value) {
    return undefined;
  }
  const seconds = Number(value);
  if (Number.isFinite(seconds)) {
    return Math.max(0, seconds * 1000);
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** Waits, unless the signal fires first (then throws `CancelledError`). */
function sleep(ms: number, abortSignal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (abortSignal?.aborted) {
      reject(new CancelledError('Embedding'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new CancelledError('Embedding'));
    };
    const timer = setTimeout(() => {
      abortSignal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    abortSignal?.addEventListener('abort', onAbort, { once: true });
  });
}
