import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { defaultConfig } from '../../../src/core/config';
import { HaikuError } from '../../../src/core/errors';
import { openIndex, type OpenedIndex } from '../../../src/node/backend/openIndex';
import { createSessionServer, type McpSessionServer } from '../../../src/node/mcp/mcpServer';
import { DEFAULT_CODE_SANDBOX_LIMITS } from '../../../src/node/sandbox/codeSandbox';
import { temporaryFolder } from '../../support/indexFixtures';
import { startDocumentServer, type DocumentServer } from '../ingest/documentServer';
import { callTool } from './mcpProcess';

/** add_document_from_url and add_document_from_text over an in-process MCP session, on a real LanceDB index. */
describe('MCP add_document_from_url / add_document_from_text (in-process server, real index)', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let pages: DocumentServer;
  let index: OpenedIndex;
  const sessions: Array<{ session: McpSessionServer; client: Client }> = [];
  const stop = new AbortController();

  async function connect(options: { allowWrites: boolean; allowLoopbackUrls?: boolean }): Promise<Client> {
    const session = createSessionServer({
      index,
      allowWrites: options.allowWrites,
      allowLoopbackUrls: options.allowLoopbackUrls,
      model: () => {
        throw new HaikuError('invalid_settings', 'no model in this test');
      },
      sandboxLimits: DEFAULT_CODE_SANDBOX_LIMITS,
      cwd: workspace.path,
      version: '0',
      abortSignal: stop.signal,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.server.connect(serverSide);
    const client = new Client({ name: 'haiku-test', version: '0' });
    await client.connect(clientSide);
    sessions.push({ session, client });
    return client;
  }

  before(async () => {
    workspace = temporaryFolder('haiku-mcp-url-');
    pages = await startDocumentServer();
    const config = defaultConfig();
    config.index.databaseUri = path.join(workspace.path, 'index');
    // Created empty first, then opened as `haiku mcp` opens it.
    await (await openIndex({ config, cwd: workspace.path, mustExist: false, models: {} })).close();
    index = await openIndex({ config, cwd: workspace.path, mustExist: true, followOtherWriters: true, models: {} });
  });
  after(async () => {
    for (const { client, session } of sessions) {
      await client.close();
      await session.close();
    }
    stop.abort();
    await index?.close();
    await pages?.close();
    workspace?.cleanup();
  });

  it('adds a URL (loopback allowed by the server\'s flag) and search_documents finds it; a second add is unchanged', async () => {
    const client = await connect({ allowWrites: true, allowLoopbackUrls: true });
    pages.pages.set('/kiwi.html', { body: '<html><head><title>Kiwi</title></head><body><h1>Kiwi</h1><p>Kiwis are flightless nocturnal birds.</p></body></html>', contentType: 'text/html', etag: '"k1"' });
    const url = `${pages.origin}/kiwi.html`;
    const added = await callTool(client, 'add_document_from_url', { url, metadata: { region: 'nz' } });
    assert.equal(added.isError, undefined, added.text);
    assert.match(added.text, /^Added \(\d+ chunks?\): Kiwi — 127\.0\.0\.1:\d+\/kiwi\.html \(id d\w+\)\./);
    const structured = added.structuredContent as { status: string; document: { uri: string; metadata: Record<string, unknown> } };
    assert.equal(structured.status, 'added');
    assert.equal(structured.document.uri, url);
    assert.equal(structured.document.metadata.region, 'nz');
    assert.equal(structured.document.metadata.etag, '"k1"');
    const found = await callTool(client, 'search_documents', { query: 'flightless nocturnal' });
    assert.match(found.text, /kiwi\.html/);
    const again = await callTool(client, 'add_document_from_url', { url, metadata: { region: 'nz' } });
    assert.match(again.text, /^Unchanged \(the server answered 304 Not Modified\)/);
  });

  it('adds Markdown text under its heading or a given title; search_documents finds it', async () => {
    const client = await connect({ allowWrites: true });
    const added = await callTool(client, 'add_document_from_text', { content: '# Tuatara\n\nTuatara have a third eye on the top of the head.\n', metadata: { kind: 'reptile' } });
    assert.equal(added.isError, undefined, added.text);
    assert.match(added.text, /Added .*Tuatara — text\/tuatara\.md/);
    const html = await callTool(client, 'add_document_from_text', { content: '<p>Kakapo are heavy parrots.</p>', format: 'html', title: 'Kakapo' });
    assert.equal(html.isError, undefined, html.text);
    assert.match((await callTool(client, 'search_documents', { query: 'third eye' })).text, /text\/tuatara\.md/);
    assert.match((await callTool(client, 'search_documents', { query: 'heavy parrots' })).text, /text\/kakapo\.html/);
    const untitled = await callTool(client, 'add_document_from_text', { content: 'no title here' });
    assert.equal(untitled.isError, true);
    assert.match(untitled.text, /has no title/);
  });

  it('without --allow-loopback-urls refuses this machine, naming the address and the flag; metadata addresses always', async () => {
    const client = await connect({ allowWrites: true });
    const refused = await callTool(client, 'add_document_from_url', { url: `${pages.origin}/kiwi.html` });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /refused to connect to 127\.0\.0\.1: a loopback address.*haiku mcp --allow-loopback-urls/);
    const metadata = await callTool(client, 'add_document_from_url', { url: 'http://169.254.169.254/latest/meta-data/' });
    assert.equal(metadata.isError, true);
    assert.match(metadata.text, /169\.254\.169\.254: a cloud metadata address/);
    const unknown = await callTool(client, 'add_document_from_url', { url: `${pages.origin}/kiwi.html`, allow_loopback: true });
    assert.match(unknown.text, /Unknown argument 'allow_loopback': add_document_from_url takes url, title, metadata\./);
  });

  it('a session without writes offers neither tool', async () => {
    const client = await connect({ allowWrites: false });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(!names.includes('add_document_from_url') && !names.includes('add_document_from_text'), names.join(', '));
  });
});
