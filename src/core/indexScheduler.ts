/**
 * The extension's indexing work queue, free of VS Code: file events and requests coalesce into pending work, a
 * debounce timer starts a drain, and the drain runs one job at a time until nothing is left (or indexing is paused).
 * `IndexService` (src/vscode/indexService.ts) feeds it and runs the jobs.
 */

/** One indexing job: what was pending when it started. */
export interface IndexJob {
  /** A full sync of every workspace folder (changed and deleted files are covered by it). */
  full: boolean;
  /** Drop every document before the full sync. */
  rebuild: boolean;
  changed: string[];
  /** Of `changed`, the files a command named: indexed whatever their extension or `.gitignore` (watcher events obey both). */
  named: ReadonlySet<string>;
  deleted: string[];
}

/** How a job ended, as its runner reports it. */
export type IndexJobOutcome = 'done' | 'cancelled' | 'failed';

export interface IndexSchedulerOptions {
  /** How long file events wait for more before a job starts. */
  debounceMs: number;
  /** Runs one job; it reports its own errors and resolves with how it ended. */
  runJob: (job: IndexJob, abort: AbortController) => Promise<IndexJobOutcome>;
  /** Whether a job may start now (the workspace is trusted); when not, the queue keeps its work. */
  mayRun: () => boolean;
  /** Whether work is accepted at all: a read-only index drops every request (`onRefused` says so). */
  acceptsWork: () => boolean;
  onRefused: () => void;
  /** Counts as idle even with work queued (the workspace awaits trust: the work cannot run yet). */
  idleWithWork: () => boolean;
  /** A runner that threw instead of resolving: reported here, and the queue goes on with the next job. */
  onJobError: (error: unknown) => void;
}

export class IndexScheduler {
  private full = false;
  private rebuild = false;
  private readonly changed = new Set<string>();
  private readonly named = new Set<string>();
  private readonly deleted = new Set<string>();
  private debounceTimer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private currentAbort: AbortController | undefined;
  private pausedNow = false;
  private disposed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: IndexSchedulerOptions) {}

  /** A file was created or changed: indexed after the debounce, as one job with the other events meanwhile. */
  fileChanged(fsPath: string): void {
    this.deleted.delete(fsPath);
    this.changed.add(fsPath);
    this.schedule();
  }

  /** A file or folder was deleted: its documents are removed after the debounce. */
  fileDeleted(fsPath: string): void {
    this.changed.delete(fsPath);
    this.named.delete(fsPath);
    this.deleted.add(fsPath);
    this.schedule();
  }

  /** Files a command named: indexed at once, whatever the include globs or `.gitignore` say. */
  indexNamedFiles(fsPaths: readonly string[]): void {
    for (const fsPath of fsPaths) {
      this.deleted.delete(fsPath);
      this.changed.add(fsPath);
      this.named.add(fsPath);
    }
    this.schedule(0);
  }

  /** A full sync, started at once (or after the running job). */
  requestFullSync(): void {
    this.full = true;
    this.schedule(0);
  }

  /** A build asked for by the user: unpauses, then a full sync. */
  requestBuild(): void {
    this.pausedNow = false;
    this.requestFullSync();
  }

  /** Drop everything and build again: the running job is cancelled, and indexing unpauses. */
  requestRebuild(): void {
    this.currentAbort?.abort();
    this.rebuild = true;
    this.full = true;
    this.pausedNow = false;
    this.schedule(0);
  }

  /** Cancels the running job; queued work waits until `resume`. */
  pause(): void {
    this.pausedNow = true;
    this.currentAbort?.abort();
  }

  /** Unpauses and runs a full sync (a paused one may have been cut short); false when it was not paused. */
  resume(): boolean {
    if (!this.pausedNow) {
      return false;
    }
    this.pausedNow = false;
    this.full = true;
    this.schedule(0);
    return true;
  }

  get paused(): boolean {
    return this.pausedNow;
  }

  /** Cancels the running job and waits until the drain it belongs to ends (the store can then be closed). */
  async cancelRunning(): Promise<void> {
    this.currentAbort?.abort();
    await this.running?.catch(() => undefined);
  }

  /** Resolves when no job runs and nothing is queued (or what is queued cannot run: paused, untrusted). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops for good: the running job is cancelled and nothing new starts. */
  dispose(): void {
    this.disposed = true;
    this.currentAbort?.abort();
    if (this.debounceTimer) {
      clearTimeout(this.debounceTimer);
    }
  }

  private hasWork(): boolean {
    return this.full || this.changed.size > 0 || this.deleted.size > 0;
  }

  private isIdle(): boolean {
    return this.running === undefined && this.debounceTimer === undefined && (!this.hasWork() || this.pausedNow || this.options.idleWithWork());
  }

  private notifyIdle(): void {
    if (this.isIdle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((resolve) => resolve());
    }
  }

  /** (Re)starts the debounce: repeated events within it coalesce into one job. */
  private schedule(delay = this.options.debounceMs): void {
    if (this.disposed) {
      return;
    }
    if (!this.options.acceptsWork()) {
      this.options.onRefused();
      this.full = false;
      this.rebuild = false;
      this.changed.clear();
      this.named.clear();
      this.deleted.clear();
      this.notifyIdle();
      return;
    }
    if (this.debounceTimer) {
      clearTimeout(this.debounceTimer);
    }
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      void this.drain();
    }, delay);
  }

  private async drain(): Promise<void> {
    if (this.running || this.pausedNow || !this.options.mayRun()) {
      this.notifyIdle();
      return;
    }
    this.running = (async () => {
      while (!this.pausedNow && !this.disposed && this.hasWork()) {
        await this.runNext();
      }
    })();
    try {
      await this.running;
    } finally {
      this.running = undefined;
      this.notifyIdle();
    }
  }

  private async runNext(): Promise<void> {
    const job: IndexJob = { full: this.full, rebuild: this.rebuild, changed: [...this.changed], named: new Set(this.named), deleted: [...this.deleted] };
    this.full = false;
    this.rebuild = false;
    this.changed.clear();
    this.named.clear();
    this.deleted.clear();
    const abort = new AbortController();
    this.currentAbort = abort;
    try {
      const outcome = await this.options.runJob(job, abort);
      // A full sync cut short by a pause runs again on resume (a cancelled notification alone does not repeat it).
      if (outcome === 'cancelled' && job.full && this.pausedNow) {
        this.full = true;
      }
    } catch (error) {
      this.options.onJobError(error);
    } finally {
      if (this.currentAbort === abort) {
        this.currentAbort = undefined;
      }
    }
  }
}
