import type * as lancedb from '@lancedb/lancedb';
import { COMPACTION_MIN_FRAGMENTS, INDEX_VERSION_RETENTION_MS, OPTIMIZE_DEBOUNCE_MS, RECENT_CHUNKS_FOLD_IDLE_MS, RECENT_CHUNKS_MAX_ROWS, UNLEASED_SWEEP_MIN_AGE_MS, VECTOR_INDEX_MIN_ROWS } from '../../core/limits';
import { plainRows } from './arrowRows';
import { IndexFolders } from './indexFolders';
import type { RecentChunks } from './recentChunks';
import { CHUNKS_TABLE, generationConditions, recordedRowCounts, type ChunkRow, type DocumentState } from './schema';
import { sqlIn, sqlString } from '../../core/search/documentFilter';
import { settleAll } from './settleAll';
import { FULL_TEXT_INDEX_NAME, fullTextIndexConfig, VECTOR_INDEX_NAME, vectorIndexConfig, type StoreTables } from './storeTables';
import type { WriteQueue } from './writeQueue';
import type { StoreTestHooks } from './storeWriter';
import { currentGeneration } from './documentStateMap';

/**
 * Upkeep after writes: the FTS index built afresh when rows were added, compaction and version pruning, and
 * deletion of rows no document points at (superseded by a replacement, or left by a failed or killed write).
 *
 * Full-text freshness: LanceDB 0.31.0's flat search over rows not yet in the FTS index drops terms that are
 * frequent among those rows, and its incremental FTS update returns wrong rows afterwards, so queries search
 * indexed rows only (`fastSearch`) where they can. Rows of the watcher's writes, and of index runs that changed a
 * few files, are copied to the small recent-chunks table, whose own index is rebuilt in milliseconds before the
 * next query; the main index is rebuilt (the "fold", seconds at 100k chunks) after a minute without writes, at
 * the end of index runs whose rows did not all get a copy, and before the next query when rows were written
 * without a copy (bulk runs, the first run into empty tables, or the recent table is full).
 * Unindexed rows this process did not write (another writer's, until its fold) are flat-searched anyway: a
 * document published by a writer killed before its fold must not vanish (`StoreReader.flatSearchNeeded`).
 */
export class StoreMaintenance {
  private readonly tables: StoreTables;
  private readonly queue: WriteQueue;
  private readonly documentStates: () => Promise<Map<string, DocumentState>>;
  private readonly recent: RecentChunks;
  private optimizeTimer: NodeJS.Timeout | undefined;
  private foldTimer: NodeJS.Timeout | undefined;
  private orphansPossible = false;
  /** Documents replaced by incremental writes whose old rows still wait for deletion (see `optimize`). */
  private readonly superseded = new Set<string>();
  /** Rows of incremental writes waiting to be copied to the recent table. */
  private pendingCopies: ChunkRow[] = [];
  /** Chunk rows were added, without a copy in the recent table, since the main FTS index was last built. */
  private fullTextIndexStale = false;
  /** A first build's upkeep left tables uncompacted (`compactOrIndex`): the debounced upkeep compacts them. */
  private compactionDeferred = false;
  private readonly chunkIndexFolders: IndexFolders;
  /** The index is in a local folder, not on object storage (where every fragment costs each query requests). */
  private readonly onLocalDisk: boolean;
  /** Told when the main index was rebuilt over every row (readers stop flat-searching another process's rows). */
  private readonly onMainIndexComplete: () => void;
  private readonly testHooks: StoreTestHooks;

  constructor(
    tables: StoreTables,
    queue: WriteQueue,
    recent: RecentChunks,
    documentStates: () => Promise<Map<string, DocumentState>>,
    onMainIndexComplete: () => void,
    testHooks: StoreTestHooks = {},
  ) {
    this.tables = tables;
    this.testHooks = testHooks;
    this.onMainIndexComplete = onMainIndexComplete;
    this.recent = recent;
    this.onLocalDisk = tables.localTableFolder(CHUNKS_TABLE) !== undefined;
    this.chunkIndexFolders = new IndexFolders(queue.exclusive ? tables.localTableFolder(CHUNKS_TABLE) : undefined);
    this.queue = queue;
    this.documentStates = documentStates;
  }

  /** A write failed part way: its rows may be orphans. */
  noteOrphansPossible(): void {
    this.orphansPossible = true;
  }

  /**
   * Chunk rows were added. Those of incremental writes are copied to the recent table (before the next query or
   * by the debounced upkeep, off the edit path) while it stays under `RECENT_CHUNKS_MAX_ROWS`; otherwise the main
   * index is rebuilt before the next full-text query. A copy lost to a crash leaves rows only a fold indexes:
   * the next index run's `optimize()` does.
   */
  chunksAdded(rows: readonly ChunkRow[], incremental: boolean): void {
    if (rows.length === 0) {
      return;
    }
    if (incremental && !this.fullTextIndexStale && this.recent.rowCount + this.pendingCopies.length + rows.length <= RECENT_CHUNKS_MAX_ROWS) {
      this.pendingCopies.push(...rows);
      return;
    }
    this.pendingCopies = [];
    this.fullTextIndexStale = true;
  }

  /** Old rows of these documents are deleted by the next `optimize`, off the edit path. */
  noteSuperseded(documentIds: Iterable<string>): void {
    for (const id of documentIds) {
      this.superseded.add(id);
    }
  }

  /** After a reset: nothing is pending. */
  forgetPending(): void {
    this.cancelScheduledOptimize();
    this.orphansPossible = false;
    this.superseded.clear();
    this.fullTextIndexStale = false;
    this.pendingCopies = [];
  }

  /** Debounced upkeep after incremental writes (`upkeep`), and the fold after a longer quiet spell. */
  scheduleOptimize(): void {
    if (this.tables.closed) {
      return;
    }
    this.cancelScheduledOptimize();
    this.optimizeTimer = setTimeout(() => {
      this.optimizeTimer = undefined;
      this.upkeep().catch(() => undefined);
    }, OPTIMIZE_DEBOUNCE_MS);
    this.optimizeTimer.unref();
  }

  /** Cancels the debounced upkeep and the idle fold. */
  cancelScheduledOptimize(): void {
    clearTimeout(this.optimizeTimer);
    clearTimeout(this.foldTimer);
    this.optimizeTimer = undefined;
    this.foldTimer = undefined;
  }

  /**
   * Off the edit path: deletes superseded rows and brings the recent table's index up to date; the main index
   * is rebuilt now only when rows were written without a copy, else after `RECENT_CHUNKS_FOLD_IDLE_MS`.
   */
  private upkeep(): Promise<void> {
    return this.queue.run(async () => {
      if (this.tables.rebuildReason) {
        return;
      }
      await this.deletePending({});
      await this.indexAndCompact({ keepRecent: true });
      this.scheduleIdleFold();
    });
  }

  /** While the recent table holds rows, a long-lived process folds them after `RECENT_CHUNKS_FOLD_IDLE_MS` without writes. */
  private scheduleIdleFold(): void {
    clearTimeout(this.foldTimer);
    this.foldTimer = undefined;
    if (this.recent.rowCount + this.pendingCopies.length > 0 && !this.tables.closed) {
      this.foldTimer = setTimeout(() => {
        this.foldTimer = undefined;
        this.optimize().catch(() => undefined);
      }, RECENT_CHUNKS_FOLD_IDLE_MS);
      this.foldTimer.unref();
    }
  }

  /**
   * Folds new rows into the indexes, compacts, prunes old versions, and removes rows no document points at
   * (left by a failed or killed write). With `keepRecent`, rows that have a copy in the recent table stay out of
   * the main index (no fold, no compaction of the chunks table): an index run that changed a few files ends in
   * milliseconds instead of rebuilding the main index (seconds at 100k chunks); a later fold takes them.
   */
  optimize(options: { sweepOrphans?: boolean; keepRecent?: boolean; compactOnlyIfFragmented?: boolean } = {}): Promise<void> {
    this.cancelScheduledOptimize();
    return this.queue.run(async () => {
      if (this.tables.rebuildReason) {
        return;
      }
      const deleted = await this.deletePending(options);
      // Deleted rows are dropped by compaction only: then every table is compacted.
      await this.indexAndCompact({ keepRecent: options.keepRecent ?? false, compactOnlyIfFragmented: (options.compactOnlyIfFragmented ?? false) && !deleted });
      if (this.compactionDeferred) {
        // Off the run's path: a long-lived process (the extension) compacts after the debounce.
        this.compactionDeferred = false;
        this.scheduleOptimize();
      }
      if (options.keepRecent) {
        this.scheduleIdleFold();
      }
    });
  }

  /** Deletes orphan or superseded rows; true when it looked for any (rows may have been deleted). */
  private async deletePending(options: { sweepOrphans?: boolean }): Promise<boolean> {
    let looked = true;
    if (options.sweepOrphans || this.orphansPossible) {
      await this.sweepOrphans();
    } else if (this.superseded.size > 0) {
      await this.deleteSuperseded(this.superseded);
    } else {
      looked = false;
    }
    this.superseded.clear();
    return looked;
  }

  /**
   * The chunks table's indexes and the compaction of the two small tables, side by side: different tables, and the
   * FTS build leaves a core free (first SciFact ingest: 1.31 s one after the other, 1.13 s side by side).
   */
  private indexAndCompact(options: { keepRecent: boolean; compactOnlyIfFragmented?: boolean }): Promise<void> {
    return settleAll([this.updateFullTextIndex(options), this.optimizeSmallTables(options)]);
  }

  private async optimizeSmallTables(options: { compactOnlyIfFragmented?: boolean }): Promise<void> {
    for (const table of [this.tables.items, this.tables.documents]) {
      await this.compactOrIndex(table, options);
    }
  }

  /**
   * Compacts a table, folds its new rows into its indexes and prunes old versions (`optimize()`); with
   * `compactOnlyIfFragmented` and at most `COMPACTION_MIN_FRAGMENTS` fragments, only builds its btree indexes
   * afresh. A first build's tables hold a fragment per write batch and no deleted rows: compacting them only
   * rewrote the data (SciFact's ingest: upkeep 680-810 ms -> 400-430 ms). The compaction and the pruning of old
   * versions are left to the debounced upkeep (its run takes ~0.2 s more): a search over three fragments took
   * ~1 ms more (8 ms against 7). A CLI run exits before it, and its next run compacts. An index on object storage
   * is compacted at once: a query there made 64 requests over three fragments against 38 over one.
   */
  private async compactOrIndex(table: lancedb.Table, options: { compactOnlyIfFragmented?: boolean }): Promise<void> {
    if (options.compactOnlyIfFragmented && this.onLocalDisk && (await table.stats()).fragmentStats.numFragments <= COMPACTION_MIN_FRAGMENTS) {
      await this.tables.buildScalarIndexes(table, { replace: true });
      this.compactionDeferred = true;
      return;
    }
    await table.optimize({ cleanupOlderThan: new Date(Date.now() - INDEX_VERSION_RETENTION_MS) });
  }

  /**
   * Before a full-text query: rows written without a copy need the main index rebuilt; copied rows need the
   * recent table's index rebuilt. Another process's rows are not indexed by readers (two writers could
   * conflict): its writes end with its own upkeep, and until then queries flat-search them (a writer killed
   * before its fold leaves them until the next index run). The flags stay set until the build has finished, so
   * a query never runs against a half-made index.
   */
  async ensureFullTextFresh(): Promise<void> {
    if (this.fullTextIndexStale) {
      await this.queue.run(() => (this.fullTextIndexStale ? this.updateFullTextIndex({ keepRecent: false, beforeQuery: true }) : Promise.resolve()));
    } else if (this.pendingCopies.length > 0 || this.recent.stale) {
      await this.queue.run(() => this.refreshRecent());
    }
  }

  /** Copies pending rows to the recent table and rebuilds its index; when the copy fails, the main index is rebuilt. */
  private async refreshRecent(): Promise<void> {
    if (this.tables.rebuildReason) {
      return;
    }
    if (this.pendingCopies.length > 0) {
      const copies = this.pendingCopies;
      this.pendingCopies = [];
      try {
        await this.recent.add(copies);
      } catch {
        this.fullTextIndexStale = true;
        await this.updateFullTextIndex({ keepRecent: false });
        return;
      }
    }
    if (this.recent.stale) {
      const states = await this.documentStates();
      await this.recent.refresh((row) => currentGeneration(states, row.document_id) === row.generation);
    }
  }

  /**
   * Rebuilds the main FTS index when it misses rows (the fold), empties the recent table once its rows are in
   * the main index, and compacts the chunks table. With `keepRecent`, when every unindexed row has a copy in the
   * recent table, only the recent table's index is brought up to date. With `beforeQuery` (a query waits), the ANN
   * index is not rebuilt: the rows it misses are scanned exactly, and compaction's `optimize()` adds them to it
   * (call inside the write queue).
   */
  private async updateFullTextIndex(options: { keepRecent: boolean; compactOnlyIfFragmented?: boolean; beforeQuery?: boolean }): Promise<void> {
    if (this.tables.rebuildReason) {
      return;
    }
    const chunks = this.tables.chunks;
    try {
      const stats = this.fullTextIndexStale ? undefined : await chunks.indexStats(FULL_TEXT_INDEX_NAME);
      const unindexedRows = stats?.numUnindexedRows ?? 0;
      await this.recent.ensureCounted();
      const unindexed = this.fullTextIndexStale || unindexedRows > 0;
      if (unindexed && options.keepRecent && !this.fullTextIndexStale && this.recent.rowCount + this.pendingCopies.length > 0) {
        await this.refreshRecent();
        // Every unindexed row has a copy in the recent table: no compaction either, since `optimize()` would fold
        // the rows in with the incremental update. More unindexed rows than live copies: some were written without
        // one (another writer killed before its fold), so fold after all.
        if (!this.fullTextIndexStale && unindexedRows <= this.recent.rowCount) {
          return;
        }
      }
      if (unindexed) {
        // Never LanceDB 0.31.0's incremental FTS update (what `optimize()` does with unindexed rows): the
        // partitioned index it leaves returns wrong rows, differently from one identical query to the next
        // (test/unit/store/reindexBurstSearch.test.ts). A fresh build cost 0.6 s at 10k chunks, 3.7 s at 100k;
        // compaction after deletions remaps a fresh index correctly.
        await this.chunkIndexFolders.build(() => chunks.createIndex('search_text', { config: fullTextIndexConfig(), replace: true }));
        this.fullTextIndexStale = false;
        this.onMainIndexComplete();
        if (!options.beforeQuery) {
          // Before the compaction below, so its `optimize()` has no new rows to add to an old vector index.
          await this.rebuildVectorIndex();
        }
      }
      // Queries merge hits by chunk id, so a copy outliving the rebuild for a moment is harmless.
      this.pendingCopies = [];
      await this.recent.clear();
      // Compaction matters for reads: fetching 10 chunks by id took 3.5 ms over 21 fragments, 1.8 ms over one.
      await this.compactOrIndex(chunks, options);
    } catch (error) {
      this.fullTextIndexStale = true;
      throw error;
    }
  }

  /**
   * Builds the chunks' ANN index afresh with the fold, when the table has vectors and at least
   * `VECTOR_INDEX_MIN_ROWS` rows; drops it below. Afresh rather than by `optimize()`'s incremental update, which
   * files new rows under partitions trained on the old ones (after a vector-width rebuild: on zeros). Rows written
   * since are not in it; LanceDB scans those exactly beside the index. A failed build (a full disk) leaves the
   * search exact or on the previous index, and the next fold tries again (call inside the write queue).
   */
  private async rebuildVectorIndex(): Promise<void> {
    const chunks = this.tables.chunks;
    if (this.tables.vectorColumnWidth === undefined) {
      return;
    }
    try {
      const rows = await chunks.countRows();
      if (rows >= (this.testHooks.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS)) {
        await this.chunkIndexFolders.build(() => chunks.createIndex('vector', { config: vectorIndexConfig(rows), name: VECTOR_INDEX_NAME, replace: true }));
      } else if ((await chunks.listIndices()).some((index) => index.name === VECTOR_INDEX_NAME)) {
        await chunks.dropIndex(VECTOR_INDEX_NAME);
      }
    } catch (error) {
      this.testHooks.vectorIndexFailed?.(error);
    }
  }

  /** Deletes rows of these documents that are not of their current generation (call inside the write queue). */
  async deleteSuperseded(documentIds: Iterable<string>): Promise<void> {
    const states = await this.documentStates();
    const byGeneration = new Map<string, string[]>();
    for (const id of documentIds) {
      const generation = currentGeneration(states, id);
      if (generation) {
        byGeneration.set(generation, [...(byGeneration.get(generation) ?? []), id]);
      }
    }
    if (byGeneration.size === 0) {
      return;
    }
    const where = [...byGeneration].map(([generation, ids]) => `(${sqlIn('document_id', ids)} AND generation != ${sqlString(generation)}${this.youngGenerationsGuard()})`).join(' OR ');
    try {
      await this.tables.chunks.delete(where);
      await this.tables.items.delete(where);
    } catch {
      // Readers already ignore these rows; the next sweep removes them.
      this.orphansPossible = true;
    }
  }

  /**
   * Without an exclusive lease another writer may have added rows it has not switched to yet: generations
   * younger than `UNLEASED_SWEEP_MIN_AGE_MS` are kept (generations start with their creation time in base 36).
   */
  private youngGenerationsGuard(): string {
    return this.queue.exclusive ? '' : ` AND generation < ${sqlString((Date.now() - UNLEASED_SWEEP_MIN_AGE_MS).toString(36))}`;
  }

  private async sweepOrphans(): Promise<void> {
    const states = await this.documentStates();
    const expected = currentRowCounts(states);
    for (const [table, expectedRows] of [[this.tables.chunks, expected?.chunks], [this.tables.items, expected?.items]] as const) {
      // As many rows as the documents' current generations hold: no row is an orphan (or superseded), so the scan
      // of every row's document and generation (~1 s at 100k chunks) is skipped. Rows go missing only through
      // damage, which `index` repairs; orphans that such a loss exactly balanced would merely wait for a later sweep.
      if (expectedRows !== undefined && await table.countRows() === expectedRows) {
        continue;
      }
      this.testHooks.orphanScan?.(table === this.tables.chunks ? 'chunks' : 'items');
      const rows = await plainRows<{ document_id: string; generation: string }>(table.query().select(['document_id', 'generation']));
      const stale = new Map<string, Set<string>>();
      for (const row of rows) {
        const documentId = String(row.document_id);
        const generation = String(row.generation);
        if (currentGeneration(states, documentId) !== generation && (this.queue.exclusive || generationAgeMs(generation) > UNLEASED_SWEEP_MIN_AGE_MS)) {
          const set = stale.get(documentId) ?? new Set<string>();
          set.add(generation);
          stale.set(documentId, set);
        }
      }
      if (stale.size > 0) {
        const clauses = generationConditions(stale);
        for (let start = 0; start < clauses.length; start += 200) {
          await table.delete(clauses.slice(start, start + 200).join(' OR '));
        }
      }
    }
    this.orphansPossible = false;
  }
}

/** The chunk and item rows the documents' current generations hold; undefined when a document lacks its counts. */
function currentRowCounts(states: ReadonlyMap<string, DocumentState>): { chunks: number; items: number } | undefined {
  const total = { chunks: 0, items: 0 };
  for (const state of states.values()) {
    const counts = recordedRowCounts(state);
    if (!counts) {
      return undefined;
    }
    total.chunks += counts.chunks;
    total.items += counts.items;
  }
  return total;
}

/** Age of a generation from its base-36 time prefix (`newGeneration`); unknown shapes count as old. */
export function generationAgeMs(generation: string): number {
  const created = parseInt(generation.split('-')[0], 36);
  return Number.isFinite(created) ? Date.now() - created : Number.POSITIVE_INFINITY;
}
