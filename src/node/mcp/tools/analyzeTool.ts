import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpToolContext } from '../toolContext';
import { runLongTool, textResult } from '../toolResult';
import { citationOutputSchema, citationStatusOutputSchema, executionOutputSchema, strictArguments } from '../toolSchemas';
import { answerQuestion, answerText, citationBlock, citationOutput, executionOutput, progressFromAgentEvents, relativePathsOf } from '../questionAnswering';

export const ANALYZE_TOOL_NAME = 'analyze';

/** `analyze`: the analysis capability (code in the sandbox over the documents, search, cite) on the server's model. */
export function registerAnalyzeTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ANALYZE_TOOL_NAME,
    {
      title: 'Analyze the documents',
      description:
        "Answer a question that needs counting, listing, comparing or reading whole sections: Haiku's agent writes and runs " +
        'JavaScript over the documents in a sandbox, on the model the server was started with, and answers with citations ' +
        '(a "## Citations" block after the answer: document path, chunk ids, location, section and the cited text). ' +
        'A slow model can take minutes: the call sends progress notifications when the request has a progress token.',
      inputSchema: strictArguments(ANALYZE_TOOL_NAME, {
        question: z.string().min(1).describe('The question, in natural language.'),
        filter: z.string().optional().describe("SQL WHERE clause over documents: the analysis sees only these, e.g. format = 'pdf'."),
      }),
      outputSchema: {
        answer: z.string(),
        citations: z.array(citationOutputSchema),
        citation_status: citationStatusOutputSchema,
        executions: z.array(executionOutputSchema),
      },
      // Open world: the answer comes from a model server outside this process.
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ question, filter }, extra) =>
      runLongTool(context, extra, async (abortSignal, progress) => {
        const answer = await answerQuestion(context, { question, mode: 'analysis', filter, abortSignal, onEvent: progressFromAgentEvents(progress) });
        const relativePaths = await relativePathsOf(context, answer.citations, abortSignal);
        // The citations travel in the text too: many clients show the model only the text, not structuredContent.
        const text = answer.citations.length > 0 ? `${answerText(answer)}\n\n${citationBlock(answer.citations, relativePaths)}` : answerText(answer);
        return textResult(text, {
          answer: answer.answer,
          citations: answer.citations.map((citation) => citationOutput(citation, relativePaths)),
          citation_status: answer.citationStatus,
          executions: answer.executions.map(executionOutput),
        });
      }),
  );
}
