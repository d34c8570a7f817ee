import { tool } from 'ai';
import { z } from 'zod';
import type { AgentRun } from './agentRun';
import { describeCitationReport } from './citations';
import { citedIdsProblem } from './hostInputLimits';
import { CITE_MAX_IDS, CITED_ID_MAX_CHARS } from '../limits';

export const RAG_CITE_TOOL_NAME = 'rag_cite';

/** Input of both cite tools: a list of chunk ids (a single string is accepted too, models often send one). */
export const citeInputSchema = z.object({
  chunk_ids: z
    .union([z.array(z.string()), z.string()])
    .describe('Chunk ids exactly as they appear in brackets at the start of each result; an empty list when nothing supports the answer.'),
});

/** The shared body of `rag_cite` and `cite`. */
export function runCiteTool(run: AgentRun, chunkIds: string[] | string): Promise<string> {
  // A single string longer than any acceptable list is refused before it is split.
  const tooLong = typeof chunkIds === 'string' && chunkIds.length > CITE_MAX_IDS * (CITED_ID_MAX_CHARS + 1) ? citedIdsProblem([chunkIds]) : undefined;
  const ids = tooLong !== undefined ? [] : typeof chunkIds === 'string' ? chunkIds.split(/[\s,]+/).filter((id) => id !== '') : chunkIds;
  const problem = tooLong ?? citedIdsProblem(ids);
  if (problem !== undefined) {
    return Promise.resolve(`Nothing was registered: ${problem}`);
  }
  return run.serialize(async () => describeCitationReport(await run.cite(ids), ids.length));
}

/** `rag_cite(chunk_ids)`: registers the retrieved chunks that support the answer. */
export function createRagCiteTool(run: AgentRun) {
  return tool({
    description:
      'Register the chunk ids that support your answer, before you write it. Mandatory for every answer that uses the knowledge base; ' +
      'pass an empty list when nothing you found supports the answer. Copy ids verbatim from the search results.',
    inputSchema: citeInputSchema,
    execute: ({ chunk_ids }) => runCiteTool(run, chunk_ids),
  });
}
