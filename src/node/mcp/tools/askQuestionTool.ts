import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpToolContext } from '../toolContext';
import { runLongTool, textResult } from '../toolResult';
import { citationOutputSchema, citationStatusOutputSchema, strictArguments } from '../toolSchemas';
import { answerQuestion, answerText, citationBlock, citationOutput, progressFromAgentEvents, relativePathsOf } from '../questionAnswering';

export const ASK_QUESTION_TOOL_NAME = 'ask_question';

/** `ask_question`: the rag capability (search, cite, answer) on the server's model. */
export function registerAskQuestionTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ASK_QUESTION_TOOL_NAME,
    {
      title: 'Ask a question',
      description:
        "Answer a question from the documents: Haiku's agent searches, cites and answers on the model the server was started with. " +
        'With cite=true the answer is followed by a "## Citations" block (document path, chunk ids, location, section and the cited text). ' +
        'A slow model can take minutes: the call sends progress notifications when the request has a progress token.',
      inputSchema: strictArguments(ASK_QUESTION_TOOL_NAME, {
        question: z.string().min(1).describe('The question, in natural language.'),
        cite: z.boolean().optional().describe('Append the citations block (default false).'),
        filter: z.string().optional().describe('SQL WHERE clause over documents to restrict the search to, e.g. relative_path LIKE \'guides/%\'.'),
      }),
      outputSchema: {
        answer: z.string(),
        citations: z.array(citationOutputSchema),
        citation_status: citationStatusOutputSchema,
      },
      // Open world: the answer comes from a model server outside this process.
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ question, cite, filter }, extra) =>
      runLongTool(context, extra, async (abortSignal, progress) => {
        const answer = await answerQuestion(context, { question, mode: 'rag', filter, abortSignal, onEvent: progressFromAgentEvents(progress) });
        const relativePaths = await relativePathsOf(context, answer.citations, abortSignal);
        const text = cite ? `${answerText(answer)}\n\n${citationBlock(answer.citations, relativePaths)}` : answerText(answer);
        return textResult(text, { answer: answer.answer, citations: answer.citations.map((citation) => citationOutput(citation, relativePaths)), citation_status: answer.citationStatus });
      }),
  );
}
