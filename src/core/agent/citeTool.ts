import { tool } from 'ai';
import type { AgentRun } from './agentRun';
import { citeInputSchema, runCiteTool } from './ragCiteTool';

export const CITE_TOOL_NAME = 'cite';

/** The analysis tool set's `cite(chunk_ids)`: accepts ids from search results, `items.jsonl` rows and `toc.json` nodes. */
export function createCiteTool(run: AgentRun) {
  return tool({
    description:
      'Register the chunk ids that support your answer, before you write it. Ids may come from search results, from `chunk_ids` of ' +
      '`items.jsonl` rows or `toc.json` nodes. Pass an empty list for corpus-level computations or when nothing supports the answer. ' +
      'Never cite self_refs or positions.',
    inputSchema: citeInputSchema,
    execute: ({ chunk_ids }) => runCiteTool(run, chunk_ids),
  });
}
