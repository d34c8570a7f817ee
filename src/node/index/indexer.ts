import * as crypto from 'node:crypto';
import { getMaxListeners, setMaxListeners } from 'node:events';
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Embedder } from '../../core/embeddings/embedder';
import type { HaikuDocument } from '../../core/model/document';
import { CancelledError, errorMessage, HaikuError, isHaikuError, throwIfAborted } from '../../core/errors';
import { globProblem } from '../../core/excludeGlobs';
import { documentIdForPath } from '../../core/hash';
import { CONVERSION_BATCH_FILES, CONVERSION_BATCH_MAX_FILE_BYTES, EMBEDDING_BATCH_SIZE, INDEX_CONCURRENCY, INDEX_IN_FLIGHT_MAX_BYTES, INDEX_WRITE_BATCH_CHUNKS, INDEX_WRITE_BATCH_DOCUMENTS, INDEX_WRITE_TAIL_MIN_DOCUMENTS, MAX_DOCUMENT_CHUNKS } from '../../core/limits';
import { createConversionPool, inProcessConversion, type ConversionLoadOptions, type ConversionPool } from '../convert/conversionPool';
import { loadInProcessConverters } from '../convert/loadInProcessConverters';
import type { OcrOptions, PictureProcessing } from '../convert/convertFile';
import type { PreparedDocument } from '../convert/conversionProtocol';
import type { DocumentPartsWrite, DocumentWrite, LanceStore } from '../store/lanceStore';
import type { DocumentPart } from '../store/storeWriter';
import type { DocumentState } from '../store/schema';
import { STALE_DOCUMENT_SIZE } from '../store/storeTables';
import { documentsGoneAfterScan, rootsMatchingNothing } from './removedDocuments';
import type { IndexedRoot } from '../store/rootsRegistry';
import { convertsInProcess, EarlyWorkers } from './earlyWorkers';
import { scanRoots, type LinkOutside, type ScanOptions, type ScanResult, type ScannedFile } from './scanner';
import { describePictures, PictureDescriber, type PictureDescriptionSettings } from './pictureDescriptions';

export type IndexPhase = 'scanning' | 'converting' | 'embedding' | 'writing' | 'removing' | 'optimizing' | 'done';

export interface IndexProgress {
  filesDone: number;
  filesTotal: number;
  currentFile?: string;
  /** Set on the report made as a file's conversion ends (converted or failed): `filesDone` counts it. */
  finishedFile?: string;
  phase: IndexPhase;
}

export interface IndexFailure {
  path: string;
  /** The typed error's code (`corrupt_file`, `file_too_large`, …). */
  code: string;
  reason: string;
}

export interface IndexWarning {
  path: string;
  message: string;
}

export interface IndexSummary {
  added: string[];
  updated: string[];
  unchanged: number;
  /** Of the unchanged: files whose modification time moved but whose content hash did not (metadata refresh only). */
  touched: number;
  removed: string[];
  failed: IndexFailure[];
  /** Files indexed only in part (a document cut at \`MAX_DOCUMENT_CHUNKS\` chunks): not failures, but said. */
  warnings: IndexWarning[];
  /** Linked files not indexed because their target lies outside the indexed folders (`followLinksOutside` is off). */
  linksOutside: LinkOutside[];
  /** Chunks written in this run. */
  chunksWritten: number;
  durations: { scanMs: number; convertMs: number; embedMs: number; writeMs: number; optimizeMs: number; totalMs: number };
}

export interface IndexPathsOptions {
  /** Files or folders. */
  roots: readonly string[];
  store: LanceStore;
  embedder?: Embedder;
  abortSignal?: AbortSignal;
  onProgress?: (progress: IndexProgress) => void;
  include?: readonly string[];
  exclude?: readonly string[];
  /** Relative paths (and document ids) hang from here for roots inside it: the workspace or current folder. */
  baseFolder?: string;
  maxFileBytes?: number;
  respectGitignore?: boolean;
  /** Index linked files whose target lies outside the indexed folders (config `index.followLinksOutside`, default false). */
  followLinksOutside?: boolean;
  /** File roots obey the include globs and `.gitignore` files (file-watcher events; see `ScanOptions`). */
  fileRootsFollowRules?: boolean;
  /** Picture bytes extracted from PDF and DOCX (config `processing.pictures`, default `image`). */
  pictures?: PictureProcessing;
  /** OCR of image files and scanned PDF pages (config `processing.ocr`; default on, English). */
  ocr?: OcrOptions;
  /** The vision endpoint that describes pictures when `pictures` is `description` (config `processing.pictureDescription`). */
  pictureDescription?: PictureDescriptionSettings;
  concurrency?: number;
  /**
   * Converts and chunks files on worker threads (time and memory limits per file); a long-lived caller (VS Code)
   * passes one so watcher re-indexes skip the workers' start-up. Without it, the run makes and disposes its own.
   */
  conversionPool?: ConversionPool;
  /** Remove stored documents under the roots whose files are gone (default true). */
  removeMissing?: boolean;
  /**
   * When a root that holds documents matched no file (patterns that match nothing), remove its documents anyway
   * (default true). False (the CLI without `--prune`): the run stops before writing with `no_matching_files`.
   */
  pruneWhenNothingMatches?: boolean;
  /** Run `optimize()` at the end (default true); a burst of incremental runs may leave it to the debounce. */
  optimize?: boolean;
}

/**
 * Brings the index in line with the files under `roots`: unchanged files cost a stat (a hash when only the
 * modification time moved), changed files replace their own rows, vanished files are removed, and a file
 * that fails to convert is reported while its previously indexed version stays.
 */
export function indexPaths(options: IndexPathsOptions): Promise<IndexSummary> {
  // A failed early scan is no failure: the run scans again under the lease.
  const ahead = aheadOfLease(options).catch(() => undefined);
  // One writer at a time from reading the stored states to the final optimize: what the run compared
  // against stays true until it has written (another process waits, see `LanceStore.withWriterLease`).
  return options.store.withWriterLease(() => indexPathsHoldingLease(options, ahead), { abortSignal: options.abortSignal });
}

/** A one-file run's scan and the file's conversion, started before the writer lease is held (see `aheadOfLease`). */
interface AheadOfLease {
  scan: ScanResult;
  file: ScannedFile;
  prepared: Promise<PreparedDocument>;
}

/**
 * The watcher's re-index of one saved file: its scan and conversion start beside the lease and the tables'
 * re-validation instead of after them (~1.5 ms of a ~18 ms re-index). Only for a small file root with a caller's
 * pool, not when this process last stored the file at its size (likely unchanged: the run decides before converting).
 * The run uses them only if the file's modification time and size are still the scanned ones under the lease, so
 * the content converted is what a scan there would have converted (see `reusableAhead`).
 */
async function aheadOfLease(options: IndexPathsOptions): Promise<AheadOfLease | undefined> {
  const { conversionPool, store, roots } = options;
  if (!conversionPool || roots.length !== 1 || store.readOnly) {
    return undefined;
  }
  const scan = await scanRoots(scanOptions(options));
  const [file] = scan.files;
  const clean = scan.skipped.length + scan.missingRoots.length + scan.unreadable.length + scan.linksOutside.length === 0;
  if (!clean || scan.files.length !== 1 || file.absolutePath !== scan.roots[0].path || file.size > CONVERSION_BATCH_MAX_FILE_BYTES) {
    return undefined;
  }
  if (store.cachedDocumentState(documentIdForPath(file.relativePath))?.size === file.size) {
    return undefined;
  }
  // A file this small never comes in parts.
  const prepared = conversionPool.prepare(file.absolutePath, conversionOptions(options, file, scan.roots.map((root) => root.path), false));
  // Handled here: a run that does not use it (the file turned out unchanged, or the run failed) never awaits it.
  prepared.catch(() => undefined);
  return { scan, file, prepared };
}

/** The early scan and conversion when the file is as it was scanned (same modification time and size), else undefined. */
async function reusableAhead(ahead: Promise<AheadOfLease | undefined>): Promise<AheadOfLease | undefined> {
  const early = await ahead;
  if (!early) {
    return undefined;
  }
  // Synchronous, as the scan of a file root: one stat takes microseconds, a promise's waited ~0.5-1 ms for its turn.
  let stats: fs.Stats | undefined;
  try {
    stats = fs.statSync(early.file.absolutePath);
  } catch {
    // Gone or unreadable: the run scans it again.
  }
  return stats?.mtimeMs === early.file.mtimeMs && stats.size === early.file.size ? early : undefined;
}

/** What every step of one `indexPaths` run shares. */
interface IndexRun {
  options: IndexPathsOptions;
  summary: IndexSummary;
  started: number;
  filesDone: number;
  filesTotal: number;
  /** Folders Markdown and HTML images may be read from: the indexed roots, known once scanned. */
  pictureRoots: readonly string[];
  /** The chunk and item tables held no rows when the run planned its work. */
  startedEmpty: boolean;
  /** Describes pictures when `pictures` is `description`. */
  describer?: PictureDescriber;
  /** Starts a first build's conversion workers while it scans. */
  earlyWorkers?: EarlyWorkers;
  /** The one file's conversion started before the lease (see `aheadOfLease`), until `convertOne` takes it. */
  convertedAhead?: { absolutePath: string; prepared: Promise<PreparedDocument> };
  report(progress: Omit<IndexProgress, 'filesDone' | 'filesTotal'>): void;
}

/** Which scanned files need converting, and which only need their stored metadata refreshed. */
interface IndexPlan {
  toConvert: ScannedFile[];
  touched: Array<{ documentId: string; mtimeMs: number; size: number }>;
  /** Ids of scanned files stored before this run: a written document counts as updated rather than added. */
  previouslyStored: ReadonlySet<string>;
}

/**
 * The run as named steps, in order. A converted batch goes through `prepareBatch` (embedding today) before it is
 * written, so a further per-batch step (e.g. describing pictures) slots in there.
 */
async function indexPathsHoldingLease(options: IndexPathsOptions, ahead: Promise<AheadOfLease | undefined>): Promise<IndexSummary> {
  checkStoreAccepts(options);
  const run = startRun(options);
  run.report({ phase: 'scanning' });
  // Read while the scan runs: a first build starts its conversion workers meanwhile.
  const stored = options.store.documentStates();
  run.earlyWorkers = new EarlyWorkers({ callerPool: options.conversionPool, workers: Math.max(1, options.concurrency ?? INDEX_CONCURRENCY), stored });
  let scan: ScanResult;
  let plan: IndexPlan;
  try {
    const early = await reusableAhead(ahead);
    run.convertedAhead = early && { absolutePath: early.file.absolutePath, prepared: early.prepared };
    scan = await scanStep(run, early?.scan);
    plan = await planStep(run, scan, await stored);
    refuseToEmptyRoots(run, scan, await stored);
    // The phase's first draw already names a file: a fast run may not redraw before it ends.
    run.report({ phase: 'converting', currentFile: plan.toConvert[0]?.relativePath });
    await convertAndWriteStep(run, plan).catch(async (error: unknown) => {
      // A cancelled first index kept what it had written: `rebuild` must know the folders it came from.
      if (run.summary.added.length > 0) {
        await options.store.recordRoots(scan.roots.filter((root) => !scan.missingRoots.includes(root.path))).catch(() => undefined);
      }
      throw error;
    });
  } finally {
    await run.earlyWorkers.dispose();
  }
  await touchStep(run, plan);
  await removeGoneStep(run, scan);
  await options.store.recordRoots(scan.roots.filter((root) => !scan.missingRoots.includes(root.path)));
  await optimizeStep(run);
  run.summary.durations.totalMs = performance.now() - run.started;
  run.report({ phase: 'done' });
  return run.summary;
}

function checkStoreAccepts({ store, embedder, include, exclude }: IndexPathsOptions): void {
  // An invalid pattern matches nothing: checked first, so it can never empty the index.
  for (const glob of [...(include ?? []), ...(exclude ?? [])]) {
    const problem = globProblem(glob);
    if (problem) {
      throw new HaikuError('invalid_settings', `The pattern '${glob}' is not a valid glob: ${problem}`);
    }
  }
  store.assertWritable();
  if (embedder && !store.hasVectors) {
    throw new HaikuError('rebuild_needed', `The index at ${store.uri} was built without the embedder ${embedder.id}. Rebuild the index to re-index with it.`);
  }
}

function startRun(options: IndexPathsOptions): IndexRun {
  const run: IndexRun = {
    options,
    summary: emptySummary(),
    started: performance.now(),
    filesDone: 0,
    filesTotal: 0,
    pictureRoots: [],
    startedEmpty: false,
    // Made before scanning: a description run without a vision model is a settings error, not one warning per picture.
    describer: options.pictures === 'description' ? new PictureDescriber(options.pictureDescription ?? { baseUrl: '', model: '' }) : undefined,
    report: (progress) => options.onProgress?.({ filesDone: run.filesDone, filesTotal: run.filesTotal, ...progress }),
  };
  return run;
}

function scanOptions(options: IndexPathsOptions): ScanOptions {
  return {
    roots: options.roots,
    baseFolder: options.baseFolder,
    include: options.include,
    exclude: options.exclude,
    maxFileBytes: options.maxFileBytes,
    respectGitignore: options.respectGitignore,
    followLinksOutside: options.followLinksOutside,
    fileRootsFollowRules: options.fileRootsFollowRules,
    abortSignal: options.abortSignal,
  };
}

/**
 * Lists the files under the roots (or takes the scan made before the lease); files skipped by size, missing roots
 * and unreadable entries become failures.
 */
async function scanStep(run: IndexRun, early: ScanResult | undefined): Promise<ScanResult> {
  const { options, summary } = run;
  const scan = early ?? (await scanRoots({ ...scanOptions(options), onFile: (file) => run.earlyWorkers?.found(file) }));
  summary.durations.scanMs = performance.now() - run.started;
  // Markdown and HTML images are read only from inside the indexed folders.
  run.pictureRoots = scan.roots.map((root) => root.path);
  for (const skipped of scan.skipped) {
    summary.failed.push({ path: skipped.path, code: 'file_too_large', reason: skipped.reason });
  }
  for (const missing of scan.missingRoots) {
    summary.failed.push({ path: missing, code: 'not_found', reason: `${missing}: no such file or folder.` });
  }
  for (const unreadable of scan.unreadable) {
    summary.failed.push({ path: unreadable.relativePath, code: 'unreadable_file', reason: unreadable.reason });
  }
  summary.linksOutside.push(...scan.linksOutside);
  run.filesTotal = scan.files.length;
  return scan;
}

/** Stops the run before it writes when include/exclude patterns would remove every document of a root. */
function refuseToEmptyRoots(run: IndexRun, scan: ScanResult, stored: ReadonlyMap<string, DocumentState>): void {
  const { options } = run;
  if ((options.pruneWhenNothingMatches ?? true) || !(options.removeMissing ?? true)) {
    return;
  }
  const empty = rootsMatchingNothing(documentsGoneAfterScan(stored.values(), scan), scan);
  if (empty.length > 0) {
    const listed = empty.map(({ root, documents }) => `${root} (${documents} document${documents === 1 ? '' : 's'})`).join(', ');
    throw new HaikuError('not_found', `No file under ${listed} matches the include/exclude patterns, so nothing was changed: its indexed documents are kept. Check the patterns, or pass --prune to remove those documents.`);
  }
}

/** Compares each scanned file with its stored state: unchanged, touched (metadata only) or to convert. */
async function planStep(run: IndexRun, scan: ScanResult, stored: ReadonlyMap<string, DocumentState>): Promise<IndexPlan> {
  const { store, abortSignal } = run.options;
  const { summary } = run;
  // A first run writes into empty tables: no orphan rows can predate it, so its optimize skips the sweep.
  run.startedEmpty = stored.size === 0 && (await store.holdsNoRows());
  const previouslyStored = new Set<string>();
  const plan: IndexPlan = { toConvert: [], touched: [], previouslyStored };
  const pathById = new Map<string, string>();
  const kept: Array<{ file: ScannedFile; state: DocumentState; verdict: 'unchanged' | 'touched' }> = [];
  for (const file of scan.files) {
    throwIfAborted(abortSignal, 'Indexing');
    const id = documentIdForPath(file.relativePath);
    // Ids come from base-relative paths: two roots with different base folders can both hold `README.md`.
    const first = pathById.get(id);
    if (first !== undefined) {
      run.filesDone++;
      summary.failed.push({ path: file.absolutePath, code: 'invalid_settings', reason: `${file.absolutePath}: has the same relative path (${file.relativePath}) as ${first}, so both would get one document id. Index both from a common parent folder.` });
      continue;
    }
    pathById.set(id, file.absolutePath);
    const state = stored.get(id);
    if (state) {
      previouslyStored.add(id);
    }
    const verdict = state ? await compareWithStored(file, state) : 'changed';
    if (verdict === 'changed') {
      plan.toConvert.push(file);
    } else {
      kept.push({ file, state: state!, verdict });
    }
  }
  // Rows lost while the file stayed the same (e.g. a concurrent writer of an older version deleted them). Asked
  // only about files that would be kept: a changed file is rewritten anyway, so the watcher's one-file run of an
  // edited file skips the two table queries (13-100 ms on an unoptimized SciFact index).
  const damaged = kept.length > 0 ? await store.documentsMissingRows(kept.map(({ state }) => state.id)) : new Set<string>();
  for (const { file, state, verdict } of kept) {
    if (damaged.has(state.id)) {
      plan.toConvert.push(file);
      continue;
    }
    summary.unchanged++;
    run.filesDone++;
    if (verdict === 'touched') {
      summary.touched++;
      plan.touched.push({ documentId: state.id, mtimeMs: file.mtimeMs, size: file.size });
    }
  }
  // Big files first, largest first: a big PDF started last would be left converting alone at the end of the run.
  // Small files keep the scan's order (sorting SciFact's 5,183 by size cost its ingest 0.3 s).
  const big = plan.toConvert.filter((file) => file.size > CONVERSION_BATCH_MAX_FILE_BYTES).sort((left, right) => right.size - left.size);
  plan.toConvert = [...big, ...plan.toConvert.filter((file) => file.size <= CONVERSION_BATCH_MAX_FILE_BYTES)];
  return plan;
}

/**
 * Converts the changed files on the conversion pool and writes them in batches: converted documents wait until a
 * batch is full, then go through `prepareBatch` and to the store in one write per table. Converting the next
 * batch overlaps writing this one. The first failure (a write, an embedding request, cancellation) stops every
 * converter, so nothing is written after `indexPaths` has rejected.
 */
async function convertAndWriteStep(run: IndexRun, plan: IndexPlan): Promise<void> {
  const { options, summary } = run;
  const { store, abortSignal } = options;
  const { toConvert } = plan;
  let pending: DocumentWrite[] = [];
  let pendingChunks = 0;
  let flushing: Promise<void> = Promise.resolve();
  const writeBatch = async (batch: DocumentWrite[]): Promise<void> => {
    if (batch.length === 0) {
      return;
    }
    await prepareBatch(run, batch);
    throwIfAborted(abortSignal, 'Indexing');
    run.report({ phase: 'writing' });
    const writeStarted = performance.now();
    // Chunks are copied to the recent table while they fit, so a run that changed a few files ends without
    // rebuilding the main FTS index (see `optimizeStep`); bigger runs, and the first into empty tables, rebuild
    // it once at their end.
    await store.writeDocuments(batch, { abortSignal, scheduleOptimize: !(options.optimize ?? true), copyToRecent: !run.startedEmpty });
    summary.durations.writeMs += performance.now() - writeStarted;
    unwritten.delete(batch);
    countWritten(run, plan, batch);
  };
  // Converted batches not yet written: kept by a cancelled run (see `keepConverted`).
  const unwritten = new Set<DocumentWrite[]>();
  // Batches handed to the write chain and not yet written (the one writing first).
  const queuedWrites: Array<Promise<void>> = [];
  let batchesFlushed = 0;
  const flush = (): Promise<void> => {
    batchesFlushed++;
    const batch = pending;
    pending = [];
    pendingChunks = 0;
    unwritten.add(batch);
    const written = flushing.then(() => writeBatch(batch));
    flushing = written;
    queuedWrites.push(written);
    // Marked handled at once: a failure surfaces where the chain is awaited, never as an unhandled rejection.
    written.catch(() => undefined).finally(() => queuedWrites.splice(queuedWrites.indexOf(written), 1));
    return written;
  };

  let stopped = false;
  const concurrency = Math.max(1, options.concurrency ?? INDEX_CONCURRENCY);
  const queue = new ConversionQueue(toConvert, { minimumFiles: 2 * concurrency, maxBytes: INDEX_IN_FLIGHT_MAX_BYTES, smallFileBytes: CONVERSION_BATCH_MAX_FILE_BYTES });
  const converter = async (conversionPool: ConversionPool) => {
    while (!queue.done && !stopped) {
      // One batch writing and one full batch waiting at most: the write yields to the event loop (Arrow in slices),
      // and converting on meanwhile piled up batches (peak RSS at 100k chunks 885 MiB -> 1.01 GiB).
      while (queuedWrites.length >= 2 && !stopped) {
        await queuedWrites[0].catch(() => undefined);
      }
      throwIfAborted(abortSignal, 'Indexing');
      if (stopped) {
        break;
      }
      const file = queue.start();
      if (!file) {
        // Nothing may start until a file in flight is done; then the write queue is looked at again first.
        await queue.nextRelease();
        continue;
      }
      run.report({ currentFile: file.relativePath, phase: 'converting' });
      const prepared = await convertOne(run, conversionPool, file).catch((error: unknown) => {
        queue.release(file);
        throw error;
      });
      if (prepared && 'parts' in prepared) {
        // A big document is written as its parts come, in the write chain's order; its bytes stay in flight until then.
        const written = flushing
          .then(() => writeInParts(run, plan, prepared, file))
          .finally(() => {
            // Parts not read to the end (this write or an earlier one failed, or was cancelled) stop their worker,
            // which waits for them; after a whole read this does nothing.
            void prepared.parts[Symbol.asyncIterator]().return?.();
            queue.release(file);
          });
        flushing = written;
        queuedWrites.push(written);
        written.catch(() => undefined).finally(() => queuedWrites.splice(queuedWrites.indexOf(written), 1));
      } else {
        queue.release(file);
        if (prepared) {
          pending.push(prepared);
          pendingChunks += prepared.chunks.length;
        }
      }
      run.filesDone++;
      // Each finished file moves the count (piped progress prints one line per file here, counting up).
      run.report({ currentFile: file.relativePath, finishedFile: file.relativePath, phase: 'converting' });
      // Near the end of a run of several batches, the pending one goes while the last files convert (a quarter of it
      // converts in about the time it takes to write): SciFact's last write, ~1,100 documents, came after every
      // conversion (0.13 s). Not once fewer are left (an earlier write still running kept the batch open): a split
      // then only adds a commit. A run of one batch stays one commit per table.
      const left = queue.left;
      const tail = batchesFlushed > 0 && queuedWrites.length === 0 && pending.length >= INDEX_WRITE_TAIL_MIN_DOCUMENTS && 4 * left <= pending.length && 8 * left >= pending.length;
      if (pending.length >= INDEX_WRITE_BATCH_DOCUMENTS || pendingChunks >= INDEX_WRITE_BATCH_CHUNKS || tail) {
        // Waiting for the batch before bounds memory.
        const previous = flushing;
        void flush();
        await previous;
      }
    }
  };
  const ownPool = options.conversionPool || toConvert.length === 0 ? undefined : ownConversion(toConvert, concurrency, run.earlyWorkers?.ownPool);
  const conversionPool = options.conversionPool ?? ownPool!;
  const converters = Math.min(2 * concurrency * CONVERSION_BATCH_FILES, Math.max(1, toConvert.length));
  if (abortSignal) {
    // Each file in flight listens for the abort: that many listeners are expected, not a leak.
    setMaxListeners(Math.max(getMaxListeners(abortSignal), converters + 10), abortSignal);
  }
  try {
    const outcomes = await Promise.allSettled(
      Array.from({ length: converters }, () =>
        converter(conversionPool).catch((error: unknown) => {
          stopped = true;
          throw error;
        }),
      ),
    );
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) {
      // A batch already being written finishes (atomically) before the run reports its failure.
      await flushing.catch(() => undefined);
      if (isHaikuError(failure.reason, 'cancelled') || abortSignal?.aborted) {
        await keepConverted(run, plan, [...[...unwritten].flat(), ...pending]);
      }
      throw failure.reason;
    }
    await flush();
  } finally {
    // After the writes: a big document's worker sends its parts while they are written.
    await ownPool?.dispose();
  }
}

function countWritten(run: IndexRun, plan: IndexPlan, batch: readonly DocumentWrite[]): void {
  for (const entry of batch) {
    (plan.previouslyStored.has(entry.document.id) ? run.summary.updated : run.summary.added).push(entry.document.relativePath);
    run.summary.chunksWritten += entry.chunks.length;
  }
}

/**
 * A cancelled run (Ctrl-C) still writes the documents it had converted, so the work done is kept and the next run
 * starts from there (a first index of 34 files kept none: they waited for a batch of 2,048). Only documents that
 * need no further request are written: with an embedder, those already embedded.
 */
async function keepConverted(run: IndexRun, plan: IndexPlan, converted: readonly DocumentWrite[]): Promise<void> {
  const ready = converted.filter((entry) => !run.options.embedder || entry.vectors !== undefined);
  if (ready.length === 0) {
    return;
  }
  try {
    await run.options.store.writeDocuments(ready, { scheduleOptimize: false, copyToRecent: !run.startedEmpty });
    countWritten(run, plan, ready);
  } catch {
    // The run reports its cancellation; what could not be written is converted again next time.
  }
}

/**
 * The files of a run in the order they start (as `planStep` orders them: big files largest first, then the small
 * ones), under a budget of source bytes converting or queued, counted apart for the small files the pool batches
 * (up to `smallFileBytes`) and for bigger ones. A file starts when the bytes of its kind fit `maxBytes`, or when
 * fewer than `minimumFiles` are in flight (both workers busy and one file queued behind each, whatever their size).
 * When the next big file does not fit, the last file left starts instead, a small one if any is left: small files
 * keep going to the free worker in batches while a big one converts for seconds. Big files go a few at a time: 64
 * synthetic files of 100 chunks each in flight raised the peak RSS at 100k chunks from 885 MiB to 1.12 GiB.
 */
class ConversionQueue {
  private readonly files: readonly ScannedFile[];
  private front = 0;
  private back: number;
  private readonly bytes = { small: 0, big: 0 };
  private inFlight = 0;
  private waiting: Array<() => void> = [];

  /** `files`: big files first, largest first. */
  constructor(
    files: readonly ScannedFile[],
    private readonly limits: { minimumFiles: number; maxBytes: number; smallFileBytes: number },
  ) {
    this.files = files;
    this.back = files.length - 1;
  }

  get done(): boolean {
    return this.front > this.back;
  }

  /** Files not converted yet: those waiting to start and those in flight. */
  get left(): number {
    return this.back - this.front + 1 + this.inFlight;
  }

  /** The next file that may start now, counted in flight; undefined when none may (or none is left). */
  start(): ScannedFile | undefined {
    if (this.done) {
      return undefined;
    }
    const file = this.fits(this.files[this.front]) ? this.files[this.front++] : this.fits(this.files[this.back]) ? this.files[this.back--] : undefined;
    if (file) {
      this.bytes[this.kindOf(file)] += file.size;
      this.inFlight++;
    }
    return file;
  }

  /** Settles when a file in flight is done (or at once when none is: nothing would ever settle it). */
  nextRelease(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A file started has been converted (or failed). */
  release(file: ScannedFile): void {
    this.bytes[this.kindOf(file)] -= file.size;
    this.inFlight--;
    for (const wake of this.waiting.splice(0)) {
      wake();
    }
  }

  private fits(file: ScannedFile): boolean {
    return this.inFlight < this.limits.minimumFiles || this.bytes[this.kindOf(file)] + file.size <= this.limits.maxBytes;
  }

  private kindOf(file: ScannedFile): 'small' | 'big' {
    return file.size <= this.limits.smallFileBytes ? 'small' : 'big';
  }
}

/**
 * The conversion a run without a caller's pool makes for itself: a few small files in-process (`convertsInProcess`),
 * anything more on worker threads (those a first build started while scanning, if it did).
 */
function ownConversion(toConvert: readonly ScannedFile[], concurrency: number, started: ConversionPool | undefined): ConversionPool {
  if (convertsInProcess(toConvert.length, toConvert.reduce((sum, file) => sum + file.size, 0))) {
    return inProcessConversion();
  }
  return started ?? createConversionPool({ size: concurrency });
}

/**
 * Converts and chunks one file; a conversion failure is recorded and gives `undefined`, cancellation throws. A big
 * document comes in parts (written by `writeInParts`), except when its pictures are to be described first.
 */
async function convertOne(run: IndexRun, conversionPool: ConversionPool, file: ScannedFile): Promise<DocumentWrite | DocumentPartsWrite | undefined> {
  const { abortSignal } = run.options;
  const convertStarted = performance.now();
  try {
    const ahead = run.convertedAhead?.absolutePath === file.absolutePath ? run.convertedAhead.prepared : undefined;
    run.convertedAhead = undefined;
    // Pictures to describe need the whole document first.
    const prepared = await (ahead ?? conversionPool.prepare(file.absolutePath, conversionOptions(run.options, file, run.pictureRoots, !run.describer)));
    const fileStats = { mtimeMs: file.mtimeMs, size: file.size };
    if (prepared.parts) {
      return { document: prepared.document, parts: prepared.parts, file: fileStats };
    }
    const { document, chunks } = run.describer ? await describePictures(prepared, run.describer, abortSignal) : prepared;
    warnIfCut(run, file, document);
    return { document, chunks, file: fileStats };
  } catch (error) {
    recordFailure(run, file, error);
    return undefined;
  } finally {
    run.summary.durations.convertMs += performance.now() - convertStarted;
  }
}

/** What the conversion pool is given for a scanned file of the run (the roots its pictures may be read from). */
function conversionOptions(options: IndexPathsOptions, file: ScannedFile, pictureRoots: readonly string[], inParts: boolean): ConversionLoadOptions {
  const { abortSignal, maxFileBytes, pictures, ocr } = options;
  return { rootPath: file.baseFolder, abortSignal, maxBytes: maxFileBytes, pictures, pictureRoots, ocr, sizeBytes: file.size, inParts };
}

/** A document cut at `MAX_DOCUMENT_CHUNKS` chunks is a warning of the run. */
function warnIfCut(run: IndexRun, file: ScannedFile, document: HaikuDocument): void {
  const limit = MAX_DOCUMENT_CHUNKS.toLocaleString('en-US');
  const cut = document.warnings.find((warning) => warning.includes(`more than ${limit} chunks`));
  if (cut) {
    run.summary.warnings.push({ path: file.relativePath, message: `${file.relativePath}: ${cut}` });
  }
}

/** A file that could not be converted is recorded as failed; cancellation is thrown on. */
function recordFailure(run: IndexRun, file: ScannedFile, error: unknown): void {
  if (isHaikuError(error, 'cancelled') || run.options.abortSignal?.aborted) {
    throw error instanceof CancelledError ? error : new CancelledError('Indexing');
  }
  run.summary.failed.push({ path: file.relativePath, code: isHaikuError(error) ? error.code : 'corrupt_file', reason: errorMessage(error) });
}

/** Marks an error of the conversion (not of the write) while a big document's parts are read. */
class PartsConversionError extends Error {
  constructor(readonly conversionError: unknown) {
    super('The conversion of a document sent in parts failed.');
  }
}

/**
 * Writes a big document as its parts come from the conversion worker, each part's chunks embedded on the way when
 * the index has an embedder. A conversion that fails meanwhile (the time limit, a crash) is a failed file, and its
 * rows written so far stay invisible (the document was never switched to them); a failed write fails the run.
 */
async function writeInParts(run: IndexRun, plan: IndexPlan, entry: DocumentPartsWrite, file: ScannedFile): Promise<void> {
  const { store, embedder, abortSignal } = run.options;
  const { summary } = run;
  const parts = entry.parts[Symbol.asyncIterator]();
  async function* embedded(): AsyncIterable<DocumentPart> {
    for (;;) {
      let next: IteratorResult<DocumentPart>;
      try {
        next = await parts.next();
      } catch (error) {
        throw new PartsConversionError(error);
      }
      if (next.done) {
        return;
      }
      const part = next.value;
      if (embedder && part.chunks.length > 0) {
        const embedStarted = performance.now();
        const batch: DocumentWrite[] = [{ document: entry.document, chunks: part.chunks, file: entry.file }];
        await embedBatch(batch, embedder, abortSignal);
        part.vectors = batch[0].vectors;
        summary.durations.embedMs += performance.now() - embedStarted;
      }
      yield part;
    }
  }
  throwIfAborted(abortSignal, 'Indexing');
  run.report({ phase: 'writing' });
  const writeStarted = performance.now();
  try {
    const chunks = await store.writeDocumentInParts({ ...entry, parts: embedded() }, { abortSignal, scheduleOptimize: !(run.options.optimize ?? true), copyToRecent: !run.startedEmpty });
    (plan.previouslyStored.has(entry.document.id) ? summary.updated : summary.added).push(entry.document.relativePath);
    summary.chunksWritten += chunks;
    warnIfCut(run, file, entry.document);
  } catch (error) {
    if (!(error instanceof PartsConversionError)) {
      throw error;
    }
    recordFailure(run, file, error.conversionError);
  } finally {
    summary.durations.writeMs += performance.now() - writeStarted;
  }
}

/** What a converted batch needs before it is written: today its vectors, when the index has an embedder. */
async function prepareBatch(run: IndexRun, batch: DocumentWrite[]): Promise<void> {
  const { embedder, abortSignal } = run.options;
  throwIfAborted(abortSignal, 'Indexing');
  if (embedder) {
    run.report({ phase: 'embedding' });
    const embedStarted = performance.now();
    await embedBatch(batch, embedder, abortSignal);
    run.summary.durations.embedMs += performance.now() - embedStarted;
  }
}

/** Files whose modification time moved but whose content did not: only their stored metadata changes. */
async function touchStep(run: IndexRun, plan: IndexPlan): Promise<void> {
  if (plan.touched.length > 0) {
    await run.options.store.touchDocuments(plan.touched);
  }
}

/** Removes stored documents under the scanned roots whose files are gone (unless `removeMissing` is off). */
async function removeGoneStep(run: IndexRun, scan: ScanResult): Promise<void> {
  const { store, abortSignal } = run.options;
  if (!(run.options.removeMissing ?? true)) {
    return;
  }
  throwIfAborted(abortSignal, 'Indexing');
  const gone = documentsGoneAfterScan((await store.documentStates()).values(), scan);
  if (gone.length > 0) {
    run.report({ phase: 'removing' });
    await store.removeDocuments(gone.map((state) => state.id), { scheduleOptimize: !(run.options.optimize ?? true) });
    run.summary.removed.push(...gone.map((state) => state.relative_path));
  }
}

/** Compacts and rebuilds the indexes at the end of the run (unless `optimize` is off: the debounce does it). */
async function optimizeStep(run: IndexRun): Promise<void> {
  if (!(run.options.optimize ?? true)) {
    return;
  }
  run.report({ phase: 'optimizing' });
  const optimizeStarted = performance.now();
  const { summary } = run;
  // Rows of this run's failed writes are swept anyway (the store notes them); a run into empty tables has no others,
  // and deleted nothing, so its few fragments need no compaction.
  try {
    await run.options.store.optimize({ sweepOrphans: !run.startedEmpty && summary.added.length + summary.updated.length > 0, keepRecent: true, compactOnlyIfFragmented: run.startedEmpty });
  } catch (error) {
    if (isHaikuError(error, 'cancelled') || run.options.abortSignal?.aborted) {
      throw error;
    }
    // The documents are written and searchable (rows outside the full-text index are searched flat); failing the
    // run here (a full disk) reported a failure although it had changed the index. The next run's upkeep retries.
    summary.warnings.push({ path: run.options.store.uri, message: `The index was updated, but its upkeep (compaction, full-text index) failed and runs again next time: ${errorMessage(error)}` });
  }
  summary.durations.optimizeMs = performance.now() - optimizeStarted;
}

function emptySummary(): IndexSummary {
  return {
    added: [],
    updated: [],
    unchanged: 0,
    touched: 0,
    removed: [],
    failed: [],
    warnings: [],
    linksOutside: [],
    chunksWritten: 0,
    durations: { scanMs: 0, convertMs: 0, embedMs: 0, writeMs: 0, optimizeMs: 0, totalMs: 0 },
  };
}

/**
 * Re-indexes every recorded root with the current settings (after a layout, chunker or embedder change). Each
 * document is converted again and swapped atomically, so the previous index stays complete and searchable until
 * its replacement is written (see `LanceStore.reset`); documents outside every root go at the end, and those an
 * unreadable folder or a failed conversion could not refresh stay, as `index` keeps them.
 */
export function rebuildIndex(options: Omit<IndexPathsOptions, 'roots' | 'baseFolder'>): Promise<IndexSummary & { roots: IndexedRoot[] }> {
  return options.store.withWriterLease(() => rebuildHoldingLease(options), { abortSignal: options.abortSignal });
}

async function rebuildHoldingLease(options: Omit<IndexPathsOptions, 'roots' | 'baseFolder'>): Promise<IndexSummary & { roots: IndexedRoot[] }> {
  const { store } = options;
  const roots = store.roots;
  await store.reset();
  const combined: IndexSummary & { roots: IndexedRoot[] } = { ...emptySummary(), roots };
  // Roots sharing a base folder are indexed together, so each keeps the relative paths (ids) it had.
  const byBase = new Map<string, string[]>();
  for (const root of roots) {
    byBase.set(root.baseFolder, [...(byBase.get(root.baseFolder) ?? []), root.path]);
  }
  for (const [baseFolder, paths] of byBase) {
    const summary = await indexPaths({ ...options, roots: paths, baseFolder });
    // Every document written is reported as added: the rebuild indexed it afresh.
    combined.added.push(...summary.added, ...summary.updated);
    combined.removed.push(...summary.removed);
    combined.failed.push(...summary.failed);
    combined.warnings.push(...summary.warnings);
    combined.linksOutside.push(...summary.linksOutside);
    combined.chunksWritten += summary.chunksWritten;
    for (const key of Object.keys(combined.durations) as Array<keyof IndexSummary['durations']>) {
      combined.durations[key] += summary.durations[key];
    }
  }
  // Documents no root holds any more (their root was forgotten) were dropped by the old drop-everything rebuild.
  const scopes = roots.map((root) => pathToFileURL(root.path).href);
  let outside = [...(await store.documentStates()).values()].filter((state) => state.size === STALE_DOCUMENT_SIZE && !scopes.some((scope) => state.uri === scope || state.uri.startsWith(`${scope}/`)));
  // Pages added from a URL or as text (`haiku add`) have no file to convert again: their stored text is re-indexed.
  const added = outside.filter((state) => !state.uri.startsWith('file:'));
  for (const state of added) {
    throwIfAborted(options.abortSignal, 'Rebuilding');
    if (await reindexStoredContent(store, state.id, options)) {
      combined.added.push(state.relative_path);
    }
  }
  outside = outside.filter((state) => state.uri.startsWith('file:'));
  if (outside.length > 0) {
    throwIfAborted(options.abortSignal, 'Rebuilding');
    await store.removeDocuments(outside.map((state) => state.id));
    combined.removed.push(...outside.map((state) => state.relative_path));
  }
  return combined;
}

/** Haiku's own metadata keys, written afresh with every document; the rest (a URL's ETag, the user's pairs) is kept. */
const COMPUTED_METADATA_KEYS: readonly string[] = ['format', 'chunkCount', 'itemCount', 'pageCount', 'warnings'];

/**
 * Re-indexes a document added from a URL or as text from its stored Markdown (what `content.txt` holds): chunked and
 * embedded with the current settings under its id, URI, path, title, format and metadata. False when nothing is stored.
 */
async function reindexStoredContent(store: LanceStore, documentId: string, options: Omit<IndexPathsOptions, 'roots' | 'baseFolder'>): Promise<boolean> {
  const summary = await store.getDocument(documentId);
  const content = await store.getDocumentContent(documentId);
  if (!summary || content === undefined || content.trim() === '') {
    return false;
  }
  const { convertMarkdown, chunkDocumentWithinLimit } = loadInProcessConverters();
  const converted = await convertMarkdown(content, { fileName: summary.relativePath, abortSignal: options.abortSignal });
  const document: HaikuDocument = {
    ...converted,
    format: summary.format as HaikuDocument['format'],
    title: summary.title,
    id: summary.id,
    uri: summary.uri,
    relativePath: summary.relativePath,
    contentHash: summary.contentHash,
  };
  const sourceMetadata = Object.fromEntries(Object.entries(summary.metadata).filter(([key]) => !COMPUTED_METADATA_KEYS.includes(key)));
  const { chunks } = chunkDocumentWithinLimit({ id: document.id, items: document.items });
  const entry: DocumentWrite = { document, chunks, file: { mtimeMs: Date.now(), size: Buffer.byteLength(content) }, sourceMetadata };
  if (options.embedder) {
    await embedBatch([entry], options.embedder, options.abortSignal);
  }
  await store.writeDocuments([entry], { abortSignal: options.abortSignal });
  return true;
}

async function compareWithStored(file: ScannedFile, state: DocumentState): Promise<'unchanged' | 'touched' | 'changed'> {
  if (state.mtime_ms === file.mtimeMs && state.size === file.size) {
    return 'unchanged';
  }
  if (state.size !== file.size) {
    return 'changed';
  }
  try {
    const hash = crypto.createHash('sha256').update(await fs.promises.readFile(file.absolutePath)).digest('hex');
    return hash === state.content_hash ? 'touched' : 'changed';
  } catch {
    return 'changed';
  }
}

/** Gives each document of the batch its chunks' vectors, in batches of `EMBEDDING_BATCH_SIZE` texts. */
export async function embedBatch(batch: DocumentWrite[], embedder: Embedder, abortSignal: AbortSignal | undefined): Promise<void> {
  const texts = batch.flatMap((entry) => entry.chunks.map((chunk) => chunk.searchText));
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += EMBEDDING_BATCH_SIZE) {
    throwIfAborted(abortSignal, 'Indexing');
    const slice = texts.slice(start, start + EMBEDDING_BATCH_SIZE);
    const embedded = await embedder.embed(slice, { kind: 'document', abortSignal });
    if (embedded.length !== slice.length) {
      throw new HaikuError('embedding_failed', `The embedder returned ${embedded.length} vectors for ${slice.length} texts. Check the embeddings server.`);
    }
    vectors.push(...embedded);
  }
  let offset = 0;
  for (const entry of batch) {
    entry.vectors = vectors.slice(offset, offset + entry.chunks.length);
    offset += entry.chunks.length;
  }
}
