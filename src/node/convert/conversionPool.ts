/**
 * Converts files in worker threads, so no file can hang or crash the caller (in VS Code: the extension host).
 *
 * - Markdown, HTML and DOCX parsers run in one uninterruptible stretch; only a thread can be stopped from outside.
 *   A job past its time limit, an abort, or a worker that crashes or runs out of its heap (`resourceLimits`) ends
 *   that worker; the job fails with a typed error naming the file and a fresh worker takes the next job.
 * - Errors thrown inside a worker come back as the same classes and codes (`conversionProtocol.ts`).
 * - Workers start on the first job and only keep the process alive while they convert (idle ones are `unref`ed).
 *   A further worker starts only when a job has waited `CONVERSION_EXTRA_WORKER_DELAY_MS` for ready, busy ones
 *   (a few small files never pay for a second V8 isolate), or at once when a whole batch of jobs waits; a worker
 *   idle for `idleMs` exits.
 * - Small files (`sizeBytes` up to `CONVERSION_BATCH_MAX_FILE_BYTES`) go to a worker up to `CONVERSION_BATCH_FILES` per
 *   message, so it converts them back to back instead of idling for a round trip to a busy caller after each. The
 *   time limit still counts per file; when a worker is stopped, the file it was converting fails and the rest of
 *   its batch goes back to the front of the queue.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { chunkSearchText } from '../../core/model/chunk';
import type { HaikuDocument } from '../../core/model/document';
import { CancelledError, ConversionError, HaikuError } from '../../core/errors';
import { CONVERSION_BATCH_FILES, CONVERSION_BATCH_MAX_FILE_BYTES, CONVERSION_EXTRA_WORKER_DELAY_MS, CONVERSION_TIMEOUT_MS, CONVERSION_WORKER_IDLE_MS, CONVERSION_WORKER_MAX_OLD_GENERATION_MB, CONVERSION_WORKER_RETIRE_AFTER_BYTES, CONVERSION_WORKER_STARTUP_TIMEOUT_MS, CONVERSION_WORKER_YOUNG_GENERATION_MB, INDEX_CONCURRENCY } from '../../core/limits';
import { resolveWorkerScript, type WorkerScript } from '../workerResolution';
import { deserializeError, type PoolToWorkerMessage, type PreparedDocument, type PreparedPart, type WorkerToPoolMessage } from './conversionProtocol';
import type { OcrOptions, PictureProcessing } from './convertFile';
import { loadInProcessConverters } from './loadInProcessConverters';

export interface ConversionPoolOptions {
  /** Workers converting at once; defaults to `INDEX_CONCURRENCY`. */
  size?: number;
  /** Per-file time limit, counted from when a ready worker takes the job; defaults to `CONVERSION_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Heap of each worker (V8 old generation, MiB); defaults to `CONVERSION_WORKER_MAX_OLD_GENERATION_MB`. */
  maxOldGenerationMb?: number;
  /** Overrides where the worker script is found (see `resolveConversionWorker`). */
  workerScript?: WorkerScript;
  /** A worker without a job for this long exits; defaults to `CONVERSION_WORKER_IDLE_MS`. */
  idleMs?: number;
}

export interface ConversionLoadOptions {
  /** The indexed folder; the document's id and `relativePath` are relative to it. */
  rootPath: string;
  abortSignal?: AbortSignal;
  /** Files larger than this are refused before reading; defaults to `MAX_FILE_BYTES`. */
  maxBytes?: number;
  pictures?: PictureProcessing;
  /** Folders Markdown and HTML images may be read from (the indexed roots). */
  pictureRoots?: readonly string[];
  /** OCR of image files and scanned PDF pages (`processing.ocr`). */
  ocr?: OcrOptions;
  /** The file's size when known (from the scan): small files are batched per worker message. */
  sizeBytes?: number;
  /**
   * Take a big document's items and chunks in parts (`PreparedDocument.parts`), so that it never exists whole in the
   * caller's thread; the worker sends each part only once the last is taken.
   */
  inParts?: boolean;
}

export interface ConversionPool {
  /** `loadDocument` in a worker: the same document, the same typed errors, plus time and memory limits. */
  load(filePath: string, options: ConversionLoadOptions): Promise<HaikuDocument>;
  /** `load` plus `chunkDocument`, both in the worker (what the indexer needs). */
  prepare(filePath: string, options: ConversionLoadOptions): Promise<PreparedDocument>;
  /**
   * Starts up to `workers` workers (at most the pool's size) before their first job, so that they load their
   * converters while the caller does other work (an index run scanning); each exits after the idle time if no job
   * comes. A pool without threads does nothing.
   */
  warmUp?(workers: number): void;
  /** Stops every worker; jobs still queued or running fail with `CancelledError`. */
  dispose(): Promise<void>;
}

/**
 * The same interface without threads, for jobs too small to pay for a worker's start-up: no time limit and no
 * heap of its own, so only for a few small files (see the indexer's `INDEX_IN_PROCESS_MAX_BYTES`).
 */
export function inProcessConversion(): ConversionPool {
  const prepare = async (filePath: string, options: ConversionLoadOptions): Promise<PreparedDocument> => {
    const { prepareDocument } = loadInProcessConverters();
    const { rootPath, maxBytes, pictures, pictureRoots, ocr, abortSignal } = options;
    return prepareDocument({ rootPath, filePath, maxBytes, pictures, pictureRoots, ocr, abortSignal });
  };
  return {
    prepare,
    load: async (filePath, options) => (await prepare(filePath, options)).document,
    dispose: async () => undefined,
  };
}

/** `conversion-worker.js` beside the bundle, `conversionWorker.js` beside the tsc output, or the `.ts` source under tsx. */
export function resolveConversionWorker(folder: string = __dirname): WorkerScript {
  return resolveWorkerScript(folder, { bundledFileName: 'conversion-worker.js', sourceBaseName: 'conversionWorker', description: 'The conversion worker', errorCode: 'corrupt_file' });
}

export function createConversionPool(options: ConversionPoolOptions = {}): ConversionPool {
  return new WorkerConversionPool({
    size: Math.max(1, Math.floor(options.size ?? INDEX_CONCURRENCY)),
    timeoutMs: options.timeoutMs ?? CONVERSION_TIMEOUT_MS,
    maxOldGenerationMb: options.maxOldGenerationMb ?? CONVERSION_WORKER_MAX_OLD_GENERATION_MB,
    idleMs: options.idleMs ?? CONVERSION_WORKER_IDLE_MS,
    // Resolved now so a missing build fails at creation, not once per file.
    workerScript: options.workerScript ?? resolveConversionWorker(),
  });
}

interface PoolSettings {
  size: number;
  timeoutMs: number;
  idleMs: number;
  maxOldGenerationMb: number;
  workerScript: WorkerScript;
}

interface PendingJob {
  jobId: number;
  filePath: string;
  options: ConversionLoadOptions;
  resolve(prepared: PreparedDocument): void;
  reject(error: Error): void;
  /** Detaches the abort listener and timers; set while queued and while running. */
  cleanup(): void;
  /** Set once a big document's first message came (`inParts`): its parts go here. */
  parts?: PartChannel;
}

/** One worker thread; converts one batch of jobs at a time, in order (the first is the one converting). */
class ConversionWorker {
  private exited = false;
  private converterLoaded = false;
  private jobs: PendingJob[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly worker: Worker;

  /**
   * `onChange` runs when the worker becomes ready or free, `onGone` when it has exited or been stopped, with the
   * jobs of its batch it had not started (they go back to the queue).
   */
  constructor(
    private readonly settings: PoolSettings,
    private readonly onChange: (worker: ConversionWorker) => void,
    private readonly onGone: (worker: ConversionWorker, unstarted: PendingJob[]) => void,
  ) {
    this.worker = new Worker(settings.workerScript.file, {
      execArgv: settings.workerScript.execArgv,
      resourceLimits: { maxOldGenerationSizeMb: settings.maxOldGenerationMb, maxYoungGenerationSizeMb: Math.min(CONVERSION_WORKER_YOUNG_GENERATION_MB, settings.maxOldGenerationMb) },
      stdout: false,
      stderr: false,
    });
    this.worker.on('message', (message: WorkerToPoolMessage) => this.onMessage(message));
    this.worker.on('error', (error) => this.exit(describeWorkerError(error, settings.maxOldGenerationMb)));
    this.worker.on('exit', (code) => this.exit(`could not be converted: the conversion worker exited with code ${code}. The file was skipped; exclude it or report the problem with a copy of it.`));
    // Only a worker with a job keeps the process alive (`run` refs it): one started ahead of its jobs does not.
    // (After the listeners: adding a 'message' listener refs the worker again.)
    this.worker.unref();
  }

  get busy(): boolean {
    return this.jobs.length > 0;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Whether the converters are loaded (a job's time limit runs). */
  get ready(): boolean {
    return this.converterLoaded;
  }

  /** Whether the worker may take a further batch of small files behind its current one (see `dispatch`). */
  get canPrefetch(): boolean {
    return !this.exited && this.converterLoaded && this.jobs.length > 0 && this.jobs.length <= CONVERSION_BATCH_FILES && this.jobs.every(isSmall);
  }

  /** Sends a batch; a busy worker converts it after the one it has (messages convert in order). */
  run(batch: PendingJob[]): void {
    clearTimeout(this.idleTimer);
    const wasBusy = this.busy;
    this.jobs.push(...batch);
    this.worker.ref();
    const jobs = batch.map(({ jobId, filePath, options }) => {
      const { rootPath, maxBytes, pictures, pictureRoots, ocr, inParts } = options;
      return { jobId, filePath, rootPath, maxBytes, pictures, pictureRoots, ocr, inParts };
    });
    const message: PoolToWorkerMessage = { type: 'convert', jobs };
    this.worker.postMessage(message);
    if (!wasBusy) {
      // The time limit counts conversion only: a fresh worker first loads the converters (seconds under tsx).
      this.armTimer();
    }
  }

  /** Whether `job` is the one this worker is converting now (not one waiting later in its batch). */
  isConverting(job: PendingJob): boolean {
    return this.jobs[0] === job;
  }

  /** Takes back a job of the batch the worker has not started; its answer, if it comes, is ignored. */
  withdraw(job: PendingJob): void {
    const index = this.jobs.indexOf(job);
    if (index > 0) {
      this.jobs.splice(index, 1);
      job.cleanup();
    }
  }

  /** Ends the job being converted (if any) with `error` and kills the thread; the rest of the batch is handed back. */
  kill(error?: Error): void {
    const job = this.takeJob();
    this.terminate();
    if (job && error) {
      job.reject(error);
    }
  }

  private armTimer(): void {
    const job = this.jobs[0];
    if (!job) {
      return;
    }
    clearTimeout(this.timer);
    if (!this.converterLoaded) {
      this.timer = setTimeout(() => this.kill(new ConversionError('corrupt_file', job.filePath, `could not be converted: the conversion worker did not start within ${CONVERSION_WORKER_STARTUP_TIMEOUT_MS / 1000} s. Try again; if it persists, report the problem.`)), CONVERSION_WORKER_STARTUP_TIMEOUT_MS);
      return;
    }
    const seconds = Math.max(1, Math.round(this.settings.timeoutMs / 1000));
    this.timer = setTimeout(() => this.kill(new ConversionError('conversion_timeout', job.filePath, `took longer than ${seconds} s to convert; it was skipped. Exclude it, or split it into smaller files (the file may be damaged or unusually complex).`)), this.settings.timeoutMs);
  }

  private onMessage(message: WorkerToPoolMessage): void {
    if (message.type === 'ready') {
      this.converterLoaded = true;
      this.armTimer();
      this.onChange(this);
      // Started ahead of its jobs and none came meanwhile: it waits the idle time like a worker that finished.
      this.exitWhenIdle();
      return;
    }
    const job = this.jobs[0];
    if (!job || job.jobId !== message.jobId) {
      // A withdrawn job's answer: the worker has moved on to the next one of its batch.
      if (!this.jobs.some((pending) => pending.jobId === message.jobId)) {
        this.armTimer();
      }
      return;
    }
    if (message.type === 'converted' && message.inParts) {
      // Resolved now, still converting (chunking): a later failure, the time limit or an abort ends the parts.
      const parts = new PartChannel(message.document, {
        taken: () => {
          this.armTimer();
          this.worker.postMessage({ type: 'taken', jobId: job.jobId } satisfies PoolToWorkerMessage);
        },
        abandoned: () => this.kill(),
      });
      job.parts = parts;
      job.resolve({ document: message.document, chunks: [], parts });
      job.reject = (error) => parts.fail(error);
      return;
    }
    if (message.type === 'part') {
      // The worker waits for the caller to take it: that is not conversion time.
      clearTimeout(this.timer);
      const { items, chunks } = message.part;
      job.parts?.push({ items, chunks: chunks.map((chunk) => ({ ...chunk, searchText: chunkSearchText(chunk) })) });
      return;
    }
    this.takeJob();
    this.armTimer();
    if (message.type === 'parts-end') {
      job.parts?.end(message.warnings, new TextDecoder().decode(message.content));
    } else if (message.type === 'converted') {
      job.resolve({ document: message.document, chunks: message.chunks });
    } else {
      job.reject(deserializeError(message.error, job.filePath));
    }
    if (!this.busy && (job.options.sizeBytes ?? 0) >= CONVERSION_WORKER_RETIRE_AFTER_BYTES) {
      // Its heap grew to hold the big file's parse and stays that size: give it back before the caller writes the rows.
      this.terminate();
      return;
    }
    this.onChange(this);
    this.exitWhenIdle();
  }

  /** With no job left, the worker exits after the idle time unless a job comes first. */
  private exitWhenIdle(): void {
    if (!this.busy && !this.exited) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        if (!this.busy) {
          this.terminate();
        }
      }, this.settings.idleMs);
      this.idleTimer.unref();
    }
  }

  /** Takes the job being converted off the batch; the next one (if any) is converting from now on. */
  private takeJob(): PendingJob | undefined {
    const job = this.jobs.shift();
    clearTimeout(this.timer);
    this.timer = undefined;
    job?.cleanup();
    if (!this.exited && this.jobs.length === 0) {
      // Only a worker with a job keeps the process alive: an idle pool never stops a CLI from exiting.
      this.worker.unref();
    }
    return job;
  }

  private terminate(): void {
    clearTimeout(this.idleTimer);
    if (!this.exited) {
      this.exited = true;
      void this.worker.terminate().catch(() => undefined);
      this.onGone(this, this.takeUnstarted());
    }
  }

  private exit(reason: string): void {
    if (this.exited) {
      return;
    }
    this.exited = true;
    clearTimeout(this.idleTimer);
    const job = this.takeJob();
    this.onGone(this, this.takeUnstarted());
    job?.reject(new ConversionError('corrupt_file', job.filePath, reason));
  }

  /** The jobs of the batch the worker never got to (after the one being converted was taken). */
  private takeUnstarted(): PendingJob[] {
    const unstarted = this.jobs;
    this.jobs = [];
    return unstarted;
  }
}

/** Why a worker died, as the reason of the file's `ConversionError`. */
function describeWorkerError(error: Error, maxOldGenerationMb: number): string {
  if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `could not be converted: it needed more than the ${maxOldGenerationMb} MiB of memory one conversion may use, so it was skipped. Exclude it or split it into smaller files.`;
  }
  return `could not be converted: the conversion worker crashed (${error.name}: ${error.message}). The file was skipped; exclude it or report the problem with a copy of it.`;
}

class WorkerConversionPool implements ConversionPool {
  private readonly workers = new Set<ConversionWorker>();
  private readonly queue: PendingJob[] = [];
  private readonly runningJobs = new Map<PendingJob, ConversionWorker>();
  private nextJobId = 1;
  private disposed = false;
  /** Set while a further worker waits for `CONVERSION_EXTRA_WORKER_DELAY_MS` before starting. */
  private extraWorkerTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly settings: PoolSettings) {}

  async load(filePath: string, options: ConversionLoadOptions): Promise<HaikuDocument> {
    return (await this.prepare(filePath, options)).document;
  }

  prepare(filePath: string, options: ConversionLoadOptions): Promise<PreparedDocument> {
    if (this.disposed) {
      return Promise.reject(new HaikuError('cancelled', 'The conversion pool was disposed; create a new one to convert more files.'));
    }
    const { abortSignal } = options;
    if (abortSignal?.aborted) {
      return Promise.reject(new CancelledError(`Converting ${filePath}`));
    }
    return new Promise<PreparedDocument>((resolve, reject) => {
      const job: PendingJob = {
        jobId: this.nextJobId++,
        // Absolute, as `loadDocument` names files in its errors: errors made here (timeout, crash) match them.
        filePath: path.resolve(options.rootPath, filePath),
        options,
        resolve,
        reject,
        cleanup: () => abortSignal?.removeEventListener('abort', onAbort),
      };
      const onAbort = (): void => {
        const queued = this.queue.indexOf(job);
        if (queued >= 0) {
          this.queue.splice(queued, 1);
          job.cleanup();
          reject(new CancelledError(`Converting ${job.filePath}`));
          return;
        }
        const worker = this.workerRunning(job);
        if (worker && !worker.isConverting(job)) {
          // Waiting later in a worker's batch: taken back, the worker goes on with the others.
          worker.withdraw(job);
          reject(new CancelledError(`Converting ${job.filePath}`));
          return;
        }
        // Converting: the thread may be in the middle of a synchronous parse; killing it is the only way to stop it.
        worker?.kill(new CancelledError(`Converting ${job.filePath}`));
        this.dispatch();
      };
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  warmUp(workers: number): void {
    while (!this.disposed && this.workers.size < Math.min(workers, this.settings.size)) {
      this.spawn();
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.extraWorkerTimer);
    for (const job of this.queue.splice(0)) {
      job.cleanup();
      job.reject(new CancelledError(`Converting ${job.filePath}`));
    }
    for (const [job, worker] of [...this.runningJobs]) {
      worker.kill(new CancelledError(`Converting ${job.filePath}`));
    }
    for (const worker of [...this.workers]) {
      worker.kill();
    }
  }

  private workerRunning(job: PendingJob): ConversionWorker | undefined {
    return this.runningJobs.get(job);
  }

  /**
   * Gives queued jobs to idle workers. The first worker starts at once; a further one (up to the pool size) at once
   * when a whole batch (`CONVERSION_BATCH_FILES` jobs) waits, otherwise only when a job is still waiting
   * `CONVERSION_EXTRA_WORKER_DELAY_MS` after every worker became ready and busy. Once all have started and a whole
   * batch of small files waits, a worker converting at most one batch of small files is sent it ahead of time.
   */
  private dispatch(): void {
    while (!this.disposed && this.queue.length > 0) {
      let worker = [...this.workers].find((candidate) => candidate.alive && !candidate.busy);
      if (!worker && this.workers.size === 0) {
        worker = this.spawn();
      }
      if (!worker && this.workers.size >= this.settings.size && this.queue.length >= CONVERSION_BATCH_FILES && this.queue.every(isSmall)) {
        // Every worker busy and a whole batch of small files waiting: it goes behind a worker's current batch, so
        // the worker does not idle while the caller is busy elsewhere (the indexer turning rows into Arrow).
        worker = [...this.workers].find((candidate) => candidate.canPrefetch);
      }
      if (!worker) {
        this.scheduleExtraWorker();
        return;
      }
      const batch = this.takeBatch();
      for (const job of batch) {
        this.runningJobs.set(job, worker);
        const detachAbort = job.cleanup;
        job.cleanup = () => {
          this.runningJobs.delete(job);
          detachAbort();
        };
      }
      worker.run(batch);
    }
  }

  /**
   * The next job, and when it is a small file, the small files queued right behind it: at most
   * `CONVERSION_BATCH_FILES`, and no more than an even share of the queue among the pool's workers.
   */
  private takeBatch(): PendingJob[] {
    const batch = [this.queue.shift()!];
    const limit = Math.min(CONVERSION_BATCH_FILES, Math.ceil((this.queue.length + 1) / this.settings.size));
    while (isSmall(batch[0]) && batch.length < limit && this.queue.length > 0 && isSmall(this.queue[0])) {
      batch.push(this.queue.shift()!);
    }
    return batch;
  }

  private scheduleExtraWorker(): void {
    if (this.workers.size >= this.settings.size) {
      return;
    }
    if (this.queue.length >= CONVERSION_BATCH_FILES) {
      // A whole batch waits: no longer "a few files", so the next worker starts (and loads its converters)
      // beside the busy or starting ones instead of after them; on SciFact under tsx that was 1.3 s of one core idle.
      clearTimeout(this.extraWorkerTimer);
      this.extraWorkerTimer = undefined;
      this.spawn();
      this.dispatch();
      return;
    }
    const starting = [...this.workers].some((worker) => !worker.ready);
    if (this.extraWorkerTimer !== undefined || starting) {
      return;
    }
    this.extraWorkerTimer = setTimeout(() => {
      this.extraWorkerTimer = undefined;
      if (!this.disposed && this.queue.length > 0 && this.workers.size < this.settings.size && ![...this.workers].some((worker) => worker.alive && !worker.busy)) {
        this.spawn();
        this.dispatch();
      }
    }, CONVERSION_EXTRA_WORKER_DELAY_MS);
    this.extraWorkerTimer.unref();
  }

  private spawn(): ConversionWorker {
    const worker = new ConversionWorker(
      this.settings,
      () => this.dispatch(),
      (gone, unstarted) => {
        this.workers.delete(gone);
        for (const job of unstarted) {
          this.runningJobs.delete(job);
        }
        if (this.disposed) {
          for (const job of unstarted) {
            job.cleanup();
            job.reject(new CancelledError(`Converting ${job.filePath}`));
          }
        } else {
          // Not converted yet: they keep their place at the front of the queue.
          this.queue.unshift(...unstarted);
        }
        // A replacement starts only if work is waiting (lazily, like the first one).
        queueMicrotask(() => this.dispatch());
      },
    );
    this.workers.add(worker);
    return worker;
  }
}

/**
 * A big document's parts as the caller reads them: each part taken tells the worker to send the next (one part in
 * flight while the caller writes the one it took). A caller that stops before the end (its write failed, or never
 * started) must call `return()`, which stops the worker: it would otherwise wait for the caller forever.
 */
class PartChannel implements AsyncIterableIterator<PreparedPart> {
  private readonly parts: PreparedPart[] = [];
  private ended = false;
  private closed = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  /** `document`: the one the parts belong to; chunking's warnings join its own at the end. */
  constructor(
    private readonly document: HaikuDocument,
    private readonly events: { taken(): void; abandoned(): void },
  ) {}

  push(part: PreparedPart): void {
    this.parts.push(part);
    this.notify();
  }

  /** The last part came; `warnings` are those chunking added, `content` the document's (sent last). */
  end(warnings: readonly string[], content: string): void {
    this.document.warnings.push(...warnings);
    this.document.content = content;
    this.ended = true;
    this.notify();
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.notify();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<PreparedPart> {
    return this;
  }

  async next(): Promise<IteratorResult<PreparedPart>> {
    for (;;) {
      if (this.failure) {
        throw this.failure;
      }
      const part = this.closed ? undefined : this.parts.shift();
      if (part) {
        this.events.taken();
        return { value: part, done: false };
      }
      if (this.ended || this.closed) {
        return { value: undefined, done: true };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The caller is done reading: before the end, the worker is stopped. Safe to call more than once. */
  async return(): Promise<IteratorResult<PreparedPart>> {
    if (!this.closed && !this.ended && !this.failure) {
      this.events.abandoned();
    }
    this.closed = true;
    this.parts.length = 0;
    return { value: undefined, done: true };
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function isSmall(job: PendingJob): boolean {
  return job.options.sizeBytes !== undefined && job.options.sizeBytes <= CONVERSION_BATCH_MAX_FILE_BYTES;
}
