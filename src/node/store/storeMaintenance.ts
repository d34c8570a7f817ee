import { INDEX_VERSION_RETENTION_MS, OPTIMIZE_DEBOUNCE_MS, UNLEASED_SWEEP_MIN_AGE_MS } from '../../core/limits';
import { plainRows } from './arrowRows';
import { IndexFolders } from './indexFolders';
import { CHUNKS_TABLE, type DocumentState } from './schema';
import { sqlIn, sqlString } from '../../core/search/documentFilter';
import { FULL_TEXT_INDEX_NAME, fullTextIndexConfig, type StoreTables } from './storeTables';
import type { WriteQueue } from './writeQueue';

/**
 * Upkeep after writes: the FTS index built afresh when rows were added, compaction and version pruning, and
 * deletion of rows no document points at (superseded by a replacement, or left by a failed or killed write).
 *
 * Full-text freshness: LanceDB 0.31.0's flat search over rows not yet in the FTS index drops terms that are
 * frequent among those rows, and its incremental FTS update returns wrong rows afterwards, so after rows are
 * written the FTS index is built afresh before the next full-text query (and by the debounced or end-of-run
 * `optimize()`).
 */
export class StoreMaintenance {
  private readonly tables: StoreTables;
  private readonly queue: WriteQueue;
  private readonly documentStates: () => Promise<Map<string, DocumentState>>;
  private optimizeTimer: NodeJS.Timeout | undefined;
  private orphansPossible = false;
  /** Documents replaced by incremental writes whose old rows still wait for deletion (see `optimize`). */
  private readonly superseded = new Set<string>();
  /** Chunk rows were added since the FTS index was last updated (see `ensureFullTextFresh`). */
  private fullTextIndexStale = false;
  private readonly chunkIndexFolders: IndexFolders;

  constructor(tables: StoreTables, queue: WriteQueue, documentStates: () => Promise<Map<string, DocumentState>>) {
    this.tables = tables;
    this.chunkIndexFolders = new IndexFolders(queue.exclusive ? tables.localTableFolder(CHUNKS_TABLE) : undefined);
    this.queue = queue;
    this.documentStates = documentStates;
  }

  /** A write failed part way: its rows may be orphans. */
  noteOrphansPossible(): void {
    this.orphansPossible = true;
  }

  noteChunksAdded(): void {
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
  }

  /** Debounced `optimize()` after incremental writes. */
  scheduleOptimize(): void {
    if (this.tables.closed) {
      return;
    }
    this.cancelScheduledOptimize();
    this.optimizeTimer = setTimeout(() => {
      this.optimizeTimer = undefined;
      this.optimize().catch(() => undefined);
    }, OPTIMIZE_DEBOUNCE_MS);
    this.optimizeTimer.unref();
  }

  cancelScheduledOptimize(): void {
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
    return this.queue.run(async () => {
      if (this.tables.rebuildReason) {
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
      for (const table of [this.tables.items, this.tables.documents]) {
        await table.optimize({ cleanupOlderThan });
      }
    });
  }

  /**
   * Another process's unindexed rows are not folded in by readers (two writers could conflict); index runs
   * always end with `optimize()`. The flag stays set until a fold has finished, so a query never runs
   * against a half-made index.
   */
  async ensureFullTextFresh(): Promise<void> {
    if (this.fullTextIndexStale) {
      await this.queue.run(() => (this.fullTextIndexStale ? this.updateFullTextIndex() : Promise.resolve()));
    }
  }

  /**
   * Rebuilds the FTS index when rows were added since its last build, then compacts the chunks table and
   * updates its btree indexes (call inside the write queue).
   */
  private async updateFullTextIndex(): Promise<void> {
    if (this.tables.rebuildReason) {
      return;
    }
    const chunks = this.tables.chunks;
    try {
      const stats = this.fullTextIndexStale ? undefined : await chunks.indexStats(FULL_TEXT_INDEX_NAME);
      if (this.fullTextIndexStale || (stats?.numUnindexedRows ?? 0) > 0) {
        // Never LanceDB 0.31.0's incremental FTS update (what `optimize()` does with unindexed rows): the
        // partitioned index it leaves returns wrong rows, differently from one identical query to the next
        // (test/unit/store/reindexBurstSearch.test.ts). A fresh build cost 0.6 s at 10k chunks, 3.7 s at 100k;
        // compaction after deletions remaps a fresh index correctly.
        await this.chunkIndexFolders.build(() => chunks.createIndex('search_text', { config: fullTextIndexConfig(), replace: true }));
        this.fullTextIndexStale = false;
      }
      // Compaction matters for reads: fetching 10 chunks by id took 3.5 ms over 21 fragments, 1.8 ms over one.
      await chunks.optimize({ cleanupOlderThan: new Date(Date.now() - INDEX_VERSION_RETENTION_MS) });
    } catch (error) {
      this.fullTextIndexStale = true;
      throw error;
    }
  }

  /** Deletes rows of these documents that are not of their current generation (call inside the write queue). */
  async deleteSuperseded(documentIds: Iterable<string>): Promise<void> {
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
    for (const table of [this.tables.chunks, this.tables.items]) {
      const rows = await plainRows<{ document_id: string; generation: string }>(table.query().select(['document_id', 'generation']));
      const stale = new Map<string, Set<string>>();
      for (const row of rows) {
        const documentId = String(row.document_id);
        const generation = String(row.generation);
        if (states.get(documentId)?.generation !== generation && (this.queue.exclusive || generationAgeMs(generation) > UNLEASED_SWEEP_MIN_AGE_MS)) {
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
}

/** Age of a generation from its base-36 time prefix (`newGeneration`); unknown shapes count as old. */
export function generationAgeMs(generation: string): number {
  const created = parseInt(generation.split('-')[0], 36);
  return Number.isFinite(created) ? Date.now() - created : Number.POSITIVE_INFINITY;
}
