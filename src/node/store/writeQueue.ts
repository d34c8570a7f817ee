import { errorMessage, HaikuError } from '../../core/errors';
import { COMMIT_CONFLICT_ATTEMPTS } from '../../core/limits';
import type { HeldLease, LeaseWaitOptions, WriterLease } from './writerLease';

export interface WriteQueueOptions {
  lease: WriterLease;
  /** Called right after the lease is taken, and before retrying a conflicted step: re-reads what other writers changed. */
  revalidate: (options: { force: boolean }) => Promise<void>;
  /** Called while the lease is still held, before it is let go; `clean` when every step under it succeeded. */
  beforeRelease?: (clean: boolean) => void;
  /** Where the "waiting for another writer" message goes. */
  onWait?: (message: string) => void;
  /** A read-only store: every write step and lease request throws `read_only` instead. */
  readOnly?: boolean;
}

/**
 * Runs write work one step at a time, so `optimize` never races a write in this process, and under the
 * writer lease, so no other process writes meanwhile. A step LanceDB rejects with a retryable commit
 * conflict (another writer without a lease, e.g. on object storage) runs again after re-validation.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly options: WriteQueueOptions;
  private holders = 0;
  private held: Promise<HeldLease> | undefined;
  /** No work under the lease held now has failed. */
  private clean = true;

  constructor(options: WriteQueueOptions) {
    this.options = options;
  }

  get exclusive(): boolean {
    return this.options.lease.exclusive;
  }

  /** Throws `read_only` for a read-only store. */
  assertWritable(): void {
    if (this.options.readOnly) {
      throw new HaikuError('read_only', 'This index is open read-only (haiku.index.mode "remote-readonly", or --read-only); nothing was written. Publish changes from the machine or CI job that writes the index.');
    }
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.options.readOnly) {
      return Promise.resolve().then(() => this.assertWritable() as never);
    }
    const step = () => this.holdLease(() => this.retryOnConflict(work));
    const next = this.tail.then(step, step);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /**
   * Holds the lease across `work` (an index run: scan, compare, write, remove, optimize), so what it read
   * stays true until it has written. Nested holds and the steps inside share the one lease.
   */
  async holdLease<T>(work: () => Promise<T>, options: LeaseWaitOptions = {}): Promise<T> {
    this.assertWritable();
    this.holders++;
    try {
      if (!this.held) {
        this.clean = true;
        this.held = this.acquire(options);
      }
      await this.held;
      return await work();
    } catch (error) {
      this.clean = false;
      throw error;
    } finally {
      this.holders--;
      if (this.holders === 0 && this.held) {
        const held = this.held;
        this.held = undefined;
        const lease = await held.catch(() => undefined);
        if (lease) {
          this.options.beforeRelease?.(this.clean);
        }
        await lease?.release();
      }
    }
  }

  private async acquire(options: LeaseWaitOptions): Promise<HeldLease> {
    const held = await this.options.lease.acquire({ onWait: this.options.onWait, ...options });
    try {
      await this.options.revalidate({ force: false });
    } catch (error) {
      await held.release();
      throw error;
    }
    return held;
  }

  private async retryOnConflict<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= COMMIT_CONFLICT_ATTEMPTS || !isCommitConflict(error)) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt * (1 + Math.random())));
        await this.options.revalidate({ force: true });
      }
    }
  }

  /** Settles when every queued step has. */
  async drain(): Promise<void> {
    await this.tail;
  }
}

/** LanceDB 0.31.0: "Retryable commit conflict for version N: This CreateIndex transaction was preempted by …". */
export function isCommitConflict(error: unknown): boolean {
  return /retryable commit conflict|commit conflict/i.test(errorMessage(error));
}
