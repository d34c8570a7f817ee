/**
 * The index on disk: LanceDB 0.31.0, embedded, four tables (see `schema.ts`). This façade wires the parts:
 * - `StoreTables`: connection, tables, settings checks (layout, chunker, embedder);
 * - `StoreReader`, `ItemReader`, `VectorSearch`: reads, with the document-state, item and vector caches;
 * - `StoreWriter`: generations and the atomic switch, removes, touches;
 * - `StoreMaintenance`: FTS upkeep, optimize, orphan sweep; `RootsRegistry`: what `rebuild` re-indexes;
 * - `SearchEngine` (src/node/search) ranks over the reader parts through its `CandidateSource` interface.
 * Caches follow this process's writes; `refresh()` re-reads after others'.
 */
import './lanceEnvironment';
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import type { HaikuConfig } from '../../core/config';
import { embedderDimensions, type Embedder } from '../../core/embeddings/embedder';
import { errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import { ITEM_CACHE_MAX_ITEMS, REMOTE_ITEM_CACHE_MAX_ITEMS, REMOTE_RESIDENT_CHUNK_ROWS_MAX_BYTES, REMOTE_VECTOR_CACHE_MAX_BYTES, RESIDENT_CHUNK_ROWS_MAX_BYTES, VECTOR_CACHE_MAX_BYTES } from '../../core/limits';
import type { ChunkRecord, DocumentSummary, KnowledgeBase, SearchOptions, SearchResult, StoredItem } from '../../core/model/search';
import type { Reranker } from '../../core/search/reranker';
import { SearchEngine, type EngineSearchOptions } from '../search/searchEngine';
import { ItemReader } from './itemReader';
import { localVersionsFingerprint } from './localVersions';
import { RootsRegistry, type IndexedRoot } from './rootsRegistry';
import { CHUNKS_TABLE, type DocumentState, type StoredChunkFields } from './schema';
import { StoreMaintenance } from './storeMaintenance';
import { StoreReader, type ChunkCandidate, type StoreStats } from './storeReader';
import { hasUriScheme, StoreTables } from './storeTables';
import { StoreWriter, type DocumentPartsWrite, type DocumentWrite, type StoreTestHooks, type WriteOptions } from './storeWriter';
import { RecentChunks } from './recentChunks';
import { VectorSearch } from './vectorSearch';
import { WriteQueue } from './writeQueue';
import { objectStorageError, requireObjectStorageAnswers, storageOptionsFor, withoutSecrets, type ObjectStorageSettings } from './objectStorage';
import { writerLeaseFor, type LeaseWaitOptions, type WriterLease } from './writerLease';

export type { ChunkCandidate, DocumentPartsWrite, DocumentWrite, IndexedRoot, StoreStats, StoreTestHooks, WriteOptions };

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
  /** Serialises writers (default: a lock file in a local index folder, none for URIs with a scheme). */
  writerLease?: WriterLease;
  /** Where "waiting for another Haiku writer" goes (default: stderr). */
  onWriterWait?: (message: string) => void;
  /** Endpoint, region and keys for `s3://…` (the AWS environment variables fill what is left out). */
  storage?: ObjectStorageSettings;
  /** Never writes: no table creation, no lease, no optimize; every write method throws `read_only`. */
  readOnly?: boolean;
  /** Fail with `not_found` instead of creating the tables when the index has none (implied by `readOnly`). */
  mustExist?: boolean;
  /** A local copy of the `s3://` index (`BucketMirror`): LanceDB reads its folder, `uri` still names the index, `refresh()` syncs it first. */
  localMirror?: { folder: string; sync(): Promise<unknown>; takeRestarted(): boolean };
  /**
   * The store answers one request and is closed (a one-shot `haiku search`): searches read the documents' ids and
   * generations, then the hits' documents, instead of every document's summary, which a long-lived store caches.
   */
  transient?: boolean;
}

/** Opens (creating when absent) the index at `options.uri`. A layout or embedder mismatch opens in a "rebuild needed" state. */
export async function openStore(options: OpenStoreOptions): Promise<LanceStore> {
  throwIfAborted(options.abortSignal, 'Opening the index');
  const uri = resolveDatabaseUri(options.uri, options.cwd);
  if (!hasUriScheme(uri) && !options.readOnly) {
    fs.mkdirSync(uri, { recursive: true });
  }
  const storageOptions = storageOptionsFor(uri, options.storage);
  if (!options.localMirror) {
    await requireObjectStorageAnswers(uri, storageOptions, options.abortSignal);
  }
  let connection: lancedb.Connection;
  try {
    connection = options.localMirror ? await lancedb.connect(options.localMirror.folder) : await lancedb.connect(uri, storageOptions ? { storageOptions } : {});
  } catch (error) {
    throw objectStorageError(error, uri, storageOptions) ?? new HaikuError('unreadable_file', `Could not open the index at ${uri}: ${withoutSecrets(errorMessage(error), storageOptions)}. Check the path and its permissions.`, { cause: error, remedy: { settings: ['index.databaseUri'] } });
  }
  const store = new LanceStore(connection, uri, options);
  try {
    await store.initialize();
  } catch (error) {
    connection.close();
    throw objectStorageError(error, uri, storageOptions) ?? error;
  }
  return store;
}

/** A folder path becomes absolute; URIs (`s3://…`, `file://…`) pass unchanged. */
export function resolveDatabaseUri(uri: string, cwd = process.cwd()): string {
  return hasUriScheme(uri) ? uri : path.resolve(cwd, uri);
}

export class LanceStore implements KnowledgeBase {
  readonly uri: string;
  readonly embedder: Embedder | undefined;
  readonly testHooks: StoreTestHooks = {};
  /** Opened with `readOnly`: nothing is ever written (no lease, no optimize). */
  readonly readOnly: boolean;
  private readonly storageOptions: Record<string, string> | undefined;
  private readonly localMirror: OpenStoreOptions['localMirror'];
  private readonly mustExist: boolean;
  private readonly tables: StoreTables;
  private readonly queue: WriteQueue;
  private readonly reader: StoreReader;
  private readonly items: ItemReader;
  private readonly vectors: VectorSearch;
  private readonly writer: StoreWriter;
  private readonly maintenance: StoreMaintenance;
  private readonly recent: RecentChunks;
  private readonly rootsRegistry: RootsRegistry;
  private readonly engine: SearchEngine;

  constructor(connection: lancedb.Connection, uri: string, options: OpenStoreOptions) {
    this.uri = uri;
    this.embedder = options.embedder;
    this.readOnly = options.readOnly ?? false;
    this.storageOptions = storageOptionsFor(uri, options.storage);
    this.localMirror = options.localMirror;
    this.mustExist = options.mustExist ?? false;
    this.tables = new StoreTables(connection, uri, options.embedder);
    this.queue = new WriteQueue({
      lease: options.writerLease ?? writerLeaseFor(uri, hasUriScheme(uri), this.storageOptions),
      readOnly: this.readOnly,
      revalidate: (revalidation) => this.revalidate(revalidation.force),
      beforeRelease: (clean) => this.noteVersionsAtRelease(clean),
      onWait: options.onWriterWait ?? ((message) => process.stderr.write(`${message}\n`)),
    });
    const documentStates = () => this.reader.documentStates();
    // Object storage: smaller resident caches (a team index may be far larger than a local one).
    const remote = hasUriScheme(uri);
    this.vectors = new VectorSearch(this.tables, () => this.reader.liveStates(), {
      vectorCacheMaxBytes: options.vectorCacheMaxBytes ?? (remote ? REMOTE_VECTOR_CACHE_MAX_BYTES : VECTOR_CACHE_MAX_BYTES),
      residentRowsMaxBytes: options.residentRowsMaxBytes ?? (remote ? REMOTE_RESIDENT_CHUNK_ROWS_MAX_BYTES : RESIDENT_CHUNK_ROWS_MAX_BYTES),
    });
    this.recent = new RecentChunks(connection);
    this.maintenance = new StoreMaintenance(this.tables, this.queue, this.recent, documentStates, () => this.reader.noteMainIndexComplete(), this.testHooks);
    this.reader = new StoreReader(this.tables, {
      residentRow: (chunkId) => this.vectors.residentRow(chunkId),
      beforeFullTextQuery: () => this.maintenance.ensureFullTextFresh(),
      recent: this.recent,
      transient: options.transient,
      onObjectStorage: remote,
    });
    this.items = new ItemReader(this.tables, documentStates, remote ? REMOTE_ITEM_CACHE_MAX_ITEMS : ITEM_CACHE_MAX_ITEMS);
    this.writer = new StoreWriter({ tables: this.tables, queue: this.queue, reader: this.reader, items: this.items, vectors: this.vectors, maintenance: this.maintenance, testHooks: this.testHooks });
    this.rootsRegistry = new RootsRegistry(this.tables, this.queue);
    this.engine = new SearchEngine({ source: this, embedder: options.embedder, reranker: options.reranker, settings: options.search });
  }

  /** @internal Opens or creates the tables and checks the stored settings. */
  async initialize(): Promise<void> {
    await this.tables.initialize(() => this.probeDimensions(), (work) => this.queue.holdLease(work), { mustExist: this.readOnly || this.mustExist });
    if (!this.readOnly && !this.tables.rebuildReason && this.tables.vectorColumnPending) {
      // A vector-width rebuild was killed between its settings and its column: the first writer finishes it.
      await this.queue.holdLease(async () => {
        await this.tables.reloadSettings();
        await this.tables.alignVectorColumn();
      });
    }
  }

  /** The embedder's dimension, asking the server once when the settings did not give it (needed for the vector column). */
  private async probeDimensions(): Promise<number | undefined> {
    return this.embedder ? embedderDimensions(this.embedder) : undefined;
  }

  /** Why the index must be rebuilt before use, or undefined when it is usable. */
  get rebuildNeeded(): string | undefined {
    return this.tables.rebuildReason;
  }

  /** True when chunks carry vectors of the configured embedder (hybrid search possible). */
  get hasVectors(): boolean {
    return !this.tables.rebuildReason && !!this.embedder && this.tables.settings?.embedder_id === this.embedder.id && !this.tables.vectorColumnPending;
  }

  /** The embedder the index was built with (null: full text only). */
  get storedEmbedderId(): string | null {
    return this.tables.settings?.embedder_id ?? null;
  }

  /** Dimension of the stored vectors; undefined for a full-text-only index. */
  get vectorDimensions(): number | undefined {
    return this.tables.settings?.embedder_dimensions ?? undefined;
  }

  get rowsResident(): boolean {
    return this.vectors.keepsRows;
  }

  assertUsable(): void {
    this.tables.assertUsable();
  }

  assertWritable(): void {
    this.queue.assertWritable();
    this.tables.assertWritable();
  }

  // ---------------------------------------------------------------- read side

  search(query: string, options?: SearchOptions): Promise<SearchResult[]> {
    return this.engine.search(query, options);
  }

  /** `search` with engine-only options (mode), for evaluation and benchmarks. */
  searchWith(query: string, options: EngineSearchOptions): Promise<SearchResult[]> {
    return this.engine.search(query, options);
  }

  documentStates(): Promise<Map<string, DocumentState>> {
    return this.reader.documentStates();
  }

  documentStatesOf(documentIds: Iterable<string>): Promise<ReadonlyMap<string, DocumentState>> {
    return this.reader.documentStatesOf(documentIds);
  }

  /** A document's state as this process last knew it, without a query and outside the lease: a hint, maybe out of date. */
  cachedDocumentState(documentId: string): DocumentState | undefined {
    return this.reader.cachedDocumentState(documentId);
  }

  /**
   * Moves to the tables' latest versions and drops in-memory caches, so the next read sees writes made by other
   * processes. Object storage failures come back as typed errors naming the fix.
   */
  async refresh(): Promise<void> {
    this.invalidateCaches();
    try {
      // A mirrored index fetches the bucket's new files first (one listing when nothing changed).
      await this.localMirror?.sync();
      if (this.localMirror?.takeRestarted()) {
        await this.reopenMirror();
        return;
      }
      await this.tables.checkoutLatest();
      await this.recent.checkoutLatest();
    } catch (error) {
      throw objectStorageError(error, this.uri, this.storageOptions) ?? error;
    }
  }

  /**
   * The mirror's index was published anew (`BucketMirror.takeRestarted`): its tables are opened again on a new
   * connection, whose caches know nothing of the old versions. Read-only stores only (a mirror is never written).
   */
  async reopenMirror(): Promise<void> {
    if (!this.localMirror) {
      return;
    }
    const previous = this.tables.connection;
    const connection = await lancedb.connect(this.localMirror.folder);
    await this.tables.reconnect(connection);
    this.recent.reconnect(connection);
    this.invalidateCaches();
    previous.close();
  }

  /**
   * Under an exclusive lease on a local index, the tables' fingerprint when this process last let the lease go after
   * work that all succeeded: its table handles were then at the latest versions, and the lease kept other writers out.
   */
  private versionsAtRelease: string | undefined;

  private noteVersionsAtRelease(clean: boolean): void {
    this.versionsAtRelease = clean && this.queue.exclusive && !this.tables.closed ? this.localVersions() : undefined;
  }

  /** The local tables' fingerprint (`localVersionsFingerprint`); undefined on object storage. */
  private localVersions(): string | undefined {
    const folder = this.tables.localTableFolder(CHUNKS_TABLE);
    return folder === undefined ? undefined : localVersionsFingerprint(path.dirname(folder));
  }

  /** Under a fresh lease, or after a commit conflict: sees what other writers committed before writing. */
  private async revalidate(force: boolean): Promise<void> {
    if (this.tables.closed) {
      return;
    }
    if (!force && this.versionsAtRelease !== undefined && this.localVersions() === this.versionsAtRelease) {
      // Nobody committed since this process let the lease go (a watcher's next one-file run): its tables are the latest.
      return;
    }
    // Tables another process was still creating when this store opened are opened now.
    const tablesOpened = await this.tables.reopenMissingTables();
    // Both move (a short-circuit left the recent table on its old version whenever the main tables had changed),
    // side by side: independent tables.
    const [tablesChanged, recentChanged] = await Promise.all([this.tables.checkoutLatest(), this.recent.checkoutLatest()]);
    if (tablesOpened || tablesChanged || recentChanged || force) {
      this.invalidateCaches();
      await this.tables.reloadSettings();
    }
  }

  /**
   * Holds the writer lease across `work` (an index run), waiting while another process writes; the store's
   * write methods called inside share it. Caches are re-read first when another writer changed the index.
   */
  withWriterLease<T>(work: () => Promise<T>, options: LeaseWaitOptions = {}): Promise<T> {
    return this.queue.holdLease(work, options);
  }

  private invalidateCaches(): void {
    this.reader.invalidate();
    this.items.invalidate();
    this.vectors.invalidate();
  }

  listDocuments(options: { filter?: string; abortSignal?: AbortSignal } = {}): Promise<DocumentSummary[]> {
    return this.reader.listDocuments(options);
  }

  getDocument(documentId: string, options: { filter?: string } = {}): Promise<DocumentSummary | undefined> {
    return this.reader.getDocument(documentId, options);
  }

  findDocument(reference: string): Promise<DocumentSummary | undefined> {
    return this.reader.findDocument(reference);
  }

  getDocumentContent(documentId: string): Promise<string | undefined> {
    return this.reader.getDocumentContent(documentId);
  }

  /** A picture item's image (bytes never travel with items; see `ItemReader.pictureBytes`). */
  pictureBytes(documentId: string, selfRef: string): Promise<{ bytes: Uint8Array; mimeType: string; width: number; height: number } | undefined> {
    return this.items.pictureBytes(documentId, selfRef);
  }

  getDocumentItems(documentId: string): Promise<StoredItem[]> {
    return this.items.getDocumentItems(documentId);
  }

  itemsInWindows(windows: ReadonlyMap<string, readonly [number, number]>): Promise<Map<string, StoredItem[]>> {
    return this.items.itemsInWindows(windows);
  }

  itemsForDocuments(documentIds: readonly string[], options: { withChunkIds?: boolean } = {}): Promise<Map<string, StoredItem[]>> {
    return this.items.itemsForDocuments(documentIds, options);
  }

  getChunks(chunkIds: string[], options: { filter?: string } = {}): Promise<ChunkRecord[]> {
    return this.reader.getChunks(chunkIds, options);
  }

  chunkRowsByIds(chunkIds: readonly string[]): Promise<Map<string, StoredChunkFields>> {
    return this.reader.chunkRowsByIds(chunkIds);
  }

  documentIdsMatching(filter: string): Promise<Set<string>> {
    return this.reader.documentIdsMatching(filter);
  }

  fullTextCandidates(query: string, limit: number, allowedDocumentIds?: ReadonlySet<string>, options: { withRows?: boolean } = {}): Promise<ChunkCandidate[]> {
    return this.reader.fullTextCandidates(query, limit, allowedDocumentIds, options);
  }

  vectorCandidates(vector: Float32Array, limit: number, allowedDocumentIds?: ReadonlySet<string>): Promise<ChunkCandidate[]> {
    return this.vectors.vectorCandidates(vector, limit, allowedDocumentIds);
  }

  /** Documents whose current rows went missing; `index` re-converts them (see `StoreReader.documentsMissingRows`). */
  documentsMissingRows(documentIds?: readonly string[]): Promise<Set<string>> {
    return this.reader.documentsMissingRows(documentIds);
  }

  stats(): Promise<StoreStats> {
    return this.reader.stats();
  }

  /** The folders and files indexed so far, with their base folders (what `rebuild` re-indexes). */
  get roots(): IndexedRoot[] {
    return this.rootsRegistry.roots;
  }

  /** True when the chunk and item tables hold no rows at all, not even orphans of a killed write. */
  async holdsNoRows(): Promise<boolean> {
    return (await this.tables.chunks.countRows()) === 0 && (await this.tables.items.countRows()) === 0;
  }

  /** Current LanceDB version of each table (tests use it to prove an unchanged file causes no write). */
  tableVersions(): Promise<Record<string, number>> {
    return this.tables.versions();
  }

  // ---------------------------------------------------------------- write side

  writeDocuments(entries: readonly DocumentWrite[], options: WriteOptions = {}): Promise<void> {
    return this.writer.writeDocuments(entries, options);
  }

  /** One big document written as its parts come (see `StoreWriter.writeDocumentInParts`); gives its chunk count. */
  writeDocumentInParts(entry: DocumentPartsWrite, options: WriteOptions = {}): Promise<number> {
    return this.writer.writeDocumentInParts(entry, options);
  }

  removeDocuments(documentIds: readonly string[], options: WriteOptions = {}): Promise<void> {
    return this.writer.removeDocuments(documentIds, options);
  }

  touchDocuments(updates: ReadonlyArray<{ documentId: string; mtimeMs: number; size: number }>): Promise<void> {
    return this.writer.touchDocuments(updates);
  }

  recordRoots(roots: readonly IndexedRoot[]): Promise<void> {
    return this.rootsRegistry.recordRoots(roots);
  }

  forgetRoots(rootPaths: readonly string[]): Promise<void> {
    return this.rootsRegistry.forgetRoots(rootPaths);
  }

  /**
   * The first half of `rebuild`. When the tables are this version's layout nothing is dropped: every document is
   * marked stale and the settings take the current chunker and embedder (a vector column of another width is
   * swapped for an empty one of the new width), so the next index run converts each document again and swaps it
   * atomically, and a kill at any moment leaves the previous index complete and searchable. Only an index of
   * another table layout (an older Haiku) is emptied and recreated; the settings row, with the roots, is replaced
   * in place and never dropped, so a kill leaves the roots for the next `rebuild`.
   */
  reset(): Promise<void> {
    return this.queue.run(async () => {
      const rootsJson = JSON.stringify(this.roots);
      const dimensions = await this.probeDimensions();
      if (this.tables.canRebuildInPlace(dimensions)) {
        await this.tables.markForRebuild(rootsJson, dimensions);
        this.invalidateCaches();
        return;
      }
      if (this.tables.canRebuildWithVectorWidth()) {
        await this.tables.rebuildWithVectorWidth(rootsJson, dimensions, this.testHooks.afterVectorSettings);
        this.invalidateCaches();
        return;
      }
      this.maintenance.forgetPending();
      await this.tables.dropDataTables();
      await this.recent.drop();
      this.invalidateCaches();
      await this.testHooks.afterTablesDropped?.();
      await this.tables.createTables(rootsJson, dimensions);
    });
  }

  scheduleOptimize(): void {
    if (this.readOnly) {
      return;
    }
    this.maintenance.scheduleOptimize();
  }

  /**
   * Upkeep after writes (see `StoreMaintenance.optimize`; `keepRecent` leaves copied rows to a later fold;
   * `compactOnlyIfFragmented` leaves the compaction of tables of few fragments to the debounced upkeep: only for a
   * run into empty tables, which deleted and replaced nothing, since deleted rows go only with compaction).
   */
  optimize(options: { sweepOrphans?: boolean; keepRecent?: boolean; compactOnlyIfFragmented?: boolean } = {}): Promise<void> {
    return this.maintenance.optimize(options);
  }

  /** Waits for pending writes and cancels the debounced optimize. Safe to call twice. */
  async close(): Promise<void> {
    this.maintenance.cancelScheduledOptimize();
    this.tables.closed = true;
    await this.queue.drain();
    this.tables.connection.close();
  }
}
