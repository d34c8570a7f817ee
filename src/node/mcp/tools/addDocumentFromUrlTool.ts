import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { addDocumentFromUrl, type AddedDocument } from '../../ingest/addDocument';
import { addedDocumentOutputSchema, addMetadataInputSchema, strictArguments } from '../toolSchemas';
import type { McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';
import { documentJson } from './listDocumentsTool';

export const ADD_DOCUMENT_FROM_URL_TOOL_NAME = 'add_document_from_url';

/** The flag of `haiku mcp` that lets add_document_from_url read servers on this machine. */
export const MCP_ALLOW_LOOPBACK_FLAG = '--allow-loopback-urls';

/** The result of an add tool: one line saying what happened, and the document as list_documents shows it. */
export function addedDocumentResult(added: AddedDocument): CallToolResult {
  const { document } = added;
  const what =
    added.status === 'unchanged'
      ? `Unchanged (${added.unchangedBecause === 'not_modified' ? 'the server answered 304 Not Modified' : 'same content, title and metadata'}): nothing was written`
      : `${added.status === 'added' ? 'Added' : 'Updated'} (${added.chunks} chunk${added.chunks === 1 ? '' : 's'})`;
  const lines = [`${what}: ${document.title} — ${document.relativePath} (id ${document.id}).`, ...added.warnings.map((warning) => `warning: ${warning}`)];
  return textResult(lines.join('\n'), {
    document_id: document.id,
    status: added.status,
    unchanged_because: added.unchangedBecause ?? null,
    document: documentJson(document),
    chunks: added.chunks ?? null,
    warnings: added.warnings,
  });
}

/** `add_document_from_url`: fetches an http(s) URL (SSRF guard, size and time limits) and indexes it. */
export function registerAddDocumentFromUrlTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ADD_DOCUMENT_FROM_URL_TOOL_NAME,
    {
      title: 'Add a document from a URL',
      description:
        'Fetch an http(s) URL (HTML, Markdown, PDF, DOCX, PPTX, XLSX, CSV, plain text) and index it; the URL is its identity, so adding it again refreshes it ' +
        '(nothing is written when the server says it is unchanged or the content hash is the same). Private, link-local and cloud metadata addresses are refused' +
        (context.allowLoopbackUrls ? '.' : `, and so is this machine (loopback) unless the server was started with ${MCP_ALLOW_LOOPBACK_FLAG}.`),
      inputSchema: strictArguments(ADD_DOCUMENT_FROM_URL_TOOL_NAME, {
        url: z.string().min(1).describe('The http:// or https:// address.'),
        title: z.string().min(1).optional().describe('The title to store instead of the one found in the document.'),
        metadata: addMetadataInputSchema.optional().describe('Pairs stored in the document\'s metadata (searchable with filters), e.g. {"team": "docs"}.'),
      }),
      outputSchema: addedDocumentOutputSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ url, title, metadata }, extra) =>
      runTool(context, extra.signal, async (abortSignal) =>
        addedDocumentResult(await addDocumentFromUrl(context.index, url, { title, metadata, abortSignal, allowLoopback: context.allowLoopbackUrls === true, wording: { loopbackFlag: `\`haiku mcp ${MCP_ALLOW_LOOPBACK_FLAG}\`` } })),
      ),
  );
}
