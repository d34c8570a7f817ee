import { ITEM_CACHE_MAX_ITEMS, ITEM_READ_ROWS_PER_TURN } from '../../core/limits';
import type { Table as ArrowTable } from 'apache-arrow';
import type { StoredItem } from '../../core/model/search';
import { plainRows } from './arrowRows';
import { ITEM_COLUMNS, parseJson, storedItem, type DocumentState, type ItemRow, type StoredChunkFields } from './schema';
import { sqlIn, sqlString } from '../../core/search/documentFilter';
import type { StoreTables } from './storeTables';

/**
 * Reads document items: whole documents with the chunk ids that reference each item (the sections view,
 * `toc.json`), and position windows for context expansion, served from a least-recently-used cache.
 */
export class ItemReader {
  private readonly tables: StoreTables;
  private readonly documentStates: () => Promise<Map<string, DocumentState>>;
  /** Items of recently expanded documents, least recently used first (bounded by `ITEM_CACHE_MAX_ITEMS`). */
  private readonly itemCache = new Map<string, { generation: string; items: StoredItem[] }>();
  private cachedItemCount = 0;

  private readonly maxCachedItems: number;

  constructor(tables: StoreTables, documentStates: () => Promise<Map<string, DocumentState>>, maxCachedItems = ITEM_CACHE_MAX_ITEMS) {
    this.maxCachedItems = maxCachedItems;
    this.tables = tables;
    this.documentStates = documentStates;
  }

  invalidate(): void {
    this.itemCache.clear();
    this.cachedItemCount = 0;
  }

  /**
   * The image of a picture item: its own bytes, or those of the item of the same document that holds identical
   * bytes (stored once per digest). Undefined when the item is not a picture with an image.
   */
  async pictureBytes(documentId: string, selfRef: string): Promise<{ bytes: Uint8Array; mimeType: string; width: number; height: number } | undefined> {
    const generation = (await this.documentStates()).get(documentId)?.generation;
    if (!generation) {
      return undefined;
    }
    type PictureRow = Pick<ItemRow, 'self_ref' | 'picture' | 'picture_data'>;
    const documentRows = `document_id = ${sqlString(documentId)} AND generation = ${sqlString(generation)} AND picture IS NOT NULL`;
    const readRows = (where: string, columns: Array<keyof PictureRow>) => plainRows<PictureRow>(this.tables.items.query().where(where).select(columns));
    // Only the wanted row's bytes are read: a document may hold megabytes of pictures.
    const [own] = await readRows(`${documentRows} AND self_ref = ${sqlString(selfRef)}`, ['self_ref', 'picture', 'picture_data']);
    const metadata = own ? parseJson<{ mimeType: string; width: number; height: number; digest: string } | undefined>(own.picture, undefined) : undefined;
    if (!metadata) {
      return undefined;
    }
    let bytes = own.picture_data;
    if (!bytes) {
      // Identical pictures are stored once per document: find the row holding these bytes by digest, then read them.
      const holders = await readRows(`${documentRows} AND picture_data IS NOT NULL`, ['self_ref', 'picture']);
      const holder = holders.find((row) => parseJson<{ digest?: string }>(row.picture, {}).digest === metadata.digest);
      bytes = holder ? (await readRows(`${documentRows} AND self_ref = ${sqlString(holder.self_ref)}`, ['picture_data']))[0]?.picture_data : undefined;
    }
    return bytes ? { bytes: new Uint8Array(bytes), mimeType: metadata.mimeType, width: metadata.width, height: metadata.height } : undefined;
  }

  async getDocumentItems(documentId: string): Promise<StoredItem[]> {
    return (await this.itemsForDocuments([documentId])).get(documentId) ?? [];
  }

  /**
   * Items of each document within an inclusive position window, in one query (what context expansion reads).
   */
  async itemsInWindows(windows: ReadonlyMap<string, readonly [number, number]>): Promise<Map<string, StoredItem[]>> {
    const result = new Map<string, StoredItem[]>();
    const states = await this.documentStates();
    const missing = [...windows.keys()].filter((documentId) => states.has(documentId) && this.itemCache.get(documentId)?.generation !== states.get(documentId)!.generation);
    if (missing.length > 0) {
      // Whole documents are read and cached: later searches hitting them need no query at all.
      const rows = await plainRows<ItemRow>(this.tables.items.query().where(sqlIn('document_id', missing)).select(ITEM_COLUMNS));
      const byDocument = new Map<string, StoredItem[]>(missing.map((documentId) => [documentId, []]));
      for (const row of rows) {
        if (states.get(row.document_id)?.generation === row.generation) {
          byDocument.get(row.document_id)?.push(storedItem(row, []));
        }
      }
      for (const [documentId, items] of byDocument) {
        this.cacheItems(documentId, states.get(documentId)!.generation, items.sort((left, right) => left.position - right.position));
      }
    }
    for (const [documentId, [start, end]] of windows) {
      const cached = this.itemCache.get(documentId);
      if (!cached || cached.generation !== states.get(documentId)?.generation) {
        continue;
      }
      // Refresh its place in the least-recently-used order.
      this.itemCache.delete(documentId);
      this.itemCache.set(documentId, cached);
      result.set(documentId, cached.items.filter((item) => item.position >= start && item.position <= end));
    }
    return result;
  }

  private cacheItems(documentId: string, generation: string, items: StoredItem[]): void {
    this.forgetItems(documentId);
    this.itemCache.set(documentId, { generation, items });
    this.cachedItemCount += items.length;
    for (const [oldest, entry] of this.itemCache) {
      if (this.cachedItemCount <= this.maxCachedItems || oldest === documentId) {
        break;
      }
      this.itemCache.delete(oldest);
      this.cachedItemCount -= entry.items.length;
    }
  }

  forgetItems(documentId: string): void {
    const entry = this.itemCache.get(documentId);
    if (entry) {
      this.cachedItemCount -= entry.items.length;
      this.itemCache.delete(documentId);
    }
  }

  /**
   * Items of several documents in one query per table, each with the chunk ids that reference it
   * (`withChunkIds: false` skips the chunks query and leaves them empty, as context expansion needs none).
   */
  async itemsForDocuments(documentIds: readonly string[], options: { withChunkIds?: boolean } = {}): Promise<Map<string, StoredItem[]>> {
    const result = new Map<string, StoredItem[]>();
    const states = await this.documentStates();
    const ids = [...new Set(documentIds)].filter((id) => states.has(id));
    if (ids.length === 0) {
      return result;
    }
    const where = sqlIn('document_id', ids);
    const withChunkIds = options.withChunkIds ?? true;
    const [itemRows, chunkRows] = await Promise.all([
      plainRowsInTurns<ItemRow>(this.tables.items.query().where(where).select(ITEM_COLUMNS)),
      withChunkIds
        ? plainRowsInTurns<Pick<StoredChunkFields, 'id' | 'document_id' | 'generation' | 'chunk_order' | 'doc_item_refs'>>(this.tables.chunks.query().where(where).select(['id', 'document_id', 'generation', 'chunk_order', 'doc_item_refs']))
        : Promise.resolve([]),
    ]);
    const chunkIdsByItem = new Map<string, string[]>();
    const liveChunks = chunkRows.filter((row) => states.get(row.document_id)?.generation === row.generation).sort((left, right) => left.chunk_order - right.chunk_order);
    let done = 0;
    for (const chunk of liveChunks) {
      if (++done % ITEM_READ_ROWS_PER_TURN === 0) {
        await nextTurn();
      }
      for (const selfRef of parseJson<string[]>(chunk.doc_item_refs, [])) {
        const key = `${chunk.document_id}\u0000${selfRef}`;
        const list = chunkIdsByItem.get(key);
        if (list) {
          // Chunks come in order, so a repeat of this chunk's id can only be the last one: O(1) where
          // `includes` made a document with 638k chunks on one item quadratic (minutes).
          if (list[list.length - 1] !== chunk.id) {
            list.push(chunk.id);
          }
        } else {
          chunkIdsByItem.set(key, [chunk.id]);
        }
      }
    }
    for (const row of itemRows) {
      if (++done % ITEM_READ_ROWS_PER_TURN === 0) {
        await nextTurn();
      }
      if (states.get(row.document_id)?.generation !== row.generation) {
        continue;
      }
      const list = result.get(row.document_id) ?? [];
      list.push(storedItem(row, chunkIdsByItem.get(`${row.document_id}\u0000${row.self_ref}`) ?? []));
      result.set(row.document_id, list);
    }
    for (const list of result.values()) {
      list.sort((left, right) => left.position - right.position);
    }
    return result;
  }
}

/** Lets other work (another session's request, a progress report) run between runs of a long conversion. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `plainRows`, converting `ITEM_READ_ROWS_PER_TURN` rows per turn of the event loop: a whole large document's
 * rows (90,000 items) took seconds of one uninterrupted loop.
 */
async function plainRowsInTurns<T>(query: { toArrow(): Promise<ArrowTable> }): Promise<T[]> {
  const table = await query.toArrow();
  const names = table.schema.fields.map((field) => field.name);
  const columns = names.map((name) => table.getChild(name)!);
  const rows = new Array<T>(table.numRows);
  for (let index = 0; index < table.numRows; index++) {
    if (index > 0 && index % ITEM_READ_ROWS_PER_TURN === 0) {
      await nextTurn();
    }
    const row: Record<string, unknown> = {};
    for (let column = 0; column < names.length; column++) {
      row[names[column]] = columns[column].get(index);
    }
    rows[index] = row as T;
  }
  return rows;
}
