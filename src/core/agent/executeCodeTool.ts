import { tool } from 'ai';
import { z } from 'zod';
import { errorMessage, isHaikuError } from '../errors';
import { sandboxApiDescription } from '../analysis/sandboxApi';
import type { AgentRun } from './agentRun';
import type { ExecutionRecord } from './conversationState';

export const EXECUTE_CODE_TOOL_NAME = 'execute_code';

/** What `execute_code` answers once the question's execution budget is spent. */
export function executionBudgetSpentNotice(maxExecutions: number): string {
  return (
    `Execution budget spent: this question already ran ${maxExecutions} execute_code call(s), so this code did not run. ` +
    'Do not run more code. Cite the chunk ids that support your answer, then answer from what you already have.'
  );
}

/** The tool return for one execution: output on success, error plus partial output on failure (the sandbox's stderr already says when the session was reset). */
export function describeExecution(result: { stdout: string; stderr: string; success: boolean }): string {
  const parts: string[] = [];
  if (result.success) {
    parts.push(result.stdout.trim() === '' ? 'No output.' : result.stdout);
    if (result.stderr.trim() !== '') {
      parts.push(`Error output:\n${result.stderr}`);
    }
  } else {
    parts.push(`The code failed:\n${result.stderr.trim() === '' ? 'unknown error' : result.stderr}`);
    if (result.stdout.trim() !== '') {
      parts.push(`Output before the failure:\n${result.stdout}`);
    }
  }
  return parts.join('\n\n');
}

/** `execute_code(code)`: runs JavaScript in the question's QuickJS sandbox with the documents mounted read-only. */
export function createExecuteCodeTool(run: AgentRun, limits: { codeTimeoutSeconds: number; maxOutputChars: number }) {
  return tool({
    description: sandboxApiDescription(limits),
    inputSchema: z.object({
      code: z.string().describe('JavaScript to run; print results with console.log.'),
    }),
    execute: ({ code }, { toolCallId, abortSignal }) =>
      run.serialize(async () => {
        if (!run.executionBudget.tryClaim()) {
          return executionBudgetSpentNotice(run.executionBudget.maxExecutions);
        }
        run.emit({ type: 'execution-started', code, toolCallId });
        const startedAt = Date.now();
        let record: ExecutionRecord;
        try {
          const sandbox = await run.sandbox();
          const result = await sandbox.execute(code, { abortSignal: abortSignal ?? run.abortSignal });
          record = { code, stdout: result.stdout, stderr: result.stderr, success: result.success, durationMs: result.durationMs };
        } catch (error) {
          if (run.abortSignal?.aborted || isHaikuError(error, 'cancelled')) {
            throw error;
          }
          run.discardSandbox();
          record = { code, stdout: '', stderr: `The sandbox failed: ${errorMessage(error)}`, success: false, durationMs: Date.now() - startedAt };
        }
        run.state.executions.push(record);
        if (record.success || record.stdout.trim() !== '') {
          run.noteEvidence();
        }
        run.emit({ type: 'execution-finished', execution: record, toolCallId });
        return describeExecution(record);
      }),
  });
}
