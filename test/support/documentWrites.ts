import { chunkDocument } from '../../src/core/chunker';
import type { Embedder } from '../../src/core/embeddings/embedder';
import { documentIdForPath } from '../../src/core/hash';
import type { HaikuDocument } from '../../src/core/model/document';
import { convertMarkdown } from '../../src/node/convert/markdown';
import type { DocumentWrite } from '../../src/node/store/lanceStore';

/** A real converted and chunked Markdown document, ready for `LanceStore.writeDocuments` (with vectors when `embedder`). */
export async function markdownWrite(relativePath: string, markdown: string, embedder?: Embedder): Promise<DocumentWrite> {
  const converted = await convertMarkdown(markdown, { fileName: relativePath });
  const document: HaikuDocument = { ...converted, id: documentIdForPath(relativePath), uri: `file:///virtual/${relativePath}`, relativePath, contentHash: relativePath + markdown.length };
  const chunks = chunkDocument({ id: document.id, items: document.items });
  const vectors = embedder ? await embedder.embed(chunks.map((chunk) => chunk.searchText), { kind: 'document' }) : undefined;
  return { document, chunks, vectors, file: { mtimeMs: 1, size: markdown.length } };
}
