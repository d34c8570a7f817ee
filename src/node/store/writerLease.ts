import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancelledError, HaikuError } from '../../core/errors';
import { ObjectWriterLease } from './objectWriterLease';
import { heartbeatLease, processAlive } from './leaseSupport';
import { WRITER_LOCK_HEARTBEAT_MS, WRITER_LOCK_POLL_MS, WRITER_LOCK_STALE_MS, WRITER_LOCK_WAIT_MS } from '../../core/limits';

/**
 * Permission to write an index, held by one writer at a time. Local folders use a lock file, `s3://…` a lease
 * object in the bucket prefix (`ObjectWriterLease`); other object stores have none (LanceDB's commit conflicts
 * are retried instead).
 */
export interface WriterLease {
  /** True when holding the lease excludes every other writer. */
  readonly exclusive: boolean;
  acquire(options?: LeaseWaitOptions): Promise<HeldLease>;
}

export interface LeaseWaitOptions {
  abortSignal?: AbortSignal;
  /** Called once when the lease is busy and the caller starts waiting. */
  onWait?: (message: string) => void;
  /** How long to wait for a busy lease (default `WRITER_LOCK_WAIT_MS`). */
  waitMs?: number;
}

export interface HeldLease {
  release(): Promise<void>;
}

/** What the lock file holds: who owns it (a heartbeat refreshes its modification time). */
interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  token: string;
}

export const WRITER_LOCK_FILE = 'haiku-writer.lock';

/** A lock file in the index folder for local paths, a lease object for `s3://…` (given its storage options), else none. */
export function writerLeaseFor(uri: string, hasScheme: boolean, s3StorageOptions?: Readonly<Record<string, string>>): WriterLease {
  if (!hasScheme) {
    return new FileWriterLease(path.join(uri, WRITER_LOCK_FILE));
  }
  return s3StorageOptions ? new ObjectWriterLease(uri, s3StorageOptions) : new NoWriterLease();
}

/** Object storage: every writer proceeds; commit conflicts are retried and young generations never swept. */
export class NoWriterLease implements WriterLease {
  readonly exclusive = false;

  async acquire(): Promise<HeldLease> {
    return { release: async () => undefined };
  }
}

/**
 * A lock file created with O_EXCL. The owner writes its pid, host and start time and touches the file every
 * `WRITER_LOCK_HEARTBEAT_MS`; a lock whose owner pid is dead on this host, or whose heartbeat is older than
 * `WRITER_LOCK_STALE_MS`, is taken over.
 */
export class FileWriterLease implements WriterLease {
  readonly exclusive = true;
  readonly lockPath: string;

  constructor(lockPath: string) {
    this.lockPath = lockPath;
  }

  async acquire(options: LeaseWaitOptions = {}): Promise<HeldLease> {
    const started = Date.now();
    const waitMs = options.waitMs ?? WRITER_LOCK_WAIT_MS;
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), token: crypto.randomUUID() };
    let announced = false;
    for (;;) {
      if (options.abortSignal?.aborted) {
        throw new CancelledError('Waiting for the index');
      }
      if (this.tryCreate(owner)) {
        return this.held(owner);
      }
      const current = this.readOwner();
      if (current && this.isStale(current.owner, current.heartbeatMs)) {
        this.breakStale(current.owner?.token);
        continue;
      }
      const holder = current?.owner ? `pid ${current.owner.pid}${current.owner.host === owner.host ? '' : ` on ${current.owner.host}`}` : 'unknown process';
      if (Date.now() - started >= waitMs) {
        throw new HaikuError('index_busy', `Another Haiku writer (${holder}) has been writing the index at ${path.dirname(this.lockPath)} for over ${Math.round(waitMs / 1000)} s. Try again when it has finished; if no Haiku process is running, delete ${this.lockPath}.`);
      }
      if (!announced) {
        announced = true;
        options.onWait?.(`Waiting for another Haiku writer, ${holder}, to finish with the index at ${path.dirname(this.lockPath)}…`);
      }
      await new Promise((resolve) => setTimeout(resolve, WRITER_LOCK_POLL_MS));
    }
  }

  private tryCreate(owner: LockOwner): boolean {
    let descriptor: number;
    try {
      descriptor = fs.openSync(this.lockPath, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        return false;
      }
      throw error;
    }
    try {
      fs.writeSync(descriptor, JSON.stringify(owner));
    } catch (error) {
      // A full disk: an empty lock would make everyone wait for nobody.
      fs.closeSync(descriptor);
      fs.rmSync(this.lockPath, { force: true });
      throw error;
    }
    fs.closeSync(descriptor);
    return true;
  }

  /** The lock's owner (undefined while unreadable: just created, or damaged) and heartbeat; undefined when there is no lock. */
  private readOwner(): { owner: LockOwner | undefined; heartbeatMs: number } | undefined {
    let heartbeatMs: number;
    try {
      heartbeatMs = fs.statSync(this.lockPath).mtimeMs;
    } catch {
      return undefined;
    }
    try {
      const owner = JSON.parse(fs.readFileSync(this.lockPath, 'utf8')) as LockOwner;
      return { owner: typeof owner.pid === 'number' && typeof owner.token === 'string' ? owner : undefined, heartbeatMs };
    } catch {
      return { owner: undefined, heartbeatMs };
    }
  }

  /** An unreadable lock is stale only by its heartbeat's age. */
  private isStale(owner: LockOwner | undefined, heartbeatMs: number): boolean {
    if (Date.now() - heartbeatMs > WRITER_LOCK_STALE_MS) {
      return true;
    }
    return owner !== undefined && owner.host === os.hostname() && owner.pid > 0 && !processAlive(owner.pid);
  }

  /**
   * Removes a stale lock. Breakers serialise on a `.break` folder (mkdir is atomic) and re-check that the lock
   * is still the stale one they judged, so two breakers never remove a fresh lock made in between.
   */
  private breakStale(staleToken: string | undefined): void {
    const breakPath = `${this.lockPath}.break`;
    try {
      fs.mkdirSync(breakPath);
    } catch {
      // Another breaker is at work; a breaker killed mid-way leaves the folder, removed once it is old.
      try {
        if (Date.now() - fs.statSync(breakPath).mtimeMs > WRITER_LOCK_STALE_MS) {
          fs.rmdirSync(breakPath);
        }
      } catch {
        // Gone already.
      }
      return;
    }
    try {
      const current = this.readOwner();
      if (current && current.owner?.token === staleToken && this.isStale(current.owner, current.heartbeatMs)) {
        fs.rmSync(this.lockPath, { force: true });
      }
    } finally {
      fs.rmdirSync(breakPath);
    }
  }

  private held(owner: LockOwner): HeldLease {
    return heartbeatLease(
      WRITER_LOCK_HEARTBEAT_MS,
      () => {
        const now = new Date();
        fs.utimesSync(this.lockPath, now, now);
      },
      () => {
        if (this.readOwner()?.owner?.token === owner.token) {
          fs.rmSync(this.lockPath, { force: true });
        }
      },
    );
  }
}

