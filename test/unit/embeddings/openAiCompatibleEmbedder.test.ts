import * as assert from 'node:assert';
import { defaultConfig } from '../../../src/core/config';
import { isHaikuError, type HaikuError } from '../../../src/core/errors';
import { createEmbedder, embedderDimensions, instructionPrefixes } from '../../../src/node/embeddings/createEmbedder';
import { OpenAiCompatibleEmbedder } from '../../../src/node/embeddings/openAiCompatibleEmbedder';
import { closedPort } from '../../support/httpJson';
import { rejection } from '../../support/rejection';
import { startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from '../../support/scriptedEmbeddingsServer';

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) {
    sum += left[index] * right[index];
  }
  return sum;
}

describe('OpenAiCompatibleEmbedder', () => {
  let server: ScriptedEmbeddingsServer;

  beforeEach(async () => {
    server = await startScriptedEmbeddingsServer({ dimensions: 32 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('returns unit vectors in input order, similar texts closer than unrelated ones', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'bag-of-words' });
    assert.strictEqual(embedder.id, 'openai:bag-of-words');
    assert.strictEqual(embedder.dimensions, 0, 'unknown before the first response');
    const [query, close, far] = await embedder.embed(
      ['configure the database connection timeout', 'the database connection timeout setting', 'cats sleep on warm windowsills'],
      { kind: 'document' },
    );
    assert.strictEqual(embedder.dimensions, 32, 'discovered from the first response');
    for (const vector of [query, close, far]) {
      assert.ok(vector instanceof Float32Array);
      assert.ok(Math.abs(dot(vector, vector) - 1) < 1e-5, 'unit length');
    }
    assert.ok(dot(query, close) > dot(query, far) + 0.3, `close ${dot(query, close)} vs far ${dot(query, far)}`);
    assert.deepStrictEqual(server.requests[0].input[0], 'configure the database connection timeout');
    assert.strictEqual(server.requests[0].model, 'bag-of-words');
  });

  it('splits inputs into batches of batchSize and keeps order across them', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', batchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, index) => `text number ${index} word${index}`);
    const vectors = await embedder.embed(texts, { kind: 'document' });
    assert.deepStrictEqual(server.requests.map((request) => request.input.length), [4, 4, 2]);
    const single = await embedder.embed([texts[7]], { kind: 'query' });
    assert.deepStrictEqual(Array.from(vectors[7]), Array.from(single[0]));
  });

  it('sends the API key as a bearer token, requested dimensions, and the query/document prefixes', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', apiKey: 'secret', dimensions: 16, queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
    assert.strictEqual(embedder.dimensions, 16);
    const [vector] = await embedder.embed(['hello'], { kind: 'query' });
    await embedder.embed(['hello'], { kind: 'document' });
    assert.strictEqual(vector.length, 16);
    assert.strictEqual(server.requests[0].headers.authorization, 'Bearer secret');
    assert.strictEqual(server.requests[0].dimensions, 16);
    assert.deepStrictEqual(server.requests.map((request) => request.input[0]), ['search_query: hello', 'search_document: hello']);
  });

  it('retries a 500 with backoff and then succeeds', async () => {
    server.script('error500', 'error500');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', maxAttempts: 3, retryBaseMs: 20 });
    const started = Date.now();
    const vectors = await embedder.embed(['a b c'], { kind: 'document' });
    assert.strictEqual(vectors.length, 1);
    assert.strictEqual(server.requests.length, 3);
    assert.ok(Date.now() - started >= 20 + 40, 'waited 20 ms then 40 ms');
  });

  it('waits as long as a rate-limited server asks (Retry-After) before retrying', async () => {
    server.script('error429');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', retryBaseMs: 1 });
    const started = Date.now();
    await embedder.embed(['a'], { kind: 'document' });
    assert.strictEqual(server.requests.length, 2);
    assert.ok(Date.now() - started >= 290, `retried after ${Date.now() - started} ms`);
  });

  it('gives up after maxAttempts with the status in the message', async () => {
    server.script('error500', 'error500', 'error500');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', maxAttempts: 2, retryBaseMs: 1 });
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.ok(isHaikuError(error, 'embedding_failed'));
    assert.match(error.message, /HTTP 500/);
    assert.match(error.message, /scripted internal error/);
    assert.match(error.message, /attempt 2 of 2/);
    assert.strictEqual(server.requests.length, 2);
  });

  it('does not retry a missing model and says what to check', async () => {
    server.script('error404');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'nomic-embed-text', retryBaseMs: 1 });
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.ok(isHaikuError(error, 'embedding_failed'));
    assert.match(error.message, /HTTP 404 for model "nomic-embed-text"/);
    assert.match(error.message, /Check the model name/);
    assert.deepStrictEqual(error.remedy?.settings, ['embeddings.model', 'embeddings.baseUrl']);
    assert.strictEqual(server.requests.length, 1);
  });

  it('explains a refused API key', async () => {
    server.script('error401');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm' });
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.match(error.message, /HTTP 401.*Set a valid API key/);
    assert.deepStrictEqual((error as HaikuError).remedy?.settings, ['embeddings.apiKey']);
  });

  it('names the URL and the setting when nothing listens there', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', maxAttempts: 2, retryBaseMs: 1 });
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.ok(isHaikuError(error, 'embedding_failed'));
    assert.match(error.message, new RegExp(`^Cannot reach the embeddings server at ${baseUrl.replace(/[.]/g, '\\.')}: .*ECONNREFUSED.*\\. Start it or change its base URL\\.$`));
    assert.deepStrictEqual(error.remedy?.settings, ['embeddings.baseUrl']);
  });

  it('times out a hanging request, retries, and reports the timeout', async () => {
    server.script('hang', 'hang');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', maxAttempts: 2, retryBaseMs: 1, timeoutMs: 150 });
    const started = Date.now();
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.ok(isHaikuError(error, 'embedding_failed'));
    assert.match(error.message, /did not answer within 0\.15 s \(attempt 2 of 2\)/);
    assert.strictEqual(server.requests.length, 2);
    assert.ok(Date.now() - started < 2000);
  });

  it('recovers when a timed-out request is followed by a good one', async () => {
    server.script('hang');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', maxAttempts: 2, retryBaseMs: 1, timeoutMs: 150 });
    const vectors = await embedder.embed(['a'], { kind: 'document' });
    assert.strictEqual(vectors[0].length, 32);
  });

  it('stops at once when the caller aborts a hanging request, and before the next batch', async () => {
    server.script('hang');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await rejection(embedder.embed(['a'], { kind: 'document', abortSignal: controller.signal }));
    assert.ok(isHaikuError(error, 'cancelled'), error.message);
    assert.ok(Date.now() - started < 2000);
    assert.strictEqual(server.requests.length, 1, 'no retry after a cancel');

    const aborted = AbortSignal.abort();
    const early = await rejection(embedder.embed(['a'], { kind: 'document', abortSignal: aborted }));
    assert.ok(isHaikuError(early, 'cancelled'));
    assert.strictEqual(server.requests.length, 1, 'nothing sent once aborted');
  });

  it('rejects vectors of the wrong dimension against the configured one, without retrying', async () => {
    server.script('wrongDimension');
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', dimensions: 32 });
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.ok(isHaikuError(error, 'embedding_failed'));
    assert.match(error.message, /returned 33-dimensional vectors, but 32 dimensions were asked for/);
    assert.deepStrictEqual(error.remedy?.settings, ['embeddings.dimensions']);
    assert.strictEqual(server.requests.length, 1);
  });

  it('rejects vectors that do not match the stored index dimension', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm', storedDimensions: 384 });
    assert.strictEqual(embedder.dimensions, 384);
    const error = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.match(error.message, /returned 32-dimensional vectors, but the index holds 384-dimensional ones\. Switch back .* or rebuild the index/);
  });

  it('rejects a dimension change between responses and a missing vector', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm' });
    await embedder.embed(['a'], { kind: 'document' });
    server.script('wrongDimension');
    const changed = await rejection(embedder.embed(['a'], { kind: 'document' }));
    assert.match(changed.message, /returned 33-dimensional vectors after earlier 32-dimensional ones/);
    server.script('missingVector');
    const missing = await rejection(embedder.embed(['a', 'b'], { kind: 'document' }));
    assert.match(missing.message, /returned 1 vectors for 2 texts/);
  });

  it('embeds empty strings instead of failing', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: server.baseUrl, model: 'm' });
    const vectors = await embedder.embed(['', 'word'], { kind: 'document' });
    assert.strictEqual(vectors.length, 2);
    assert.ok(vectors.every((vector) => vector.length === 32));
  });
});

describe('createEmbedder', () => {
  it('gives no embedder for "none"', () => {
    assert.strictEqual(createEmbedder(defaultConfig().embeddings), undefined);
  });

  it('explains to an old setting still saying "local" why it was removed and what to use instead', () => {
    const settings = { ...defaultConfig().embeddings, provider: 'local' as const };
    assert.throws(() => createEmbedder(settings), (error: Error) => {
      assert.ok(isHaikuError(error, 'invalid_settings'));
      assert.match(error.message, /"local" was removed/);
      assert.deepStrictEqual(error.remedy?.settings?.[0], 'embeddings.provider');
      assert.match(error.message, /0\.21 vs 0\.66 nDCG@10/);
      assert.match(error.message, /"none"/);
      assert.match(error.message, /"openai"/);
      return true;
    });
  });

  it('requires a model for "openai"', () => {
    const settings = { ...defaultConfig().embeddings, provider: 'openai' as const, model: '' };
    assert.throws(() => createEmbedder(settings), (error: HaikuError) => /No embeddings model is configured/.test(error.message) && error.remedy?.settings?.[0] === 'embeddings.model');
  });

  it('knows the documented prefixes of common asymmetric models, and adds none to others', () => {
    assert.deepStrictEqual(instructionPrefixes('nomic-embed-text:v1.5'), { queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
    assert.deepStrictEqual(instructionPrefixes('nomic-ai/nomic-embed-text-v1.5'), { queryPrefix: 'search_query: ', documentPrefix: 'search_document: ' });
    assert.deepStrictEqual(instructionPrefixes('intfloat/e5-small-v2'), { queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    assert.deepStrictEqual(instructionPrefixes('BAAI/bge-small-en-v1.5').queryPrefix, 'Represent this sentence for searching relevant passages: ');
    assert.deepStrictEqual(instructionPrefixes('mxbai-embed-large:latest').documentPrefix, undefined);
    assert.deepStrictEqual(instructionPrefixes('bge-large:335m'), { queryPrefix: 'Represent this sentence for searching relevant passages: ' });
    assert.deepStrictEqual(instructionPrefixes('snowflake-arctic-embed2'), { queryPrefix: 'query: ' });
    assert.deepStrictEqual(instructionPrefixes('bge-m3'), {});
    assert.deepStrictEqual(instructionPrefixes('text-embedding-3-small'), {});
    assert.deepStrictEqual(instructionPrefixes('all-minilm'), {});
  });

  it('applies the model prefixes when built from settings', async () => {
    const server = await startScriptedEmbeddingsServer();
    try {
      const embedder = createEmbedder({ ...defaultConfig().embeddings, provider: 'openai', baseUrl: server.baseUrl, model: 'nomic-embed-text' })!;
      await embedder.embed(['why'], { kind: 'query' });
      await embedder.embed(['because'], { kind: 'document' });
      assert.deepStrictEqual(server.requests.map((request) => request.input[0]), ['search_query: why', 'search_document: because']);
    } finally {
      await server.close();
    }
  });

  it('builds a working OpenAI-compatible embedder and discovers its dimension', async () => {
    const server = await startScriptedEmbeddingsServer({ dimensions: 24 });
    try {
      const settings = { ...defaultConfig().embeddings, provider: 'openai' as const, baseUrl: server.baseUrl, model: 'm', batchSize: 2 };
      const embedder = createEmbedder(settings);
      assert.ok(embedder);
      assert.strictEqual(await embedderDimensions(embedder), 24);
      assert.strictEqual(embedder.dimensions, 24);
      assert.strictEqual(await embedderDimensions(embedder), 24);
      assert.strictEqual(server.requests.length, 1, 'probed once');
      await embedder.embed(['a', 'b', 'c'], { kind: 'document' });
      assert.strictEqual(server.requests.length, 3, 'batch size from the settings');
    } finally {
      await server.close();
    }
  });
});
