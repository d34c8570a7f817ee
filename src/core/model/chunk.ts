import type { ItemLabel, SourceRange } from './document';

/** A retrievable unit: consecutive items of one document, at most `CHUNK_MAX_TOKENS` tokens. */
export interface Chunk {
  /** Stable for unchanged content: derived from the document id, the chunk's text and its occurrence index. */
  id: string;
  documentId: string;
  /** Index of the chunk within its document. */
  order: number;
  /** The chunk's raw text (headings not inlined). */
  content: string;
  /** Heading trail joined by newlines, a newline, then the content: what full-text search and embeddings see. */
  searchText: string;
  /** `selfRef`s of the items the chunk was built from, in reading order. */
  docItemRefs: string[];
  /** The label of each referenced item, in the same order. */
  labels: ItemLabel[];
  /** Titles of the enclosing sections, outermost first. */
  headings: string[];
  /** Sorted distinct page numbers of the referenced items. */
  pageNumbers: number[];
  /** Union of the referenced items' source ranges. */
  sourceRange?: SourceRange;
  tokenCount: number;
}

/** A chunk's `searchText`: its heading trail, a newline after each heading, then its content. */
export function chunkSearchText(chunk: { headings: readonly string[]; content: string }): string {
  return chunk.headings.length > 0 ? `${chunk.headings.join('\n')}\n${chunk.content}` : chunk.content;
}
