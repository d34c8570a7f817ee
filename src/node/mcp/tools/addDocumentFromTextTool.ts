import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { addDocumentFromText } from '../../ingest/addDocument';
import { addedDocumentOutputSchema, addMetadataInputSchema, strictArguments } from '../toolSchemas';
import type { McpToolContext } from '../toolContext';
import { runTool } from '../toolResult';
import { addedDocumentResult } from './addDocumentFromUrlTool';

export const ADD_DOCUMENT_FROM_TEXT_TOOL_NAME = 'add_document_from_text';

/** `add_document_from_text`: indexes text the client gives (Markdown by default) under a title. */
export function registerAddDocumentFromTextTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ADD_DOCUMENT_FROM_TEXT_TOOL_NAME,
    {
      title: 'Add a document from text',
      description:
        'Index text as a document (Markdown by default; html or text with `format`). Its title is `title`, else its first heading. ' +
        'Its identity is `uri` when given, else the title (text:<title>), so adding text under the same title again replaces that document.',
      inputSchema: strictArguments(ADD_DOCUMENT_FROM_TEXT_TOOL_NAME, {
        content: z.string().min(1).describe('The document\'s text.'),
        title: z.string().min(1).optional().describe('The title; default: the first heading of the text.'),
        format: z.enum(['markdown', 'html', 'text']).optional().describe('How the text is read (default markdown).'),
        uri: z.string().min(1).optional().describe('The document\'s URI (its identity), e.g. where the text came from; default text:<title>.'),
        metadata: addMetadataInputSchema.optional().describe('Pairs stored in the document\'s metadata (searchable with filters), e.g. {"team": "docs"}.'),
      }),
      outputSchema: addedDocumentOutputSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ content, title, format, uri, metadata }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => addedDocumentResult(await addDocumentFromText(context.index, content, { title, format, uri, metadata, abortSignal }))),
  );
}
