import { CHUNK_RESULT_COLUMNS, type DocumentState, type StoredChunkFields } from './schema';
import { sqlIn } from '../../core/search/documentFilter';
import { plainChunkFields, plainRows } from './arrowRows';
import { ResidentRows } from './residentRows';
import type { ChunkCandidate } from './storeReader';
import type { StoreTables } from './storeTables';
import { VectorCache } from './vectorCache';
import { currentGeneration } from './documentStateMap';
import { VECTOR_INDEX_MIN_REFINED, VECTOR_INDEX_PROBES, VECTOR_INDEX_REFINE_FACTOR } from '../../core/limits';

type VectorCacheState =
  | { kind: 'unloaded' }
  | { kind: 'warming'; timer: ReturnType<typeof setTimeout> | undefined }
  | { kind: 'loaded'; cache: VectorCache }
  | { kind: 'too_large' };

/**
 * How long after a process's first vector query ends the resident cache starts loading. The first query scans in LanceDB
 * instead (loading every vector cost a first hybrid search 24× a first full-text one); the timer is unref'd, so a
 * one-shot `haiku search` exits without loading, and a long-lived process (VS Code, MCP) has the cache soon after.
 * Here rather than in core/limits.ts because it is this class's scheduling detail, not a user-facing limit.
 */
export const VECTOR_CACHE_WARM_DELAY_MS = 250;

/**
 * A row without a vector (one from before a vector-width rebuild, not re-indexed yet): null, or all zeros in a
 * legacy-format table, which cannot store a missing vector. Embeddings are unit length, never all zeros.
 */
export function isMissingVector(vector: ArrayLike<number> | null | undefined): boolean {
  if (!vector) {
    return true;
  }
  for (let index = 0; index < vector.length; index++) {
    if (vector[index] !== 0) {
      return false;
    }
  }
  return true;
}

export interface VectorSearchOptions {
  /** Above this many bytes of vectors, vector search scans in LanceDB instead of the resident cache. */
  vectorCacheMaxBytes: number;
  /** Above this many bytes of chunk rows, vector results are fetched from LanceDB per query. */
  residentRowsMaxBytes: number;
}

/**
 * Nearest-chunk search: an exact dot-product scan over a resident copy of the vectors (`VectorCache`) while
 * it fits its budget, LanceDB above it and before the copy is loaded (its ANN index with exact re-ranking on a big
 * table, its exact scan on a small one); the result fields of every chunk stay resident beside the vectors while
 * they fit theirs. Both follow this process's writes.
 */
export class VectorSearch {
  private readonly tables: StoreTables;
  /** What liveness checks read: every state, or in a transient store only ids and generations (`StoreReader.liveStates`). */
  private readonly liveStates: () => Promise<ReadonlyMap<string, DocumentState>>;
  private readonly options: VectorSearchOptions;
  private state: VectorCacheState = { kind: 'unloaded' };
  /** Loaded with the vector cache when the rows fit `residentRowsMaxBytes`. */
  private residentRows: ResidentRows | undefined;

  constructor(tables: StoreTables, liveStates: () => Promise<ReadonlyMap<string, DocumentState>>, options: VectorSearchOptions) {
    this.tables = tables;
    this.liveStates = liveStates;
    this.options = options;
  }

  invalidate(): void {
    this.stopWarming();
    this.state = { kind: 'unloaded' };
    this.residentRows = undefined;
  }

  /** Loads the resident cache now (tests, and a caller that knows many vector queries follow). */
  async warm(): Promise<void> {
    this.stopWarming();
    await this.vectorCache();
  }

  /** Whether `setDocument` keeps the rows it is given (a first build's writes, with nothing resident, need not make them). */
  get keepsRows(): boolean {
    return this.residentRows !== undefined;
  }

  residentRow(chunkId: string): StoredChunkFields | undefined {
    return this.residentRows?.get(chunkId);
  }

  /** Follows a write of this process: the document's vectors and result fields replace its old ones. */
  setDocument(documentId: string, chunkIds: readonly string[], vectors: readonly Float32Array[], rows: readonly StoredChunkFields[]): void {
    this.loadEpoch++;
    if (this.state.kind === 'loaded') {
      this.state.cache.setDocument(documentId, chunkIds, vectors);
    }
    if (this.residentRows && !this.residentRows.setDocument(documentId, rows)) {
      this.residentRows = undefined;
    }
  }

  removeDocument(documentId: string): void {
    this.loadEpoch++;
    if (this.state.kind === 'loaded') {
      this.state.cache.removeDocument(documentId);
    }
    this.residentRows?.removeDocument(documentId);
  }

  /** Nearest chunks by dot product (vectors are unit length), best first. */
  async vectorCandidates(vector: Float32Array, limit: number, allowedDocumentIds?: ReadonlySet<string>): Promise<ChunkCandidate[]> {
    const cache = this.state.kind === 'loaded' ? this.state.cache : undefined;
    if (cache) {
      return cache.search(vector, limit, allowedDocumentIds);
    }
    try {
      return await this.scannedCandidates(vector, limit, allowedDocumentIds);
    } finally {
      // Counted from the end of the scan, not its start: a first scan that outlasted the delay (a loaded machine)
      // had the whole-table read of the cache load competing with it, and a one-shot search paid for both.
      if (this.state.kind === 'unloaded') {
        this.scheduleWarming();
      }
    }
  }

  /**
   * Nearest chunks by LanceDB (its ANN index where the table has one, else its exact scan), live rows only, with their
   * result fields: nothing is resident yet, and a lookup by id afterwards would load the id index.
   */
  private async scannedCandidates(vector: Float32Array, limit: number, allowedDocumentIds?: ReadonlySet<string>): Promise<ChunkCandidate[]> {
    // The scan starts beside the documents read (a fresh process's first vector search waited for it).
    const statesRead = this.liveStates();
    const where = allowedDocumentIds ? sqlIn('document_id', allowedDocumentIds) : undefined;
    const scan = (fetch: number) => {
      // Probes and refinement apply when the table has its ANN index (`StoreMaintenance.rebuildVectorIndex`); rows
      // written since are scanned exactly beside it, and without one the whole scan is exact.
      const refineFactor = Math.max(VECTOR_INDEX_REFINE_FACTOR, Math.ceil(VECTOR_INDEX_MIN_REFINED / fetch));
      let builder = this.tables.chunks.query().nearestTo(Array.from(vector)).distanceType('dot').nprobes(VECTOR_INDEX_PROBES).refineFactor(refineFactor);
      if (where) {
        builder = builder.where(where);
      }
      return plainRows<StoredChunkFields & { vector: { toArray(): Float32Array } | null; _distance: number }>(
        builder.select([...CHUNK_RESULT_COLUMNS, 'vector', '_distance']).limit(fetch),
      );
    };
    // A margin for rows of superseded versions (edits before their upkeep): each shortfall costs a second query, which
    // through the ANN index is ~65 ms more, against ~5 ms for a quarter more rows in the first.
    let fetch = limit + Math.ceil(limit / 4);
    let scanned = scan(fetch);
    const [states] = await Promise.all([statesRead, scanned]);
    for (let attempt = 0; ; attempt++) {
      const rows = await scanned;
      const live = rows.filter((row) => currentGeneration(states, row.document_id) === row.generation && !isMissingVector(row.vector?.toArray()));
      if (live.length >= limit || rows.length < fetch || attempt >= 4) {
        // Lance's dot distance is 1 − a·b.
        return live.slice(0, limit).map((row) => ({ chunkId: String(row.id), score: 1 - Number(row._distance), row: plainChunkFields(row) }));
      }
      fetch = fetch * 2 + (rows.length - live.length);
      scanned = scan(fetch);
    }
  }

  /** Starts the resident cache's load `VECTOR_CACHE_WARM_DELAY_MS` from now, unless a process exit comes first. */
  private scheduleWarming(): void {
    if (!this.tables.settings?.embedder_dimensions) {
      return;
    }
    const timer = setTimeout(() => {
      if (this.state.kind === 'warming' && this.state.timer === timer) {
        this.state = { kind: 'warming', timer: undefined };
        // A failed load (the store closed meanwhile) leaves the cache unloaded; the next query scans in LanceDB again.
        this.vectorCache().catch(() => {
          if (this.state.kind === 'warming') {
            this.state = { kind: 'unloaded' };
          }
        });
      }
    }, VECTOR_CACHE_WARM_DELAY_MS);
    timer.unref();
    this.state = { kind: 'warming', timer };
  }

  private stopWarming(): void {
    if (this.state.kind === 'warming' && this.state.timer !== undefined) {
      clearTimeout(this.state.timer);
      this.state = { kind: 'unloaded' };
    }
  }

  /** Bumped by every write this process follows, so a load that read the table before the write is dropped. */
  private loadEpoch = 0;

  /** The resident vector cache, loaded now if need be; undefined without vectors or above its budget. */
  private async vectorCache(): Promise<VectorCache | undefined> {
    const epoch = this.loadEpoch;
    const dimensions = this.tables.settings?.embedder_dimensions;
    if (!dimensions || this.state.kind === 'too_large') {
      return undefined;
    }
    if (this.state.kind === 'loaded') {
      return this.state.cache;
    }
    const rowCount = await this.tables.chunks.countRows();
    if (rowCount * dimensions * 4 > this.options.vectorCacheMaxBytes) {
      this.state = { kind: 'too_large' };
      return undefined;
    }
    const states = await this.liveStates();
    // Result fields come along only when they can plausibly fit the budget (rows of at least ~1 KiB).
    const withRows = rowCount <= this.options.residentRowsMaxBytes / 1024;
    const table = await this.tables.chunks.query().select(withRows ? [...CHUNK_RESULT_COLUMNS, 'vector'] : ['id', 'document_id', 'generation', 'vector']).toArrow();
    const byDocument = new Map<string, { ids: string[]; rows: StoredChunkFields[]; vectors: Float32Array[] }>();
    const column = (name: string) => table.getChild(name)!;
    const columns = Object.fromEntries((withRows ? CHUNK_RESULT_COLUMNS : ['id', 'document_id', 'generation']).map((name) => [name, column(name)]));
    const vectors = column('vector');
    // Arrow's `numRows` sums the batches' lengths on every read: read once.
    const loadedRows = table.numRows;
    for (let row = 0; row < loadedRows; row++) {
      const documentId = String(columns.document_id.get(row));
      if (currentGeneration(states, documentId) !== String(columns.generation.get(row))) {
        continue;
      }
      const vector = (vectors.get(row) as { toArray(): Float32Array } | null)?.toArray();
      if (!vector || isMissingVector(vector)) {
        // A row from before a vector-width rebuild, not re-indexed yet: no vector candidate.
        continue;
      }
      const entry = byDocument.get(documentId) ?? { ids: [], rows: [], vectors: [] };
      entry.ids.push(String(columns.id.get(row)));
      if (withRows) {
        entry.rows.push(plainChunkFields(Object.fromEntries(CHUNK_RESULT_COLUMNS.map((name) => [name, columns[name].get(row)])) as unknown as StoredChunkFields));
      }
      entry.vectors.push(vector);
      byDocument.set(documentId, entry);
    }
    const cache = new VectorCache(dimensions, rowCount);
    let resident: ResidentRows | undefined = withRows ? new ResidentRows(this.options.residentRowsMaxBytes) : undefined;
    for (const [documentId, entry] of byDocument) {
      cache.setDocument(documentId, entry.ids, entry.vectors);
      if (resident && !resident.setDocument(documentId, entry.rows)) {
        resident = undefined;
      }
    }
    if (epoch !== this.loadEpoch) {
      // A write landed while the rows were read: this copy may miss it, so the next query scans in LanceDB again.
      this.state = { kind: 'unloaded' };
      return undefined;
    }
    this.state = { kind: 'loaded', cache };
    this.residentRows = resident;
    return cache;
  }
}
