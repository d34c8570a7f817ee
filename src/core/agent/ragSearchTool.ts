import { tool } from 'ai';
import { z } from 'zod';
import type { AgentRun } from './agentRun';
import { searchToolModelOutput } from './pictureAttachments';
import { runSearchTool } from './searchToolShared';

export const RAG_SEARCH_TOOL_NAME = 'rag_search';

/** `rag_search(query, limit?)`: hybrid search with context expansion over the knowledge base. */
export function createRagSearchTool(run: AgentRun) {
  return tool({
    description:
      'Search the knowledge base (hybrid keyword + semantic search, each hit expanded to its surrounding section). ' +
      'Returns ranked results, each starting with its chunk id in brackets, then Source (document title > headings), Type and Content. ' +
      'Searches are limited per question; up to three searches in the same response share one unit, so issue rephrasings together.',
    inputSchema: z.object({
      query: z.string().describe('A few keywords or a short phrase; not the whole question.'),
      limit: z.number().int().min(1).max(50).optional().describe(`Results to return (default ${run.searchLimit}).`),
    }),
    execute: ({ query, limit }, { toolCallId }) => runSearchTool(run, 'rag_search', query, limit, toolCallId),
    // With vision on, the return carries the results' pictures as image parts after their label lines.
    toModelOutput: ({ output }) => searchToolModelOutput(output),
  });
}
