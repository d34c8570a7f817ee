import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, isHaikuError } from '../../core/errors';
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
