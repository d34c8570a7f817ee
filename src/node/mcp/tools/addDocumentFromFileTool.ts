import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { documentOutputSchema, strictArguments } from '../toolSchemas';
import { HaikuError } from '../../../core/errors';
import { isPathInside } from '../../../core/pathContainment';
import { checkAddablePath, indexWithRules } from '../../backend/indexWithRules';
import type { McpToolContext } from '../toolContext';
import { runTool, textResult } from '../toolResult';
import { documentJson } from './listDocumentsTool';

export const ADD_DOCUMENT_FROM_FILE_TOOL_NAME = 'add_document_from_file';

/** `add_document_from_file`: indexes a file (or every supported file under a folder) into the server's index. */
export function registerAddDocumentFromFileTool(server: McpServer, context: McpToolContext): void {
  server.registerTool(
    ADD_DOCUMENT_FROM_FILE_TOOL_NAME,
    {
      title: 'Add a document from a file',
      description:
        'Index a Markdown, HTML, PDF, DOCX or text file (or every such file under a folder) on the server machine. ' +
        `Only files inside the index's folders are accepted, under its include/exclude globs and size limit. Relative paths resolve against ${context.cwd}. An unchanged file is left as it is; a changed one is re-indexed.`,
      inputSchema: strictArguments(ADD_DOCUMENT_FROM_FILE_TOOL_NAME, {
        file_path: z.string().min(1).describe('Path of the file or folder.'),
      }),
      outputSchema: {
        document_id: z.string(),
        documents: z.array(documentOutputSchema),
        added: z.array(z.string()),
        updated: z.array(z.string()),
        failed: z.array(z.object({ path: z.string(), code: z.string(), reason: z.string() })),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ file_path: filePath }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        // Only files inside the index's folders, symlinks resolved: the server must not read the machine for its client.
        const { target, baseFolder } = await checkAddablePath(context.index, filePath, context.cwd);
        // The configured rules as `haiku index` applies them; a file named here obeys the include globs and .gitignore too.
        const summary = await indexWithRules(context.index, [target], { baseFolder, fileRootsFollowRules: true, abortSignal });
        const documents = (await context.store.listDocuments({ abortSignal })).filter((document) => document.uri.startsWith('file:') && isPathInside(fileURLToPath(document.uri), target));
        if (documents.length === 0) {
          const reasons = summary.failed.map((failure) => failure.reason).join('\n') || 'No file there is a supported format (Markdown, HTML, PDF, DOCX, text) that the index\'s include and exclude globs and .gitignore files let in.';
          throw new HaikuError('unsupported_format', `Nothing was indexed from ${target}:\n${reasons}`);
        }
        const counts = `added ${summary.added.length}, updated ${summary.updated.length}, unchanged ${summary.unchanged}, failed ${summary.failed.length}`;
        const lines = documents.map((document) => `- ${document.relativePath} (id ${document.id})`);
        const failures = summary.failed.map((failure) => `failed: ${failure.reason}`);
        return textResult([`Indexed ${target}: ${counts}.`, ...lines, ...failures].join('\n'), {
          document_id: documents[0].id,
          documents: documents.map(documentJson),
          added: summary.added,
          updated: summary.updated,
          failed: summary.failed,
        });
      }),
  );
}
