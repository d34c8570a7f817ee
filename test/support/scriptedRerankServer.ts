import type * as http from 'node:http';
import { sendJson, startLocalTestServer } from './httpJson';

/** The response shape the server speaks. */
export type RerankDialect =
  /** Cohere / vLLM: `{results: [{index, relevance_score}]}`, honours `top_n`. */
  | 'cohere'
  /** Jina: like Cohere, plus `document: {text}` and `usage`. */
  | 'jina'
  /** Hugging Face TEI: requires `texts`, answers `[{index, score}]` (422 to the Cohere shape). */
  | 'tei';

export type RerankBehaviour = 'normal' | 'error500' | 'hang' | 'notJson' | 'badIndex';

export interface ScriptedRerankServer {
  /** `http://127.0.0.1:<port>/v1` (TEI dialect: without `/v1`, as TEI serves at the root). */
  baseUrl: string;
  requests: Array<{ path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }>;
  script(...behaviours: RerankBehaviour[]): void;
  close(): Promise<void>;
}

/** Score = share of the query's words found in the document (deterministic, order-independent). */
export function wordOverlapScore(query: string, document: string): number {
  const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const queryWords = new Set(words(query));
  const documentWords = new Set(words(document));
  let shared = 0;
  for (const word of queryWords) {
    if (documentWords.has(word)) {
      shared++;
    }
  }
  return queryWords.size === 0 ? 0 : shared / queryWords.size;
}

/** A fake `/rerank` server on 127.0.0.1 (random port). */
export async function startScriptedRerankServer(options: { dialect?: RerankDialect } = {}): Promise<ScriptedRerankServer> {
  const dialect = options.dialect ?? 'cohere';
  const prefix = dialect === 'tei' ? '' : '/v1';
  const queue: RerankBehaviour[] = [];
  const requests: ScriptedRerankServer['requests'] = [];
  const server = await startLocalTestServer((request, text, response) => {
    if (request.method !== 'POST' || request.url !== `${prefix}/rerank`) {
      sendJson(response, 404, { error: `no route ${request.method} ${request.url}` });
      return;
    }
    const body = JSON.parse(text) as Record<string, unknown>;
    requests.push({ path: request.url, body, headers: request.headers });
    const behaviour = queue.shift() ?? 'normal';
    if (behaviour === 'error500') {
      sendJson(response, 500, { error: 'scripted model crash' });
      return;
    }
    if (behaviour === 'hang') {
      server.hold(response);
      return;
    }
    if (behaviour === 'notJson') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>proxy page</html>');
      return;
    }
    const query = String(body.query);
    const documents = (dialect === 'tei' ? body.texts : body.documents) as string[] | undefined;
    if (!Array.isArray(documents)) {
      // TEI's actual wording for the Cohere shape.
      sendJson(response, 422, dialect === 'tei' ? { error: 'Failed to deserialize the JSON body into the target type: missing field `texts` at line 1 column 80', error_type: 'Validation' } : { error: 'documents is required' });
      return;
    }
    const scored = documents
      .map((document, index) => ({ index, score: wordOverlapScore(query, document), document }))
      .sort((left, right) => right.score - left.score || left.index - right.index);
    if (behaviour === 'badIndex') {
      scored[0].index = documents.length + 5;
    }
    if (dialect === 'tei') {
      sendJson(response, 200, scored.map(({ index, score }) => ({ index, score })));
      return;
    }
    const topN = typeof body.top_n === 'number' ? body.top_n : scored.length;
    const results = scored.slice(0, topN).map(({ index, score, document }) =>
      dialect === 'jina' ? { index, document: { text: document }, relevance_score: score } : { index, relevance_score: score });
    sendJson(response, 200, { id: 'rerank-1', model: body.model, results, ...(dialect === 'jina' ? { usage: { total_tokens: 1 } } : {}) });
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}${prefix}`,
    requests,
    script: (...behaviours) => queue.push(...behaviours),
    close: server.close,
  };
}
