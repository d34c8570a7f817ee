import { Binary, Field, FixedSizeList, Float32, Float64, Int32, Schema, Utf8 } from 'apache-arrow';
import type { Chunk } from '../../core/model/chunk';
import type { DocumentItem, HaikuDocument, ItemLabel, PageBox, PictureData, SourceRange } from '../../core/model/document';
import type { ChunkRecord, DocumentSummary, StoredItem } from '../../core/model/search';
import { fullTextIndexText } from '../../core/search/unspacedScripts';
import { pictureRefsOf } from '../../core/search/pictureRefs';
import { sqlIn, sqlString } from '../../core/search/documentFilter';

/*
 * Table layout. Rows are written as plain objects against these explicit schemas, so the apache-arrow
 * instance never matters (shared notes §1, bug 3). Lists are JSON strings: simple, and filterable with LIKE.
 *
 * Every chunk and item row carries the `generation` of the write that produced it. The documents row names
 * its current generation, and readers only trust chunk/item rows of that generation: a replacement writes
 * new rows first, then switches the documents row in one commit, then deletes the old rows. A failure at
 * any point leaves the previous version the one readers see.
 */

export const DOCUMENTS_TABLE = 'documents';
export const CHUNKS_TABLE = 'chunks';
export const ITEMS_TABLE = 'document_items';
export const SETTINGS_TABLE = 'settings';

export function documentsSchema(): Schema {
  return new Schema([
    new Field('id', new Utf8(), false),
    new Field('generation', new Utf8(), false),
    new Field('uri', new Utf8(), false),
    new Field('relative_path', new Utf8(), false),
    new Field('title', new Utf8(), false),
    new Field('format', new Utf8(), false),
    new Field('content_hash', new Utf8(), false),
    new Field('content', new Utf8(), false),
    new Field('metadata', new Utf8(), false),
    new Field('mtime_ms', new Float64(), false),
    new Field('size', new Float64(), false),
    new Field('created_at', new Utf8(), false),
    new Field('updated_at', new Utf8(), false),
  ]);
}

export function chunksSchema(vectorDimensions: number | undefined): Schema {
  const fields: Field[] = [
    new Field('id', new Utf8(), false),
    new Field('document_id', new Utf8(), false),
    new Field('generation', new Utf8(), false),
    new Field('chunk_order', new Int32(), false),
    new Field('content', new Utf8(), false),
    new Field('search_text', new Utf8(), false),
    new Field('doc_item_refs', new Utf8(), false),
    new Field('labels', new Utf8(), false),
    new Field('headings', new Utf8(), false),
    new Field('page_numbers', new Utf8(), false),
    new Field('source_range', new Utf8(), true),
    new Field('token_count', new Int32(), false),
    // Reading positions of the chunk's first and last item: context expansion fetches only the items around them.
    new Field('first_position', new Int32(), false),
    new Field('last_position', new Int32(), false),
  ];
  if (vectorDimensions) {
    fields.push(new Field('vector', new FixedSizeList(vectorDimensions, new Field('item', new Float32(), true)), false));
  }
  return new Schema(fields);
}

export function itemsSchema(): Schema {
  return new Schema([
    new Field('document_id', new Utf8(), false),
    new Field('generation', new Utf8(), false),
    new Field('position', new Int32(), false),
    new Field('self_ref', new Utf8(), false),
    new Field('label', new Utf8(), false),
    new Field('text', new Utf8(), false),
    new Field('heading_level', new Int32(), false),
    new Field('page_numbers', new Utf8(), false),
    new Field('tree_depth', new Int32(), false),
    new Field('source_range', new Utf8(), true),
    new Field('language', new Utf8(), true),
    // PDF items: their boxes on the page (JSON `PageBox[]`), for highlights.
    new Field('boxes', new Utf8(), true),
    // Picture items: JSON metadata (mime type, size, digest) and the bytes, stored once per digest per document.
    new Field('picture', new Utf8(), true),
    new Field('picture_data', new Binary(), true),
  ]);
}

/** Item columns every reader takes: all but the picture bytes, which only `pictureBytes` reads. */
export const ITEM_COLUMNS = ['document_id', 'generation', 'position', 'self_ref', 'label', 'text', 'heading_level', 'page_numbers', 'tree_depth', 'source_range', 'language', 'boxes', 'picture'];

export function settingsSchema(): Schema {
  return new Schema([
    new Field('id', new Utf8(), false),
    new Field('schema_version', new Int32(), false),
    new Field('chunker_version', new Int32(), false),
    new Field('embedder_id', new Utf8(), true),
    new Field('embedder_dimensions', new Int32(), true),
    new Field('roots', new Utf8(), false),
    new Field('created_at', new Utf8(), false),
    new Field('updated_at', new Utf8(), false),
  ]);
}

/** Documents columns without the (possibly large) Markdown content. */
export const DOCUMENT_SUMMARY_COLUMNS = ['id', 'generation', 'uri', 'relative_path', 'title', 'format', 'content_hash', 'metadata', 'mtime_ms', 'size', 'created_at', 'updated_at'];
/** Chunk columns a search result needs (no vector, no search text). */
export const CHUNK_RESULT_COLUMNS = ['id', 'document_id', 'generation', 'chunk_order', 'content', 'doc_item_refs', 'labels', 'headings', 'page_numbers', 'source_range', 'first_position', 'last_position'];

export interface DocumentRow {
  id: string;
  generation: string;
  uri: string;
  relative_path: string;
  title: string;
  format: string;
  content_hash: string;
  content: string;
  metadata: string;
  mtime_ms: number;
  size: number;
  created_at: string;
  updated_at: string;
}

/** What the store keeps in memory per document: everything but the content. */
export type DocumentState = Omit<DocumentRow, 'content'>;

export interface ChunkRow {
  id: string;
  document_id: string;
  generation: string;
  chunk_order: number;
  content: string;
  search_text: string;
  doc_item_refs: string;
  labels: string;
  headings: string;
  page_numbers: string;
  source_range: string | null;
  token_count: number;
  first_position: number;
  last_position: number;
  vector?: Float32Array | number[];
}

export interface ItemRow {
  document_id: string;
  generation: string;
  position: number;
  self_ref: string;
  label: string;
  text: string;
  heading_level: number;
  page_numbers: string;
  tree_depth: number;
  source_range: string | null;
  language: string | null;
  boxes: string | null;
  picture: string | null;
  picture_data?: Uint8Array | null;
}

export interface SettingsRow {
  id: string;
  schema_version: number;
  chunker_version: number;
  embedder_id: string | null;
  embedder_dimensions: number | null;
  roots: string;
  created_at: string;
  updated_at: string;
}

/**
 * The chunk and item rows a document's current generation holds, as `documentRow` recorded them in its metadata;
 * undefined for a row written before the counts were recorded.
 */
export function recordedRowCounts(state: Pick<DocumentState, 'metadata'>): { chunks: number; items: number } | undefined {
  const counts = parseJson<{ chunkCount?: unknown; itemCount?: unknown }>(state.metadata, {});
  return typeof counts.chunkCount === 'number' && typeof counts.itemCount === 'number' ? { chunks: counts.chunkCount, items: counts.itemCount } : undefined;
}

/**
 * `chunkCount` goes into the metadata beside the item count: `index` repairs a document whose rows went missing.
 * `sourceMetadata` (a URL's ETag, the user's pairs) comes first, so the counts above always win.
 */
export function documentRow(
  document: HaikuDocument,
  chunkCount: number,
  generation: string,
  file: { mtimeMs: number; size: number },
  createdAt: string,
  now: string,
  sourceMetadata?: Record<string, unknown>,
  /** When the items came in parts (`document.items` is empty then). */
  itemCount: number = document.items.length,
): DocumentRow {
  const metadata: Record<string, unknown> = { ...sourceMetadata, format: document.format, chunkCount, itemCount };
  if (document.pageCount !== undefined) {
    metadata.pageCount = document.pageCount;
  }
  if (document.warnings.length > 0) {
    metadata.warnings = document.warnings;
  }
  return {
    id: document.id,
    generation,
    uri: document.uri,
    relative_path: document.relativePath,
    title: document.title,
    format: document.format,
    content_hash: document.contentHash,
    content: document.content,
    metadata: JSON.stringify(metadata),
    mtime_ms: file.mtimeMs,
    size: file.size,
    created_at: createdAt,
    updated_at: now,
  };
}

/** `positionByRef` maps the document's item refs to reading positions (for the chunk's item range). */
export function chunkRow(chunk: Chunk, generation: string, vector: Float32Array | undefined, positionByRef: ReadonlyMap<string, number>): ChunkRow {
  const positions = chunk.docItemRefs.map((ref) => positionByRef.get(ref)).filter((position): position is number => position !== undefined);
  const row: ChunkRow = {
    id: chunk.id,
    document_id: chunk.documentId,
    generation,
    chunk_order: chunk.order,
    content: chunk.content,
    // Text written without spaces between words as bigrams, so words inside it are found (see unspacedScripts.ts).
    search_text: fullTextIndexText(chunk.searchText),
    doc_item_refs: JSON.stringify(chunk.docItemRefs),
    labels: JSON.stringify(chunk.labels),
    headings: JSON.stringify(chunk.headings),
    page_numbers: JSON.stringify(chunk.pageNumbers),
    source_range: chunk.sourceRange ? JSON.stringify(chunk.sourceRange) : null,
    token_count: chunk.tokenCount,
    first_position: positions.length > 0 ? Math.min(...positions) : -1,
    last_position: positions.length > 0 ? Math.max(...positions) : -1,
  };
  if (vector) {
    // A plain array: LanceDB converts it with its own arrow instance.
    row.vector = Array.from(vector);
  }
  return row;
}

export function itemRow(documentId: string, item: DocumentItem, generation: string): ItemRow {
  return {
    document_id: documentId,
    generation,
    position: item.position,
    self_ref: item.selfRef,
    label: item.label,
    text: item.text,
    heading_level: item.headingLevel,
    page_numbers: JSON.stringify(item.pageNumbers),
    tree_depth: item.treeDepth,
    source_range: item.sourceRange ? JSON.stringify(item.sourceRange) : null,
    language: item.language ?? null,
    boxes: item.boxes && item.boxes.length > 0 ? JSON.stringify(item.boxes) : null,
    picture: item.picture ? JSON.stringify({ mimeType: item.picture.mimeType, width: item.picture.width, height: item.picture.height, digest: item.picture.digest }) : null,
    picture_data: item.picture?.bytes ?? null,
  };
}

export function documentSummary(state: DocumentState): DocumentSummary {
  return {
    id: state.id,
    uri: state.uri,
    relativePath: state.relative_path,
    title: state.title,
    format: state.format,
    contentHash: state.content_hash,
    metadata: parseJson<Record<string, unknown>>(state.metadata, {}),
    createdAt: state.created_at,
    updatedAt: state.updated_at,
  };
}

/** A chunk row read back (any subset of columns including `CHUNK_RESULT_COLUMNS`). */
export interface StoredChunkFields {
  id: string;
  document_id: string;
  generation: string;
  chunk_order: number;
  content: string;
  doc_item_refs: string;
  labels: string;
  headings: string;
  page_numbers: string;
  source_range: string | null;
  /** -1 when the chunk references no item. */
  first_position: number;
  last_position: number;
}

export function chunkRecord(row: StoredChunkFields, document: Pick<DocumentState, 'uri' | 'title'>): ChunkRecord {
  const record: ChunkRecord = {
    chunkId: row.id,
    documentId: row.document_id,
    uri: document.uri,
    title: document.title,
    content: row.content,
    headings: parseJson<string[]>(row.headings, []),
    labels: parseJson<ItemLabel[]>(row.labels, []),
    pageNumbers: parseJson<number[]>(row.page_numbers, []),
    docItemRefs: parseJson<string[]>(row.doc_item_refs, []),
  };
  record.pictureRefs = pictureRefsOf(record.docItemRefs);
  const sourceRange = row.source_range ? parseJson<SourceRange | undefined>(row.source_range, undefined) : undefined;
  if (sourceRange) {
    record.sourceRange = sourceRange;
  }
  return record;
}

export function storedItem(row: ItemRow, chunkIds: string[]): StoredItem {
  const item: StoredItem = {
    documentId: row.document_id,
    position: row.position,
    selfRef: row.self_ref,
    label: row.label as ItemLabel,
    text: row.text,
    headingLevel: row.heading_level,
    pageNumbers: parseJson<number[]>(row.page_numbers, []),
    treeDepth: row.tree_depth,
    chunkIds,
  };
  const sourceRange = row.source_range ? parseJson<SourceRange | undefined>(row.source_range, undefined) : undefined;
  if (sourceRange) {
    item.sourceRange = sourceRange;
  }
  const boxes = row.boxes ? parseJson<PageBox[]>(row.boxes, []) : [];
  if (boxes.length > 0) {
    item.boxes = boxes;
  }
  // Bytes are never read with items; `picture` says that the item has an image and what it is.
  const picture = row.picture ? parseJson<Omit<PictureData, 'bytes'> | undefined>(row.picture, undefined) : undefined;
  if (picture) {
    item.picture = picture;
  }
  return item;
}

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) {
    return fallback;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** One SQL condition per document selecting its rows of the given generations (to delete rows readers ignore). */
export function generationConditions(generationsByDocument: ReadonlyMap<string, Iterable<string>>): string[] {
  return [...generationsByDocument].map(([documentId, generations]) => `(document_id = ${sqlString(documentId)} AND ${sqlIn('generation', generations)})`);
}
