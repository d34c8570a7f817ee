import * as assert from 'node:assert';
import { defaultConfig } from '../../../src/core/config';
import { isHaikuError, type HaikuError } from '../../../src/core/errors';
import { HttpReranker, createReranker } from '../../../src/node/search/httpReranker';
import { closedPort } from '../../support/httpJson';
import { rejection } from '../../support/rejection';
import { startScriptedRerankServer, type RerankDialect, type ScriptedRerankServer } from '../../support/scriptedRerankServer';

const documents = [
  'The cat sat on the mat.',
  'Configure the database connection timeout in settings.',
  'Database timeout errors and how to fix the connection.',
  'Unrelated text about gardening.',
];
const query = 'database connection timeout';

describe('HttpReranker', () => {
  let server: ScriptedRerankServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const dialect of ['cohere', 'jina', 'tei'] as RerankDialect[]) {
    it(`reranks best first against a ${dialect}-style server`, async () => {
      server = await startScriptedRerankServer({ dialect });
      const reranker = new HttpReranker({ baseUrl: server.baseUrl, model: 'bge-reranker', apiKey: 'k' });
      const results = await reranker.rerank(query, documents, { topN: 2 });
      assert.deepStrictEqual(results.map((result) => result.index), [1, 2]);
      assert.strictEqual(results[0].score, 1);
      assert.ok(results[0].score >= results[1].score);
      const last = server.requests[server.requests.length - 1];
      assert.strictEqual(last.headers.authorization, 'Bearer k');
      if (dialect === 'tei') {
        assert.strictEqual(server.requests.length, 2, 'one Cohere attempt, then the TEI shape');
        assert.deepStrictEqual(last.body.texts, documents);
        // Remembered: the next call goes straight to the TEI shape.
        await reranker.rerank(query, documents, { topN: 1 });
        assert.strictEqual(server.requests.length, 3);
      } else {
        assert.strictEqual(server.requests.length, 1);
        assert.deepStrictEqual(last.body, { model: 'bge-reranker', query, documents, top_n: 2, return_documents: false });
      }
    });
  }

  it('caps topN at the number of documents and skips the request when there is nothing to rank', async () => {
    server = await startScriptedRerankServer();
    const reranker = new HttpReranker({ baseUrl: server.baseUrl, model: '' });
    const results = await reranker.rerank(query, documents, { topN: 10 });
    assert.strictEqual(results.length, 4);
    assert.strictEqual(server.requests[0].body.top_n, 4);
    assert.ok(!('model' in server.requests[0].body), 'empty model omitted');
    assert.deepStrictEqual(await reranker.rerank(query, [], { topN: 3 }), []);
    assert.strictEqual(server.requests.length, 1);
  });

  it('reports an HTTP error with the server detail', async () => {
    server = await startScriptedRerankServer();
    server.script('error500');
    const error = await rejection(new HttpReranker({ baseUrl: server.baseUrl, model: 'm' }).rerank(query, documents, { topN: 2 }));
    assert.ok(isHaikuError(error, 'rerank_failed'));
    assert.match(error.message, /answered HTTP 500 for model "m": .*scripted model crash/);
  });

  it('explains a wrong base URL (404)', async () => {
    server = await startScriptedRerankServer();
    const baseUrl = server.baseUrl.replace(/\/v1$/, '');
    const error = await rejection(new HttpReranker({ baseUrl, model: 'm' }).rerank(query, documents, { topN: 2 }));
    assert.match(error.message, /HTTP 404 .*Check its base URL/);
    assert.deepStrictEqual((error as HaikuError).remedy?.settings, ['reranker.baseUrl', 'reranker.model']);
  });

  it('rejects answers that are not JSON or point outside the documents', async () => {
    server = await startScriptedRerankServer();
    server.script('notJson', 'badIndex');
    const reranker = new HttpReranker({ baseUrl: server.baseUrl, model: 'm' });
    assert.match((await rejection(reranker.rerank(query, documents, { topN: 2 }))).message, /not JSON: <html>proxy page/);
    assert.match((await rejection(reranker.rerank(query, documents, { topN: 2 }))).message, /invalid result .*"index":9/);
  });

  it('names the URL when nothing listens there', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await rejection(new HttpReranker({ baseUrl, model: 'm' }).rerank(query, documents, { topN: 2 }));
    assert.ok(isHaikuError(error, 'rerank_failed'));
    assert.match(error.message, /^Cannot reach the reranker at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank: .*ECONNREFUSED.*change its base URL/);
    assert.deepStrictEqual((error as HaikuError).remedy?.settings, ['reranker.baseUrl', 'reranker.provider']);
  });

  it('times out a hanging server', async () => {
    server = await startScriptedRerankServer();
    server.script('hang');
    const started = Date.now();
    const error = await rejection(new HttpReranker({ baseUrl: server.baseUrl, model: 'm', timeoutMs: 150 }).rerank(query, documents, { topN: 2 }));
    assert.match(error.message, /did not answer within 0\.15 s/);
    assert.ok(Date.now() - started < 2000);
  });

  it('cancels on abort', async () => {
    server = await startScriptedRerankServer();
    server.script('hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 80);
    const error = await rejection(new HttpReranker({ baseUrl: server.baseUrl, model: 'm' }).rerank(query, documents, { topN: 2, abortSignal: controller.signal }));
    assert.ok(isHaikuError(error, 'cancelled'));
    const early = await rejection(new HttpReranker({ baseUrl: server.baseUrl, model: 'm' }).rerank(query, documents, { topN: 2, abortSignal: AbortSignal.abort() }));
    assert.ok(isHaikuError(early, 'cancelled'));
    assert.strictEqual(server.requests.length, 1);
  });
});

describe('createReranker', () => {
  it('gives none by default and an HTTP reranker when configured', async () => {
    assert.strictEqual(createReranker(defaultConfig().reranker), undefined);
    const server = await startScriptedRerankServer();
    try {
      const reranker = createReranker({ provider: 'http', baseUrl: server.baseUrl, model: 'm' });
      assert.ok(reranker);
      assert.strictEqual(reranker.id, 'http:m');
      assert.deepStrictEqual((await reranker.rerank(query, documents, { topN: 1 })).map((result) => result.index), [1]);
    } finally {
      await server.close();
    }
  });

  it('requires a base URL', () => {
    assert.throws(() => createReranker({ provider: 'http', baseUrl: '', model: 'm' }), (error: HaikuError) => /No reranker server is configured/.test(error.message) && error.remedy?.settings?.[0] === 'reranker.baseUrl');
  });
});
