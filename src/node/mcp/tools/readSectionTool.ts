import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { locationOutputSchema, strictArguments } from '../toolSchemas';
import { HaikuError } from '../../../core/errors';
import { MCP_SECTION_MAX_CHARS } from '../../../core/limits';
import { buildSectionTree } from '../../../core/toc';
import { cutText, itemsAsMarkdown, locationJson, outlineText, whereText } from '../documentText';
import { lookUpSection, requireDocument } from '../../../core/documents/documentAccess';
import { MCP_DOCUMENT_LIST_HINT, type McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';

export const READ_SECTION_TOOL_NAME = 'read_section';

/** `read_section`: a section (by title or heading trail) or an item range of one document, as Markdown. */
export function registerReadSectionTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    READ_SECTION_TOOL_NAME,
    {
      title: 'Read a section',
      description:
        'Read part of a document as Markdown: a section by its title or heading trail ("Guide > Install"), or the items ' +
        'start_item..end_item (inclusive, as get_document lists them). Returns the text with its lines or pages and chunk ids.',
      inputSchema: strictArguments(READ_SECTION_TOOL_NAME, {
        document_id: z.string().min(1).describe('Document id, or its path as list_documents shows it.'),
        section: z.string().optional().describe('Section title or heading trail. Give this or an item range.'),
        start_item: z.number().int().min(0).optional().describe('First item position of a range.'),
        end_item: z.number().int().min(0).optional().describe('Last item position of a range (inclusive; default start_item).'),
      }),
      outputSchema: {
        document_id: z.string(),
        relative_path: z.string(),
        section: z.string(),
        item_range: z.array(z.number().int()).length(2).describe('First and last item position (inclusive).'),
        chunk_ids: z.array(z.string()),
        location: locationOutputSchema,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ document_id: reference, section: sectionReference, start_item: startItem, end_item: endItem }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const document = await requireDocument(context.store, reference, { listHint: MCP_DOCUMENT_LIST_HINT, abortSignal });
        const items = await context.store.getDocumentItems(document.id);
        const tree = buildSectionTree(items);
        let range: [number, number];
        let heading: string;
        if (sectionReference !== undefined && sectionReference.trim() !== '') {
          const { section, ambiguous } = lookUpSection(tree, sectionReference);
          if (!section) {
            const hint = ambiguous.length > 0 ? `Several sections match: ${ambiguous.map((title) => `"${title}"`).join(', ')}. Give the full title or a trail.` : 'The sections are:';
            throw new HaikuError('not_found', `No section "${sectionReference}" in ${document.relativePath}. ${hint}\n${outlineText(tree, items)}`);
          }
          range = section.itemRange;
          heading = section.title;
        } else if (startItem !== undefined) {
          const last = endItem ?? startItem;
          if (last < startItem || startItem >= items.length) {
            throw new HaikuError('not_found', `Items ${startItem}-${last} are not in ${document.relativePath}, which has items 0-${items.length - 1}. Call get_document for its outline.`);
          }
          range = [startItem, Math.min(last, items.length - 1) + 1];
          heading = `items ${range[0]}-${range[1] - 1}`;
        } else {
          throw new HaikuError('invalid_settings', `Give a section title or start_item. The sections of ${document.relativePath} are:\n${outlineText(tree, items)}`);
        }
        const inside = items.filter((item) => item.position >= range[0] && item.position < range[1]);
        const ranges = inside.map((item) => item.sourceRange);
        const pages = inside.flatMap((item) => item.pageNumbers);
        const chunkIds = [...new Set(inside.flatMap((item) => item.chunkIds))];
        const where = whereText(ranges, pages);
        const text = `${document.relativePath}${where ? ` (${where})` : ''} — ${heading}\nChunk ids: ${chunkIds.join(', ') || '(none)'}\n\n${cutText(itemsAsMarkdown(inside), MCP_SECTION_MAX_CHARS, 'read a subsection or a smaller item range for the rest')}`;
        return textResult(text, {
          document_id: document.id,
          relative_path: document.relativePath,
          section: heading,
          item_range: [range[0], range[1] - 1],
          chunk_ids: chunkIds,
          location: locationJson(ranges, pages),
        });
      }),
  );
}
