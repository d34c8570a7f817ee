import { chunkDocumentWithinLimit } from '../../core/chunker';
import { MAX_DOCUMENT_CHUNKS } from '../../core/limits';
import type { PreparedDocument } from './conversionProtocol';
import { loadDocument, type LoadDocumentOptions } from './convertFile';

/** `loadDocument` then `chunkDocument`, warning on the document when chunks past the limit were dropped: one conversion job. */
export async function prepareDocument(options: LoadDocumentOptions): Promise<PreparedDocument> {
  const document = await loadDocument(options);
  const { chunks, truncated } = chunkDocumentWithinLimit({ id: document.id, items: document.items });
  if (truncated) {
    document.warnings.push(`The document gives more than ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} chunks; only the first ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} are indexed. Split the file to index all of it.`);
  }
  return { document, chunks };
}
