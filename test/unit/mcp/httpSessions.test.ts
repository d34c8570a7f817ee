import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HaikuError } from '../../../src/core/errors';
import { serveHttp } from '../../../src/node/mcp/httpServer';
import type { OpenedIndex } from '../../../src/node/backend/openIndex';
import { openExistingIndex } from './openTestIndex';
import { DEFAULT_CODE_SANDBOX_LIMITS } from '../../../src/node/sandbox/codeSandbox';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { resultText } from './mcpProcess';

describe('MCP over HTTP: idle sessions (in-process server)', function () {
  this.timeout(120_000);
  let corpus: CorpusIndex;
  let index: OpenedIndex;
  const stop = new AbortController();
  let serving: Promise<void>;
  let url: string;

  before(async () => {
    corpus = await buildCorpusIndex();
    index = await openExistingIndex({ uri: corpus.databasePath });
    const listening = new Promise<string>((resolve) => {
      serving = serveHttp(
        {
          index,
          allowWrites: false,
          model: () => {
            throw new HaikuError('invalid_settings', 'no model in this test');
          },
          sandboxLimits: DEFAULT_CODE_SANDBOX_LIMITS,
          cwd: corpus.folder,
          version: '0',
          abortSignal: stop.signal,
        },
        { port: 0, onListening: resolve, sessionIdleMs: 1_500, token: undefined },
      );
    });
    url = await listening;
  });
  after(async () => {
    stop.abort();
    await serving;
    await index?.close();
    await corpus?.close();
  });

  it('closes a session its client left without DELETE; a session in use stays', async () => {
    const vanishing = new Client({ name: 'vanishing', version: '0' });
    const vanishingTransport = new StreamableHTTPClientTransport(new URL(url));
    await vanishing.connect(vanishingTransport);
    await vanishing.callTool({ name: 'execute_code', arguments: { code: 'var kept = 1;' } });
    const sessionId = vanishingTransport.sessionId!;
    // Closing the client drops its connections without DELETE, as a crashed client would.
    await vanishing.close();
    const active = new Client({ name: 'active', version: '0' });
    await active.connect(new StreamableHTTPClientTransport(new URL(url)));
    for (let round = 0; round < 12; round++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.match(resultText(await active.callTool({ name: 'list_documents', arguments: {} })), /^3 documents:/);
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'execute_code', arguments: { code: 'console.log(kept)' } } }),
    });
    assert.equal(response.status, 404);
    assert.match(await response.text(), /Session not found: it was closed \(idle, or by the client\)/);
    await active.close();
  });
});
