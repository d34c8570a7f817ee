import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { documentOutputSchema, strictArguments } from '../toolSchemas';
import type { DocumentSummary } from '../../../core/model/search';
import type { McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';

export const LIST_DOCUMENTS_TOOL_NAME = 'list_documents';

export function documentJson(document: DocumentSummary) {
  return {
    id: document.id,
    title: document.title || 'Untitled',
    uri: document.uri,
    relative_path: document.relativePath,
    format: document.format,
    metadata: document.metadata,
    created: document.createdAt.slice(0, 10),
    updated: document.updatedAt.slice(0, 10),
  };
}

/** `list_documents`: the indexed documents by path, optionally filtered and paged. */
export function registerListDocumentsTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    LIST_DOCUMENTS_TOOL_NAME,
    {
      title: 'List documents',
      description: 'List the indexed documents (id, title, path, format), sorted by path. Page with limit and offset; narrow with an SQL filter.',
      inputSchema: strictArguments(LIST_DOCUMENTS_TOOL_NAME, {
        limit: z.number().int().min(1).optional().describe('Documents to return (default: all).'),
        offset: z.number().int().min(0).optional().describe('Documents to skip first (default 0).'),
        filter: z.string().optional().describe("SQL WHERE clause over documents (uri, relative_path, title, format, metadata), e.g. format = 'pdf'."),
      }),
      outputSchema: { total: z.number().int(), documents: z.array(documentOutputSchema) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ limit, offset, filter }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const all = await context.store.listDocuments({ filter, abortSignal });
        const start = offset ?? 0;
        const page = all.slice(start, limit === undefined ? undefined : start + limit);
        const header = page.length === all.length ? `${all.length} documents` : `Documents ${start + 1}-${start + page.length} of ${all.length}`;
        const lines = page.map((document) => `- ${document.relativePath} — "${document.title || 'Untitled'}" (${document.format}, id ${document.id})`);
        const text = all.length === 0 ? (filter ? 'No document matches the filter.' : 'No documents are indexed. Index some with `haiku index <folder>`.') : `${header}:\n${lines.join('\n')}`;
        return textResult(text, { total: all.length, documents: page.map(documentJson) });
      }),
  );
}
