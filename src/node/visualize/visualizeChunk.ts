import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { PageBox } from '../../core/model/document';
import type { KnowledgeBase, SearchResult } from '../../core/model/search';
import { HaikuError, throwIfAborted } from '../../core/errors';
import { expandSearchResults } from '../../core/search/contextExpansion';
import { renderHighlightedPage, type HighlightedPage } from './pageRenderer';

export interface VisualizeChunkOptions {
  knowledgeBase: KnowledgeBase;
  chunkId: string;
  /** Draw the context that expansion would sweep in around the chunk, faintly (default true). */
  expand?: boolean;
  maxContextChars: number;
  scale?: number;
  abortSignal?: AbortSignal;
}

export interface VisualizedChunk {
  /** One rendered page per page the chunk's own items are on, in page order. */
  pages: Array<HighlightedPage & { page: number }>;
  documentPath: string;
  /** Problems worth telling the user (e.g. the file changed since it was indexed). */
  warnings: string[];
}

/**
 * Renders the page(s) of a PDF chunk with its own items drawn strongly and the expanded context faintly
 * (haiku.rag's `visualize_chunk`). Item boxes come from the index; the source file is read only to render the page,
 * and a warning says when it changed since it was indexed.
 */
export async function visualizeChunk(options: VisualizeChunkOptions): Promise<VisualizedChunk> {
  const { knowledgeBase, chunkId } = options;
  const [chunk] = await knowledgeBase.getChunks([chunkId]);
  if (!chunk) {
    throw new HaikuError('not_found', `No chunk ${chunkId} in the index. Chunk ids come from \`haiku search --json\` (chunk_id) or a citation.`);
  }
  const document = await knowledgeBase.getDocument(chunk.documentId);
  if (!document || document.format !== 'pdf') {
    throw new HaikuError('invalid_settings', `Chunk ${chunkId} is from ${document?.relativePath ?? chunk.uri}, a ${document?.format ?? 'missing'} document; visualize draws PDF pages. Open the file at the chunk's lines instead.`);
  }
  const documentPath = chunk.uri.startsWith('file:') ? fileURLToPath(chunk.uri) : chunk.uri;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await fs.promises.readFile(documentPath));
  } catch (error) {
    throw new HaikuError('unreadable_file', `${documentPath} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); visualize renders the source PDF. Restore the file or re-index.`, { cause: error });
  }
  const warnings: string[] = [];
  if (createHash('sha256').update(bytes).digest('hex') !== document.contentHash) {
    warnings.push(`${document.relativePath} changed since it was indexed; the boxes may not match. Run \`haiku index\` to refresh it.`);
  }
  throwIfAborted(options.abortSignal, 'Visualizing the chunk');
  // The index keeps every PDF item's boxes; the file is only read to draw its page.
  const items = await knowledgeBase.getDocumentItems(chunk.documentId);
  const boxesByRef = new Map(items.map((item) => [item.selfRef, item.boxes ?? []]));
  const own = new Set(chunk.docItemRefs);
  const strong = chunk.docItemRefs.flatMap((ref) => boxesByRef.get(ref) ?? []);
  let faint: PageBox[] = [];
  if (options.expand ?? true) {
    const asResult: SearchResult = { ...chunk, score: 1, rank: 1 };
    const [expanded] = expandSearchResults([asResult], new Map([[chunk.documentId, items]]), { maxContextChars: options.maxContextChars });
    faint = (expanded?.docItemRefs ?? []).filter((ref) => !own.has(ref)).flatMap((ref) => boxesByRef.get(ref) ?? []);
  }
  const pages = [...new Set(strong.map((box) => box.page))].sort((left, right) => left - right);
  if (pages.length === 0) {
    warnings.push(`The items of chunk ${chunkId} have no boxes (no text layer where they are, or the file changed); showing page ${chunk.pageNumbers[0] ?? 1} without highlights.`);
    pages.push(chunk.pageNumbers[0] ?? 1);
  }
  const rendered: VisualizedChunk['pages'] = [];
  for (const page of pages) {
    const image = await renderHighlightedPage(bytes, { page, strong, faint, scale: options.scale, fileName: document.relativePath, abortSignal: options.abortSignal });
    rendered.push({ ...image, page });
  }
  return { pages: rendered, documentPath, warnings };
}
