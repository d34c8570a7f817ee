import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, isHaikuError } from '../../core/errors';
import { MCP_PROGRESS_HEARTBEAT_MS } from '../../core/limits';
import type { McpToolContext } from './toolContext';
import { cliErrorText } from '../config/cliErrorWording';

/** A successful tool result: readable text, plus the same data as JSON for clients that read `structuredContent`. */
export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

/** A tool error the client shows the model: what happened and what to do next, never a protocol error. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Runs one tool call: refreshes the index view, links the request's cancellation to the server's, and turns
 * anything thrown into an error result (typed errors already carry an actionable message).
 */
export async function runTool(context: McpToolContext, requestSignal: AbortSignal, work: (abortSignal: AbortSignal) => Promise<CallToolResult>): Promise<CallToolResult> {
  const abortSignal = AbortSignal.any([requestSignal, context.abortSignal]);
  try {
    await context.refreshIfChanged();
    return await work(abortSignal);
  } catch (error) {
    if (isHaikuError(error)) {
      // The server's settings come from its environment and config file (flags are the host's launch line).
      return errorResult(cliErrorText(error, new Set()));
    }
    return errorResult(`The tool failed: ${errorMessage(error)}. Check the arguments; if it persists, restart the Haiku MCP server and report the message.`);
  }
}

/** What a tool handler gets besides its arguments: the request's cancellation, progress token and notifier. */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Tells the client what a long call is doing; a no-op when the request carries no progress token. */
export interface ToolProgress {
  report(message: string): void;
}

/**
 * Progress notifications for one call whose request carries a progress token: each `report`, and a heartbeat
 * after `MCP_PROGRESS_HEARTBEAT_MS` without one, so a client that resets its timeout on progress keeps waiting
 * for a model that thinks for minutes. Without a token the client cannot be told anything (and the SDK client's
 * 60 s timeout then ends the call whatever the server does).
 */
function startProgress(extra: ToolCallExtra, abortSignal: AbortSignal): ToolProgress & { stop(): void } {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) {
    return { report: () => undefined, stop: () => undefined };
  }
  const started = Date.now();
  let progress = 0;
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const send = (message: string) => {
    if (stopped || abortSignal.aborted) {
      return;
    }
    // The protocol wants a value that grows with every notification; there is no known total.
    progress += 1;
    // A closed transport fails the send: the call itself ends through its abort signal.
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => undefined);
    schedule();
  };
  const schedule = () => {
    clearTimeout(heartbeat);
    heartbeat = setTimeout(() => send(`Still working (${Math.round((Date.now() - started) / 1000)} s).`), MCP_PROGRESS_HEARTBEAT_MS);
  };
  schedule();
  return {
    report: send,
    stop: () => {
      stopped = true;
      clearTimeout(heartbeat);
    },
  };
}

/** `runTool` for calls that can outlast a client's request timeout (a model's answer, code): reports progress while it works. */
export async function runLongTool(context: McpToolContext, extra: ToolCallExtra, work: (abortSignal: AbortSignal, progress: ToolProgress) => Promise<CallToolResult>): Promise<CallToolResult> {
  const abortSignal = AbortSignal.any([extra.signal, context.abortSignal]);
  const progress = startProgress(extra, abortSignal);
  try {
    return await runTool(context, abortSignal, (signal) => work(signal, progress));
  } finally {
    progress.stop();
  }
}
