import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';
import { citationJson } from '../../cli/questions';
import { answerQuestion, answerText, citationBlock } from '../questionAnswering';

export const ASK_QUESTION_TOOL_NAME = 'ask_question';

/** `ask_question`: the rag capability (search, cite, answer) on the server's model. */
export function registerAskQuestionTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ASK_QUESTION_TOOL_NAME,
    {
      title: 'Ask a question',
      description:
        "Answer a question from the documents: Haiku's agent searches, cites and answers on the model the server was started with. " +
        'With cite=true the answer is followed by a "## Citations" block (document, location, section and the cited text).',
      inputSchema: {
        question: z.string().min(1).describe('The question, in natural language.'),
        cite: z.boolean().optional().describe('Append the citations block (default false).'),
        filter: z.string().optional().describe('SQL WHERE clause over documents to restrict the search to, e.g. relative_path LIKE \'guides/%\'.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ question, cite, filter }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const answer = await answerQuestion(context, { question, mode: 'rag', filter, abortSignal });
        const text = cite ? `${answerText(answer)}\n\n${citationBlock(answer.citations)}` : answerText(answer);
        return textResult(text, { answer: answer.answer, citations: answer.citations.map(citationJson), citation_status: answer.citationStatus });
      }),
  );
}
