import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';
import { citationJson, executionJson } from '../../cli/questions';
import { answerQuestion, answerText } from '../questionAnswering';

export const ANALYZE_TOOL_NAME = 'analyze';

/** `analyze`: the analysis capability (code in the sandbox over the documents, search, cite) on the server's model. */
export function registerAnalyzeTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ANALYZE_TOOL_NAME,
    {
      title: 'Analyze the documents',
      description:
        "Answer a question that needs counting, listing, comparing or reading whole sections: Haiku's agent writes and runs " +
        'JavaScript over the documents in a sandbox, on the model the server was started with, and answers with citations.',
      inputSchema: {
        question: z.string().min(1).describe('The question, in natural language.'),
        filter: z.string().optional().describe("SQL WHERE clause over documents: the analysis sees only these, e.g. format = 'pdf'."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ question, filter }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const answer = await answerQuestion(context, { question, mode: 'analysis', filter, abortSignal });
        return textResult(answerText(answer), {
          answer: answer.answer,
          citations: answer.citations.map(citationJson),
          citation_status: answer.citationStatus,
          executions: answer.executions.map(executionJson),
        });
      }),
  );
}
