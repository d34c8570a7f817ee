import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Vector } from 'apache-arrow';
import { HaikuError, throwIfAborted } from '../../core/errors';
import type { ChunkRecord, DocumentSummary } from '../../core/model/search';
import { parseDocumentFilter } from '../../core/search/documentFilter';
import { lanceReason, plainChunkFields, plainRows } from './arrowRows';
import { currentGeneration, DocumentStateMap } from './documentStateMap';
import { fullTextQueryTerms } from './fullTextQuery';
import type { RecentChunks } from './recentChunks';
import { CHUNK_RESULT_COLUMNS, chunkRecord, DOCUMENT_SUMMARY_COLUMNS, documentSummary, recordedRowCounts, type DocumentState, type StoredChunkFields } from './schema';
import { sqlIn, sqlString } from '../../core/search/documentFilter';
import { FULL_TEXT_INDEX_NAME, type StoreTables } from './storeTables';

/** Up to this many documents, `documentsMissingRows` queries their rows by id instead of scanning the tables. */
const MISSING_ROWS_LOOKUP_MAX_IDS = 500;

/** A full-text or vector candidate with the chunk row (full text) or only its id (vector cache). */
export interface ChunkCandidate {
  chunkId: string;
  score: number;
  row?: StoredChunkFields;
}

/** What decides whether a chunk row is of its document's current generation. */
type LiveCheckRow = { document_id: string; generation: string };

/** A main-index full-text hit as a query returns it (result columns only when asked for). */
type FullTextRow = StoredChunkFields & { _score: number };

export interface StoreStats {
  documents: number;
  chunks: number;
}

export interface StoreReaderOptions {
  /** Rows of this process's vector cache, consulted before LanceDB. */
  residentRow: (chunkId: string) => StoredChunkFields | undefined;
  /** Brings the FTS index up to date with this process's writes before a full-text query. */
  beforeFullTextQuery: () => Promise<void>;
  /** Chunks of incremental writes not yet in the main FTS index (searched beside it). */
  recent: RecentChunks;
  /** The store answers one request and closes (`OpenStoreOptions.transient`): read only what that request needs. */
  transient?: boolean;
  /**
   * The index lives on object storage (read directly, or from its local mirror): full-text queries guess that the
   * main index covers every row instead of waiting for its statistics (see `fullTextCandidates`).
   */
  onObjectStorage?: boolean;
}

/**
 * Reads documents and chunks. Only rows of a document's current generation count; the document states
 * (everything but the content) are cached until this process writes or `invalidate()` is called.
 */
export class StoreReader {
  private readonly tables: StoreTables;
  private readonly options: StoreReaderOptions;
  private documentsCache: Map<string, DocumentState> | undefined;
  /** A transient store's ids and generations (and row ids), read without the other columns (`liveStates`). */
  private generationsRead: Promise<{ states: DocumentStateMap; rowIds: Vector }> | undefined;
  /** A transient store's states read by id (`documentStatesOf`). */
  private readonly statesRead = new Map<string, DocumentState>();
  /**
   * Whether the main FTS index misses rows of the table version this process sees (asked once per version). Rows
   * this process wrote are indexed or copied before its queries (StoreMaintenance), but another process's may not
   * be: a writer killed between its switch and its fold, or one still running. Those rows are flat-searched.
   */
  private mainIndexMissesRows: Promise<boolean> | undefined;
  /** `mainIndexMissesRows` once it said yes: full-text queries on object storage then skip the round that guesses no. */
  private mainIndexKnownToMissRows = false;

  constructor(tables: StoreTables, options: StoreReaderOptions) {
    this.tables = tables;
    this.options = options;
  }

  invalidate(): void {
    this.documentsCache = undefined;
    this.generationsRead = undefined;
    this.statesRead.clear();
    this.mainIndexMissesRows = undefined;
    this.mainIndexKnownToMissRows = false;
  }

  /** This process rebuilt the main FTS index over every row: queries need not flat-search. */
  noteMainIndexComplete(): void {
    this.mainIndexMissesRows = Promise.resolve(false);
    this.mainIndexKnownToMissRows = false;
  }

  private async flatSearchNeeded(): Promise<boolean> {
    this.mainIndexMissesRows ??= this.tables.chunks.indexStats(FULL_TEXT_INDEX_NAME).then(
      (stats) => (this.mainIndexKnownToMissRows = (stats?.numUnindexedRows ?? 0) > 0),
      () => false,
    );
    return this.mainIndexMissesRows;
  }

  /** Every stored document's state (no content), cached until this store writes. */
  /** A document's state as last read or written by this process, if cached: no query (it may be out of date). */
  cachedDocumentState(documentId: string): DocumentState | undefined {
    return this.documentsCache?.get(documentId);
  }

  async documentStates(): Promise<Map<string, DocumentState>> {
    if (!this.documentsCache) {
      this.documentsCache = new DocumentStateMap(await this.tables.documents.query().select(DOCUMENT_SUMMARY_COLUMNS).toArrow());
    }
    return this.documentsCache;
  }

  /**
   * What liveness checks read (`currentGeneration`): every state once read; in a transient store, only the id and
   * generation columns, a third of the time of all twelve summary columns on SciFact (23 against 60 ms), which was
   * the longest read of a one-shot search. Its states are not whole: only `has`, `size` and `currentGeneration` hold.
   */
  liveStates(): Promise<ReadonlyMap<string, DocumentState>> {
    if (this.readsEveryState) {
      return this.documentStates();
    }
    if (!this.generationsRead) {
      const read = this.tables.documents
        .query()
        .select(['id', 'generation'])
        .withRowId()
        .toArrow()
        .then((table) => ({ states: new DocumentStateMap(table), rowIds: table.getChild('_rowid')! }));
      // A failed read is not kept (as `documentStates` keeps none): the next call reads again.
      read.catch(() => {
        if (this.generationsRead === read) {
          this.generationsRead = undefined;
        }
      });
      this.generationsRead = read;
    }
    return this.generationsRead.then(({ states }) => states);
  }

  /** Whether reads go through the cache of every state: a long-lived store, or a transient one that read them all. */
  private get readsEveryState(): boolean {
    return this.documentsCache !== undefined || !this.options.transient;
  }

  /**
   * The states of these documents (others may be there too): every state once read; in a transient store, these
   * documents' rows alone, read by id and kept for the store's one request (the hits' documents after its search).
   */
  async documentStatesOf(documentIds: Iterable<string>): Promise<ReadonlyMap<string, DocumentState>> {
    if (this.readsEveryState) {
      return this.documentStates();
    }
    const missing = [...new Set(documentIds)].filter((id) => !this.statesRead.has(id));
    if (missing.length > 0) {
      for (const [id, state] of await this.summariesOf(missing)) {
        this.statesRead.set(id, state);
      }
    }
    return this.statesRead;
  }

  /**
   * The summary rows of these documents: taken by the row ids the liveness read gave (no index to load: 9 against
   * 24 ms for ten documents in a fresh process), else, for ids it did not see, looked up by id.
   */
  private async summariesOf(documentIds: readonly string[]): Promise<DocumentStateMap> {
    // Without the liveness read (none yet, or it failed), by id.
    const generations = await this.generationsRead?.catch(() => undefined);
    const rows = documentIds.map((id) => generations?.states.rowIndexOf(id));
    if (generations && rows.every((row) => row !== undefined)) {
      const taken = new DocumentStateMap(await this.tables.documents.takeRowIds(rows.map((row) => generations.rowIds.get(row) as bigint)).select(DOCUMENT_SUMMARY_COLUMNS).toArrow());
      if (documentIds.every((id) => taken.has(id))) {
        return taken;
      }
    }
    return new DocumentStateMap(await this.tables.documents.query().where(sqlIn('id', documentIds)).select(DOCUMENT_SUMMARY_COLUMNS).toArrow());
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
    const state = (await this.documentStatesOf([documentId])).get(documentId);
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
    const rows = await plainRows<{ content: string }>(this.tables.documents.query().where(`id = ${sqlString(documentId)}`).select(['content']));
    return rows.length > 0 ? String(rows[0].content) : undefined;
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
      const resident = this.options.residentRow(id);
      if (resident) {
        result.set(id, resident);
      } else {
        ids.push(id);
      }
    }
    if (ids.length === 0) {
      return result;
    }
    const states = await this.liveStates();
    const rows = await plainRows<StoredChunkFields>(this.tables.chunks.query().where(sqlIn('id', ids)).select(CHUNK_RESULT_COLUMNS));
    for (const row of rows) {
      if (currentGeneration(states, row.document_id) === row.generation) {
        result.set(row.id, plainChunkFields(row));
      }
    }
    return result;
  }

  /** Ids of the documents a SQL WHERE clause over document columns selects; a bad clause is a typed error. */
  async documentIdsMatching(filter: string): Promise<Set<string>> {
    const condition = parseDocumentFilter(filter);
    let rows: Array<{ id: string }>;
    try {
      rows = await plainRows<{ id: string }>(this.tables.documents.query().where(condition).select(['id']));
    } catch (error) {
      throw new HaikuError('invalid_filter', `The filter \`${filter}\` is not a valid SQL condition over document columns (id, uri, relative_path, title, format, metadata, created_at, updated_at): ${lanceReason(error)}`, { cause: error });
    }
    const states = await this.documentStates();
    return new Set(rows.map((row) => String(row.id)).filter((id) => states.has(id)));
  }

  /**
   * BM25 candidates over `search_text`, best first, restricted to `allowedDocumentIds` when given: the main
   * index's rows merged by score with the recent table's. Rows not yet in the main index are flat-searched only
   * when another process left them there (`flatSearchNeeded`): LanceDB 0.31.0's flat search drops words that are
   * frequent among those rows (see StoreMaintenance), which beats not finding a published document at all.
   * `withRows: false` returns ids and scores only (hybrid search fetches rows for the fused top results alone).
   */
  async fullTextCandidates(query: string, limit: number, allowedDocumentIds?: ReadonlySet<string>, options: { withRows?: boolean } = {}): Promise<ChunkCandidate[]> {
    const withRows = options.withRows ?? true;
    const terms = fullTextQueryTerms(query);
    if (terms.length === 0) {
      return [];
    }
    await this.options.beforeFullTextQuery();
    // The index statistics, the documents, the main query's first round and the side table's queries are read side
    // by side (a fresh process, such as a one-shot `haiku search`, waited for each in turn); only the liveness checks
    // wait for the documents. On object storage the round guesses that the main index covers every row, as it does
    // unless another process left rows unindexed, and is run again, with the flat search, as soon as the statistics
    // say not: read directly, the statistics are round trips of their own, and from the mirror the guess measured
    // 128-139 ms against 139-160 for a cold first tool call. On a local disk the statistics read what the query reads
    // next, so waiting for them cost nothing (34 against 35 ms), and a wrong guess cost a first search ~40 ms of CPU.
    const flat = this.flatSearchNeeded();
    const statesRead = this.liveStates();
    const where = allowedDocumentIds ? sqlIn('document_id', allowedDocumentIds) : undefined;
    const guesses = this.options.onObjectStorage && !this.mainIndexKnownToMissRows;
    const guessed = guesses ? this.mainFullTextRound(terms, limit, { where, withRows, flat: false }) : undefined;
    const firstRound = flat.then((needed) => (needed || !guessed ? this.mainFullTextRound(terms, limit, { where, withRows, flat: needed }) : guessed));
    const isLive = statesRead.then((states) => (row: LiveCheckRow) => currentGeneration(states, row.document_id) === row.generation);
    for (const pending of [guessed, firstRound, isLive]) {
      pending?.catch(() => undefined);
    }
    const [recent, main] = await Promise.all([
      this.options.recent.candidates(terms, { main: this.tables.chunks, isLive, allowedDocumentIds }),
      Promise.all([isLive, flat]).then(([live, needed]) => this.mainFullTextCandidates(terms, limit, { isLive: live, where, withRows, flat: needed, firstRound })),
    ]);
    if (recent.length === 0) {
      return main;
    }
    const merged = new Map(main.map((candidate) => [candidate.chunkId, candidate]));
    for (const hit of recent) {
      // A row in both came from a flat search of the main table, whose score misses the words LanceDB 0.31.0
      // drops there: the higher of the two estimates counts.
      const known = merged.get(hit.id);
      if (!known || known.score < hit.score) {
        merged.set(hit.id, { ...known, chunkId: hit.id, score: hit.score });
      }
    }
    const best = [...merged.values()].sort((left, right) => right.score - left.score).slice(0, limit);
    if (withRows) {
      const rows = await this.chunkRowsByIds(best.filter((candidate) => !candidate.row).map((candidate) => candidate.chunkId));
      return best.flatMap((candidate) => {
        const row = candidate.row ?? rows.get(candidate.chunkId);
        return row ? [{ ...candidate, row }] : [];
      });
    }
    return best;
  }

  private async mainFullTextCandidates(
    terms: string,
    limit: number,
    options: { isLive: (row: LiveCheckRow) => boolean; where: string | undefined; withRows: boolean; flat: boolean; firstRound: Promise<FullTextRow[]> },
  ): Promise<ChunkCandidate[]> {
    const { isLive, withRows } = options;
    let fetch = limit;
    // Rows of a superseded generation may sit in the table for a moment (or after a crash); skip them and
    // fetch more when that left us short, so `limit` is honoured.
    for (let attempt = 0; ; attempt++) {
      const rows = await (attempt === 0 ? options.firstRound : this.mainFullTextRound(terms, fetch, options));
      const live = rows.filter(isLive);
      if (live.length >= limit || rows.length < fetch || attempt >= 4) {
        return live.slice(0, limit).map((row) => ({ chunkId: String(row.id), score: Number(row._score), row: withRows ? plainChunkFields(row) : undefined }));
      }
      fetch = fetch * 2 + (rows.length - live.length);
    }
  }

  /** One query of the main FTS index; `flat` also searches rows the index does not cover yet. */
  private mainFullTextRound(terms: string, fetch: number, options: { where: string | undefined; withRows: boolean; flat: boolean }): Promise<FullTextRow[]> {
    let builder = this.tables.chunks.query().fullTextSearch(terms, { columns: ['search_text'] });
    if (!options.flat) {
      builder = builder.fastSearch();
    }
    if (options.where) {
      builder = builder.where(options.where);
    }
    const columns = options.withRows ? [...CHUNK_RESULT_COLUMNS, '_score'] : ['id', 'document_id', 'generation', '_score'];
    return plainRows<FullTextRow>(builder.select(columns).limit(fetch));
  }

  /**
   * Documents whose current generation lost rows it should have (chunk rows, or item rows), e.g. deleted by
   * a concurrent writer of an older version: `index` re-converts them even when their files are unchanged.
   * Documents written before the counts were recorded count as damaged when they have content but no rows.
   */
  async documentsMissingRows(documentIds?: readonly string[]): Promise<Set<string>> {
    const allStates = await this.documentStates();
    const states = documentIds ? new Map(documentIds.flatMap((id) => (allStates.has(id) ? [[id, allStates.get(id)!] as const] : []))) : allStates;
    if (states.size === 0) {
      return new Set();
    }
    // A few documents (the watcher's one-file run) are looked up by id; many are cheaper as one scan.
    const where = states.size <= MISSING_ROWS_LOOKUP_MAX_IDS ? sqlIn('document_id', states.keys()) : undefined;
    const liveDocuments = async (table: StoreTables['chunks']): Promise<Set<string>> => {
      const query = table.query().select(['document_id', 'generation']);
      const rows = await plainRows<{ document_id: string; generation: string }>(where ? query.where(where) : query);
      return new Set(rows.filter((row) => currentGeneration(states, String(row.document_id)) === String(row.generation)).map((row) => String(row.document_id)));
    };
    const [withChunks, withItems] = await Promise.all([liveDocuments(this.tables.chunks), liveDocuments(this.tables.items)]);
    const damaged = new Set<string>();
    const withoutCounts: string[] = [];
    for (const state of states.values()) {
      const counts = recordedRowCounts(state);
      if (!counts) {
        if (!withChunks.has(state.id) && !withItems.has(state.id)) {
          withoutCounts.push(state.id);
        }
      } else if ((counts.chunks > 0 && !withChunks.has(state.id)) || (counts.items > 0 && !withItems.has(state.id))) {
        damaged.add(state.id);
      }
    }
    if (withoutCounts.length > 0) {
      const rows = await plainRows<{ id: string }>(this.tables.documents.query().where(`${sqlIn('id', withoutCounts)} AND content != ''`).select(['id']));
      for (const row of rows) {
        damaged.add(String(row.id));
      }
    }
    return damaged;
  }

  async stats(): Promise<StoreStats> {
    const states = await this.documentStates();
    const generations = [...new Set([...states.values()].map((state) => state.generation))];
    const chunks = generations.length === 0 ? 0 : await this.tables.chunks.countRows(sqlIn('generation', generations));
    return { documents: states.size, chunks };
  }
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
