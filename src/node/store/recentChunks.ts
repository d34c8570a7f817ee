import * as lancedb from '@lancedb/lancedb';
import { Field, Schema, Utf8 } from 'apache-arrow';
import { INDEX_VERSION_RETENTION_MS } from '../../core/limits';
import { plainRows } from './arrowRows';
import { generationConditions, type ChunkRow } from './schema';
import { FULL_TEXT_INDEX_NAME, fullTextIndexConfig, isTableMissing } from './storeTables';

/** The side table of chunks written by incremental runs since the last fold into the main FTS index. */
export const RECENT_CHUNKS_TABLE = 'recent_chunks';

/** LanceDB's BM25 IDF (lance-index `scorer.rs`), so side-table scores can be put on the main index's scale. */
export function bm25InverseDocumentFrequency(documentFrequency: number, documentCount: number): number {
  return Math.log((documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5) + 1);
}

/** A side-table hit with its score on the main index's scale. */
export interface RecentHit {
  id: string;
  document_id: string;
  generation: string;
  score: number;
}

/** A side-table row as a query returns it. */
type ScoredHit = { id: string; _score: number };

interface RecentRowState {
  document_id: string;
  generation: string;
}

function recentChunksSchema(): Schema {
  return new Schema([
    new Field('id', new Utf8(), false),
    new Field('document_id', new Utf8(), false),
    new Field('generation', new Utf8(), false),
    new Field('search_text', new Utf8(), false),
  ]);
}

/**
 * The query's words as the FTS tokenizer splits them, so each searched alone is one token: the "simple" tokenizer
 * cuts at every character that is neither alphabetic nor a number (Rust's `is_alphanumeric`, which keeps combining
 * vowel signs such as Thai's inside a word), and drops tokens of 40 bytes or more (checked in LanceDB 0.31.0).
 */
export function singleTokenPieces(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^\p{Alphabetic}\p{N}]+/u).filter((piece) => piece.length > 0 && Buffer.byteLength(piece) < FULL_TEXT_TOKEN_MAX_BYTES))];
}

/** LanceDB's `simple` tokenizer drops longer tokens (its `max_token_length`, 40, is exclusive). */
const FULL_TEXT_TOKEN_MAX_BYTES = 40;

/**
 * Recent chunks: a copy of the `search_text` of chunks written by incremental runs (the file watcher's), with
 * its own FTS index. Rebuilding LanceDB 0.31.0's FTS index over the main table costs seconds at 100k chunks
 * (3.7 s measured), and its incremental update returns wrong rows (see `StoreMaintenance`); rebuilding the
 * index of a table of a few hundred rows costs milliseconds. Full-text queries search the main table's
 * indexed rows and this table, and merge the hits; the main index is rebuilt on idle (`fold`), which empties
 * this table.
 *
 * Scores: BM25 over this small table has other document counts than the main index, so its IDFs are far
 * off (a word in 1 of 5 recent chunks would weigh ln 4 here, ln 20,000 in the main index). Each query word
 * is searched alone here and in the main index: the recent score of a word, divided by its IDF here, is
 * that word's term-frequency weight; multiplied by the IDF the word would have once folded in (main and
 * recent document frequencies together), it is on the main index's scale. The length normalisation keeps
 * this table's average length.
 */
export class RecentChunks {
  private connection: lancedb.Connection;
  private table: lancedb.Table | undefined;
  /** Opening was tried since the last `checkoutLatest` (a reader finds a table another process created). */
  private looked = false;
  /** This process added rows since the side index was built. */
  private indexStale = false;
  /** Rows in the table (live or not), for the cap on copies (`RECENT_CHUNKS_MAX_ROWS`). */
  private rows = 0;
  /** Rows the side index covers: its document count. */
  private indexedRows = 0;
  /** Rows of current generations when the side index was built (they join the main document count once folded). */
  private liveRows = 0;
  /**
   * The main index's document count and per-word document frequencies (of live rows), for one version of the
   * main table: any write or deletion, here or by another process, makes a new version.
   */
  private mainVersion = -1;
  private mainRows: number | undefined;
  private readonly mainFrequencies = new Map<string, Promise<number>>();
  /** Side-index hits per word, kept until the side index is rebuilt (queries share many words). */
  private readonly pieceHits = new Map<string, Promise<Array<RecentRowState & ScoredHit>>>();

  constructor(connection: lancedb.Connection) {
    this.connection = connection;
  }

  /** Forgets the table and every count (the index was published anew); the next use opens it on `connection`. */
  reconnect(connection: lancedb.Connection): void {
    this.connection = connection;
    this.table = undefined;
    this.looked = false;
    this.indexStale = false;
    this.rows = 0;
    this.indexedRows = 0;
    this.liveRows = 0;
    this.mainVersion = -1;
    this.mainRows = undefined;
    this.mainFrequencies.clear();
    this.pieceHits.clear();
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Reads the table's counts if not done yet: a new process finds the copies an earlier one left. */
  async ensureCounted(): Promise<void> {
    await this.open();
  }

  get stale(): boolean {
    return this.indexStale;
  }

  /** The table when it exists (opened by name, never listed: see `StoreTables.openByName`). */
  private async open(): Promise<lancedb.Table | undefined> {
    if (!this.table && !this.looked) {
      this.looked = true;
      try {
        this.table = await this.connection.openTable(RECENT_CHUNKS_TABLE);
        // Rows another process added and did not index stay unsearched here until it (or the next fold)
        // indexes them: only a writer's own additions make the side index stale.
        await this.readCounts(this.table);
      } catch (error) {
        if (!isTableMissing(error)) {
          throw error;
        }
      }
    }
    return this.table;
  }

  /** Adds copies of chunk rows (their search text); the side index is rebuilt before the next query. */
  async add(rows: readonly ChunkRow[]): Promise<void> {
    if (rows.length === 0) {
      return;
    }
    let table = await this.open();
    if (!table) {
      table = await this.connection.createEmptyTable(RECENT_CHUNKS_TABLE, recentChunksSchema(), { mode: 'overwrite' });
      await table.createIndex('search_text', { config: fullTextIndexConfig() });
      this.table = table;
      this.rows = 0;
    }
    this.indexStale = true;
    await table.add(rows.map((row) => ({ id: row.id, document_id: row.document_id, generation: row.generation, search_text: row.search_text })));
    this.rows += rows.length;
  }

  /** Deletes rows readers no longer trust (superseded or removed documents), then rebuilds the side index. */
  async refresh(isLive: (row: RecentRowState) => boolean): Promise<void> {
    const table = await this.open();
    if (!table || !this.indexStale) {
      return;
    }
    const states = await plainRows<RecentRowState>(table.query().select(['document_id', 'generation']));
    const dead = new Map<string, Set<string>>();
    for (const state of states) {
      if (!isLive(state)) {
        dead.set(state.document_id, (dead.get(state.document_id) ?? new Set()).add(state.generation));
      }
    }
    if (dead.size > 0) {
      await table.delete(generationConditions(dead).join(' OR '));
    }
    await rebuildIndex(table);
    this.rows = await table.countRows();
    this.indexBuilt(this.rows);
    this.indexStale = false;
  }

  /** Empties the table after its rows were folded into the main index. */
  async clear(): Promise<void> {
    const table = await this.open();
    if (!table || this.rows === 0) {
      this.indexStale = false;
      return;
    }
    await table.delete('true');
    await rebuildIndex(table);
    this.rows = 0;
    this.indexBuilt(0);
    this.indexStale = false;
  }

  /** Drops the table (with the other data tables, on reset). */
  async drop(): Promise<void> {
    try {
      await this.connection.dropTable(RECENT_CHUNKS_TABLE);
    } catch (error) {
      if (!isTableMissing(error)) {
        throw error;
      }
    }
    this.forget();
  }

  /** Forgets the handle: the next use opens the table afresh. */
  forget(): void {
    this.table = undefined;
    this.looked = false;
    this.rows = 0;
    this.indexBuilt(0);
    this.indexStale = false;
    this.mainVersion = -1;
  }

  /** The side index now covers `rows` rows, all of current generations: per-word hits are searched afresh. */
  private indexBuilt(rows: number): void {
    this.indexedRows = rows;
    this.liveRows = rows;
    this.pieceHits.clear();
  }

  /** Counts of a table this process did not index (opened, or changed by another process). */
  private async readCounts(table: lancedb.Table): Promise<void> {
    const [rows, stats] = await Promise.all([table.countRows(), table.indexStats(FULL_TEXT_INDEX_NAME)]);
    this.rows = rows;
    this.indexBuilt(stats?.numIndexedRows ?? 0);
  }

  /** Moves to the latest version (another process's writes); true when it changed. */
  async checkoutLatest(): Promise<boolean> {
    if (!this.table) {
      this.looked = false;
      return (await this.open()) !== undefined;
    }
    const before = await this.table.version();
    await this.table.checkoutLatest();
    if ((await this.table.version()) === before) {
      return false;
    }
    await this.readCounts(this.table);
    return true;
  }

  /**
   * Live recent chunks matching the query, scored on the main index's scale (see the class comment); rows not
   * yet in the side index are left out (another process's writes, until that writer rebuilds it). `isLive`
   * arrives when the documents are read: every query that does not need it is started before, so a fresh
   * process (a one-shot `haiku search`) reads the side table while it waits for the documents.
   */
  async candidates(query: string, options: { main: lancedb.Table; isLive: Promise<(row: RecentRowState) => boolean>; allowedDocumentIds?: ReadonlySet<string> }): Promise<RecentHit[]> {
    const table = await this.open();
    if (!table || this.indexedRows === 0) {
      return [];
    }
    const search = (text: string) =>
      plainRows<RecentRowState & { id: string; _score: number }>(table.query().fullTextSearch(text, { columns: ['search_text'] }).fastSearch().select(['id', 'document_id', 'generation', '_score']).limit(this.indexedRows));
    // Word by word, side by side: LanceDB runs the queries on its own threads.
    const pieces = singleTokenPieces(query);
    const searchPiece = (piece: string) => {
      let hits = this.pieceHits.get(piece);
      if (!hits) {
        hits = search(piece);
        this.pieceHits.set(piece, hits);
        hits.catch(() => this.pieceHits.delete(piece));
      }
      return hits;
    };
    const mainCount = this.mainIndexedRows(options.main);
    const piecesHits = Promise.all(pieces.map(searchPiece));
    for (const pending of [mainCount, piecesHits]) {
      pending.catch(() => undefined);
    }
    const [wholeHits, isLive] = await Promise.all([search(query), options.isLive]);
    const wanted = (hit: RecentRowState) => isLive(hit) && (!options.allowedDocumentIds || options.allowedDocumentIds.has(hit.document_id));
    if (!wholeHits.some(wanted)) {
      return [];
    }
    const hitsByPiece = await piecesHits;
    // Counted in the main index only for words with live hits here: a query left running would hold a one-shot
    // process open after its answer.
    const frequencies = Promise.all(hitsByPiece.map(async (hits, index) => (hits.some(wanted) ? this.mainFrequency(options.main, pieces[index], await mainCount, isLive) : 0)));
    frequencies.catch(() => undefined);
    const distinct = await this.distinctTokens(pieces, hitsByPiece, search);
    const [mainIndexed, counts] = await Promise.all([mainCount, frequencies]);
    const scores = new Map<string, RecentHit>();
    hitsByPiece.forEach((hits, index) => {
      const live = hits.filter(wanted);
      if (live.length === 0 || !distinct[index]) {
        return;
      }
      const recentInverse = bm25InverseDocumentFrequency(hits.length, this.indexedRows);
      const foldedInverse = bm25InverseDocumentFrequency(counts[index] + hits.filter(isLive).length, mainIndexed + this.liveRows);
      for (const hit of live) {
        // The hit's score here is the IDF here times the word's term-frequency weight in the chunk.
        const weight = Number(hit._score) / recentInverse;
        const entry = scores.get(hit.id) ?? { id: String(hit.id), document_id: String(hit.document_id), generation: String(hit.generation), score: 0 };
        entry.score += foldedInverse * weight;
        scores.set(hit.id, entry);
      }
    });
    return [...scores.values()].sort((left, right) => right.score - left.score);
  }

  /**
   * Which pieces to count: words that stem to one token ("disease", "diseases") count once, as in LanceDB's own
   * query. Such words have the same hits with the same scores; so may two different words in a tiny table, so
   * a pair with equal hits is searched together: one token scores as either word alone, two score more.
   */
  private async distinctTokens(pieces: readonly string[], piecesHits: ReadonlyArray<ScoredHit[]>, search: (text: string) => Promise<ScoredHit[]>): Promise<boolean[]> {
    const bySignature = new Map<string, number[]>();
    const distinct = pieces.map(() => true);
    for (const [index, hits] of piecesHits.entries()) {
      if (hits.length === 0) {
        continue;
      }
      const signature = hits.map((hit) => `${hit.id}:${hit._score}`).sort().join();
      const earlier = bySignature.get(signature) ?? [];
      for (const other of earlier) {
        const together = await search(`${pieces[other]} ${pieces[index]}`);
        const alone = Number(piecesHits[other][0]._score);
        if (Math.abs(Number(together[0]?._score ?? 0) - alone) <= alone * 1e-5) {
          distinct[index] = false;
          break;
        }
      }
      if (distinct[index]) {
        bySignature.set(signature, [...earlier, index]);
      }
    }
    return distinct;
  }

  /** Rows the main FTS index covers (its document count). */
  private async mainIndexedRows(main: lancedb.Table): Promise<number> {
    const version = await main.version();
    if (version !== this.mainVersion) {
      this.mainVersion = version;
      this.mainRows = undefined;
      this.mainFrequencies.clear();
    }
    this.mainRows ??= (await main.indexStats(FULL_TEXT_INDEX_NAME))?.numIndexedRows ?? 0;
    return this.mainRows;
  }

  /**
   * How many indexed main rows of current generations hold the word: rows a fold would keep (superseded versions
   * of the recent documents are deleted by then). One single-token query, cached for the main table's version.
   */
  private mainFrequency(main: lancedb.Table, piece: string, mainCount: number, isLive: (row: RecentRowState) => boolean): Promise<number> {
    const cached = this.mainFrequencies.get(piece);
    if (cached !== undefined) {
      return cached;
    }
    const hits = mainCount === 0 ? Promise.resolve([]) : plainRows<RecentRowState>(main.query().fullTextSearch(piece, { columns: ['search_text'] }).fastSearch().select(['document_id', 'generation']).limit(mainCount));
    const frequency = hits.then((rows) => rows.filter(isLive).length);
    this.mainFrequencies.set(piece, frequency);
    frequency.catch(() => {
      if (this.mainFrequencies.get(piece) === frequency) {
        this.mainFrequencies.delete(piece);
      }
    });
    return frequency;
  }
}

/** Builds the side index afresh over the table's rows and compacts it (it is never updated incrementally). */
async function rebuildIndex(table: lancedb.Table): Promise<void> {
  await table.createIndex('search_text', { config: fullTextIndexConfig(), replace: true });
  await table.optimize({ cleanupOlderThan: new Date(Date.now() - INDEX_VERSION_RETENTION_MS) });
}
