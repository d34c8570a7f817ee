import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HaikuError } from '../../../src/core/errors';
import { buildSectionTree } from '../../../src/core/toc';
import { serveHttp } from '../../../src/node/mcp/httpServer';
import { DEFAULT_CODE_SANDBOX_LIMITS } from '../../../src/node/sandbox/codeSandbox';
import { openStore } from '../../../src/node/store/lanceStore';
import { runInProcess } from '../cli/cliHarness';
import { openExistingIndex } from '../mcp/openTestIndex';
import { resultText } from '../mcp/mcpProcess';
import { temporaryFolder } from '../../support/indexFixtures';

const SECTIONS = 45_000;

/** The 2 s hold on an idle machine; more runnable processes than cores stretch them by that ratio. */
function crowding(): number {
  return Math.max(1, os.loadavg()[0] / os.cpus().length);
}

/** Runs `work` while a timer measures the longest time the event loop went without a turn (ms). */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    const result = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { result, stallMs };
  } finally {
    clearInterval(timer);
  }
}

describe('A 45,000-section document', function () {
  this.timeout(300_000);
  let folder: ReturnType<typeof temporaryFolder>;

  before(async () => {
    folder = temporaryFolder('haiku-sections-');
    const sections = Array.from({ length: SECTIONS }, (_, index) => `${'#'.repeat(1 + (index % 3))} Section ${index}\n\nBody ${index}.\n`);
    fs.writeFileSync(path.join(folder.path, 'big.md'), sections.join('\n'));
    const indexed = await runInProcess(['index', '.', '--quiet'], { cwd: folder.path });
    assert.equal(indexed.code, 0, indexed.stderr);
  });

  after(() => folder.cleanup());

  it('is read whole without holding the event loop (other sessions keep being served)', async () => {
    const store = await openStore({ uri: path.join(folder.path, '.haiku'), readOnly: true });
    try {
      const document = await store.findDocument('big.md');
      assert.ok(document);
      const started = performance.now();
      const { result: items, stallMs } = await longestStall(() => store.getDocumentItems(document.id));
      const treeStarted = performance.now();
      const tree = buildSectionTree(items, new Map(items.map((item) => [item.selfRef, item.chunkIds])));
      console.log(`      read ${items.length} items in ${Math.round(treeStarted - started)} ms (longest stall ${Math.round(stallMs)} ms); tree of ${tree.length} top sections in ${Math.round(performance.now() - treeStarted)} ms`);
      assert.equal(items.length, 2 * SECTIONS);
      assert.equal(tree.length, SECTIONS / 3);
      assert.ok(stallMs < 1000, `the event loop stalled for ${Math.round(stallMs)} ms`);
    } finally {
      await store.close();
    }
  });

  it('over MCP, get_document and read_section on it leave another session answered within seconds', async () => {
    const index = await openExistingIndex({ uri: path.join(folder.path, '.haiku') });
    const stop = new AbortController();
    let serving: Promise<void> = Promise.resolve();
    const url = await new Promise<string>((resolve) => {
      serving = serveHttp(
        {
          index,
          allowWrites: false,
          model: () => {
            throw new HaikuError('invalid_settings', 'no model in this test');
          },
          sandboxLimits: DEFAULT_CODE_SANDBOX_LIMITS,
          cwd: folder.path,
          version: '0',
          abortSignal: stop.signal,
        },
        { port: 0, onListening: resolve, token: undefined },
      );
    });
    const reader = new Client({ name: 'reader', version: '0' });
    const other = new Client({ name: 'other', version: '0' });
    try {
      await reader.connect(new StreamableHTTPClientTransport(new URL(url)));
      await other.connect(new StreamableHTTPClientTransport(new URL(url)));
      for (const call of [{ name: 'get_document', arguments: { document_id: 'big.md' } }, { name: 'read_section', arguments: { document_id: 'big.md', section: 'Section 44997' } }]) {
        const started = performance.now();
        let done = false;
        const reading = reader.callTool(call).then((result) => {
          done = true;
          return { text: resultText(result), ms: performance.now() - started };
        });
        // The other session keeps asking while the big document is read, its tree built and its outline written.
        let slowestMs = 0;
        let answered = 0;
        while (!done) {
          const otherStarted = performance.now();
          assert.match(resultText(await other.callTool({ name: 'list_documents', arguments: {} })), /^1 document/);
          slowestMs = Math.max(slowestMs, performance.now() - otherStarted);
          answered++;
        }
        const read = await reading;
        console.log(`      ${call.name}: ${Math.round(read.ms)} ms; meanwhile another session's list_documents answered ${answered} times, the slowest in ${Math.round(slowestMs)} ms`);
        assert.match(read.text, /Section 44997/);
        assert.ok(slowestMs < 8_000, `another session waited ${Math.round(slowestMs)} ms`);
        // 5.3 s and 6.3 s before the column-wise reading; the 2 s, stretched as for `haiku toc` below.
        assert.ok(read.ms < 2_000 * crowding(), `${call.name} took ${Math.round(read.ms)} ms at load ${os.loadavg()[0].toFixed(1)}`);
      }
    } finally {
      await reader.close();
      await other.close();
      stop.abort();
      await serving;
      await index.close();
    }
  });

  it('`haiku toc` prints its whole tree within 2 s', async () => {
    // Measured in this process: the command's own work (open the index, find the document, read its items and
    // chunk ids, build the tree, write the outline), without node's start-up. Each run opens the index afresh;
    // the faster of two is held to the 2 s.
    const timings: number[] = [];
    for (let run = 0; run < 2; run++) {
      const started = performance.now();
      const toc = await runInProcess(['toc', 'big.md'], { cwd: folder.path });
      timings.push(performance.now() - started);
      assert.equal(toc.code, 0, toc.stderr);
      const lines = toc.stdout.trimEnd().split('\n');
      assert.equal(lines.length, SECTIONS + 1);
      assert.match(lines[SECTIONS], /^ {6}Section 44999 {2}\[big\.md:179997, 1 chunk\]$/);
    }
    console.log(`      haiku toc: ${timings.map((ms) => Math.round(ms)).join(' ms, ')} ms`);
    // 71-116 s with the look-ahead tree, then 4.1 s converting Arrow cell by cell; 0.9 s now on a quiet machine.
    const limitMs = 2_000 * crowding();
    assert.ok(Math.min(...timings) < limitMs, `haiku toc took ${timings.map((ms) => Math.round(ms)).join(' ms and ')} ms (limit ${Math.round(limitMs)} ms at load ${os.loadavg()[0].toFixed(1)})`);
  });
});
