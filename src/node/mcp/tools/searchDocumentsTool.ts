import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { locationOutputSchema, strictArguments } from '../toolSchemas';
import { MCP_SEARCH_MAX_LIMIT } from '../../../core/limits';
import type { DocumentSummary, SearchResult } from '../../../core/model/search';
import { chunkMetaOf } from '../../../core/agent/citations';
import { renderSearchResultForModel } from '../../../core/search/renderResults';
import { locationJson, whereText } from '../documentText';
import type { McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';

export const SEARCH_DOCUMENTS_TOOL_NAME = 'search_documents';

function resultJson(result: SearchResult, document: DocumentSummary | undefined) {
  return {
    rank: result.rank,
    score: result.score,
    chunk_id: result.chunkId,
    chunk_ids: result.mergedChunkIds ?? [result.chunkId],
    document_id: result.documentId,
    uri: result.uri,
    relative_path: document?.relativePath ?? result.uri,
    title: result.title,
    headings: result.headings,
    labels: result.labels,
    location: locationJson([result.sourceRange], result.pageNumbers),
    content: result.content,
    document_meta: document?.metadata ?? {},
    chunk_meta: chunkMetaOf(result),
  };
}

/** `search_documents`: hybrid (or full-text) search with section-aware expansion, as the agent's search sees it. */
export function registerSearchDocumentsTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    SEARCH_DOCUMENTS_TOOL_NAME,
    {
      title: 'Search documents',
      description:
        'Search the indexed documents. Returns ranked results, each with its chunk id (citable), document, heading trail, ' +
        'line range or pages, and the matched passage expanded to its section. Use a few specific keywords rather than a whole question.',
      inputSchema: strictArguments(SEARCH_DOCUMENTS_TOOL_NAME, {
        query: z.string().min(1).describe('Keywords or a short phrase.'),
        limit: z.number().int().min(1).max(MCP_SEARCH_MAX_LIMIT).optional().describe(`Results to return (default ${context.index.search.limit}).`),
        filter: z.string().optional().describe("SQL WHERE clause over documents (uri, relative_path, title, format, metadata), e.g. relative_path LIKE 'guides/%'."),
      }),
      outputSchema: {
        results: z.array(
          z.object({
            rank: z.number().int(),
            score: z.number(),
            chunk_id: z.string(),
            chunk_ids: z.array(z.string()),
            document_id: z.string(),
            uri: z.string(),
            relative_path: z.string(),
            title: z.string(),
            headings: z.array(z.string()),
            labels: z.array(z.string()),
            location: locationOutputSchema,
            content: z.string(),
            document_meta: z.record(z.string(), z.unknown()),
            chunk_meta: z.record(z.string(), z.unknown()),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, limit, filter }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const results = await context.store.search(query, { limit: limit ?? context.index.search.limit, filter, expand: true, abortSignal });
        const documents = new Map((await context.store.listDocuments({ abortSignal })).map((document) => [document.id, document]));
        const blocks = results.map((result, index) => {
          const relativePath = documents.get(result.documentId)?.relativePath ?? result.uri;
          const where = whereText([result.sourceRange], result.pageNumbers);
          const [first, ...rest] = renderSearchResultForModel(result, { rank: index + 1, total: results.length }).split('\n');
          return [first, `Document: ${relativePath}${where ? ` (${where})` : ''}`, ...rest].join('\n');
        });
        const text = results.length === 0 ? `No results for "${query}". Try other keywords, or list_documents to see what is indexed.` : blocks.join('\n\n');
        return textResult(text, { results: results.map((result) => resultJson(result, documents.get(result.documentId))) });
      }),
  );
}
