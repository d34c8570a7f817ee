import * as assert from 'node:assert';
import { closedPort } from '../../support/httpJson';
import { lastToolText, startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { askScripted } from './agentHarness';
import type { LanceStore } from '../../../src/node/store/lanceStore';
import { buildCorpusIndex, chunkIdsIn, type CorpusIndex } from './corpusIndex';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';
import { runCli } from '../../../src/node/cli/main';
import type { CommandIo } from '../../../src/node/cli/command';

function captureIo(cwd: string, env: NodeJS.ProcessEnv = {}): CommandIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), cwd, env };
}

describe('agent on a real LanceDB index of corpus documents', function () {
  this.timeout(120_000);
  let corpus: CorpusIndex;
  let databasePath: string;
  let store: LanceStore;
  let server: ScriptedChatServer;

  before(async () => {
    corpus = await buildCorpusIndex();
    databasePath = corpus.databasePath;
    store = corpus.store;
  });
  after(async () => {
    await corpus?.close();
  });
  beforeEach(async () => {
    server = await startScriptedChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('rag_search shows expanded evidence; rag_cite turns it into citations with uri, headings and a source range', async () => {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'dependency pre-bundling cache', limit: 3 } }] },
      (request) => ({ toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: chunkIdsIn(lastToolText(request)).slice(0, 1) } }] }),
      { text: 'Vite caches pre-bundled dependencies in node_modules/.vite.' },
    );
    const { answer } = await askScripted(server, store);
    const shown = lastToolText(server.requests[1]);
    const ids = chunkIdsIn(shown);
    assert.ok(ids.length >= 1 && ids.length <= 3, shown.slice(0, 500));
    assert.match(shown, /Source: "[^"]+"/);
    assert.strictEqual(answer.citations.length, 1);
    const citation = answer.citations[0];
    assert.strictEqual(citation.chunkId, ids[0]);
    assert.match(citation.uri, /dep-pre-bundling\.md$/);
    assert.ok(citation.content.length > 0 && shown.includes(citation.content.slice(0, 200)), 'the citation holds the content the model saw');
    assert.ok(citation.sourceRange?.startLine !== undefined, 'a Markdown citation can jump to its lines');
    assert.strictEqual(answer.citationStatus, 'grounded');
  });

  it('the document filter holds on the real index: search stays inside, cite outside is refused', async () => {
    const outside = (await store.search('pre-bundling', { limit: 1, filter: "relative_path = 'dep-pre-bundling.md'" }))[0];
    assert.ok(outside, 'a chunk of another document');
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'pre-bundling cache mode env' } }] },
      (request) => ({ toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [...chunkIdsIn(lastToolText(request)).slice(0, 1), outside.chunkId] } }] }),
      { text: 'ok' },
    );
    const { answer } = await askScripted(server, store, { documentFilter: "relative_path = 'env-and-mode.md'" });
    assert.ok(answer.state.searches['pre-bundling cache mode env'].length > 0);
    for (const result of answer.state.searches['pre-bundling cache mode env']) {
      assert.match(result.uri, /env-and-mode\.md$/);
    }
    assert.match(lastToolText(server.requests[2]), new RegExp(`Ignored 1 unresolvable id\\(s\\): ${outside.chunkId}`));
    assert.deepStrictEqual(answer.citations.map((citation) => citation.uri.endsWith('env-and-mode.md')), [true]);
  });

  it('rag_cite repairs a mistyped real chunk id', async () => {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'static deploy GitHub Pages' } }] },
      (request) => {
        const id = chunkIdsIn(lastToolText(request))[0];
        return { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [`[${id.slice(0, -1)}]`] } }] };
      },
      { text: 'ok' },
    );
    const { answer } = await askScripted(server, store);
    const id = chunkIdsIn(lastToolText(server.requests[1]))[0];
    assert.match(lastToolText(server.requests[2]), /Repaired near-miss id/);
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [id]);
  });

  it('analysis: code reads toc.json through the real sandbox and section chunk ids are citable', async () => {
    const documentId = (await store.listDocuments()).find((document) => document.relativePath === 'env-and-mode.md')!.id;
    server.push(
      {
        toolCalls: [
          {
            name: 'execute_code',
            arguments: {
              code: `const toc = await readJson('/documents/${documentId}/toc.json');\nconst node = toc.tree[0];\nconsole.log(JSON.stringify({ title: node.title, ids: node.chunk_ids.slice(0, 2) }));`,
            },
          },
        ],
      },
      (request) => ({ toolCalls: [{ name: 'cite', arguments: { chunk_ids: (JSON.parse(lastToolText(request)) as { ids: string[] }).ids } }] }),
      { text: 'The first section explains modes.' },
    );
    const { answer } = await askScripted(server, store, { mode: 'analysis', createSandbox: (host) => createCodeSandbox({ host }) });
    const printed = JSON.parse(lastToolText(server.requests[1])) as { title: string; ids: string[] };
    assert.ok(printed.ids.length >= 1);
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), printed.ids);
    assert.ok(answer.citations.every((citation) => citation.documentId === documentId && citation.content.length > 0));
    assert.deepStrictEqual(answer.executions.map((execution) => execution.success), [true]);
  });

  it('haiku ask --json prints answer, citations and executions', async () => {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'dependency pre-bundling' } }] },
      (request) => ({ toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: chunkIdsIn(lastToolText(request)).slice(0, 2) } }] }),
      { text: 'Pre-bundling converts CommonJS to ESM.' },
    );
    {
      const io = captureIo(corpus.folder);
      const code = await runCli(['ask', 'Why does Vite pre-bundle dependencies?', '--db', databasePath, '--base-url', server.baseUrl, '--model', 'scripted', '--json'], io);
      assert.strictEqual(code, 0, io.err.join(''));
      const printed = JSON.parse(io.out.join('')) as { answer: string; citations: Array<Record<string, unknown>>; executions: unknown[] };
      assert.strictEqual(printed.answer, 'Pre-bundling converts CommonJS to ESM.');
      assert.ok(printed.citations.length >= 1);
      for (const key of ['chunk_id', 'document_id', 'uri', 'title', 'headings', 'page_numbers', 'content', 'document_meta', 'chunk_meta']) {
        assert.ok(key in printed.citations[0], `citation has ${key}`);
      }
      assert.strictEqual((printed.citations[0].document_meta as { format: string }).format, 'markdown');
      assert.deepStrictEqual(printed.executions, []);
      // `ask` is the rag capability: its tools only (`chat` is the routed mode).
      assert.deepStrictEqual(server.requests[0].body.tools!.map((entry) => entry.function.name).sort(), ['rag_cite', 'rag_search']);
    }
  });

  it('haiku analyze --json --verbose (model from HAIKU_* variables) runs code, lists executions, and prints the code on stderr', async () => {
    server.push(
      { toolCalls: [{ name: 'execute_code', arguments: { code: 'const docs = await list_documents();\nconsole.log(docs.length)' } }] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [] } }] },
      { text: 'There are 3 documents.' },
    );
    {
      // The model comes from the environment here (HAIKU_BASE_URL, HAIKU_MODEL, HAIKU_API_KEY).
      const io = captureIo(corpus.folder, { HAIKU_BASE_URL: server.baseUrl, HAIKU_MODEL: 'from-env', HAIKU_API_KEY: 'env-key' });
      const code = await runCli(['analyze', 'How many documents?', '--db', databasePath, '--json', '--verbose'], io);
      assert.strictEqual(code, 0, io.err.join(''));
      const printed = JSON.parse(io.out.join('')) as { answer: string; citations: unknown[]; executions: Array<{ code: string; stdout: string; stderr: string; success: boolean }> };
      assert.strictEqual(printed.answer, 'There are 3 documents.');
      assert.deepStrictEqual(printed.citations, []);
      assert.strictEqual(printed.executions.length, 1);
      assert.strictEqual(printed.executions[0].stdout.trim(), '3');
      assert.strictEqual(printed.executions[0].success, true);
      assert.strictEqual(printed.executions[0].stderr, '');
      assert.match(io.err.join(''), /execute_code:\n {2}\| const docs = await list_documents\(\);/);
      assert.deepStrictEqual(server.requests[0].body.tools!.map((entry) => entry.function.name).sort(), ['cite', 'execute_code', 'search']);
      assert.strictEqual(server.requests[0].body.model, 'from-env');
      assert.strictEqual(server.requests[0].headers.authorization, 'Bearer env-key');
    }
  });

  it('haiku analyze runs on --analysis-model (or HAIKU_ANALYSIS_MODEL); ask keeps the question model', async () => {
    const other = await startScriptedChatServer();
    try {
      server.push({ text: 'analysed' }, { text: 'from env' }, { text: 'asked' });
      const base = ['--db', databasePath, '--base-url', server.baseUrl, '--model', 'question-model', '--api-key', 'question-key'];
      assert.strictEqual(await runCli(['analyze', 'How many?', ...base, '--analysis-model', 'analysis-model'], captureIo(corpus.folder)), 0);
      assert.strictEqual(await runCli(['analyze', 'How many?', ...base], captureIo(corpus.folder, { HAIKU_ANALYSIS_MODEL: 'env-analysis-model' })), 0);
      assert.strictEqual(await runCli(['ask', 'What?', ...base, '--analysis-model', 'analysis-model'], captureIo(corpus.folder)), 2, 'ask takes no analysis flag (a usage error)');
      assert.strictEqual(await runCli(['ask', 'What?', ...base], captureIo(corpus.folder)), 0);
      assert.deepStrictEqual(server.requests.map((request) => [request.body.model, request.headers.authorization]), [
        ['analysis-model', 'Bearer question-key'],
        ['env-analysis-model', 'Bearer question-key'],
        ['question-model', 'Bearer question-key'],
      ]);
      // A server of its own gets only its own key, never the question model's.
      other.push({ text: 'elsewhere' });
      const io = captureIo(corpus.folder, { HAIKU_ANALYSIS_API_KEY: 'analysis-key' });
      assert.strictEqual(await runCli(['analyze', 'How many?', ...base, '--analysis-base-url', other.baseUrl], io), 0, io.err.join(''));
      assert.deepStrictEqual([other.requests[0].body.model, other.requests[0].headers.authorization], ['question-model', 'Bearer analysis-key']);
    } finally {
      await other.close();
    }
  });

  it('an unreachable model exits non-zero with one line naming the server', async () => {
    const port = await closedPort();
    const io = captureIo(corpus.folder);
    const code = await runCli(['ask', 'anything', '--db', databasePath, '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm'], io);
    assert.notStrictEqual(code, 0);
    const stderr = io.err.join('');
    assert.strictEqual(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, new RegExp(`^haiku ask: Cannot reach the model server at http://127\\.0\\.0\\.1:${port}/v1`));
    assert.deepStrictEqual(io.out, []);
  });
});
