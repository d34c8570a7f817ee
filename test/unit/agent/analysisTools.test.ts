import * as assert from 'node:assert';
import { MemoryKnowledgeBase } from '../../support/memoryKnowledgeBase';
import { offeredToolNames, startScriptedChatServer, systemPrompt, toolMessages, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { askScripted } from './agentHarness';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';
import type { SandboxFactory } from '../../../src/core/agent/agentRun';
import type { CodeSandbox } from '../../../src/core/agent/codeSandbox';

const PUMP = 'c0ffee00-1111-4222-8333-444455556666';
const VALVE = 'beef0000-aaaa-4bbb-8ccc-dddddddddddd';
const BOILER = '0badf00d-9999-4888-8777-666655554444';

function knowledgeBase(): MemoryKnowledgeBase {
  return new MemoryKnowledgeBase([
    {
      id: 'manual',
      title: 'Plant manual',
      chunks: [
        { id: PUMP, content: 'The coolant pump must be inspected every 30 days.', headings: ['Maintenance'] },
        { id: VALVE, content: 'The relief valve opens at 12 bar.', headings: ['Safety'] },
      ],
    },
    { id: 'notes', title: 'Operator notes', chunks: [{ id: BOILER, content: 'Boiler pump noise is normal during start-up.' }] },
  ]);
}

function code(source: string) {
  return { name: 'execute_code', arguments: { code: source } };
}

describe('agent: analysis tool set (real QuickJS sandbox)', function () {
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

  beforeEach(async () => {
    server = await startScriptedChatServer();
    created = [];
    disposed = 0;
  });
  afterEach(async () => {
    await server.close();
  });

  it('runs code with variables persisting, records executions, and makes in-code search results citable', async () => {
    server.push(
      { toolCalls: [code("const hits = await search('pump', 5);\nconsole.log(hits.length, hits.map((hit) => hit.chunk_id).join(','));")] },
      { toolCalls: [code('hits.filter((hit) => hit.title === "Plant manual").length')] },
      { toolCalls: [code("throw new Error('boom')")] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [PUMP] } }] },
      { text: 'Two documents mention pumps.' },
    );
    const { answer, events } = await askScripted(server, knowledgeBase(), { mode: 'analysis', createSandbox });
    assert.match(toolMessages(server.requests[1])[0].content, new RegExp(`^2 .*${PUMP}`));
    assert.strictEqual(toolMessages(server.requests[2]).at(-1)!.content.trim(), '1');
    assert.match(toolMessages(server.requests[3]).at(-1)!.content, /The code failed:[\s\S]*boom/);
    assert.deepStrictEqual(answer.executions.map((execution) => execution.success), [true, true, false]);
    assert.match(answer.executions[0].code, /await search\('pump', 5\)/);
    assert.ok(answer.state.searches.pump, 'the sandbox search is recorded in the question state');
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [PUMP]);
    assert.strictEqual(answer.citations[0].content, 'The coolant pump must be inspected every 30 days.');
    assert.strictEqual(created.length, 1, 'one sandbox per question');
    assert.strictEqual(disposed, 1, 'disposed at the end of the question');
    assert.deepStrictEqual(
      events.filter((event) => event.type === 'execution-started' || event.type === 'execution-finished').map((event) => event.type),
      ['execution-started', 'execution-finished', 'execution-started', 'execution-finished', 'execution-started', 'execution-finished'],
    );
    assert.ok(events.some((event) => event.type === 'search-finished' && event.source === 'sandbox'));
  });

  it('cite() inside code registers citations through the run', async () => {
    server.push({ toolCalls: [code(`console.log(JSON.stringify(await cite(['${VALVE}', 'nope'])))`)] }, { text: '12 bar.' });
    const { answer } = await askScripted(server, knowledgeBase(), { mode: 'analysis', createSandbox });
    assert.match(toolMessages(server.requests[1])[0].content, new RegExp(`"accepted":\\["${VALVE}"\\],"unknown":\\["nope"\\]`));
    assert.deepStrictEqual(answer.citations.map((citation) => citation.chunkId), [VALVE]);
  });

  it('execution budget: past max_executions execute_code answers with a notice and the code does not run', async () => {
    server.push(
      { toolCalls: [code('globalThis.counter = 1; counter')] },
      { toolCalls: [code('counter += 1; counter')] },
      { toolCalls: [code('counter += 100; counter')] },
      { text: 'done' },
    );
    const { answer } = await askScripted(server, knowledgeBase(), { mode: 'analysis', createSandbox, settings: { maxExecutions: 2 } });
    assert.strictEqual(toolMessages(server.requests[2]).at(-1)!.content.trim(), '2');
    assert.match(toolMessages(server.requests[3]).at(-1)!.content, /Execution budget spent/);
    assert.strictEqual(answer.executions.length, 2);
    assert.match(systemPrompt(server.requests[2]), /code execution budget of this question is spent/);
    assert.doesNotMatch(systemPrompt(server.requests[1]), /execution budget of this question is spent/);
  });

  it('the document filter scopes the sandbox: listing, VFS and search', async () => {
    server.push(
      {
        toolCalls: [
          code(
            "const docs = await list_documents(); const folders = await listDir('/documents'); const hits = await search('pump');\n" +
              "let manual = 'hidden'; try { await readFile('/documents/manual/metadata.json'); manual = 'visible'; } catch (error) { manual = error.message.slice(0, 6); }\n" +
              "console.log(JSON.stringify({ docs: docs.map((d) => d.id), folders, hits: hits.map((h) => h.document_id), manual }))",
          ),
        ],
      },
      { text: 'ok' },
    );
    await askScripted(server, knowledgeBase(), { mode: 'analysis', createSandbox, documentFilter: "title = 'Operator notes'" });
    const output = JSON.parse(toolMessages(server.requests[1])[0].content) as { docs: string[]; folders: string[]; hits: string[]; manual: string };
    assert.deepStrictEqual(output.docs, ['notes']);
    assert.deepStrictEqual(output.folders, ['notes']);
    assert.deepStrictEqual(output.hits, ['notes']);
    assert.strictEqual(output.manual, 'ENOENT');
  });

  it('the cite window of one tool set ignores requests spent on the other tool set', async () => {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'pump' } }] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [PUMP] } }] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [PUMP] } }] },
      { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [PUMP] } }] },
      { text: 'ok' },
    );
    await askScripted(server, knowledgeBase(), { mode: 'auto', createSandbox, settings: { requestLimit: 1 } });
    assert.deepStrictEqual(server.requests.map(offeredToolNames), [
      ['cite', 'execute_code', 'rag_cite', 'rag_search', 'search'],
      ['cite', 'rag_cite'],
      ['cite', 'rag_cite'],
      ['rag_cite'],
      ['rag_cite'],
    ]);
  });
});
