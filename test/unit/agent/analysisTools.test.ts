import * as assert from 'node:assert';
import { lastToolText, offeredToolNames, startScriptedChatServer, systemPrompt, toolMessages, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { askScripted } from './agentHarness';
import { buildCorpusIndex, chunkContaining, failingSearchKnowledgeBase, type CorpusIndex } from './corpusIndex';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';
import type { SandboxFactory } from '../../../src/core/agent/agentRun';
import type { CodeSandbox } from '../../../src/core/agent/codeSandbox';

function code(source: string) {
  return { name: 'execute_code', arguments: { code: source } };
}

describe('agent: analysis tool set (real QuickJS sandbox, real LanceDB index)', function () {
  this.timeout(60_000);
  let server: ScriptedChatServer;
  let created: CodeSandbox[];
  let disposed: number;
  const createSandbox: SandboxFactory = async (host) => {
    const sandbox = await createCodeSandbox({ host, limits: { codeTimeoutSeconds: 10 } });
    created.push(sandbox);
    return {
      execute: (source, options) => sandbox.execute(source, options),
      dispose: async () => {
        disposed += 1;
        await sandbox.dispose();
      },
    };
  };

  let corpus: CorpusIndex;
  before(async () => {
    corpus = await buildCorpusIndex();
  });
  after(async () => {
    await corpus?.close();
  });
  beforeEach(async () => {
    server = await startScriptedChatServer();
    created = [];
    disposed = 0;
  });
  afterEach(async () => {
    await server.close();
  });

  it('runs code with variables persisting, records executions, and makes in-code search results citable', async () => {
    let firstId = '';
    server.push(
      { toolCalls: [code("const hits = await search('pre-bundling', 5);\nconsole.log(JSON.stringify(hits.map((hit) => hit.chunk_id)));")] },
      (request) => {
        firstId = (JSON.parse(lastToolText(request)) as string[])[0];
        return { toolCalls: [code("hits.filter((hit) => hit.uri.endsWith('dep-pre-bundling.md')).length > 0")] };
      },
      { toolCalls: [code("throw new Error('boom')")] },
      () => ({ toolCalls: [{ name: 'cite', arguments: { chunk_ids: [firstId] } }] }),
      { text: 'Pre-bundling is covered in one guide page.' },
    );
    const { answer, events } = await askScripted(server, corpus.store, { mode: 'analysis', createSandbox });
    assert.ok(firstId !== '');
    assert.strictEqual(lastToolText(server.requests[2]).trim(), 'true', 'variables persist between calls');
    assert.match(lastToolText(server.requests[3]), /^The code failed:[\s\S]*boom/);
    assert.deepStrictEqual(answer.executions.map((execution) => execution.success), [true, true, false]);
    assert.match(answer.executions[0].code, /await search\('pre-bundling', 5\)/);
    const recorded = answer.state.searches['pre-bundling'];
    assert.ok(recorded && recorded.length > 0, 'the in-code search is recorded in the question state');
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [firstId]);
    assert.strictEqual(answer.citations[0].content, recorded.find((result) => result.chunkId === firstId)!.content, 'the citation holds what the code saw');
    assert.strictEqual(created.length, 1, 'one sandbox per question');
    assert.strictEqual(disposed, 1, 'disposed at the end of the question');
    assert.deepStrictEqual(
      events.filter((event) => event.type === 'execution-started' || event.type === 'execution-finished').map((event) => event.type),
      ['execution-started', 'execution-finished', 'execution-started', 'execution-finished', 'execution-started', 'execution-finished'],
    );
    assert.ok(events.some((event) => event.type === 'search-finished' && event.source === 'sandbox'));
  });

  it('starts the sandbox when analysis is chosen, before the model asks for code; deferred, when analysis is loaded; rag alone never', async () => {
    const requestsWhenCreated: number[] = [];
    const counting: SandboxFactory = (host) => {
      requestsWhenCreated.push(server.requests.length);
      return createSandbox(host);
    };
    // Analysis chosen: the sandbox starts before the first request, and is disposed though no code ran.
    server.push({ text: 'Nothing to compute.' });
    await askScripted(server, corpus.store, { mode: 'analysis', createSandbox: counting });
    assert.deepStrictEqual(requestsWhenCreated, [0]);
    assert.strictEqual(disposed, 1);
    // Routed: loading analysis starts it (before the next request); code then runs in that same sandbox.
    const before = server.requests.length;
    server.push({ toolCalls: [{ name: 'load_capability', arguments: { name: 'analysis' } }] }, { toolCalls: [code('6 * 7')] }, { text: '42.' });
    await askScripted(server, corpus.store, { mode: 'auto', createSandbox: counting });
    assert.deepStrictEqual(requestsWhenCreated, [0, before + 1]);
    assert.strictEqual(lastToolText(server.requests[before + 2]).trim(), '42');
    // Routed to rag only: no sandbox.
    server.push({ toolCalls: [{ name: 'load_capability', arguments: { name: 'rag' } }] }, { text: 'Answered from search.' });
    await askScripted(server, corpus.store, { mode: 'auto', createSandbox: counting });
    assert.deepStrictEqual(requestsWhenCreated, [0, before + 1]);
    assert.strictEqual(disposed, 2);
  });

  it('a failing search (real LanceDB error) reaches the model from the search tool and from search() in code; the run goes on', async () => {
    const failingSearch = failingSearchKnowledgeBase(corpus.store);
    server.push(
      { toolCalls: [{ name: 'search', arguments: { query: 'cache' } }] },
      { toolCalls: [code("try { await search('cache'); } catch (error) { console.log('caught: ' + error.message.slice(0, 40)); }\nglobalThis.kept = 1;")] },
      { toolCalls: [code("await search('cache')")] },
      { toolCalls: [code('kept')] },
      { text: 'Searching failed.' },
    );
    const { answer } = await askScripted(server, failingSearch, { mode: 'analysis', createSandbox });
    assert.match(lastToolText(server.requests[1]), /^The search failed: /);
    assert.match(lastToolText(server.requests[2]), /^caught: \S/);
    assert.match(lastToolText(server.requests[3]), /^The code failed:\n\w*Error: /);
    assert.strictEqual(lastToolText(server.requests[4]).trim(), '1', 'the session survived the failed search');
    assert.strictEqual(answer.answer, 'Searching failed.');
  });

  it('cite() inside code registers citations through the run', async () => {
    const chunk = await chunkContaining(corpus.store, 'env-and-mode.md', 'import.meta.env');
    server.push({ toolCalls: [code(`console.log(JSON.stringify(await cite(['${chunk.chunkId}', 'nope'])))`)] }, { text: 'ok' });
    const { answer } = await askScripted(server, corpus.store, { mode: 'analysis', createSandbox });
    assert.strictEqual(lastToolText(server.requests[1]).trim(), JSON.stringify({ accepted: [chunk.chunkId], unknown: ['nope'] }));
    assert.deepStrictEqual(answer.citations.map((citation) => [citation.chunkId, citation.content]), [[chunk.chunkId, chunk.content]]);
  });

  it('execution budget: past max_executions execute_code answers with a notice and the code does not run', async () => {
    server.push(
      { toolCalls: [code('globalThis.counter = 1; counter')] },
      { toolCalls: [code('counter += 1; counter')] },
      { toolCalls: [code('counter += 100; counter')] },
      { text: 'done' },
    );
    const { answer } = await askScripted(server, corpus.store, { mode: 'analysis', createSandbox, settings: { maxExecutions: 2 } });
    assert.strictEqual(toolMessages(server.requests[2]).at(-1)!.content.trim(), '2');
    assert.match(toolMessages(server.requests[3]).at(-1)!.content, /Execution budget spent/);
    assert.strictEqual(answer.executions.length, 2);
    assert.match(systemPrompt(server.requests[2]), /code execution budget of this question is spent/);
    assert.doesNotMatch(systemPrompt(server.requests[1]), /execution budget of this question is spent/);
  });

  it('the document filter scopes the sandbox: listing, VFS and search', async () => {
    const documents = await corpus.store.listDocuments();
    const inside = documents.find((document) => document.relativePath === 'static-deploy.md')!.id;
    const outside = documents.find((document) => document.relativePath === 'dep-pre-bundling.md')!.id;
    server.push(
      {
        toolCalls: [
          code(
            "const docs = await list_documents(); const folders = await listDir('/documents'); const hits = await search('pre-bundling dependencies GitHub');\n" +
              `let other = 'visible'; try { await readFile('/documents/${outside}/metadata.json'); } catch (error) { other = error.message.slice(0, 6); }\n` +
              'console.log(JSON.stringify({ docs: docs.map((d) => d.id), folders, hits: [...new Set(hits.map((h) => h.document_id))], other }))',
          ),
        ],
      },
      { text: 'ok' },
    );
    await askScripted(server, corpus.store, { mode: 'analysis', createSandbox, documentFilter: "relative_path = 'static-deploy.md'" });
    const output = JSON.parse(lastToolText(server.requests[1])) as { docs: string[]; folders: string[]; hits: string[]; other: string };
    assert.deepStrictEqual(output, { docs: [inside], folders: [inside], hits: [inside], other: 'ENOENT' });
  });

  it('a search in flight at the time limit finishes, the execution returns its output with a timeout notice, and the variables stay', async () => {
    let searchesFinished = 0;
    const slowKnowledgeBase = Object.assign(Object.create(corpus.store) as typeof corpus.store, {
      search: async (...args: Parameters<typeof corpus.store.search>) => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const results = await corpus.store.search(...args);
        searchesFinished += 1;
        return results;
      },
    });
    const shortSandbox: SandboxFactory = (host) => createCodeSandbox({ host, limits: { codeTimeoutSeconds: 1 } });
    server.push(
      { toolCalls: [code('const earlier = "kept";')] },
      { toolCalls: [code('console.log("searching"); const hits = await search("cache"); console.log("resumed");')] },
      { toolCalls: [code('console.log(earlier)')] },
      { text: 'ok' },
    );
    const { answer } = await askScripted(server, slowKnowledgeBase, { mode: 'analysis', createSandbox: shortSandbox });
    const timedOut = lastToolText(server.requests[2]);
    assert.match(timedOut, /time limit of 1 s was reached while a search or read was running; it finished/);
    assert.match(timedOut, /Output before the failure:\nsearching\n/);
    assert.doesNotMatch(timedOut, /resumed|session was reset/);
    assert.strictEqual(searchesFinished, 1, 'the search in flight ran to its end');
    assert.strictEqual(lastToolText(server.requests[3]).trim(), 'kept', 'the session kept its variables');
    assert.deepStrictEqual(answer.executions.map((execution) => execution.success), [true, false, true]);
  });

  it('the cite window of one tool set ignores requests spent on the other tool set', async () => {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'cache' } }] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [] } }] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [] } }] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [] } }] },
      { text: 'ok' },
    );
    await askScripted(server, corpus.store, { mode: 'auto', deferLoading: false, createSandbox, settings: { requestLimit: 1, analysisRequestLimit: 1 } });
    assert.deepStrictEqual(server.requests.map(offeredToolNames), [
      ['cite', 'execute_code', 'rag_cite', 'rag_search', 'search'],
      ['cite', 'rag_cite'],
      ['cite', 'rag_cite'],
      ['rag_cite'],
      ['rag_cite'],
    ]);
  });
});
