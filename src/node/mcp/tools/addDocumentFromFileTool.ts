import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { HaikuError } from '../../../core/errors';
import { isPathInside } from '../../../core/pathContainment';
import { indexPaths } from '../../index/indexer';
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
        `Relative paths resolve against ${context.cwd}. An unchanged file is left as it is; a changed one is re-indexed.`,
      inputSchema: {
        file_path: z.string().min(1).describe('Path of the file or folder.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ file_path: filePath }, extra) =>
      runTool(context, extra.signal, async (abortSignal) => {
        const target = path.resolve(context.cwd, filePath);
        if (!fs.existsSync(target)) {
          throw new HaikuError('not_found', `${target} does not exist. Give a path on the server machine (relative paths resolve against ${context.cwd}).`);
        }
        const summary = await indexPaths({ roots: [target], store: context.store, embedder: context.embedder, baseFolder: context.cwd, abortSignal });
        const documents = (await context.store.listDocuments({ abortSignal })).filter((document) => document.uri.startsWith('file:') && isPathInside(fileURLToPath(document.uri), target));
        if (documents.length === 0) {
          const reasons = summary.failed.map((failure) => failure.reason).join('\n') || 'No supported file (Markdown, HTML, PDF, DOCX, text) was found there.';
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
