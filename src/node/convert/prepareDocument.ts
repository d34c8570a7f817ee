import { chunkDocumentWithinLimit, type ChunksInParts } from '../../core/chunker';
import { MAX_DOCUMENT_CHUNKS } from '../../core/limits';
import type { Chunk } from '../../core/model/chunk';
import type { HaikuDocument } from '../../core/model/document';
import type { PreparedDocument } from './conversionProtocol';
import { loadDocument, type LoadDocumentOptions } from './convertFile';

/** `loadDocument` then `chunkLoadedDocument`: one conversion job. */
export async function prepareDocument(options: LoadDocumentOptions): Promise<PreparedDocument> {
  const document = await loadDocument(options);
  return { document, chunks: chunkLoadedDocument(document) };
}

/** `chunkDocument`, warning on the document when chunks past the limit were dropped. */
export function chunkLoadedDocument(document: HaikuDocument): Chunk[] {
  const { chunks, truncated } = chunkDocumentWithinLimit({ id: document.id, items: document.items });
  warnIfTruncated(document, { truncated });
  return chunks;
}

/** Warns on the document when chunks past `MAX_DOCUMENT_CHUNKS` were dropped. */
export function warnIfTruncated(document: HaikuDocument, { truncated }: Pick<ChunksInParts, 'truncated'>): void {
  if (truncated) {
    document.warnings.push(`The document gives more than ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} chunks; only the first ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} are indexed. Split the file to index all of it.`);
  }
}
