import * as assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { callTool, startHttpServer, type HttpServerProcess } from './mcpProcess';

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } });

/** A raw initialize request with the given Authorization header (or none): its HTTP status. */
async function initializeStatus(url: string, authorization?: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: INITIALIZE,
  });
  await response.text();
  return response.status;
}

const WRITE_TOOLS = ['add_document_from_file', 'add_document_from_text', 'add_document_from_url', 'delete_document'];

describe('haiku mcp --http: bearer token and write tools (real processes)', function () {
  this.timeout(240_000);
  let corpus: CorpusIndex;
  const servers: HttpServerProcess[] = [];
  const clients: Client[] = [];

  before(async () => {
    corpus = await buildCorpusIndex();
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(servers.filter((server) => server.child.exitCode === null).map((server) => server.stop()));
    await corpus?.close();
  });

  async function start(args: string[], env?: Record<string, string>): Promise<HttpServerProcess> {
    const server = await startHttpServer(['--db', corpus.databasePath, ...args], { cwd: corpus.folder, env });
    servers.push(server);
    return server;
  }

  it('generates a token, prints it once on stderr, answers 401 without it or with a wrong one, and offers no write tools', async () => {
    const server = await start([]);
    assert.match(server.token ?? '', /^[A-Za-z0-9_-]{43}$/, server.stderr());
    assert.equal(server.stderr().split(server.token!).length, 2, 'the token is printed once');
    assert.equal(await initializeStatus(server.url), 401);
    assert.equal(await initializeStatus(server.url, 'Bearer wrong-token'), 401);
    assert.equal(await initializeStatus(server.url, `Basic ${server.token}`), 401);
    assert.equal(await initializeStatus(server.url, `Bearer ${server.token}`), 200);
    const client = await server.connect();
    clients.push(client);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('search_documents'));
    assert.deepEqual(names.filter((name) => WRITE_TOOLS.includes(name)), [], 'no write tools over HTTP without --allow-writes');
    const search = await callTool(client, 'search_documents', { query: 'static deploy', limit: 1 });
    assert.equal(search.isError, undefined, search.text);
  });

  it('takes the token from HAIKU_MCP_TOKEN (never printing it), and offers the write tools with --allow-writes', async () => {
    const server = await start(['--allow-writes'], { HAIKU_MCP_TOKEN: 'token-from-the-environment' });
    assert.equal(server.token, undefined);
    assert.ok(!server.stderr().includes('token-from-the-environment'), server.stderr());
    assert.match(server.stderr(), /HAIKU_MCP_TOKEN/);
    assert.equal(await initializeStatus(server.url), 401);
    assert.equal(await initializeStatus(server.url, 'Bearer token-from-the-environment'), 200);
    const client = await server.connect('token-from-the-environment');
    clients.push(client);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(names.filter((name) => WRITE_TOOLS.includes(name)).sort(), WRITE_TOOLS);
  });

  it('--no-auth serves without a token, with a warning', async () => {
    const server = await start(['--no-auth']);
    assert.match(server.stderr(), /Warning: --no-auth: any process on this machine/);
    assert.equal(server.token, undefined);
    assert.equal(await initializeStatus(server.url), 200);
    const client = await server.connect(null);
    clients.push(client);
    assert.ok((await client.listTools()).tools.length > 0);
  });
});
