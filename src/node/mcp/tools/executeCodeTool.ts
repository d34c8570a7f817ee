import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { describeExecution } from '../../../core/agent/executeCodeTool';
import { sandboxApiDescription } from '../../../core/analysis/sandboxApi';
import type { McpToolContext } from '../toolContext';
import { runLongTool } from '../toolResult';
import { strictArguments } from '../toolSchemas';

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
      inputSchema: strictArguments(EXECUTE_CODE_TOOL_NAME, {
        code: z.string().describe('JavaScript to run; print results with console.log. May be empty with reset=true.'),
        reset: z.boolean().optional().describe('Discard the variables of earlier calls before running (default false).'),
      }),
      outputSchema: {
        stdout: z.string(),
        stderr: z.string(),
        success: z.boolean(),
        duration_ms: z.number(),
        session_reset: z.boolean().describe('True when the variables of earlier calls are gone (reset=true, or a timeout or crash reset the session).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ code, reset }, extra) =>
      // Code may run up to the sandbox's timeout (60 s by default) after the sandbox starts: as long as a client's.
      runLongTool(context, extra, async (abortSignal) => {
        if (reset) {
          await context.codeSession.reset();
          if (code.trim() === '') {
            return {
              content: [{ type: 'text', text: 'The sandbox session was reset: earlier variables are gone.' }],
              structuredContent: { stdout: '', stderr: '', success: true, duration_ms: 0, session_reset: true },
            };
          }
        }
        const result = await context.codeSession.execute(code, abortSignal);
        return {
          content: [{ type: 'text', text: describeExecution(result) }],
          structuredContent: { stdout: result.stdout, stderr: result.stderr, success: result.success, duration_ms: result.durationMs, session_reset: result.sessionReset || reset === true },
          isError: !result.success,
        };
      }),
  );
}
