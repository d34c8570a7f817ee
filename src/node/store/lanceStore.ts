/**
 * The index on disk: LanceDB 0.31.0, embedded, four tables (see `schema.ts`).
 *
 * - Atomic replacement: chunk and item rows carry the generation of the write that made them; a document's
 *   row names its current generation, and every read keeps only rows of that generation. A write adds the
 *   new rows, switches the documents rows in one commit, then deletes the old rows, so a failure or a kill
 *   at any point leaves the previous version whole. Orphans are swept at the end of index runs.
 * - Full-text freshness: LanceDB 0.31.0's flat search over rows not yet in the FTS index drops terms that are
 *   frequent among those rows, and its incremental FTS update returns wrong rows afterwards, so after rows
 *   are written the FTS index is built afresh before the next full-text query (and by the debounced or
 *   end-of-run `optimize()`). Another process's unindexed rows are not folded in by readers (two writers
 *   could conflict); index runs always end with `optimize()`.
 * - Vectors: an exact dot-product scan over a resident copy (`VectorCache`) up to `VECTOR_CACHE_MAX_BYTES`
 *   (256 MiB ≈ 170k chunks at 384 dimensions), LanceDB's brute-force scan above it.
 * - Caches (document states, vectors) follow this process's writes; `refresh()` re-reads after others'.
 */
import './lanceEnvironment';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as lancedb from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import type { HaikuConfig } from '../../core/config';
import type { Embedder } from '../../core/embeddings/embedder';
import { errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import { CHUNKER_VERSION, INDEX_VERSION_RETENTION_MS, OPTIMIZE_DEBOUNCE_MS, ITEM_CACHE_MAX_ITEMS, RESIDENT_CHUNK_ROWS_MAX_BYTES, SCHEMA_VERSION, VECTOR_CACHE_MAX_BYTES } from '../../core/limits';
import type { Chunk } from '../../core/model/chunk';
import type { HaikuDocument } from '../../core/model/document';
import type { ChunkRecord, DocumentSummary, KnowledgeBase, SearchOptions, SearchResult, StoredItem } from '../../core/model/search';
import type { Reranker } from '../../core/search/reranker';
import { SearchEngine, type EngineSearchOptions } from '../search/searchEngine';
import {
  CHUNK_RESULT_COLUMNS,
  CHUNKS_TABLE,
  chunkRecord,
  chunkRow,
  chunksSchema,
  DOCUMENT_SUMMARY_COLUMNS,
  documentRow,
  documentsSchema,
  documentSummary,
  DOCUMENTS_TABLE,
  itemRow,
  ITEMS_TABLE,
  itemsSchema,
  parseJson,
  settingsSchema,
  SETTINGS_TABLE,
  sqlIn,
  sqlString,
  storedItem,
  type ChunkRow,
  type DocumentRow,
  type DocumentState,
  type ItemRow,
  type SettingsRow,
  type StoredChunkFields,
} from './schema';
import { VectorCache } from './vectorCache';
import { ResidentRows } from './residentRows';
import { embedderDimensions } from '../embeddings/createEmbedder';
import { isInside, type IndexedRoot } from '../index/scanner';

export interface OpenStoreOptions {
  /** A folder path (relative paths resolve against `cwd`) or any URI `lancedb.connect` accepts. */
  uri: string;
  cwd?: string;
  /** Set for hybrid search; must match the embedder the index was built with. */
  embedder?: Embedder;
  reranker?: Reranker;
  search?: Partial<HaikuConfig['search']>;
  /** Above this many bytes of vectors, vector search scans in LanceDB instead of the resident cache. */
  vectorCacheMaxBytes?: number;
  /** Above this many bytes of chunk rows, vector results are fetched from LanceDB per query. */
  residentRowsMaxBytes?: number;
  abortSignal?: AbortSignal;
}

/** One document to (re)write: the converted document, its chunks, and their vectors when an embedder is set. */
export interface DocumentWrite {
  document: HaikuDocument;
  chunks: Chunk[];
  vectors?: Float32Array[];
  file: { mtimeMs: number; size: number };
}

/** A full-text or vector candidate with the chunk row (full text) or only its id (vector cache). */
export interface ChunkCandidate {
  chunkId: string;
  score: number;
  row?: StoredChunkFields;
}

export interface StoreStats {
  documents: number;
  chunks: number;
}

/** Failure injection for tests: called between writing a batch's new rows and switching its documents rows. */
export interface StoreTestHooks {
  beforeDocumentSwitch?: () => void | Promise<void>;
}

type VectorCacheState = { kind: 'unloaded' } | { kind: 'loaded'; cache: VectorCache } | { kind: 'too_large' };

/** Opens (creating when absent) the index at `options.uri`. A layout or embedder mismatch opens in a "rebuild needed" state. */
export async function openStore(options: OpenStoreOptions): Promise<LanceStore> {
  throwIfAborted(options.abortSignal, 'Opening the index');
  const uri = resolveDatabaseUri(options.uri, options.cwd);
  if (!hasUriScheme(uri)) {
    fs.mkdirSync(uri, { recursive: true });
  }
  let connection: lancedb.Connection;
  try {
    connection = await lancedb.connect(uri);
  } catch (error) {
    throw new HaikuError('unreadable_file', `Could not open the index at ${uri}: ${errorMessage(error)}. Check the path or the --db option.`, { cause: error });
  }
  const store = new LanceStore(connection, uri, options);
  await store.initialize();
  return store;
}

/** A folder path becomes absolute; URIs (`s3://…`, `file://…`) pass unchanged. */
export function resolveDatabaseUri(uri: string, cwd = process.cwd()): string {
  return hasUriScheme(uri) ? uri : path.resolve(cwd, uri);
}

function hasUriScheme(uri: string): boolean {
  return /^[a-z][a-z0-9+.-]+:\/\//i.test(uri);
}

function newGeneration(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export class LanceStore implements KnowledgeBase {
  readonly uri: string;
  readonly embedder: Embedder | undefined;
  readonly testHooks: StoreTestHooks = {};
  private readonly connection: lancedb.Connection;
  private readonly engine: SearchEngine;
  private readonly vectorCacheMaxBytes: number;
  private readonly residentRowsMaxBytes: number;
  private documentsTable!: lancedb.Table;
  private chunksTable!: lancedb.Table;
  private itemsTable!: lancedb.Table;
  private settingsTable!: lancedb.Table;
  private settings!: SettingsRow;
  private rebuildReason: string | undefined;
  private writeBlockedReason: string | undefined;
  private documentsCache: Map<string, DocumentState> | undefined;
  private vectorCacheState: VectorCacheState = { kind: 'unloaded' };
  /** Items of recently expanded documents, least recently used first (bounded by `ITEM_CACHE_MAX_ITEMS`). */
  private readonly itemCache = new Map<string, { generation: string; items: StoredItem[] }>();
  private cachedItemCount = 0;
  /** Loaded with the vector cache when the rows fit `RESIDENT_CHUNK_ROWS_MAX_BYTES`. */
  private residentRows: ResidentRows | undefined;
  private writeQueue: Promise<unknown> = Promise.resolve();
  private optimizeTimer: NodeJS.Timeout | undefined;
  private orphansPossible = false;
  /** Documents replaced by incremental writes whose old rows still wait for deletion (see `optimize`). */
  private readonly superseded = new Set<string>();
  /** Chunk rows were added since the FTS index was last updated (see `fullTextCandidates`). */
  private fullTextIndexStale = false;
  private closed = false;

  constructor(connection: lancedb.Connection, uri: string, options: OpenStoreOptions) {
    this.connection = connection;
    this.uri = uri;
    this.embedder = options.embedder;
    this.vectorCacheMaxBytes = options.vectorCacheMaxBytes ?? VECTOR_CACHE_MAX_BYTES;
    this.residentRowsMaxBytes = options.residentRowsMaxBytes ?? RESIDENT_CHUNK_ROWS_MAX_BYTES;
    this.engine = new SearchEngine({ store: this, embedder: options.embedder, reranker: options.reranker, settings: options.search });
  }

  /** @internal Opens or creates the tables and checks the stored settings. */
  async initialize(): Promise<void> {
    const names = new Set(await this.connection.tableNames());
    const ours = [DOCUMENTS_TABLE, CHUNKS_TABLE, ITEMS_TABLE, SETTINGS_TABLE];
    const present = ours.filter((name) => names.has(name));
    if (present.length === 0) {
      await this.createTables([], await this.probeDimensions());
      return;
    }
    if (present.length < ours.length) {
      // Opening what exists keeps `reset()` possible; everything else reports the rebuild.
      this.rebuildReason = `The index at ${this.uri} is incomplete (missing tables: ${ours.filter((name) => !names.has(name)).join(', ')}).`;
      await this.openExistingTables(names);
      return;
    }
    await this.openExistingTables(names);
    const rows = await plainRows<SettingsRow>(this.settingsTable.query());
    if (rows.length === 0) {
      this.rebuildReason = `The index at ${this.uri} has no settings row.`;
      return;
    }
    this.settings = plainSettings(rows[0]);
    this.checkSettings();
  }

  private checkSettings(): void {
    const settings = this.settings;
    if (settings.schema_version !== SCHEMA_VERSION) {
      this.rebuildReason = `The index at ${this.uri} uses table layout v${settings.schema_version}; this version of Haiku needs v${SCHEMA_VERSION}.`;
    } else if (settings.chunker_version !== CHUNKER_VERSION) {
      this.rebuildReason = `The index at ${this.uri} was chunked by chunker v${settings.chunker_version}; this version of Haiku chunks with v${CHUNKER_VERSION}.`;
    } else if (this.embedder && (settings.embedder_id !== this.embedder.id || (this.embedder.dimensions > 0 && settings.embedder_dimensions !== this.embedder.dimensions))) {
      const stored = settings.embedder_id ? `embedder ${settings.embedder_id} (${settings.embedder_dimensions} dimensions)` : 'no embedder (full text only)';
      this.rebuildReason = `The index at ${this.uri} was built with ${stored}; the configured embedder is ${this.embedder.id} (${this.embedder.dimensions} dimensions).`;
    } else if (!this.embedder && settings.embedder_id) {
      // Full-text search still works; writing would leave chunks without vectors.
      this.writeBlockedReason = `The index at ${this.uri} was built with embedder ${settings.embedder_id}, which is not configured now. Configure it again, or run \`haiku rebuild\` to re-index for full text only.`;
    }
  }

  /** Why the index must be rebuilt before use, or undefined when it is usable. */
  get rebuildNeeded(): string | undefined {
    return this.rebuildReason;
  }

  /** True when chunks carry vectors of the configured embedder (hybrid search possible). */
  get hasVectors(): boolean {
    return !this.rebuildReason && !!this.embedder && this.settings?.embedder_id === this.embedder.id;
  }

  /** Throws the typed "rebuild needed" error when the stored layout does not match this version. */
  assertUsable(): void {
    if (this.rebuildReason) {
      throw new HaikuError('rebuild_needed', `${this.rebuildReason} Run \`haiku rebuild\` (VS Code: "Haiku: Rebuild Index") to re-index everything.`);
    }
  }

  /** Throws the typed error that explains why this store cannot take writes (layout, embedder, closed). */
  assertWritable(): void {
    this.assertUsable();
    if (this.writeBlockedReason) {
      throw new HaikuError('rebuild_needed', this.writeBlockedReason);
    }
    if (this.closed) {
      throw new HaikuError('invalid_settings', 'The index was closed; open it again before writing.');
    }
  }

  private async openExistingTables(names: Set<string>): Promise<void> {
    const open = async (name: string) => (names.has(name) ? this.connection.openTable(name) : undefined);
    this.documentsTable = (await open(DOCUMENTS_TABLE)) as lancedb.Table;
    this.chunksTable = (await open(CHUNKS_TABLE)) as lancedb.Table;
    this.itemsTable = (await open(ITEMS_TABLE)) as lancedb.Table;
    this.settingsTable = (await open(SETTINGS_TABLE)) as lancedb.Table;
  }

  /** The embedder's dimension, asking the server once when the settings did not give it (needed for the vector column). */
  private async probeDimensions(): Promise<number | undefined> {
    return this.embedder ? embedderDimensions(this.embedder) : undefined;
  }

  /** Dimension of the stored vectors; undefined for a full-text-only index. */
  get vectorDimensions(): number | undefined {
    return this.settings?.embedder_dimensions ?? undefined;
  }

  private async createTables(roots: IndexedRoot[], dimensions: number | undefined): Promise<void> {
    const overwrite = { mode: 'overwrite' as const };
    this.documentsTable = await this.connection.createEmptyTable(DOCUMENTS_TABLE, documentsSchema(), overwrite);
    this.chunksTable = await this.connection.createEmptyTable(CHUNKS_TABLE, chunksSchema(dimensions), overwrite);
    this.itemsTable = await this.connection.createEmptyTable(ITEMS_TABLE, itemsSchema(), overwrite);
    // Indexes on the empty tables: rows added later are searchable at once (flat search over the
    // unindexed part) and `optimize()` folds them in.
    await this.chunksTable.createIndex('search_text', { config: fullTextIndexConfig() });
    await this.chunksTable.createIndex('document_id', { config: lancedb.Index.btree() });
    await this.chunksTable.createIndex('id', { config: lancedb.Index.btree() });
    await this.itemsTable.createIndex('document_id', { config: lancedb.Index.btree() });
    await this.documentsTable.createIndex('id', { config: lancedb.Index.btree() });
    const now = new Date().toISOString();
    this.settings = {
      id: 'settings',
      schema_version: SCHEMA_VERSION,
      chunker_version: CHUNKER_VERSION,
      embedder_id: this.embedder?.id ?? null,
      embedder_dimensions: dimensions ?? null,
      roots: JSON.stringify(roots),
      created_at: now,
      updated_at: now,
    };
    this.settingsTable = await this.connection.createEmptyTable(SETTINGS_TABLE, settingsSchema(), overwrite);
    await this.settingsTable.add([{ ...this.settings }]);
    this.rebuildReason = undefined;
    this.writeBlockedReason = undefined;
  }

  // ---------------------------------------------------------------- read side

  search(query: string, options?: SearchOptions): Promise<SearchResult[]> {
    return this.engine.search(query, options);
  }

  /** `search` with engine-only options (mode), for evaluation and benchmarks. */
  searchWith(query: string, options: EngineSearchOptions): Promise<SearchResult[]> {
    return this.engine.search(query, options);
  }

  /** Every stored document's state (no content), cached until this store writes. */
  async documentStates(): Promise<Map<string, DocumentState>> {
    if (!this.documentsCache) {
      const rows = await plainRows<DocumentState>(this.documentsTable.query().select(DOCUMENT_SUMMARY_COLUMNS));
      const cache = new Map<string, DocumentState>();
      for (const row of rows) {
        cache.set(row.id, plainDocumentState(row));
      }
      this.documentsCache = cache;
    }
    return this.documentsCache;
  }

  /** Drops in-memory caches so the next read sees writes made by other processes. */
  async refresh(): Promise<void> {
    this.documentsCache = undefined;
    this.vectorCacheState = { kind: 'unloaded' };
    this.residentRows = undefined;
    this.itemCache.clear();
    this.cachedItemCount = 0;
    for (const table of [this.documentsTable, this.chunksTable, this.itemsTable]) {
      await table.checkoutLatest();
    }
  }

  async listDocuments(options: { filter?: string; abortSignal?: AbortSignal } = {}): Promise<DocumentSummary[]> {
    throwIfAborted(options.abortSignal, 'Listing documents');
    const states = await this.documentStates();
    const allowed = options.filter ? await this.documentIdsMatching(options.filter) : undefined;
    return [...states.values()]
      .filter((state) => !allowed || allowed.has(state.id))
      .sort((left, right) => left.relative_path.localeCompare(right.relative_path))
      .map(documentSummary);
  }

  async getDocument(documentId: string, options: { filter?: string } = {}): Promise<DocumentSummary | undefined> {
    const state = (await this.documentStates()).get(documentId);
    if (!state) {
      return undefined;
    }
    if (options.filter && !(await this.documentIdsMatching(options.filter)).has(documentId)) {
      return undefined;
    }
    return documentSummary(state);
  }

  /** A document by id, by its root-relative path, or by a `file://` URI or absolute path. */
  async findDocument(reference: string): Promise<DocumentSummary | undefined> {
    const states = await this.documentStates();
    const direct = states.get(reference);
    if (direct) {
      return documentSummary(direct);
    }
    const normalized = reference.replace(/\\/g, '/').replace(/^\.\//, '');
    for (const state of states.values()) {
      if (state.relative_path === normalized || state.uri === reference || uriPath(state.uri) === path.resolve(reference)) {
        return documentSummary(state);
      }
    }
    return undefined;
  }

  async getDocumentContent(documentId: string): Promise<string | undefined> {
    const rows = await plainRows<{ content: string }>(this.documentsTable.query().where(`id = ${sqlString(documentId)}`).select(['content']));
    return rows.length > 0 ? String(rows[0].content) : undefined;
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
      const rows = await plainRows<ItemRow>(this.itemsTable.query().where(sqlIn('document_id', missing)));
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
      if (this.cachedItemCount <= ITEM_CACHE_MAX_ITEMS || oldest === documentId) {
        break;
      }
      this.itemCache.delete(oldest);
      this.cachedItemCount -= entry.items.length;
    }
  }

  private forgetItems(documentId: string): void {
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
      plainRows<ItemRow>(this.itemsTable.query().where(where)),
      withChunkIds
        ? plainRows<Pick<StoredChunkFields, 'id' | 'document_id' | 'generation' | 'chunk_order' | 'doc_item_refs'>>(this.chunksTable.query().where(where).select(['id', 'document_id', 'generation', 'chunk_order', 'doc_item_refs']))
        : Promise.resolve([]),
    ]);
    const chunkIdsByItem = new Map<string, string[]>();
    const liveChunks = chunkRows.filter((row) => states.get(row.document_id)?.generation === row.generation).sort((left, right) => left.chunk_order - right.chunk_order);
    for (const chunk of liveChunks) {
      for (const selfRef of parseJson<string[]>(chunk.doc_item_refs, [])) {
        const key = `${chunk.document_id}\u0000${selfRef}`;
        const list = chunkIdsByItem.get(key);
        if (list) {
          if (!list.includes(chunk.id)) {
            list.push(chunk.id);
          }
        } else {
          chunkIdsByItem.set(key, [chunk.id]);
        }
      }
    }
    for (const row of itemRows) {
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

  async getChunks(chunkIds: string[], options: { filter?: string } = {}): Promise<ChunkRecord[]> {
    const rows = await this.chunkRowsByIds(chunkIds);
    const allowed = options.filter ? await this.documentIdsMatching(options.filter) : undefined;
    const states = await this.documentStates();
    const records: ChunkRecord[] = [];
    for (const chunkId of chunkIds) {
      const row = rows.get(chunkId);
      const state = row && states.get(row.document_id);
      if (row && state && (!allowed || allowed.has(row.document_id))) {
        records.push(chunkRecord(row, state));
      }
    }
    return records;
  }

  /** Live chunk rows by id (rows of superseded generations are left out). */
  async chunkRowsByIds(chunkIds: readonly string[]): Promise<Map<string, StoredChunkFields>> {
    const result = new Map<string, StoredChunkFields>();
    const ids: string[] = [];
    for (const id of new Set(chunkIds)) {
      const resident = this.residentRows?.get(id);
      if (resident) {
        result.set(id, resident);
      } else {
        ids.push(id);
      }
    }
    if (ids.length === 0) {
      return result;
    }
    const states = await this.documentStates();
    const rows = await plainRows<StoredChunkFields>(this.chunksTable.query().where(sqlIn('id', ids)).select(CHUNK_RESULT_COLUMNS));
    for (const row of rows) {
      if (states.get(row.document_id)?.generation === row.generation) {
        result.set(row.id, plainChunkFields(row));
      }
    }
    return result;
  }

  /** Ids of the documents a SQL WHERE clause over document columns selects; a bad clause is a typed error. */
  async documentIdsMatching(filter: string): Promise<Set<string>> {
    let rows: Array<{ id: string }>;
    try {
      rows = await plainRows<{ id: string }>(this.documentsTable.query().where(filter).select(['id']));
    } catch (error) {
      throw new HaikuError('invalid_filter', `The filter \`${filter}\` is not a valid SQL condition over document columns (id, uri, relative_path, title, format, metadata, created_at, updated_at): ${lanceReason(error)}`, { cause: error });
    }
    const states = await this.documentStates();
    return new Set(rows.map((row) => String(row.id)).filter((id) => states.has(id)));
  }

  /**
   * BM25 candidates over `search_text`, best first, restricted to `allowedDocumentIds` when given.
   * `withRows: false` returns ids and scores only (hybrid search fetches rows for the fused top results alone).
   */
  async fullTextCandidates(query: string, limit: number, allowedDocumentIds?: ReadonlySet<string>, options: { withRows?: boolean } = {}): Promise<ChunkCandidate[]> {
    const withRows = options.withRows ?? true;
    if (this.fullTextIndexStale) {
      // LanceDB 0.31.0's flat search over unindexed rows drops terms that are frequent among them (its BM25
      // mixes the indexed row count with unindexed document frequencies), so new rows are folded in first.
      // The flag stays set until a fold has finished, so a query never runs against a half-made one.
      await this.serialize(() => (this.fullTextIndexStale ? this.updateFullTextIndex() : Promise.resolve()));
    }
    const states = await this.documentStates();
    const where = allowedDocumentIds ? sqlIn('document_id', allowedDocumentIds) : undefined;
    let fetch = limit;
    // Rows of a superseded generation may sit in the table for a moment (or after a crash); skip them and
    // fetch more when that left us short, so `limit` is honoured.
    for (let attempt = 0; ; attempt++) {
      let builder = this.chunksTable.query().fullTextSearch(query, { columns: ['search_text'] });
      if (where) {
        builder = builder.where(where);
      }
      const columns = withRows ? [...CHUNK_RESULT_COLUMNS, '_score'] : ['id', 'document_id', 'generation', '_score'];
      const rows = await plainRows<StoredChunkFields & { _score: number }>(builder.select(columns).limit(fetch));
      const live = rows.filter((row) => states.get(row.document_id)?.generation === row.generation);
      if (live.length >= limit || rows.length < fetch || attempt >= 4) {
        return live.slice(0, limit).map((row) => ({ chunkId: String(row.id), score: Number(row._score), row: withRows ? plainChunkFields(row) : undefined }));
      }
      fetch = fetch * 2 + (rows.length - live.length);
    }
  }

  /** Nearest chunks by dot product (vectors are unit length), best first. */
  async vectorCandidates(vector: Float32Array, limit: number, allowedDocumentIds?: ReadonlySet<string>): Promise<ChunkCandidate[]> {
    const cache = await this.vectorCache();
    if (cache) {
      return cache.search(vector, limit, allowedDocumentIds);
    }
    const states = await this.documentStates();
    const where = allowedDocumentIds ? sqlIn('document_id', allowedDocumentIds) : undefined;
    let fetch = limit;
    for (let attempt = 0; ; attempt++) {
      let builder = this.chunksTable.query().nearestTo(Array.from(vector)).distanceType('dot');
      if (where) {
        builder = builder.where(where);
      }
      const rows = await plainRows<{ id: string; document_id: string; generation: string; _distance: number }>(builder.select(['id', 'document_id', 'generation', '_distance']).limit(fetch));
      const live = rows.filter((row) => states.get(row.document_id)?.generation === row.generation);
      if (live.length >= limit || rows.length < fetch || attempt >= 4) {
        // Lance's dot distance is 1 − a·b.
        return live.slice(0, limit).map((row) => ({ chunkId: String(row.id), score: 1 - Number(row._distance) }));
      }
      fetch = fetch * 2 + (rows.length - live.length);
    }
  }

  /** The resident vector cache, loaded on first use; undefined without vectors or above `VECTOR_CACHE_MAX_BYTES`. */
  private async vectorCache(): Promise<VectorCache | undefined> {
    const dimensions = this.settings?.embedder_dimensions;
    if (!dimensions || this.vectorCacheState.kind === 'too_large') {
      return undefined;
    }
    if (this.vectorCacheState.kind === 'loaded') {
      return this.vectorCacheState.cache;
    }
    const rowCount = await this.chunksTable.countRows();
    if (rowCount * dimensions * 4 > this.vectorCacheMaxBytes) {
      this.vectorCacheState = { kind: 'too_large' };
      return undefined;
    }
    const states = await this.documentStates();
    // Result fields come along only when they can plausibly fit the budget (rows of at least ~1 KiB).
    const withRows = rowCount <= this.residentRowsMaxBytes / 1024;
    const table = await this.chunksTable.query().select(withRows ? [...CHUNK_RESULT_COLUMNS, 'vector'] : ['id', 'document_id', 'generation', 'vector']).toArrow();
    const byDocument = new Map<string, { ids: string[]; rows: StoredChunkFields[]; vectors: Float32Array[] }>();
    const column = (name: string) => table.getChild(name)!;
    const columns = Object.fromEntries((withRows ? CHUNK_RESULT_COLUMNS : ['id', 'document_id', 'generation']).map((name) => [name, column(name)]));
    const vectors = column('vector');
    for (let row = 0; row < table.numRows; row++) {
      const documentId = String(columns.document_id.get(row));
      if (states.get(documentId)?.generation !== String(columns.generation.get(row))) {
        continue;
      }
      const entry = byDocument.get(documentId) ?? { ids: [], rows: [], vectors: [] };
      entry.ids.push(String(columns.id.get(row)));
      if (withRows) {
        entry.rows.push(plainChunkFields(Object.fromEntries(CHUNK_RESULT_COLUMNS.map((name) => [name, columns[name].get(row)])) as unknown as StoredChunkFields));
      }
      entry.vectors.push((vectors.get(row) as { toArray(): Float32Array }).toArray());
      byDocument.set(documentId, entry);
    }
    const cache = new VectorCache(dimensions, rowCount);
    let resident: ResidentRows | undefined = withRows ? new ResidentRows(this.residentRowsMaxBytes) : undefined;
    for (const [documentId, entry] of byDocument) {
      cache.setDocument(documentId, entry.ids, entry.vectors);
      if (resident && !resident.setDocument(documentId, entry.rows)) {
        resident = undefined;
      }
    }
    this.vectorCacheState = { kind: 'loaded', cache };
    this.residentRows = resident;
    return cache;
  }

  async stats(): Promise<StoreStats> {
    const states = await this.documentStates();
    const generations = [...new Set([...states.values()].map((state) => state.generation))];
    const chunks = generations.length === 0 ? 0 : await this.chunksTable.countRows(sqlIn('generation', generations));
    return { documents: states.size, chunks };
  }

  /** The folders and files indexed so far, with their base folders (what `rebuild` re-indexes). */
  get roots(): IndexedRoot[] {
    return this.settings ? parseJson<IndexedRoot[]>(this.settings.roots, []) : [];
  }

  /** Current LanceDB version of each table (tests use it to prove an unchanged file causes no write). */
  async tableVersions(): Promise<Record<string, number>> {
    return {
      documents: await this.documentsTable.version(),
      chunks: await this.chunksTable.version(),
      document_items: await this.itemsTable.version(),
    };
  }

  // ---------------------------------------------------------------- write side

  /** Runs write work one at a time, so optimize never races a write in this process. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(work, work);
    this.writeQueue = next.catch(() => undefined);
    return next;
  }

  /**
   * Writes (adds or replaces) documents. Atomic per document for readers: the new rows are written first,
   * then one commit of the documents table switches every document of the batch to them, then the
   * superseded rows are deleted.
   */
  writeDocuments(entries: readonly DocumentWrite[], options: WriteOptions = {}): Promise<void> {
    return this.serialize(async () => {
      this.assertWritable();
      throwIfAborted(options.abortSignal, 'Indexing');
      if (entries.length === 0) {
        return;
      }
      const states = await this.documentStates();
      const generation = newGeneration();
      const now = new Date().toISOString();
      const vectorDimensions = this.settings.embedder_dimensions;
      const chunkRows: ChunkRow[] = [];
      const itemRows: ItemRow[] = [];
      const documentRows: DocumentRow[] = [];
      for (const entry of entries) {
        const { document, chunks, vectors } = entry;
        if (vectorDimensions && (!vectors || vectors.length !== chunks.length)) {
          throw new HaikuError('embedding_failed', `${document.relativePath}: ${chunks.length} chunks but ${vectors?.length ?? 0} vectors; the index needs one vector per chunk.`);
        }
        const wrong = vectorDimensions ? vectors!.find((vector) => vector.length !== vectorDimensions) : undefined;
        if (wrong) {
          throw new HaikuError('embedding_failed', `${document.relativePath}: the embedder returned ${wrong.length}-dimensional vectors, but the index holds ${vectorDimensions}. Run \`haiku rebuild\` after changing the embedding model.`);
        }
        const positionByRef = new Map(document.items.map((item) => [item.selfRef, item.position]));
        chunks.forEach((chunk, index) => chunkRows.push(chunkRow(chunk, generation, vectorDimensions ? vectors![index] : undefined, positionByRef)));
        for (const item of document.items) {
          itemRows.push(itemRow(document.id, item, generation));
        }
        documentRows.push(documentRow(document, generation, entry.file, states.get(document.id)?.created_at ?? now, now));
      }
      const replaced = documentRows.filter((row) => states.has(row.id)).map((row) => row.id);
      try {
        if (chunkRows.length > 0) {
          this.fullTextIndexStale = true;
        }
        // Two tables, two independent commits: written side by side (a one-file re-index spent ~4 ms per
        // commit); readers see neither until the switch below.
        // Both settle before a failure propagates, so no write outlives this serialized step.
        const added = await Promise.allSettled([
          chunkRows.length > 0 ? this.chunksTable.add(chunkRows as unknown as Array<Record<string, unknown>>) : undefined,
          itemRows.length > 0 ? this.itemsTable.add(itemRows as unknown as Array<Record<string, unknown>>) : undefined,
        ]);
        const failed = added.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        if (failed) {
          throw failed.reason;
        }
        await this.testHooks.beforeDocumentSwitch?.();
        // The switch: one commit makes every document of the batch point at the new generation.
        if (replaced.length === 1 && documentRows.length === 1 && documentRows[0].content.length <= SWITCH_BY_UPDATE_MAX_CONTENT) {
          // One edited file (the watcher's case): an update by id is 4 ms where a merge-insert joins the
          // whole table (6–25 ms at 5k documents).
          const { id, ...values } = documentRows[0];
          const valuesSql = Object.fromEntries(Object.entries(values).map(([column, value]) => [column, typeof value === 'number' ? String(value) : sqlString(value)]));
          try {
            await this.documentsTable.update({ where: `id = ${sqlString(id)}`, valuesSql });
          } catch {
            // Text SQL cannot carry (e.g. a NUL character): the merge-insert takes the row as data.
            await this.documentsTable.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(documentRows as unknown as Array<Record<string, unknown>>);
          }
        } else if (replaced.length > 0) {
          await this.documentsTable.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(documentRows as unknown as Array<Record<string, unknown>>);
        } else {
          await this.documentsTable.add(documentRows as unknown as Array<Record<string, unknown>>);
        }
      } catch (error) {
        this.orphansPossible = true;
        throw error;
      }
      for (const row of documentRows) {
        const { content: _content, ...state } = row;
        states.set(row.id, state);
        this.forgetItems(row.id);
      }
      if (this.vectorCacheState.kind === 'loaded') {
        for (const entry of entries) {
          this.vectorCacheState.cache.setDocument(entry.document.id, entry.chunks.map((chunk) => chunk.id), entry.vectors ?? []);
        }
      }
      if (this.residentRows) {
        const rowsByDocument = new Map<string, StoredChunkFields[]>();
        for (const row of chunkRows) {
          const list = rowsByDocument.get(row.document_id) ?? [];
          list.push(plainChunkFields(row));
          rowsByDocument.set(row.document_id, list);
        }
        for (const entry of entries) {
          if (this.residentRows && !this.residentRows.setDocument(entry.document.id, rowsByDocument.get(entry.document.id) ?? [])) {
            this.residentRows = undefined;
          }
        }
      }
      if (replaced.length > 0) {
        if (options.scheduleOptimize ?? true) {
          // Readers already ignore the old rows: delete them with the debounced optimize, off the edit path.
          for (const id of replaced) {
            this.superseded.add(id);
          }
        } else {
          await this.deleteSuperseded(replaced);
        }
      }
      if (options.scheduleOptimize ?? true) {
        this.scheduleOptimize();
      }
    });
  }

  /** Deletes rows of these documents that are not of their current generation. */
  private async deleteSuperseded(documentIds: Iterable<string>): Promise<void> {
    const states = await this.documentStates();
    const byGeneration = new Map<string, string[]>();
    for (const id of documentIds) {
      const generation = states.get(id)?.generation;
      if (generation) {
        byGeneration.set(generation, [...(byGeneration.get(generation) ?? []), id]);
      }
    }
    if (byGeneration.size === 0) {
      return;
    }
    const where = [...byGeneration].map(([generation, ids]) => `(${sqlIn('document_id', ids)} AND generation != ${sqlString(generation)})`).join(' OR ');
    try {
      await this.chunksTable.delete(where);
      await this.itemsTable.delete(where);
    } catch {
      // Readers already ignore these rows; the next sweep removes them.
      this.orphansPossible = true;
    }
  }

  /** Removes documents: the documents rows go first (readers stop seeing them at once), then their rows. */
  removeDocuments(documentIds: readonly string[], options: WriteOptions = {}): Promise<void> {
    return this.serialize(async () => {
      this.assertUsable();
      const states = await this.documentStates();
      const ids = documentIds.filter((id) => states.has(id));
      if (ids.length === 0) {
        return;
      }
      const where = sqlIn('document_id', ids);
      await this.documentsTable.delete(sqlIn('id', ids));
      for (const id of ids) {
        states.delete(id);
        if (this.vectorCacheState.kind === 'loaded') {
          this.vectorCacheState.cache.removeDocument(id);
        }
        this.residentRows?.removeDocument(id);
        this.forgetItems(id);
      }
      try {
        await this.chunksTable.delete(where);
        await this.itemsTable.delete(where);
      } catch {
        this.orphansPossible = true;
      }
      if (options.scheduleOptimize ?? true) {
        this.scheduleOptimize();
      }
    });
  }

  /** Records a new modification time for files whose content hash did not change (no chunk rewrite). */
  touchDocuments(updates: ReadonlyArray<{ documentId: string; mtimeMs: number; size: number }>): Promise<void> {
    return this.serialize(async () => {
      this.assertWritable();
      const states = await this.documentStates();
      for (const update of updates) {
        const state = states.get(update.documentId);
        if (!state) {
          continue;
        }
        await this.documentsTable.update({ where: `id = ${sqlString(update.documentId)}`, valuesSql: { mtime_ms: String(update.mtimeMs), size: String(update.size) } });
        state.mtime_ms = update.mtimeMs;
        state.size = update.size;
      }
    });
  }

  /** Adds folders/files to the roots `rebuild` re-indexes (a root given again keeps its latest base folder). */
  recordRoots(roots: readonly IndexedRoot[]): Promise<void> {
    return this.serialize(async () => {
      this.assertUsable();
      const byPath = new Map(this.roots.map((root) => [root.path, root]));
      for (const root of roots) {
        // A file or folder inside a recorded root with the same base is re-indexed with it already.
        const covered = this.roots.some((recorded) => recorded.baseFolder === root.baseFolder && recorded.path !== root.path && isInside(root.path, recorded.path));
        if (!covered) {
          byPath.set(root.path, { path: root.path, baseFolder: root.baseFolder });
        }
      }
      const merged = [...byPath.values()].sort((left, right) => left.path.localeCompare(right.path));
      if (JSON.stringify(merged) === JSON.stringify(this.roots)) {
        return;
      }
      await this.writeRoots(merged);
    });
  }

  /** Forgets roots by path (e.g. after `haiku remove <root>`). */
  forgetRoots(rootPaths: readonly string[]): Promise<void> {
    return this.serialize(async () => {
      const drop = new Set(rootPaths);
      const kept = this.roots.filter((root) => !drop.has(root.path));
      if (kept.length !== this.roots.length) {
        await this.writeRoots(kept);
      }
    });
  }

  private async writeRoots(roots: IndexedRoot[]): Promise<void> {
    const now = new Date().toISOString();
    const json = JSON.stringify(roots);
    await this.settingsTable.update({ where: "id = 'settings'", valuesSql: { roots: sqlString(json), updated_at: sqlString(now) } });
    this.settings = { ...this.settings, roots: json, updated_at: now };
  }

  /** Drops every table and recreates them empty with the current settings (the first half of `rebuild`). */
  reset(): Promise<void> {
    return this.serialize(async () => {
      const roots = this.roots;
      this.cancelScheduledOptimize();
      for (const name of await this.connection.tableNames()) {
        if ([DOCUMENTS_TABLE, CHUNKS_TABLE, ITEMS_TABLE, SETTINGS_TABLE].includes(name)) {
          await this.connection.dropTable(name);
        }
      }
      this.documentsCache = undefined;
      this.vectorCacheState = { kind: 'unloaded' };
    this.residentRows = undefined;
    this.itemCache.clear();
    this.cachedItemCount = 0;
      this.orphansPossible = false;
      await this.createTables(roots, await this.probeDimensions());
    });
  }

  /** Debounced `optimize()` after incremental writes. */
  scheduleOptimize(): void {
    if (this.closed) {
      return;
    }
    this.cancelScheduledOptimize();
    this.optimizeTimer = setTimeout(() => {
      this.optimizeTimer = undefined;
      this.optimize().catch(() => undefined);
    }, OPTIMIZE_DEBOUNCE_MS);
    this.optimizeTimer.unref();
  }

  private cancelScheduledOptimize(): void {
    if (this.optimizeTimer) {
      clearTimeout(this.optimizeTimer);
      this.optimizeTimer = undefined;
    }
  }

  /**
   * Folds new rows into the indexes, compacts, prunes old versions, and removes rows no document points at
   * (left by a failed or killed write).
   */
  optimize(options: { sweepOrphans?: boolean } = {}): Promise<void> {
    this.cancelScheduledOptimize();
    return this.serialize(async () => {
      if (this.rebuildReason) {
        return;
      }
      if (options.sweepOrphans || this.orphansPossible) {
        await this.sweepOrphans();
      } else if (this.superseded.size > 0) {
        await this.deleteSuperseded(this.superseded);
      }
      this.superseded.clear();
      await this.updateFullTextIndex();
      const cleanupOlderThan = new Date(Date.now() - INDEX_VERSION_RETENTION_MS);
      for (const table of [this.itemsTable, this.documentsTable]) {
        await table.optimize({ cleanupOlderThan });
      }
    });
  }

  /**
   * Rebuilds the FTS index when rows were added since its last build, then compacts the chunks table and
   * updates its btree indexes (call inside `serialize`).
   */
  private async updateFullTextIndex(): Promise<void> {
    if (this.rebuildReason) {
      return;
    }
    try {
      const stats = this.fullTextIndexStale ? undefined : await this.chunksTable.indexStats(FULL_TEXT_INDEX_NAME);
      if (this.fullTextIndexStale || (stats?.numUnindexedRows ?? 0) > 0) {
        // Never LanceDB 0.31.0's incremental FTS update (what `optimize()` does with unindexed rows): the
        // partitioned index it leaves returns wrong rows, differently from one identical query to the next
        // (test/unit/store/reindexBurstSearch.test.ts). A fresh build cost 0.6 s at 10k chunks, 3.7 s at 100k;
        // compaction after deletions remaps a fresh index correctly.
        await this.chunksTable.createIndex('search_text', { config: fullTextIndexConfig(), replace: true });
        this.fullTextIndexStale = false;
      }
      // Compaction matters for reads: fetching 10 chunks by id took 3.5 ms over 21 fragments, 1.8 ms over one.
      await this.chunksTable.optimize({ cleanupOlderThan: new Date(Date.now() - INDEX_VERSION_RETENTION_MS) });
    } catch (error) {
      this.fullTextIndexStale = true;
      throw error;
    }
  }

  private async sweepOrphans(): Promise<void> {
    const states = await this.documentStates();
    for (const table of [this.chunksTable, this.itemsTable]) {
      const rows = await plainRows<{ document_id: string; generation: string }>(table.query().select(['document_id', 'generation']));
      const stale = new Map<string, Set<string>>();
      for (const row of rows) {
        const documentId = String(row.document_id);
        const generation = String(row.generation);
        if (states.get(documentId)?.generation !== generation) {
          const set = stale.get(documentId) ?? new Set<string>();
          set.add(generation);
          stale.set(documentId, set);
        }
      }
      if (stale.size > 0) {
        const clauses = [...stale].map(([documentId, generations]) => `(document_id = ${sqlString(documentId)} AND ${sqlIn('generation', generations)})`);
        for (let start = 0; start < clauses.length; start += 200) {
          await table.delete(clauses.slice(start, start + 200).join(' OR '));
        }
      }
    }
    this.orphansPossible = false;
  }

  /** Waits for pending writes and cancels the debounced optimize. Safe to call twice. */
  async close(): Promise<void> {
    this.cancelScheduledOptimize();
    this.closed = true;
    await this.writeQueue;
    this.connection.close();
  }
}

/** Options of the write methods. */
export interface WriteOptions {
  abortSignal?: AbortSignal;
  /** Schedule the debounced `optimize()` (default true); an index run optimizes once at its end instead. */
  scheduleOptimize?: boolean;
}

/** A one-document replacement switches by `update` (SQL literals) up to this content size; above it by merge-insert. */
const SWITCH_BY_UPDATE_MAX_CONTENT = 256 * 1024;

/** LanceDB's name for the index on `search_text`. */
const FULL_TEXT_INDEX_NAME = 'search_text_idx';

/** FTS on the contextualised chunk text. Positions stay off: 0.31.0 breaks `optimize()` with them (notes §1, bug 2). */
function fullTextIndexConfig(): lancedb.Index {
  return lancedb.Index.fts({
    withPosition: false,
    baseTokenizer: 'simple',
    language: 'English',
    stem: true,
    removeStopWords: true,
    asciiFolding: true,
    lowercase: true,
  });
}

/**
 * Query results as plain objects, read column by column from Arrow: accessing fields of `toArray()`'s row
 * proxies cost 51 ms for 1.4k item rows where this takes under 10 ms.
 */
async function plainRows<T>(query: { toArrow(): Promise<ArrowTable> }): Promise<T[]> {
  const table = await query.toArrow();
  const names = table.schema.fields.map((field) => field.name);
  const columns = names.map((name) => table.getChild(name)!);
  const rows = new Array<T>(table.numRows);
  for (let index = 0; index < table.numRows; index++) {
    const row: Record<string, unknown> = {};
    for (let column = 0; column < names.length; column++) {
      row[names[column]] = columns[column].get(index);
    }
    rows[index] = row as T;
  }
  return rows;
}

/** The underlying reason of a LanceDB error, without the stream-plumbing prefix. */
function lanceReason(error: unknown): string {
  const message = errorMessage(error);
  const match = /lance error: (.*)$/s.exec(message);
  return (match ? match[1] : message).split('. Valid fields are')[0].trim();
}

function uriPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) {
    return undefined;
  }
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

// Arrow row proxies become plain objects, so callers can keep and mutate them.
function plainDocumentState(row: DocumentState): DocumentState {
  return {
    id: String(row.id),
    generation: String(row.generation),
    uri: String(row.uri),
    relative_path: String(row.relative_path),
    title: String(row.title),
    format: String(row.format),
    content_hash: String(row.content_hash),
    metadata: String(row.metadata),
    mtime_ms: Number(row.mtime_ms),
    size: Number(row.size),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

function plainChunkFields(row: StoredChunkFields): StoredChunkFields {
  return {
    id: String(row.id),
    document_id: String(row.document_id),
    generation: String(row.generation),
    chunk_order: Number(row.chunk_order),
    content: String(row.content),
    doc_item_refs: String(row.doc_item_refs),
    labels: String(row.labels),
    headings: String(row.headings),
    page_numbers: String(row.page_numbers),
    source_range: row.source_range === null || row.source_range === undefined ? null : String(row.source_range),
    first_position: Number(row.first_position),
    last_position: Number(row.last_position),
  };
}

function plainSettings(row: SettingsRow): SettingsRow {
  return {
    id: String(row.id),
    schema_version: Number(row.schema_version),
    chunker_version: Number(row.chunker_version),
    embedder_id: row.embedder_id === null || row.embedder_id === undefined ? null : String(row.embedder_id),
    embedder_dimensions: row.embedder_dimensions === null || row.embedder_dimensions === undefined ? null : Number(row.embedder_dimensions),
    roots: String(row.roots),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}
