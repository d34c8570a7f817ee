import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { describeExecution } from '../../../core/agent/executeCodeTool';
import { sandboxApiDescription } from '../../../core/analysis/sandboxApi';
import type { McpToolContext } from '../toolContext';
import { runTool } from '../toolResult';

export const EXECUTE_CODE_TOOL_NAME = 'execute_code';

/**
 * `execute_code`: one run of JavaScript in this MCP session's QuickJS sandbox over the read-only `/documents`
 * filesystem, with the agent's limits. Variables persist between calls of the session until `reset`.
 */
export function registerExecuteCodeTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    EXECUTE_CODE_TOOL_NAME,
    {
      title: 'Execute code over the documents',
      description:
        `${sandboxApiDescription(context.sandboxLimits)}\n` +
        'Variables and functions persist between calls of this MCP session; pass reset=true to start from a clean session first.',
      inputSchema: {
        code: z.string().describe('JavaScript to run; print results with console.log. May be empty with reset=true.'),
        reset: z.boolean().optional().describe('Discard the variables of earlier calls before running (default false).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ code, reset }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        if (reset) {
          await context.codeSession.reset();
          if (code.trim() === '') {
            return { content: [{ type: 'text', text: 'The sandbox session was reset: earlier variables are gone.' }] };
          }
        }
        const result = await context.codeSession.execute(code, abortSignal);
        return {
          content: [{ type: 'text', text: describeExecution(result) }],
          structuredContent: { stdout: result.stdout, stderr: result.stderr, success: result.success, duration_ms: result.durationMs, session_reset: result.sessionReset },
          isError: !result.success,
        };
      }),
  );
}
