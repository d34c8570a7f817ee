import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { indexPaths } from '../../../src/node/index/indexer';
import { lastToolText, offeredToolNames, startScriptedChatServer, systemPrompt, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { repositoryRoot } from '../../support/paths';
import { callTool, connectStdio, type StdioSession } from './mcpProcess';

interface SearchJson {
  results: Array<{
    chunk_id: string;
    relative_path: string;
    headings: string[];
    content: string;
    location: { start_line: number | null; end_line: number | null };
    document_meta: Record<string, unknown>;
    chunk_meta: Record<string, unknown>;
  }>;
}

describe('haiku mcp over stdio (real process, real LanceDB index, scripted model)', function () {
  this.timeout(240_000);
  let corpus: CorpusIndex;
  let chat: ScriptedChatServer;
  let session: StdioSession;

  before(async () => {
    corpus = await buildCorpusIndex();
    chat = await startScriptedChatServer();
    session = await connectStdio(['--db', corpus.databasePath], { cwd: corpus.folder, env: { HAIKU_BASE_URL: chat.baseUrl, HAIKU_MODEL: 'scripted-model' } });
  });
  after(async () => {
    await session?.close();
    await chat?.close();
    await corpus?.close();
  });

  it('lists the read tools and, without --read-only, the write tools', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'add_document_from_file', 'add_document_from_text', 'add_document_from_url', 'analyze', 'ask_question', 'delete_document', 'execute_code', 'get_document', 'list_documents', 'read_section', 'search_documents',
    ]);
    assert.match(session.stderr(), /Haiku MCP server on stdio \(index .*index\)\./);
    const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
    assert.deepEqual(session.client.getServerVersion(), { name: 'haiku', version: manifest.version });
  });

  it('search_documents returns the expanded results with chunk ids, heading trails and line ranges', async () => {
    const result = await callTool(session.client, 'search_documents', { query: 'dependency pre-bundling', limit: 3 });
    assert.equal(result.isError, undefined);
    const { results } = result.structuredContent as unknown as SearchJson;
    const expected = await corpus.store.search('dependency pre-bundling', { limit: 3, expand: true });
    assert.deepEqual(results.map((hit) => hit.chunk_id), expected.map((hit) => hit.chunkId));
    assert.deepEqual(results.map((hit) => hit.content), expected.map((hit) => hit.content), 'the content is the expanded context the agent sees');
    const first = results[0];
    assert.equal(first.relative_path, 'dep-pre-bundling.md');
    assert.ok(first.headings.length > 0);
    assert.equal(first.document_meta.format, 'markdown', 'document_meta is the document metadata column');
    assert.deepEqual(first.chunk_meta.headings, first.headings);
    assert.ok(first.location.start_line! >= 1 && first.location.end_line! >= first.location.start_line!);
    assert.ok(result.text.startsWith(`[${first.chunk_id}] [rank 1 of ${results.length}]\nDocument: dep-pre-bundling.md (lines ${first.location.start_line}-${first.location.end_line})`), result.text.slice(0, 200));

    const filtered = await callTool(session.client, 'search_documents', { query: 'mode', filter: "relative_path = 'env-and-mode.md'" });
    assert.ok((filtered.structuredContent as unknown as SearchJson).results.every((hit) => hit.relative_path === 'env-and-mode.md'));
  });

  it('list_documents, get_document and read_section (by title, by trail, by item range)', async () => {
    const listed = await callTool(session.client, 'list_documents', { limit: 2, offset: 1 });
    assert.match(listed.text, /^Documents 2-3 of 3:\n- env-and-mode\.md/);
    const document = await callTool(session.client, 'get_document', { document_id: 'env-and-mode.md' });
    assert.match(document.text, /^Env Variables and Modes \(env-and-mode\.md, markdown, id \w+, \d+ items\)\n\nSections:\n- Env Variables and Modes \(items 0-\d+, lines 1-\d+\)/);
    const modes = /- Modes \(items (\d+)-(\d+), lines (\d+)-(\d+)\)/.exec(document.text);
    assert.ok(modes, document.text.slice(0, 800));

    const byTitle = await callTool(session.client, 'read_section', { document_id: 'env-and-mode.md', section: 'modes' });
    assert.ok(byTitle.text.startsWith(`env-and-mode.md (lines ${modes[3]}-${modes[4]}) — Modes\nChunk ids: `), byTitle.text.slice(0, 200));
    assert.match(byTitle.text, /\n## Modes\n/);
    assert.deepEqual((byTitle.structuredContent as { item_range: number[] }).item_range, [Number(modes[1]), Number(modes[2])]);
    const byTrail = await callTool(session.client, 'read_section', { document_id: 'env-and-mode.md', section: 'Modes > NODE_ENV and Modes' });
    assert.match(byTrail.text, /— NODE_ENV and Modes\n/);
    const byRange = await callTool(session.client, 'read_section', { document_id: 'env-and-mode.md', start_item: Number(modes[1]), end_item: Number(modes[1]) });
    assert.match(byRange.text, /— items \d+-\d+\nChunk ids: [0-9a-f]+.*\n\n## Modes$/);
  });

  it('execute_code keeps variables within the session, and reset forgets them', async () => {
    const first = await callTool(session.client, 'execute_code', { code: 'var documentCount = (await list_documents()).length;\nconsole.log(documentCount);' });
    assert.equal(first.text.trim(), '3');
    const second = await callTool(session.client, 'execute_code', { code: 'console.log(documentCount * 2)' });
    assert.equal(second.text.trim(), '6', 'state persists between calls of one session');
    const afterReset = await callTool(session.client, 'execute_code', { code: 'console.log(typeof documentCount)', reset: true });
    assert.equal(afterReset.text.trim(), 'undefined');
    const failing = await callTool(session.client, 'execute_code', { code: "throw new Error('boom')" });
    assert.equal(failing.isError, true);
    assert.match(failing.text, /^The code failed:[\s\S]*boom/);
  });

  it('analyze runs the analysis capability on the model from HAIKU_BASE_URL / HAIKU_MODEL', async () => {
    const start = chat.requests.length;
    chat.push(
      { toolCalls: [{ name: 'execute_code', arguments: { code: 'console.log((await list_documents()).length)' } }] },
      { toolCalls: [{ name: 'cite', arguments: { chunk_ids: [] } }] },
      { text: 'There are 3 documents.' },
    );
    const result = await callTool(session.client, 'analyze', { question: 'How many documents are indexed?' });
    assert.equal(result.isError, undefined, result.text);
    assert.equal(result.text, 'There are 3 documents.');
    const requests = chat.requests.slice(start);
    assert.equal(requests.length, 3);
    assert.equal(requests[0].body.model, 'scripted-model');
    assert.deepEqual(offeredToolNames(requests[0]), ['cite', 'execute_code', 'search']);
    assert.equal(lastToolText(requests[1]).trim(), '3', 'the code ran in the sandbox over the index');
    assert.equal((result.structuredContent as { executions: Array<{ stdout: string }> }).executions[0].stdout, '3\n');
  });

  it('ask_question runs the rag capability and appends the citation block with cite=true', async () => {
    const start = chat.requests.length;
    let citedId = '';
    chat.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'pre-bundling' } }] },
      (request) => {
        citedId = /^\[([0-9a-f]+)\]/.exec(lastToolText(request))![1];
        return { toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: [citedId] } }] };
      },
      { text: 'Vite pre-bundles dependencies with esbuild.' },
    );
    const result = await callTool(session.client, 'ask_question', { question: 'Why does Vite pre-bundle?', cite: true });
    assert.equal(result.isError, undefined, result.text);
    assert.deepEqual(offeredToolNames(chat.requests[start]), ['rag_cite', 'rag_search']);
    assert.ok(result.text.startsWith('Vite pre-bundles dependencies with esbuild.\n\n## Citations\n\n[1] Dependency Pre-Bundling file://'), result.text.slice(0, 300));
    assert.match(result.text, /dep-pre-bundling\.md - lines \d+-\d+, Section: /);
    const [citation] = (result.structuredContent as { citations: Array<{ chunk_id: string; document_meta: Record<string, unknown>; chunk_meta: Record<string, unknown> }> }).citations;
    assert.equal(citation.chunk_id, citedId);
    assert.equal(citation.document_meta.format, 'markdown');
    assert.ok(Array.isArray(citation.chunk_meta.doc_item_refs));
  });

  it("ask_question and analyze take qa.* from the project's haiku.config.json (the domain preamble)", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-mcp-config-'));
    fs.writeFileSync(path.join(folder, 'haiku.config.json'), JSON.stringify({ prompts: { domain_preamble: 'PREAMBLE-FROM-THE-FILE' } }));
    const configured = await connectStdio(['--db', corpus.databasePath, '--read-only'], { cwd: folder, env: { HAIKU_BASE_URL: chat.baseUrl, HAIKU_MODEL: 'scripted-model' } });
    try {
      const start = chat.requests.length;
      chat.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'pre-bundling' } }] }, { text: 'Answered.' });
      const result = await callTool(configured.client, 'ask_question', { question: 'Why does Vite pre-bundle?' });
      assert.equal(result.isError, undefined, result.text);
      const requests = chat.requests.slice(start);
      assert.match(systemPrompt(requests[0]), /PREAMBLE-FROM-THE-FILE/, 'the domain preamble reached the instructions');
    } finally {
      await configured.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers bad calls with tool errors that say what to do, and keeps serving', async () => {
    const unknown = await callTool(session.client, 'read_section', { document_id: 'nope.md', section: 'x' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /No indexed document matches 'nope\.md'\. Call list_documents/);
    const noSection = await callTool(session.client, 'read_section', { document_id: 'env-and-mode.md', section: 'Nonexistent heading' });
    assert.equal(noSection.isError, true);
    assert.match(noSection.text, /No section "Nonexistent heading" in env-and-mode\.md\. The sections are:\n- Env Variables and Modes/);
    const badFilter = await callTool(session.client, 'search_documents', { query: 'mode', filter: 'relative_path ===' });
    assert.equal(badFilter.isError, true);
    assert.match(badFilter.text, /filter/i);
    const badArguments = await callTool(session.client, 'search_documents', { query: 'mode', limit: 'many' });
    assert.equal(badArguments.isError, true);
    const listed = await callTool(session.client, 'list_documents', {});
    assert.match(listed.text, /^3 documents:/);
  });

  it('sees documents another process indexes while it runs; add_document_from_file and delete_document write', async () => {
    fs.mkdirSync(path.join(corpus.folder, 'notes'));
    fs.writeFileSync(path.join(corpus.folder, 'notes', 'ferrets.md'), '# Ferrets\n\nFerrets sleep eighteen hours a day.\n');
    // Another writer (as the VS Code indexer would be): this test process's own store.
    await indexPaths({ roots: [path.join(corpus.folder, 'notes')], store: corpus.store, baseFolder: corpus.folder });
    const seen = await callTool(session.client, 'search_documents', { query: 'ferrets sleep' });
    assert.equal((seen.structuredContent as unknown as SearchJson).results[0]?.relative_path, 'notes/ferrets.md', seen.text);

    const deleted = await callTool(session.client, 'delete_document', { document_id: 'notes/ferrets.md' });
    assert.match(deleted.text, /^Deleted notes\/ferrets\.md \(id \w+\) from the index\.$/);
    const gone = await callTool(session.client, 'search_documents', { query: 'ferrets sleep' });
    assert.ok((gone.structuredContent as unknown as SearchJson).results.every((hit) => hit.relative_path !== 'notes/ferrets.md'));

    const added = await callTool(session.client, 'add_document_from_file', { file_path: 'notes/ferrets.md' });
    assert.equal(added.isError, undefined, added.text);
    assert.match(added.text, /: added 1, updated 0, unchanged 0, failed 0\.\n- notes\/ferrets\.md \(id \w+\)$/);
    const back = await callTool(session.client, 'search_documents', { query: 'ferrets sleep' });
    assert.equal((back.structuredContent as unknown as SearchJson).results[0]?.relative_path, 'notes/ferrets.md');

    const missing = await callTool(session.client, 'add_document_from_file', { file_path: 'notes/absent.md' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /absent\.md does not exist/);
  });
});
