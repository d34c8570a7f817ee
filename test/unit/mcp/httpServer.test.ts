import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { callTool, startHttpServer, type HttpServerProcess } from './mcpProcess';

/** A raw POST to the server with a chosen Host header (what a DNS-rebinding page would send). */
function postWithHost(url: string, host: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } }));
  });
}

describe('haiku mcp --http --read-only (real process, Streamable HTTP on 127.0.0.1)', function () {
  this.timeout(240_000);
  let corpus: CorpusIndex;
  let server: HttpServerProcess;
  const clients: Client[] = [];

  before(async () => {
    corpus = await buildCorpusIndex();
    server = await startHttpServer(['--db', corpus.databasePath, '--read-only'], { cwd: corpus.folder });
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    if (server && server.child.exitCode === null) {
      await server.stop();
    }
    await corpus?.close();
  });

  async function connect(): Promise<Client> {
    const client = await server.connect();
    clients.push(client);
    return client;
  }

  it('leaves the write tools out and searches', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['analyze', 'ask_question', 'execute_code', 'get_document', 'list_documents', 'read_section', 'search_documents']);
    const result = await callTool(client, 'search_documents', { query: 'static deploy github pages', limit: 2 });
    assert.equal(result.isError, undefined, result.text);
    const { results } = result.structuredContent as { results: Array<{ relative_path: string; chunk_id: string }> };
    assert.ok(results.length >= 1 && results.length <= 2);
    assert.equal(results[0].relative_path, 'static-deploy.md');
    const write = await callTool(client, 'delete_document', { document_id: 'static-deploy.md' });
    assert.equal(write.isError, true, 'a read-only server does not know the write tools');
  });

  it('keeps execute_code state per session: shared by the calls of one session, not seen by another, cleared by reset', async () => {
    const first = await connect();
    const second = await connect();
    await callTool(first, 'execute_code', { code: "var seen = 'first session';" });
    assert.equal((await callTool(first, 'execute_code', { code: 'console.log(seen)' })).text.trim(), 'first session');
    assert.equal((await callTool(second, 'execute_code', { code: 'console.log(typeof seen)' })).text.trim(), 'undefined');
    const reset = await callTool(first, 'execute_code', { code: '', reset: true });
    assert.match(reset.text, /reset/);
    assert.equal((await callTool(first, 'execute_code', { code: 'console.log(typeof seen)' })).text.trim(), 'undefined');
  });

  it('refuses requests addressed to another host name (DNS rebinding) and unknown sessions', async () => {
    assert.equal(await postWithHost(server.url, 'attacker.example'), 403);
    const port = new URL(server.url).port;
    assert.notEqual(await postWithHost(server.url, `localhost:${port}`), 403);
    const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session', authorization: `Bearer ${server.token}` }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    assert.equal(response.status, 404);
    assert.match(await response.text(), /Session not found/);
  });

  it('shuts down cleanly on SIGTERM', async () => {
    assert.equal(await server.stop(), 0);
  });
});
