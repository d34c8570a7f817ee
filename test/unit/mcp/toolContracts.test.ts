import * as assert from 'node:assert/strict';
import { CallToolResultSchema, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { lastToolText, startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { buildMarkdownIndex, GUIDE_DOCUMENTS, type MarkdownIndex } from './markdownIndex';
import { callTool, connectStdio, startHttpServer, type StdioSession } from './mcpProcess';

const MODEL_TOOLS = ['analyze', 'ask_question'];

describe('MCP tool contracts: strict arguments, output schemas, annotations, citations in the text (real process)', function () {
  this.timeout(240_000);
  let index: MarkdownIndex;
  let chat: ScriptedChatServer;
  let session: StdioSession;
  let tools: Tool[];

  before(async () => {
    index = await buildMarkdownIndex(GUIDE_DOCUMENTS);
    chat = await startScriptedChatServer();
    session = await connectStdio(['--db', index.databasePath], { cwd: index.folder, env: { HAIKU_BASE_URL: chat.baseUrl, HAIKU_MODEL: 'scripted-model' } });
    // Listing also makes the SDK client check every later result's structuredContent against its tool's outputSchema.
    tools = (await session.client.listTools()).tools;
  });
  after(async () => {
    await session?.close();
    await chat?.close();
    index?.cleanup();
  });

  it('declares strict input schemas and an output schema on every tool', () => {
    assert.ok(tools.length >= 7, tools.map((tool) => tool.name).join(', '));
    for (const tool of tools) {
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments in its schema`);
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} declares an output schema`);
    }
  });

  it('marks only ask_question and analyze (they call the model server) and add_document_from_url (it fetches the web) open-world', () => {
    for (const tool of tools) {
      assert.equal(tool.annotations?.openWorldHint, [...MODEL_TOOLS, 'add_document_from_url'].includes(tool.name), tool.name);
    }
  });

  it('refuses an unknown argument with an error that names it and the arguments the tool takes', async () => {
    const misspelt = await callTool(session.client, 'search_documents', { query: 'ferrets', limt: 2 });
    assert.equal(misspelt.isError, true);
    assert.match(misspelt.text, /Unknown argument 'limt': search_documents takes query, limit, filter\./);
    const foreign = await callTool(session.client, 'ask_question', { question: 'Why?', section: 'Sleep' });
    assert.equal(foreign.isError, true);
    assert.match(foreign.text, /Unknown argument 'section': ask_question takes question, cite, filter\./);
    const two = await callTool(session.client, 'get_document', { document_id: 'ferrets.md', offset: 1, limit: 2 });
    assert.match(two.text, /Unknown arguments 'offset', 'limit': get_document takes document_id\./);
    assert.equal(chat.requests.length, 0, 'a refused call reaches no model');
  });

  it('returns structuredContent that validates against the output schema (the client checks it) for every read tool', async () => {
    const search = await callTool(session.client, 'search_documents', { query: 'ferrets sleep' });
    assert.equal(search.isError, undefined, search.text);
    const [hit] = (search.structuredContent as { results: Array<{ relative_path: string; location: { start_line: number } }> }).results;
    assert.equal(hit.relative_path, 'ferrets.md');
    const listed = await callTool(session.client, 'list_documents', { limit: 1 });
    assert.equal((listed.structuredContent as { total: number }).total, 2);
    const document = await callTool(session.client, 'get_document', { document_id: 'guides/otters.md' });
    assert.equal(document.isError, undefined, document.text);
    const section = await callTool(session.client, 'read_section', { document_id: 'ferrets.md', section: 'Sleep' });
    assert.equal(section.isError, undefined, section.text);
    const code = await callTool(session.client, 'execute_code', { code: 'console.log((await list_documents()).length)' });
    assert.deepEqual({ ...code.structuredContent, duration_ms: 0 }, { stdout: '2\n', stderr: '', success: true, duration_ms: 0, session_reset: false });
    const reset = await callTool(session.client, 'execute_code', { code: '', reset: true });
    assert.equal(reset.isError, undefined, reset.text);
    assert.equal((reset.structuredContent as { session_reset: boolean }).session_reset, true);
  });

  it("analyze's text carries its citations: document path, chunk ids, location, section and the cited text", async () => {
    let citedId = '';
    chat.push(
      { toolCalls: [{ name: 'search', arguments: { query: 'ferrets sleep' } }] },
      (request) => {
        citedId = /\[([0-9a-f]{6,})\]/.exec(lastToolText(request))![1];
        return { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [citedId] } }] };
      },
      { text: 'Ferrets sleep eighteen hours a day [1].' },
    );
    const result = await callTool(session.client, 'analyze', { question: 'How long do ferrets sleep?' });
    assert.equal(result.isError, undefined, result.text);
    const [answer, block] = result.text.split('\n\n## Citations\n\n');
    assert.equal(answer, 'Ferrets sleep eighteen hours a day [1].');
    assert.ok(block, result.text);
    assert.match(block, /^\[1\] Ferret care file:\/\/\S+ferrets\.md - lines \d+-\d+, Section: \w+\n/);
    assert.match(block, new RegExp(`\\nDocument: ferrets\\.md \\(id \\w+\\); chunk ids: (\\w+, )*${citedId}`));
    assert.match(block, /Ferrets sleep eighteen hours a day in a dark, quiet hammock\./);
    const [citation] = (result.structuredContent as { citations: Array<{ chunk_id: string; relative_path: string; location: { start_line: number | null } }> }).citations;
    assert.equal(citation.chunk_id, citedId);
    assert.equal(citation.relative_path, 'ferrets.md');
    assert.ok(citation.location.start_line! >= 1);
  });

  it('ask_question reports the agent steps as progress when the client sends a progress token', async () => {
    chat.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'otters sleep' } }] }, { text: 'They hold hands.' });
    const updates: Progress[] = [];
    const result = (await session.client.callTool({ name: 'ask_question', arguments: { question: 'How do otters sleep?', cite: true } }, CallToolResultSchema, {
      onprogress: (update) => updates.push(update),
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.deepEqual(
      updates.map((update) => update.message),
      ['Searching: otters sleep', 'The model called rag_search.'],
    );
    assert.deepEqual(updates.map((update) => update.progress), [1, 2]);
  });

  it('sends the progress notifications over Streamable HTTP too (on the call\'s own event stream)', async () => {
    const server = await startHttpServer(['--db', index.databasePath], { cwd: index.folder, env: { HAIKU_BASE_URL: chat.baseUrl, HAIKU_MODEL: 'scripted-model' } });
    try {
      const client = await server.connect();
      chat.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'ferrets food' } }] }, { text: 'Meat.' });
      const updates: Progress[] = [];
      const result = (await client.callTool({ name: 'ask_question', arguments: { question: 'What do ferrets eat?' } }, CallToolResultSchema, {
        onprogress: (update) => updates.push(update),
        resetTimeoutOnProgress: true,
      })) as CallToolResult;
      assert.equal(result.isError, undefined);
      assert.deepEqual(updates.map((update) => update.message), ['Searching: ferrets food', 'The model called rag_search.']);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it('the write tools keep their contract too (run last: it deletes a document)', async () => {
    const deleted = await callTool(session.client, 'delete_document', { document_id: 'guides/otters.md' });
    assert.equal(deleted.isError, undefined, deleted.text);
    assert.equal((deleted.structuredContent as { deleted: boolean }).deleted, true);
    const refused = await callTool(session.client, 'add_document_from_file', { file_path: 'guides/otters.md', force: true });
    assert.match(refused.text, /Unknown argument 'force': add_document_from_file takes file_path\./);
  });
});
