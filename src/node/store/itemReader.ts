import { ITEM_CACHE_MAX_ITEMS, ITEM_READ_ROWS_PER_TURN } from '../../core/limits';
import type { Table as ArrowTable } from 'apache-arrow';
import type { StoredItem } from '../../core/model/search';
import { columnValues, plainRows } from './arrowRows';
import { ITEM_COLUMNS, parseJson, storedItem, type DocumentState, type ItemRow } from './schema';
import { sqlIn, sqlString } from '../../core/search/documentFilter';
import type { StoreTables } from './storeTables';
import { currentGeneration } from './documentStateMap';

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
        if (currentGeneration(states, row.document_id) === row.generation) {
          byDocument.get(row.document_id)?.push(storedItem(row, []));
        }
      }
      for (const [documentId, items] of byDocument) {
        this.cacheItems(documentId, states.get(documentId)!.generation, items.sort((left, right) => left.position - right.position));
      }
    }
    for (const [documentId, [start, end]] of windows) {
      const cached = this.itemCache.get(documentId);
      if (!cached || cached.generation !== currentGeneration(states, documentId)) {
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
    const [items, chunks] = await Promise.all([
      columnsInTurns(this.tables.items.query().where(where).select(ITEM_COLUMNS)),
      withChunkIds ? columnsInTurns(this.tables.chunks.query().where(where).select(['id', 'document_id', 'generation', 'chunk_order', 'doc_item_refs'])) : undefined,
    ]);
    // Chunk ids by document, then by item: per-document maps spare a joined key per lookup.
    const chunkIdsByItem = new Map<string, Map<string, string[]>>();
    if (chunks) {
      const [chunkIds, chunkDocuments, chunkGenerations, chunkOrders, chunkRefs] = ['id', 'document_id', 'generation', 'chunk_order', 'doc_item_refs'].map((name) => chunks.get(name) ?? []) as [string[], string[], string[], number[], string[]];
      const live: number[] = [];
      for (let index = 0; index < chunkIds.length; index++) {
        if (currentGeneration(states, chunkDocuments[index]) === chunkGenerations[index]) {
          live.push(index);
        }
      }
      live.sort((left, right) => chunkOrders[left] - chunkOrders[right]);
      let done = 0;
      for (const index of live) {
        if (++done % ITEM_READ_ROWS_PER_TURN === 0) {
          await nextTurn();
        }
        const chunkId = chunkIds[index];
        let byItem = chunkIdsByItem.get(chunkDocuments[index]);
        if (!byItem) {
          byItem = new Map();
          chunkIdsByItem.set(chunkDocuments[index], byItem);
        }
        for (const selfRef of parseJson<string[]>(chunkRefs[index], [])) {
          const list = byItem.get(selfRef);
          if (list) {
            // Chunks come in order, so a repeat of this chunk's id can only be the last one: O(1) where
            // `includes` made a document with 638k chunks on one item quadratic (minutes).
            if (list[list.length - 1] !== chunkId) {
              list.push(chunkId);
            }
          } else {
            byItem.set(selfRef, [chunkId]);
          }
        }
      }
    }
    // An empty result may come without its columns.
    const column = <T>(name: keyof ItemRow) => (items.get(name) ?? []) as T[];
    const [itemDocuments, generations, positions, selfRefs, labels, texts, headingLevels, pageNumbers, treeDepths, sourceRanges, languages, boxes, pictures] = [
      column<string>('document_id'), column<string>('generation'), column<number>('position'), column<string>('self_ref'), column<string>('label'), column<string>('text'), column<number>('heading_level'),
      column<string>('page_numbers'), column<number>('tree_depth'), column<string | null>('source_range'), column<string | null>('language'), column<string | null>('boxes'), column<string | null>('picture'),
    ];
    for (let index = 0; index < itemDocuments.length; index++) {
      if (index > 0 && index % ITEM_READ_ROWS_PER_TURN === 0) {
        await nextTurn();
      }
      const documentId = itemDocuments[index];
      if (currentGeneration(states, documentId) !== generations[index]) {
        continue;
      }
      const row: ItemRow = {
        document_id: documentId,
        generation: generations[index],
        position: positions[index],
        self_ref: selfRefs[index],
        label: labels[index],
        text: texts[index],
        heading_level: headingLevels[index],
        page_numbers: pageNumbers[index],
        tree_depth: treeDepths[index],
        source_range: sourceRanges[index],
        language: languages[index],
        boxes: boxes[index],
        picture: pictures[index],
      };
      let list = result.get(documentId);
      if (!list) {
        list = [];
        result.set(documentId, list);
      }
      list.push(storedItem(row, chunkIdsByItem.get(documentId)?.get(row.self_ref) ?? []));
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
 * A query's columns as plain arrays, one column converted per turn of the event loop: converting a whole large
 * document's rows (90,000 items) took seconds of one uninterrupted loop.
 */
async function columnsInTurns(query: { toArrow(): Promise<ArrowTable> }): Promise<Map<string, unknown[]>> {
  const table = await query.toArrow();
  const columns = new Map<string, unknown[]>();
  for (const field of table.schema.fields) {
    await nextTurn();
    columns.set(field.name, columnValues(table.getChild(field.name)!));
  }
  return columns;
}
