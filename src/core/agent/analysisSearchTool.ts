import { tool } from 'ai';
import { z } from 'zod';
import type { AgentRun } from './agentRun';
import { searchToolModelOutput } from './pictureAttachments';
import { runSearchTool } from './searchToolShared';

export const ANALYSIS_SEARCH_TOOL_NAME = 'search';

/** The analysis tool set's `search(query, limit?)`: the same search as `rag_search`, with the analysis capability's own budget. */
export function createAnalysisSearchTool(run: AgentRun) {
  return tool({
    description:
      'Search the documents (hybrid keyword + semantic search with context expansion). Each result starts with its chunk id in brackets, ' +
      'then Source, Type and Content. Use it to find where something is discussed; inside execute_code, `await search(query, limit)` returns the same hits as data. ' +
      'Searches are limited per question; up to three searches in the same response share one unit.',
    inputSchema: z.object({
      query: z.string().describe('A few keywords or a short phrase.'),
      limit: z.number().int().min(1).max(50).optional().describe(`Results to return (default ${run.searchLimit}).`),
    }),
    execute: ({ query, limit }, { toolCallId }) => runSearchTool(run, 'search', query, limit, toolCallId),
    // With vision on, the return carries the results' pictures as image parts after their label lines.
    toModelOutput: ({ output }) => searchToolModelOutput(output),
  });
}
