import type { DocumentItem, ItemLabel, SourceRange } from './document';

/** One search hit, as every consumer (CLI, agent tools, VS Code) sees it: a chunk, scored and ranked. */
export interface SearchResult extends ChunkRecord {
  /** Higher is better; RRF score for hybrid search, BM25 for full text only, reranker score when reranked. */
  score: number;
  /** 1-based position in the returned list. */
  rank: number;
  /** When expansion merged overlapping hits: every constituent chunk id (the first is `chunkId`). */
  mergedChunkIds?: string[];
  /**
   * After expansion: the pictures of `pictureRefs` the matched chunks hold themselves (directly or through their
   * caption). Only these may have their bytes attached for a vision model; pictures expansion swept in are
   * referenced, never attached. Undefined without expansion: then every picture ref is the hit's own.
   */
  ownPictureRefs?: string[];
  /** After expansion: each captioned picture of `pictureRefs` → its caption text (the caption item after it). */
  pictureCaptions?: Record<string, string>;
  /**
   * The matched chunk's own source range (the union of the constituents' when merged) when expansion ran;
   * `sourceRange` then spans the whole expanded context. Jumps select this and shade the rest.
   */
  chunkSourceRange?: SourceRange;
}

export interface SearchOptions {
  /** Results to return (default `SEARCH_DEFAULT_LIMIT`). */
  limit?: number;
  /** SQL WHERE clause over document columns (uri, title, metadata, relative_path). */
  filter?: string;
  /** Section-aware context expansion (default true for agent tools, false for raw search). */
  expand?: boolean;
  abortSignal?: AbortSignal;
}

/** A document as listed by the store (no items, no content). */
export interface DocumentSummary {
  id: string;
  uri: string;
  relativePath: string;
  title: string;
  format: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** A stored item with the chunks that reference it. */
export interface StoredItem extends Omit<DocumentItem, 'language'> {
  documentId: string;
  chunkIds: string[];
}

/** A stored chunk joined with its document's uri and title (what a citation needs). */
export interface ChunkRecord {
  chunkId: string;
  documentId: string;
  uri: string;
  title: string;
  /** The chunk's content; in a `SearchResult`, the expanded context when expansion ran. */
  content: string;
  headings: string[];
  labels: ItemLabel[];
  pageNumbers: number[];
  docItemRefs: string[];
  /** The pictures among (or captioned by) `docItemRefs`; their bytes come from the store on request. */
  pictureRefs?: string[];
  sourceRange?: SourceRange;
}

/** A picture item's stored image (bytes as stored at ingest; sniff them before handing them to a model). */
export interface PictureImage {
  bytes: Uint8Array;
  mimeType: string;
  width: number;
  height: number;
}

/**
 * The read side of the index, as the agent, the sandbox's VFS and the VS Code layer use it.
 * Implemented over LanceDB in `src/node/store`; every method honours `filter` where it takes one.
 */
export interface KnowledgeBase {
  search(query: string, options?: SearchOptions): Promise<SearchResult[]>;
  listDocuments(options?: { filter?: string; abortSignal?: AbortSignal }): Promise<DocumentSummary[]>;
  getDocument(documentId: string, options?: { filter?: string }): Promise<DocumentSummary | undefined>;
  /** The document's Markdown rendering (`content.txt`). */
  getDocumentContent(documentId: string): Promise<string | undefined>;
  /** All items of a document in position order, each with the chunk ids that reference it. */
  getDocumentItems(documentId: string): Promise<StoredItem[]>;
  /** Chunks by id (unknown ids are left out); `filter` restricts to matching documents. */
  getChunks(chunkIds: string[], options?: { filter?: string }): Promise<ChunkRecord[]>;
  /** A picture item's image; undefined when it has none. Absent in hosts that store no pictures. */
  pictureBytes?(documentId: string, selfRef: string): Promise<PictureImage | undefined>;
}
