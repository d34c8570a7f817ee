import type { ConfigPath, HaikuConfig } from '../../core/config';
import { CancelledError, HaikuError, errorMessage } from '../../core/errors';
import * as limits from '../../core/limits';
import type { Reranker } from '../../core/search/reranker';

export interface HttpRerankerOptions {
  /** e.g. `http://127.0.0.1:8000/v1` (vLLM), `http://127.0.0.1:8080` (TEI), `https://api.jina.ai/v1`; posts to `{baseUrl}/rerank`. */
  baseUrl: string;
  /** Omitted from the request when empty (TEI serves one model and ignores it). */
  model: string;
  apiKey?: string;
  /** Time one request may take (default `RERANK_TIMEOUT_MS`). */
  timeoutMs?: number;
}

/** The two request shapes in the wild: Cohere's (also vLLM, Jina, Infinity) and Hugging Face TEI's. */
type RerankDialect = 'cohere' | 'tei';

/**
 * A cross-encoder behind a `/rerank` endpoint. Speaks the Cohere shape
 * (`{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`) and falls back to TEI's
 * (`{query, texts}` → `[{index, score}]`) once when the server asks for `texts`. Plain fetch: the AI SDK's
 * `rerank` needs a provider-specific model object, and none of ours targets an arbitrary base URL.
 */
export class HttpReranker implements Reranker {
  readonly id: string;
  private readonly url: string;
  private readonly baseUrl: string;
  private readonly model: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private dialect: RerankDialect = 'cohere';

  constructor(options: HttpRerankerOptions) {
    if (!options.baseUrl.trim()) {
      throw new HaikuError('invalid_settings', 'No reranker server is configured: give its base URL (e.g. http://127.0.0.1:8000/v1 for vLLM), or turn the reranker off (provider "none").', { remedy: { settings: ['reranker.baseUrl', 'reranker.provider'] } });
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.url = `${this.baseUrl}/rerank`;
    this.model = options.model;
    this.apiKey = options.apiKey || undefined;
    this.timeoutMs = options.timeoutMs ?? limits.RERANK_TIMEOUT_MS;
    this.id = `http:${options.model || this.baseUrl}`;
  }

  async rerank(query: string, documents: readonly string[], options: { topN: number; abortSignal?: AbortSignal }): Promise<Array<{ index: number; score: number }>> {
    if (options.abortSignal?.aborted) {
      throw new CancelledError('Reranking');
    }
    if (documents.length === 0 || options.topN <= 0) {
      return [];
    }
    const topN = Math.min(options.topN, documents.length);
    let answer = await this.post(this.requestBody(query, documents, topN), options.abortSignal);
    if (answer.status >= 400 && answer.status < 500 && this.dialect === 'cohere' && /\btexts\b/.test(answer.text)) {
      // TEI answers 422 "missing field `texts`" to the Cohere shape: switch once and remember.
      this.dialect = 'tei';
      answer = await this.post(this.requestBody(query, documents, topN), options.abortSignal);
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw new HaikuError('rerank_failed', this.statusMessage(answer.status, answer.text), { remedy: { settings: statusSettings(answer.status) } });
    }
    return this.parseScores(answer.text, documents.length).sort((left, right) => right.score - left.score).slice(0, topN);
  }

  private requestBody(query: string, documents: readonly string[], topN: number): Record<string, unknown> {
    if (this.dialect === 'tei') {
      // TEI has no top_n; truncate long passages instead of failing with 413.
      return { query, texts: documents, truncate: true, raw_scores: false, return_text: false };
    }
    return { ...(this.model ? { model: this.model } : {}), query, documents, top_n: topN, return_documents: false };
  }

  private async post(body: Record<string, unknown>, abortSignal: AbortSignal | undefined): Promise<{ status: number; text: string }> {
    const timeoutSignal = AbortSignal.timeout(this.timeoutMs);
    const signal = abortSignal ? AbortSignal.any([abortSignal, timeoutSignal]) : timeoutSignal;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal,
      });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      if (abortSignal?.aborted) {
        throw new CancelledError('Reranking');
      }
      if (timeoutSignal.aborted) {
        throw new HaikuError('rerank_failed', `The reranker at ${this.url} did not answer within ${this.timeoutMs / 1000} s. Check that it is running and not overloaded, or turn the reranker off (provider "none").`, { cause: error, remedy: { settings: ['reranker.provider'] } });
      }
      const reason = errorMessage((error as { cause?: unknown }).cause ?? error);
      throw new HaikuError('rerank_failed', `Cannot reach the reranker at ${this.url}: ${reason}. Start it, change its base URL, or turn the reranker off (provider "none").`, { cause: error, remedy: { settings: ['reranker.baseUrl', 'reranker.provider'] } });
    }
  }

  private statusMessage(status: number, text: string): string {
    const detail = excerpt(text);
    if (status === 401 || status === 403) {
      return `The reranker at ${this.url} refused the request (HTTP ${status}: ${detail}). Set a valid API key for it.`;
    }
    if (status === 404) {
      return `The reranker at ${this.url} answered HTTP 404 (${detail}). Check its base URL (the request goes to {baseUrl}/rerank, so vLLM needs the /v1 prefix) and the model name.`;
    }
    return `The reranker at ${this.url} answered HTTP ${status}${this.model ? ` for model "${this.model}"` : ''}: ${detail}. Check the server's log and the model name.`;
  }

  /** Accepts `{results: [{index, relevance_score | score}]}` (Cohere, vLLM, Jina) and `[{index, score}]` (TEI). */
  private parseScores(text: string, documentCount: number): Array<{ index: number; score: number }> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new HaikuError('rerank_failed', `The reranker at ${this.url} answered with something that is not JSON: ${excerpt(text)}. Check its base URL.`, { remedy: { settings: ['reranker.baseUrl'] } });
    }
    const entries = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown } | null)?.results;
    if (!Array.isArray(entries)) {
      throw new HaikuError('rerank_failed', `The reranker at ${this.url} answered without a "results" list: ${excerpt(text)}. It must speak the Cohere /rerank API (vLLM, TEI, Jina, Cohere do).`);
    }
    const seen = new Set<number>();
    return entries.map((entry: { index?: unknown; relevance_score?: unknown; score?: unknown }) => {
      const index = entry?.index;
      const score = entry?.relevance_score ?? entry?.score;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documentCount || seen.has(index) || typeof score !== 'number' || !Number.isFinite(score)) {
        throw new HaikuError('rerank_failed', `The reranker at ${this.url} answered with an invalid result ${excerpt(JSON.stringify(entry))} for ${documentCount} documents. Check the server.`);
      }
      seen.add(index);
      return { index, score };
    });
  }
}

/** The reranker the settings ask for; undefined for `none`. */
export function createReranker(settings: HaikuConfig['reranker'], options: { timeoutMs?: number } = {}): Reranker | undefined {
  switch (settings.provider) {
    case 'none':
      return undefined;
    case 'http':
      if (settings.apiKeyWithheld !== undefined) {
        throw new HaikuError('untrusted_endpoint', settings.apiKeyWithheld);
      }
      return new HttpReranker({ baseUrl: settings.baseUrl, model: settings.model, apiKey: settings.apiKey, timeoutMs: options.timeoutMs });
    default:
      throw new HaikuError('invalid_settings', `Unknown reranker provider "${String((settings as { provider: unknown }).provider)}". Use "none" or "http".`, { remedy: { settings: ['reranker.provider'] } });
  }
}

/** What a failed status points at: the key, the URL and model, or the model. */
function statusSettings(status: number): ConfigPath[] {
  if (status === 401 || status === 403) {
    return ['reranker.apiKey'];
  }
  return status === 404 ? ['reranker.baseUrl', 'reranker.model'] : ['reranker.model'];
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
