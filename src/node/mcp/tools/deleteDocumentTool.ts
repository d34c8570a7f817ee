import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { strictArguments } from '../toolSchemas';
import { requireDocument } from '../../../core/documents/documentAccess';
import { MCP_DOCUMENT_LIST_HINT, type McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';

export const DELETE_DOCUMENT_TOOL_NAME = 'delete_document';

/** `delete_document`: removes one document (its chunks and items) from the index; the file stays. */
export function registerDeleteDocumentTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    DELETE_DOCUMENT_TOOL_NAME,
    {
      title: 'Delete a document',
      description: 'Remove one document from the index by id or path (the file itself is not touched).',
      inputSchema: strictArguments(DELETE_DOCUMENT_TOOL_NAME, {
        document_id: z.string().min(1).describe('Document id, or its path as list_documents shows it.'),
      }),
      outputSchema: { deleted: z.boolean(), document_id: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ document_id: reference }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const document = await requireDocument(context.store, reference, { listHint: MCP_DOCUMENT_LIST_HINT, abortSignal });
        await context.store.removeDocuments([document.id], { abortSignal });
        return textResult(`Deleted ${document.relativePath} (id ${document.id}) from the index.`, { deleted: true, document_id: document.id });
      }),
  );
}
