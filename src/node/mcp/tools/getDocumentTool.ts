import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { documentOutputSchema, strictArguments } from '../toolSchemas';
import { MCP_DOCUMENT_MAX_CHARS } from '../../../core/limits';
import { buildSectionTree } from '../../../core/toc';
import { requireDocument } from '../../../core/documents/documentAccess';
import { cutText, outlineText } from '../documentText';
import { MCP_DOCUMENT_LIST_HINT, type McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';
import { documentJson } from './listDocumentsTool';

export const GET_DOCUMENT_TOOL_NAME = 'get_document';

/** `get_document`: one document's metadata, section outline (with the item ranges `read_section` takes) and text. */
export function registerGetDocumentTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    GET_DOCUMENT_TOOL_NAME,
    {
      title: 'Get a document',
      description:
        `Get one document by id or path: its metadata, its section outline with item ranges, and its text as Markdown ` +
        `(cut after ${MCP_DOCUMENT_MAX_CHARS} characters; read longer documents section by section with read_section).`,
      inputSchema: strictArguments(GET_DOCUMENT_TOOL_NAME, {
        document_id: z.string().min(1).describe('Document id, or its path as list_documents shows it.'),
      }),
      outputSchema: { document: documentOutputSchema, item_count: z.number().int(), content_chars: z.number().int() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ document_id: reference }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const document = await requireDocument(context.store, reference, { listHint: MCP_DOCUMENT_LIST_HINT, abortSignal });
        const items = await context.store.getDocumentItems(document.id);
        const tree = buildSectionTree(items);
        const content = (await context.store.getDocumentContent(document.id)) ?? '';
        const text = [
          `${document.title || 'Untitled'} (${document.relativePath}, ${document.format}, id ${document.id}, ${items.length} items)`,
          '',
          'Sections:',
          outlineText(tree, items),
          '',
          'Content:',
          cutText(content, MCP_DOCUMENT_MAX_CHARS, 'read the rest with read_section'),
        ].join('\n');
        return textResult(text, { document: documentJson(document), item_count: items.length, content_chars: content.length });
      }),
  );
}
