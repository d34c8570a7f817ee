import { makeArrowTable, type Table as LanceTable } from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import { HaikuError, throwIfAborted } from '../../core/errors';
import type { Chunk } from '../../core/model/chunk';
import type { DocumentItem, HaikuDocument } from '../../core/model/document';
import { addArrowTable } from './arrowAdd';
import { arrowTableOfRows } from './arrowColumns';
import { plainChunkFields } from './arrowRows';
import type { ItemReader } from './itemReader';
import { chunkRow, documentRow, itemRow, type ChunkRow, type DocumentRow, type DocumentState, type ItemRow, type StoredChunkFields } from './schema';
import { sqlIn, sqlString } from '../../core/search/documentFilter';
import { settleAll } from './settleAll';
import type { StoreMaintenance } from './storeMaintenance';
import type { StoreReader } from './storeReader';
import type { StoreTables } from './storeTables';
import type { VectorSearch } from './vectorSearch';
import type { WriteQueue } from './writeQueue';

/** One document to (re)write: the converted document, its chunks, and their vectors when an embedder is set. */
export interface DocumentWrite {
  document: HaikuDocument;
  chunks: Chunk[];
  vectors?: Float32Array[];
  file: { mtimeMs: number; size: number };
  /** Where the document came from (a URL's ETag, the user's `--meta` pairs): merged into the row's metadata JSON. */
  sourceMetadata?: Record<string, unknown>;
}

/**
 * A big document whose items and chunks come in parts (`StoreWriter.writeDocumentInParts`): `document.items` is
 * empty, a chunk's items come in its part or an earlier one, and `document.warnings` is complete once the parts are
 * read.
 */
export interface DocumentPartsWrite {
  document: HaikuDocument;
  parts: AsyncIterable<DocumentPart>;
  file: { mtimeMs: number; size: number };
  sourceMetadata?: Record<string, unknown>;
}

/** Some of a big document's items or chunks, with the chunks' vectors when an embedder is set. */
export interface DocumentPart {
  items: DocumentItem[];
  chunks: Chunk[];
  vectors?: Float32Array[];
}

/** Options of the write methods. */
export interface WriteOptions {
  abortSignal?: AbortSignal;
  /** Schedule the debounced `optimize()` (default true); an index run optimizes once at its end instead. */
  scheduleOptimize?: boolean;
  /**
   * Copy the chunks to the recent table while they fit (default: as `scheduleOptimize`), so the next `optimize`
   * with `keepRecent` need not rebuild the main FTS index for them.
   */
  copyToRecent?: boolean;
}

/** Failure injection and observation points for tests. */
export interface StoreTestHooks {
  beforeDocumentSwitch?: () => void | Promise<void>;
  /** Called when the orphan sweep reads every row of a table (`chunks` or `items`) instead of trusting the counts. */
  orphanScan?: (table: string) => void;
  /** Called by `reset()` after the data tables are dropped, before they are recreated. */
  afterTablesDropped?: () => void | Promise<void>;
  /** Called by a vector-width `reset()` after the settings take the new embedder, before the vector column is swapped. */
  afterVectorSettings?: () => void | Promise<void>;
  /** Arrow bytes per commit of a document written in parts, instead of `ADD_COMMIT_MAX_BYTES` (many commits from a small file). */
  addCommitMaxBytes?: number;
  /** Rows from which the chunks get an ANN index, instead of `VECTOR_INDEX_MIN_ROWS`. */
  vectorIndexMinRows?: number;
  /** Called when building or dropping the ANN index failed (the search stays exact, or on the previous index). */
  vectorIndexFailed?: (error: unknown) => void;
}

/**
 * Rows turned into Arrow per slice, the event loop free in between: one 4096-chunk batch took 0.4-0.6 s of
 * synchronous `makeArrowTable`, during which the conversion workers got no new files (1.5 s idle each on SciFact).
 */
const ARROW_SLICE_ROWS = 512;

/** Arrow bytes of one `add` of a big write (see `addInSlices`); SciFact's batches of 2,048 files stay one commit each. */
const ADD_COMMIT_MAX_BYTES = 32 * 1024 * 1024;

/** A one-document replacement switches by `update` (SQL literals) up to this content size; above it by merge-insert. */
const SWITCH_BY_UPDATE_MAX_CONTENT = 256 * 1024;

export interface StoreWriterParts {
  tables: StoreTables;
  queue: WriteQueue;
  reader: StoreReader;
  items: ItemReader;
  vectors: VectorSearch;
  maintenance: StoreMaintenance;
  testHooks: StoreTestHooks;
}

export function newGeneration(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Writes documents with atomic replacement: chunk and item rows carry the generation of the write that made
 * them; a document's row names its current generation, and every read keeps only rows of that generation.
 * A write adds the new rows, switches the documents rows in one commit, then deletes the old rows, so a
 * failure or a kill at any point leaves the previous version whole.
 */
export class StoreWriter {
  private readonly parts: StoreWriterParts;

  constructor(parts: StoreWriterParts) {
    this.parts = parts;
  }

  /**
   * Writes (adds or replaces) documents. Atomic per document for readers: the new rows are written first,
   * then one commit of the documents table switches every document of the batch to them, then the
   * superseded rows are deleted.
   */
  writeDocuments(entries: readonly DocumentWrite[], options: WriteOptions = {}): Promise<void> {
    const { tables, queue, reader, vectors, maintenance } = this.parts;
    return queue.run(async () => {
      tables.assertWritable();
      throwIfAborted(options.abortSignal, 'Indexing');
      if (entries.length === 0) {
        return;
      }
      const states = await reader.documentStates();
      const generation = newGeneration();
      const now = new Date().toISOString();
      const vectorDimensions = tables.settings?.embedder_dimensions;
      const chunkRows: ChunkRow[] = [];
      const itemRows: ItemRow[] = [];
      const documentRows: DocumentRow[] = [];
      // Rows in path order, whatever order the documents finished converting in: the same files give the same
      // layout. (LanceDB 0.31.0 wrote one add of many record batches as two fragments when the first batches held
      // most of the picture bytes, and the compaction that followed doubled the index on disk for 5 minutes.)
      for (const entry of [...entries].sort((left, right) => (left.document.relativePath < right.document.relativePath ? -1 : left.document.relativePath > right.document.relativePath ? 1 : 0))) {
        const { document, chunks } = entry;
        checkVectors(entry, vectorDimensions);
        const positionByRef = new Map(document.items.map((item) => [item.selfRef, item.position]));
        chunks.forEach((chunk, index) => chunkRows.push(chunkRow(chunk, generation, vectorDimensions ? entry.vectors![index] : undefined, positionByRef)));
        for (const item of document.items) {
          itemRows.push(itemRow(document.id, item, generation));
        }
        documentRows.push(documentRow(document, chunks.length, generation, entry.file, states.get(document.id)?.created_at ?? now, now, entry.sourceMetadata));
      }
      const replaced = documentRows.filter((row) => states.has(row.id)).map((row) => row.id);
      try {
        await this.addRows(chunkRows, itemRows);
        // Incremental writes' chunks are copied to the recent table later, off the edit path (see StoreMaintenance).
        maintenance.chunksAdded(chunkRows, options.copyToRecent ?? options.scheduleOptimize ?? true);
        await this.parts.testHooks.beforeDocumentSwitch?.();
        await this.switchDocuments(documentRows, replaced.length);
      } catch (error) {
        maintenance.noteOrphansPossible();
        throw error;
      }
      this.forgetReplaced(states, documentRows);
      // Result fields only for a resident copy of the rows: a first build has none (9,324 copies on SciFact).
      const rowsByDocument = new Map<string, StoredChunkFields[]>();
      for (const row of vectors.keepsRows ? chunkRows : []) {
        const list = rowsByDocument.get(row.document_id) ?? [];
        list.push(plainChunkFields(row));
        rowsByDocument.set(row.document_id, list);
      }
      for (const entry of entries) {
        vectors.setDocument(entry.document.id, entry.chunks.map((chunk) => chunk.id), entry.vectors ?? [], rowsByDocument.get(entry.document.id) ?? []);
      }
      await this.retireSuperseded(replaced, options);
    });
  }

  /**
   * Writes one big document as its parts come (`DocumentPartsWrite`), so its rows never all exist at once: each part's
   * rows are added (invisible to readers, as in `writeDocuments`), then one commit switches the document to them.
   * Holds the write queue until the last part is written. Gives the number of chunks written.
   */
  writeDocumentInParts(entry: DocumentPartsWrite, options: WriteOptions = {}): Promise<number> {
    const { tables, queue, reader, vectors, maintenance } = this.parts;
    return queue.run(async () => {
      tables.assertWritable();
      throwIfAborted(options.abortSignal, 'Indexing');
      const { document } = entry;
      const states = await reader.documentStates();
      const generation = newGeneration();
      const vectorDimensions = tables.settings?.embedder_dimensions;
      // Chunks name their items by ref; a chunk's items come in its part (set first below) or an earlier one.
      const positionByRef = new Map<string, number>();
      let chunkCount = 0;
      let itemCount = 0;
      let documentRows: DocumentRow[];
      const commitBytes = this.parts.testHooks.addCommitMaxBytes;
      const chunkAppender = new TableAppender(tables.chunks, commitBytes);
      const itemAppender = new TableAppender(tables.items, commitBytes);
      try {
        for await (const part of entry.parts) {
          throwIfAborted(options.abortSignal, 'Indexing');
          checkVectors({ document, chunks: part.chunks, vectors: part.vectors }, vectorDimensions);
          for (const item of part.items) {
            positionByRef.set(item.selfRef, item.position);
          }
          const itemRows = part.items.map((item) => itemRow(document.id, item, generation));
          const chunkRows = part.chunks.map((chunk, index) => chunkRow(chunk, generation, vectorDimensions ? part.vectors![index] : undefined, positionByRef));
          itemCount += itemRows.length;
          chunkCount += chunkRows.length;
          await settleAll([chunkAppender.append(chunkRows as unknown as Array<Record<string, unknown>>), itemAppender.append(itemRows as unknown as Array<Record<string, unknown>>)]);
          maintenance.chunksAdded(chunkRows, options.copyToRecent ?? options.scheduleOptimize ?? true);
        }
        await settleAll([chunkAppender.flush(), itemAppender.flush()]);
        const now = new Date().toISOString();
        documentRows = [documentRow(document, chunkCount, generation, entry.file, states.get(document.id)?.created_at ?? now, now, entry.sourceMetadata, itemCount)];
        await this.parts.testHooks.beforeDocumentSwitch?.();
        await this.switchDocuments(documentRows, states.has(document.id) ? 1 : 0);
      } catch (error) {
        // A commit may still be in flight (a part failed while the last one was written): none outlives this step.
        await settleAll([chunkAppender.settled(), itemAppender.settled()]);
        maintenance.noteOrphansPossible();
        throw error;
      }
      const replaced = states.has(document.id) ? [document.id] : [];
      this.forgetReplaced(states, documentRows);
      // Its chunk ids and vectors were never all in memory at once: the resident copies load afresh when next needed.
      vectors.invalidate();
      await this.retireSuperseded(replaced, options);
      return chunkCount;
    });
  }

  /** After a switch: the states follow the new rows and the documents' cached items go. */
  private forgetReplaced(states: Map<string, DocumentState>, documentRows: readonly DocumentRow[]): void {
    for (const row of documentRows) {
      const { content: _content, ...state } = row;
      states.set(row.id, state);
      this.parts.items.forgetItems(row.id);
    }
  }

  /** The superseded rows of replaced documents go: with the debounced optimize, or now when none is scheduled. */
  private async retireSuperseded(replaced: readonly string[], options: WriteOptions): Promise<void> {
    const { maintenance } = this.parts;
    if (options.scheduleOptimize ?? true) {
      // Readers already ignore the old rows: delete them with the debounced optimize, off the edit path.
      maintenance.noteSuperseded(replaced);
      maintenance.scheduleOptimize();
    } else if (replaced.length > 0) {
      await maintenance.deleteSuperseded(replaced);
    }
  }

  /**
   * Two tables, two independent commits: written side by side (a one-file re-index spent ~4 ms per commit);
   * readers see neither until the switch. Both settle before a failure propagates, so no write outlives
   * the queued step.
   */
  private addRows(chunkRows: ChunkRow[], itemRows: ItemRow[]): Promise<void> {
    const { tables } = this.parts;
    return settleAll([
      chunkRows.length > 0 ? addInSlices(tables.chunks, chunkRows as unknown as Array<Record<string, unknown>>) : undefined,
      itemRows.length > 0 ? addInSlices(tables.items, itemRows as unknown as Array<Record<string, unknown>>) : undefined,
    ]);
  }

  /** The switch: one commit makes every document of the batch point at the new generation. */
  private async switchDocuments(documentRows: DocumentRow[], replacedCount: number): Promise<void> {
    const documents = this.parts.tables.documents;
    const rows = documentRows as unknown as Array<Record<string, unknown>>;
    if (replacedCount === 1 && documentRows.length === 1 && documentRows[0].content.length <= SWITCH_BY_UPDATE_MAX_CONTENT) {
      // One edited file (the watcher's case): an update by id is 4 ms where a merge-insert joins the
      // whole table (6–25 ms at 5k documents).
      const { id, ...values } = documentRows[0];
      const valuesSql = Object.fromEntries(Object.entries(values).map(([column, value]) => [column, typeof value === 'number' ? String(value) : sqlString(value)]));
      try {
        await documents.update({ where: `id = ${sqlString(id)}`, valuesSql });
      } catch {
        // Text SQL cannot carry (e.g. a NUL character): the merge-insert takes the row as data.
        await documents.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
      }
    } else if (replacedCount > 0) {
      await documents.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    } else {
      await addInSlices(documents, rows);
    }
  }

  /** Removes documents: the documents rows go first (readers stop seeing them at once), then their rows. */
  removeDocuments(documentIds: readonly string[], options: WriteOptions = {}): Promise<void> {
    const { tables, queue, reader, items, vectors, maintenance } = this.parts;
    return queue.run(async () => {
      tables.assertUsable();
      const states = await reader.documentStates();
      const ids = documentIds.filter((id) => states.has(id));
      if (ids.length === 0) {
        return;
      }
      const where = sqlIn('document_id', ids);
      await tables.documents.delete(sqlIn('id', ids));
      for (const id of ids) {
        states.delete(id);
        vectors.removeDocument(id);
        items.forgetItems(id);
      }
      try {
        await tables.chunks.delete(where);
        await tables.items.delete(where);
      } catch {
        maintenance.noteOrphansPossible();
      }
      if (options.scheduleOptimize ?? true) {
        maintenance.scheduleOptimize();
      }
    });
  }

  /** Records a new modification time for files whose content hash did not change (no chunk rewrite). */
  touchDocuments(updates: ReadonlyArray<{ documentId: string; mtimeMs: number; size: number }>): Promise<void> {
    const { tables, queue, reader } = this.parts;
    return queue.run(async () => {
      tables.assertWritable();
      const states = await reader.documentStates();
      for (const update of updates) {
        const state = states.get(update.documentId);
        if (!state) {
          continue;
        }
        await tables.documents.update({ where: `id = ${sqlString(update.documentId)}`, valuesSql: { mtime_ms: String(update.mtimeMs), size: String(update.size) } });
        state.mtime_ms = update.mtimeMs;
        state.size = update.size;
      }
    });
  }
}

/**
 * Adds `rows`, converted to Arrow `ARROW_SLICE_ROWS` at a time with a turn of the event loop between slices, in one
 * commit per `ADD_COMMIT_MAX_BYTES` of Arrow data (see `TableAppender`).
 */
async function addInSlices(table: LanceTable, rows: Array<Record<string, unknown>>): Promise<void> {
  const appender = new TableAppender(table);
  try {
    await appender.append(rows);
  } catch (error) {
    await appender.settled();
    throw error;
  }
  await appender.flush();
}

/**
 * Rows appended to a table as they come, converted to Arrow slice by slice: column by column (`arrowTableOfRows`), or
 * by LanceDB's own `makeArrowTable` for rows that do not fit the schema, both on LanceDB's apache-arrow instance
 * (shared notes §1, bug 3). One `add` (one commit, one fragment) per `ADD_COMMIT_MAX_BYTES` of Arrow data: a batch of
 * small files is one commit, while a 44 MB Markdown file's rows go in parts, so its Arrow copies and their IPC bytes
 * never all exist at once (the rows stay invisible until the documents switch anyway), and its table gets a few
 * fragments, not one per part it came in (more than `COMPACTION_MIN_FRAGMENTS` cost a 10 s compaction).
 * Slices whose columns differ (a column absent from every row of one slice) start a commit of their own.
 */
class TableAppender {
  private slices: Array<ReturnType<typeof makeArrowTable>> = [];
  private bytes = 0;
  /**
   * The commit in flight: the next slices are made while LanceDB writes it (a 44 MB file's worker waited ~4 s for
   * its caller when each commit held the caller up), and the next commit waits for it, so one is in flight at most.
   */
  private committing: Promise<void> = Promise.resolve();

  constructor(
    private readonly table: LanceTable,
    private readonly commitBytes = ADD_COMMIT_MAX_BYTES,
  ) {}

  async append(rows: Array<Record<string, unknown>>): Promise<void> {
    const schema = await tableSchema(this.table);
    for (let start = 0; start < rows.length; start += ARROW_SLICE_ROWS) {
      if (start > 0 || this.slices.length > 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const slice = rows.slice(start, start + ARROW_SLICE_ROWS);
      const arrow = arrowTableOfRows(slice, schema);
      if (!arrow) {
        // Rows that do not fit the schema column by column: LanceDB converts them itself, in a commit of their own.
        await this.flush();
        await this.table.add(slice);
        continue;
      }
      if (this.slices.length > 0 && columnNames(arrow) !== columnNames(this.slices[0])) {
        await this.startCommit();
      }
      this.slices.push(arrow);
      this.bytes += arrow.batches.reduce((sum, batch) => sum + batch.data.byteLength, 0);
      if (this.bytes >= this.commitBytes) {
        await this.startCommit();
      }
    }
  }

  /** Commits what was appended since the last commit; resolves when every commit of this appender is written. */
  async flush(): Promise<void> {
    await this.startCommit();
    await this.committing;
  }

  /**
   * Waits for the commit in flight, then starts one of what was appended since. A failed commit rejects here or in
   * `flush`, never unhandled; callers that stop early settle the one in flight with `settled`.
   */
  private async startCommit(): Promise<void> {
    await this.committing;
    const part = this.slices;
    this.slices = [];
    this.bytes = 0;
    if (part.length > 0) {
      this.committing = addArrowTable(this.table, part.length === 1 ? part[0] : part[0].concat(...part.slice(1)));
      this.committing.catch(() => undefined);
    }
  }

  /** Resolves once no commit of this appender is in flight, whether it succeeded or not. */
  settled(): Promise<void> {
    return this.committing.catch(() => undefined);
  }
}

function columnNames(table: ReturnType<typeof makeArrowTable>): string {
  return table.schema.fields.map((field) => field.name).join();
}

/** Each table's schema, asked of the native table once: the store never alters a table's columns. */
const schemas = new WeakMap<LanceTable, Promise<Schema>>();
function tableSchema(table: LanceTable): Promise<Schema> {
  let schema = schemas.get(table);
  if (!schema) {
    schema = table.schema();
    schema.catch(() => schemas.delete(table));
    schemas.set(table, schema);
  }
  return schema;
}

function checkVectors(entry: Pick<DocumentWrite, 'document' | 'chunks' | 'vectors'>, vectorDimensions: number | null | undefined): void {
  if (!vectorDimensions) {
    return;
  }
  const { document, chunks, vectors } = entry;
  if (!vectors || vectors.length !== chunks.length) {
    throw new HaikuError('embedding_failed', `${document.relativePath}: ${chunks.length} chunks but ${vectors?.length ?? 0} vectors; the index needs one vector per chunk.`);
  }
  const wrong = vectors.find((vector) => vector.length !== vectorDimensions);
  if (wrong) {
    throw new HaikuError('embedding_failed', `${document.relativePath}: the embedder returned ${wrong.length}-dimensional vectors, but the index holds ${vectorDimensions}. Rebuild the index after changing the embedding model.`, { remedy: { action: 'rebuild_index' } });
  }
}
