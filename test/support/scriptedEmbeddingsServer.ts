import type * as http from 'node:http';
import { stableHash } from '../../src/core/hash';
import { sendJson, startLocalTestServer } from './httpJson';

/** What the server does with one request; consumed in order, then `normal` forever. */
export type EmbeddingsBehaviour =
  | 'normal'
  /** HTTP 500 with an OpenAI-style error body. */
  | 'error500'
  /** HTTP 404 "model not found". */
  | 'error404'
  /** HTTP 401. */
  | 'error401'
  /** HTTP 429 with `Retry-After: 0.3` (seconds). */
  | 'error429'
  /** Vectors one dimension too long. */
  | 'wrongDimension'
  /** One vector fewer than inputs. */
  | 'missingVector'
  /** Never answers (until the client gives up or the server closes). */
  | 'hang';

export interface ScriptedEmbeddingsServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** Parsed JSON bodies of every request received, in order. */
  requests: Array<{ model: string; input: string[]; dimensions?: number; headers: http.IncomingHttpHeaders }>;
  /** Appends behaviours for the next requests. */
  script(...behaviours: EmbeddingsBehaviour[]): void;
  close(): Promise<void>;
}

/**
 * A deterministic embedding: hashed bag of lowercase words, so texts sharing words are similar.
 * Deliberately not unit length (counts add up), so clients must normalise.
 */
export function hashedBagOfWords(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const hash = stableHash(word);
    const slot = parseInt(hash.slice(0, 8), 16) % dimensions;
    const sign = parseInt(hash.slice(8, 9), 16) % 2 === 0 ? 1 : -1;
    vector[slot] += sign;
  }
  return vector;
}

/** A fake OpenAI-compatible `/v1/embeddings` on 127.0.0.1 (random port). */
export async function startScriptedEmbeddingsServer(options: { dimensions?: number } = {}): Promise<ScriptedEmbeddingsServer> {
  const dimensions = options.dimensions ?? 64;
  const queue: EmbeddingsBehaviour[] = [];
  const requests: ScriptedEmbeddingsServer['requests'] = [];
  const server = await startLocalTestServer((request, body, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
      sendJson(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
      return;
    }
    const parsed = JSON.parse(body) as { model: string; input: string[] | string; dimensions?: number };
    const input = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
    requests.push({ model: parsed.model, input, dimensions: parsed.dimensions, headers: request.headers });
    const behaviour = queue.shift() ?? 'normal';
    switch (behaviour) {
      case 'error500':
        sendJson(response, 500, { error: { message: 'scripted internal error', type: 'server_error' } });
        return;
      case 'error404':
        sendJson(response, 404, { error: { message: `model "${parsed.model}" not found, try pulling it first`, type: 'not_found' } });
        return;
      case 'error429':
        sendJson(response, 429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after': '0.3' });
        return;
      case 'error401':
        sendJson(response, 401, { error: { message: 'invalid api key', type: 'auth' } });
        return;
      case 'hang':
        server.hold(response);
        return;
      default: {
        const size = behaviour === 'wrongDimension' ? dimensions + 1 : parsed.dimensions ?? dimensions;
        const texts = behaviour === 'missingVector' ? input.slice(1) : input;
        sendJson(response, 200, {
          object: 'list',
          model: parsed.model,
          data: texts.map((text, index) => ({ object: 'embedding', index, embedding: hashedBagOfWords(text, size) })),
          usage: { prompt_tokens: texts.length, total_tokens: texts.length },
        });
      }
    }
  });

  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    script: (...behaviours) => queue.push(...behaviours),
    close: server.close,
  };
}
