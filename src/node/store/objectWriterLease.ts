import * as crypto from 'node:crypto';
import * as os from 'node:os';
import { CancelledError, errorMessage, HaikuError } from '../../core/errors';
import { LEASE_OBJECT_HEARTBEAT_MS, LEASE_OBJECT_POLL_MS, LEASE_OBJECT_SETTLE_MS, LEASE_OBJECT_STALE_MS, WRITER_LOCK_WAIT_MS } from '../../core/limits';
import { S3Object, type S3Response } from './s3Object';
import { heartbeatLease, processAlive } from './leaseSupport';
import type { HeldLease, LeaseWaitOptions, WriterLease } from './writerLease';

/** The lease object's name beside the tables. */
export const WRITER_LEASE_OBJECT = 'haiku-writer.lease';

/** What the lease object holds; its `Last-Modified` (the server's clock) is the heartbeat. */
interface LeaseOwner {
  token: string;
  host: string;
  pid: number;
  startedAt: string;
}

/**
 * The single-writer rule for an index on object storage: a lease object in the bucket prefix. A writer puts its
 * token there (conditionally, `If-None-Match: *` / `If-Match: <etag>`, where the server honours it), waits
 * `LEASE_OBJECT_SETTLE_MS` and reads it back: only the writer whose token survived holds the lease, so two writers
 * racing on a server without conditional puts still end with one owner (S3 reads after writes are strongly
 * consistent). The owner re-puts it every `LEASE_OBJECT_HEARTBEAT_MS`; one untouched for `LEASE_OBJECT_STALE_MS`
 * by the server's clock (a killed writer) is taken over.
 */
export class ObjectWriterLease implements WriterLease {
  readonly exclusive = true;
  private readonly object: S3Object;
  private readonly uri: string;

  constructor(uri: string, storageOptions: Readonly<Record<string, string>>) {
    this.uri = uri;
    this.object = new S3Object(uri, WRITER_LEASE_OBJECT, storageOptions);
  }

  async acquire(options: LeaseWaitOptions = {}): Promise<HeldLease> {
    const started = Date.now();
    const waitMs = options.waitMs ?? WRITER_LOCK_WAIT_MS;
    const owner: LeaseOwner = { token: crypto.randomUUID(), host: os.hostname(), pid: process.pid, startedAt: new Date().toISOString() };
    let announced = false;
    for (;;) {
      if (options.abortSignal?.aborted) {
        throw new CancelledError('Waiting for the index');
      }
      const current = await this.read(options.abortSignal);
      let holder: LeaseOwner | undefined;
      if (!current.owner || this.isStale(current.owner, current.response)) {
        const put = await this.call(() => this.object.put(JSON.stringify(owner), current.owner ? { ifMatch: current.response.etag } : { ifNoneMatch: '*' }, options.abortSignal));
        if (put.status === 200) {
          await new Promise((resolve) => setTimeout(resolve, LEASE_OBJECT_SETTLE_MS));
          const check = await this.read(options.abortSignal);
          if (check.owner?.token === owner.token) {
            return this.held(owner, check.response.etag);
          }
          holder = check.owner;
        } else if (put.status !== 412 && put.status !== 409) {
          throw this.failure(`writing the lease object answered HTTP ${put.status}`);
        }
      } else {
        holder = current.owner;
      }
      const who = holder ? `${holder.host} pid ${holder.pid}, since ${holder.startedAt}` : 'another process';
      if (Date.now() - started >= waitMs) {
        throw new HaikuError(
          'index_busy',
          `Another Haiku writer (${who}) is publishing the index at ${this.uri}. Only one writer may publish at a time: try again when it has finished. If no writer is running, the lease expires ${Math.round(LEASE_OBJECT_STALE_MS / 1000)} s after its last heartbeat (or delete ${WRITER_LEASE_OBJECT} in the prefix).`,
        );
      }
      if (!announced) {
        announced = true;
        options.onWait?.(`Waiting for another Haiku writer (${who}) to finish publishing ${this.uri}…`);
      }
      await new Promise((resolve) => setTimeout(resolve, LEASE_OBJECT_POLL_MS));
    }
  }

  private async read(abortSignal?: AbortSignal): Promise<{ owner: LeaseOwner | undefined; response: S3Response }> {
    const response = await this.call(() => this.object.get(abortSignal));
    if (response.status === 404) {
      return { owner: undefined, response };
    }
    if (response.status !== 200) {
      throw this.failure(`reading the lease object answered HTTP ${response.status}`);
    }
    try {
      const owner = JSON.parse(response.body) as LeaseOwner;
      // A damaged object counts as held until it goes stale.
      return { owner: typeof owner.token === 'string' ? owner : { token: '', host: 'unknown', pid: 0, startedAt: 'unknown' }, response };
    } catch {
      return { owner: { token: '', host: 'unknown', pid: 0, startedAt: 'unknown' }, response };
    }
  }

  /**
   * Stale when its owner was on this host and has died (a killed publish), or by the server's clock alone (`Date`
   * against `Last-Modified`), so skewed client clocks do not matter.
   */
  private isStale(owner: LeaseOwner, response: S3Response): boolean {
    if (owner.host === os.hostname() && owner.pid > 0 && owner.pid !== process.pid && !processAlive(owner.pid)) {
      return true;
    }
    if (response.serverTimeMs === undefined || response.lastModifiedMs === undefined) {
      return false;
    }
    return response.serverTimeMs - response.lastModifiedMs > LEASE_OBJECT_STALE_MS;
  }

  private async call(request: () => Promise<S3Response>): Promise<S3Response> {
    try {
      return await request();
    } catch (error) {
      if ((error as Error).name === 'AbortError') {
        throw new CancelledError('Waiting for the index');
      }
      throw this.failure(errorMessage(error), error);
    }
  }

  private failure(detail: string, cause?: unknown): HaikuError {
    return new HaikuError('storage_unreachable', `Could not take the writer lease of ${this.uri} (${detail}). Check the endpoint and credentials (README "Team index").`, { cause });
  }

  private held(owner: LeaseOwner, etag: string | undefined): HeldLease {
    let currentEtag = etag;
    return heartbeatLease(
      LEASE_OBJECT_HEARTBEAT_MS,
      async () => {
        const current = await this.read();
        if (current.owner?.token === owner.token) {
          currentEtag = (await this.object.put(JSON.stringify(owner), { ifMatch: current.response.etag ?? currentEtag })).etag ?? currentEtag;
        }
      },
      async () => {
        try {
          if ((await this.read()).owner?.token === owner.token) {
            await this.object.delete();
          }
        } catch {
          // Unreachable now: the lease goes stale by itself.
        }
      },
    );
  }
}

