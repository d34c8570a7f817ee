import * as assert from 'node:assert/strict';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { MCP_PROGRESS_HEARTBEAT_MS } from '../../../src/core/limits';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { buildMarkdownIndex, GUIDE_DOCUMENTS, type MarkdownIndex } from './markdownIndex';
import { connectStdio, resultText, type StdioSession } from './mcpProcess';

/** Longer than the SDK client's default request timeout (60 s), as a local model thinking over a long context is. */
const MODEL_DELAY_MS = 90_000;

/**
 * What the TypeScript SDK client (1.32.2) does with a long call: its default request timeout is 60 s
 * (`DEFAULT_REQUEST_TIMEOUT_MSEC`) and it resets that timer on a progress notification only when the call passes
 * `resetTimeoutOnProgress: true`; it sends a progress token only when the call passes `onprogress`. So a call
 * with those two options and the default timeout lives as long as the server keeps reporting progress; a call
 * without them ends at 60 s (-32001) whatever the server sends.
 */
describe('MCP: a 90 s ask_question through the SDK client with its default timeout (real process, scripted slow model)', function () {
  this.timeout(MODEL_DELAY_MS + 90_000);
  let index: MarkdownIndex;
  let chat: ScriptedChatServer;
  let session: StdioSession;

  before(async () => {
    index = await buildMarkdownIndex(GUIDE_DOCUMENTS);
    chat = await startScriptedChatServer();
    session = await connectStdio(['--db', index.databasePath, '--read-only'], { cwd: index.folder, env: { HAIKU_BASE_URL: chat.baseUrl, HAIKU_MODEL: 'slow-model' } });
  });
  after(async () => {
    await session?.close();
    await chat?.close();
    index?.cleanup();
  });

  it('completes with progress notifications as its keep-alive; the same call without them times out at 60 s', async () => {
    assert.equal(DEFAULT_REQUEST_TIMEOUT_MSEC, 60_000, 'the SDK default this test is about');
    // Every model request answers after 90 s (one per call: a plain answer ends the agent's turn).
    for (let count = 0; count < 4; count++) {
      chat.push({ text: 'Ferrets sleep eighteen hours a day.', delayMs: MODEL_DELAY_MS });
    }
    const progress: Array<{ at: number; update: Progress }> = [];
    const started = Date.now();
    const withProgress = session.client
      .callTool({ name: 'ask_question', arguments: { question: 'How long do ferrets sleep?' } }, CallToolResultSchema, {
        onprogress: (update) => progress.push({ at: Date.now() - started, update }),
        resetTimeoutOnProgress: true,
      })
      .then((result) => ({ result: result as CallToolResult, elapsed: Date.now() - started }));
    const withoutProgress = session.client.callTool({ name: 'ask_question', arguments: { question: 'Where do ferrets sleep?' } }).then(
      () => ({ error: undefined, elapsed: Date.now() - started }),
      (error: unknown) => ({ error, elapsed: Date.now() - started }),
    );

    const plain = await withoutProgress;
    assert.ok(plain.error instanceof McpError, `the call without progress options should time out: ${String(plain.error)}`);
    assert.equal(plain.error.code, ErrorCode.RequestTimeout);
    assert.ok(plain.elapsed >= 60_000 && plain.elapsed < MODEL_DELAY_MS, `timed out after ${plain.elapsed} ms`);

    const { result, elapsed } = await withProgress;
    assert.equal(result.isError, undefined, resultText(result));
    assert.equal(resultText(result), 'Ferrets sleep eighteen hours a day.');
    assert.ok(elapsed >= MODEL_DELAY_MS, `answered after ${elapsed} ms`);
    const gaps = progress.map((entry, position) => entry.at - (position === 0 ? 0 : progress[position - 1].at));
    // About one per heartbeat; the bound leaves room for a loaded machine's late timers.
    assert.ok(progress.length >= Math.floor(MODEL_DELAY_MS / MCP_PROGRESS_HEARTBEAT_MS / 2), `${progress.length} progress notifications`);
    assert.ok(Math.max(...gaps) < DEFAULT_REQUEST_TIMEOUT_MSEC / 2, `longest silence ${Math.max(...gaps)} ms`);
    assert.ok(progress.every((entry, position) => position === 0 || entry.update.progress > progress[position - 1].update.progress), 'progress grows');
    assert.match(progress[0].update.message ?? '', /^Still working \(\d+ s\)\.$/);
    console.log(`      ask_question answered after ${elapsed} ms with ${progress.length} progress notifications (longest gap ${Math.max(...gaps)} ms); the call without progress options timed out after ${plain.elapsed} ms`);
  });
});
