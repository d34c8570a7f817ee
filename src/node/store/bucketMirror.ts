/**
 * A local mirror of a read-only `s3://` index, opened by LanceDB as a local folder. A read-only consumer
 * (`haiku mcp --read-only`, `remote-readonly`, a one-shot search) otherwise makes ~40 range requests per full-text query
 * and pays the bucket's first-byte latency on each; from the mirror a query reads local files.
 *
 * Sync (at open, unless a sync ended within the reader's version-check interval; then on each version check): one
 * small listing per table, side by side, asks whether its version manifests are still the mirrored ones
 * (`versionsUnchanged`); if not, one LIST of the index's prefix (pages of 1,000 keys), then every object whose ETag
 * differs from the mirrored one is fetched,
 * data before manifests, so a local reader never sees a version whose files are missing. Lance's data, index, deletion and transaction files have fresh UUID names and never change; only
 * `_versions/<N>.manifest` is written anew when a table is dropped and created again, and the ETag comparison replaces it.
 * Manifests the bucket no longer lists are removed at once (the newest manifest present is the version LanceDB opens);
 * other files at the next sync after, since a reader may still be on the old version.
 *
 * Bound: an index larger than `BUCKET_CACHE_MAX_BYTES` is not mirrored (LanceDB reads the bucket directly), and the
 * mirrors of other buckets, least recently used first, are removed while the cache holds more than the bound.
 *
 * Why a mirror rather than a read-through proxy in front of LanceDB (tried, see BENCHMARKS.md): the proxy answered each
 * range read from disk but still over loopback HTTP, ~45 per query, which cost 2–3× a local query on a loaded machine;
 * the mirror costs exactly a local query. Its price: the whole index is fetched once (within the bound).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import { BUCKET_CACHE_DOWNLOAD_CONCURRENCY, BUCKET_CACHE_MAX_BYTES, OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS } from '../../core/limits';
import { encodeRfc3986, signatureV4 } from './s3Object';

export interface BucketMirrorOptions {
  /** `s3://bucket/prefix` of the index. */
  uri: string;
  /** The real storage options (`storageOptionsFor`): where the bucket is and the keys to sign with. */
  storageOptions: Readonly<Record<string, string>>;
  /** The cache root; each endpoint, bucket and prefix gets a folder of its own below it. */
  cacheFolder: string;
  /** Bytes all mirrors in `cacheFolder` may hold together; an index larger than this is not mirrored. */
  maxBytes?: number;
}

/** What one sync did. */
export interface BucketSyncResult {
  /** Objects fetched or removed: the index has another version. */
  changed: boolean;
  downloadedFiles: number;
  downloadedBytes: number;
  removedFiles: number;
  /** Requests made to the bucket (listing pages and downloads). */
  requests: number;
}

/** Counters over the mirror's life (benchmarks and tests read them). */
export interface BucketMirrorStats {
  requests: number;
  downloadedFiles: number;
  downloadedBytes: number;
  syncs: number;
}

/** One listed object, its key relative to the index's prefix. */
interface ListedObject {
  key: string;
  etag: string;
  size: number;
}

/** What the mirror folder holds, by relative key (saved beside the files). */
type MirrorIndex = Record<string, { etag: string; size: number }>;

/** The file beside the mirrored tables that records each object's ETag; its time is the mirror's last use. */
const MIRROR_INDEX_FILE = '.haiku-mirror.json';

/** Beside it: when a sync last ended, and a hash of the credentials it listed with (see `syncUnlessFresh`). */
const MIRROR_SYNCED_FILE = '.haiku-mirror-synced.json';

/** What `MIRROR_SYNCED_FILE` holds. */
interface MirrorSyncRecord {
  syncedAtMs: number;
  credentials: string;
}

/** Where a consumer's bucket mirrors go: `$HAIKU_BUCKET_CACHE_DIR` (`off` disables), else `$XDG_CACHE_HOME/haiku/buckets` or `~/.cache/haiku/buckets`. */
export function bucketCacheFolder(environment: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const configured = environment.HAIKU_BUCKET_CACHE_DIR;
  if (configured === 'off') {
    return undefined;
  }
  if (configured) {
    return configured;
  }
  const home = os.homedir();
  const base = environment.XDG_CACHE_HOME || (home ? path.join(home, '.cache') : undefined);
  return base === undefined ? undefined : path.join(base, 'haiku', 'buckets');
}

/** True for a version manifest: fetched after every other file of a sync. */
function isManifest(key: string): boolean {
  return /(^|\/)_versions\/[^/]+\.manifest$/.test(key) || key.endsWith('_latest.manifest');
}

/** A listed key the mirror may hold: below the prefix, not the lease or a probe (`.haiku-…`), no `..` or empty part. */
function isSafeRelativeKey(relative: string): boolean {
  return relative !== '' && !relative.startsWith('.') && !relative.includes('\\') && !relative.split('/').some((part) => part === '..' || part === '.' || part === '');
}

/** ETags as a listing sends them (`&quot;…&quot;`) and as headers do (`"…"`) compare equal. */
function normalizeEtag(etag: string | undefined | null): string {
  return (etag ?? '').replace(/&quot;/g, '"').replace(/^W\//, '').replace(/"/g, '');
}

export class BucketMirror {
  readonly stats: BucketMirrorStats = { requests: 0, downloadedFiles: 0, downloadedBytes: 0, syncs: 0 };
  /** The local folder LanceDB opens: the index's tables as they are under the prefix. */
  readonly folder: string;
  private readonly uri: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly options: Readonly<Record<string, string>>;
  private readonly cacheFolder: string;
  private readonly maxBytes: number;
  private index: MirrorIndex;
  /** Mirrored keys the previous listing no longer showed: removed when the next one does not either. */
  private unlisted = new Set<string>();
  /** One sync at a time (concurrent tool calls share it). */
  private running: Promise<BucketSyncResult> | undefined;
  /** A sync found the index published anew since the last `takeRestarted` (see `restartedTables`). */
  private restarted = false;

  constructor(options: BucketMirrorOptions) {
    const match = /^s3a?:\/\/([^/]+)\/?(.*)$/i.exec(options.uri);
    if (!match) {
      throw new HaikuError('invalid_settings', `${options.uri} is not an s3://bucket/prefix URI.`);
    }
    this.uri = options.uri;
    this.bucket = match[1];
    this.prefix = match[2].replace(/\/+$/, '');
    this.options = options.storageOptions;
    this.cacheFolder = options.cacheFolder;
    this.maxBytes = options.maxBytes ?? BUCKET_CACHE_MAX_BYTES;
    const identity = `${options.storageOptions.aws_endpoint ?? `aws:${options.storageOptions.region ?? ''}`}|${this.bucket}|${this.prefix}`;
    this.folder = path.join(this.cacheFolder, crypto.createHash('sha256').update(identity).digest('hex').slice(0, 24));
    this.index = readMirrorIndex(this.folder);
  }

  /** Brings the folder to the bucket's current state (see the module comment); shared by concurrent callers. */
  sync(abortSignal?: AbortSignal): Promise<BucketSyncResult> {
    this.running ??= this.syncOnce(abortSignal).finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Syncs, unless a sync with the same credentials ended less than `maxAgeMs` ago, in this process or another one (a
   * fresh `haiku mcp` or one-shot reader started by an agent): then the folder is read as that sync left it, with no
   * listing. A long-lived reader does the same between its version checks, so a new publish is still seen within
   * `maxAgeMs` of that sync; the caller's next check counts from it (`ageMs`). 0 always syncs.
   */
  async syncUnlessFresh(maxAgeMs: number, abortSignal?: AbortSignal): Promise<{ synced: boolean; ageMs: number; changed: boolean }> {
    const ageMs = this.lastSyncAgeMs();
    if (ageMs !== undefined && ageMs < maxAgeMs && Object.keys(this.index).length > 0) {
      return { synced: false, ageMs, changed: false };
    }
    const { changed } = await this.sync(abortSignal);
    return { synced: true, ageMs: 0, changed };
  }

  /** How long ago the last sync with these credentials ended (ms), or undefined: none recorded, other keys, or a clock set back. */
  private lastSyncAgeMs(): number | undefined {
    try {
      const record = JSON.parse(fs.readFileSync(path.join(this.folder, MIRROR_SYNCED_FILE), 'utf8')) as Partial<MirrorSyncRecord>;
      const ageMs = Date.now() - Number(record.syncedAtMs);
      // Other keys may not be allowed to read this bucket: they list it themselves (and get the refusal).
      return record.credentials === this.credentials && ageMs >= 0 ? ageMs : undefined;
    } catch {
      return undefined;
    }
  }

  /** A hash naming the keys this mirror lists with (never the keys themselves). */
  private get credentials(): string {
    const { aws_access_key_id: keyId = '', aws_secret_access_key: secret = '', aws_session_token: token = '' } = this.options;
    return crypto.createHash('sha256').update(`${keyId}\0${secret}\0${token}`).digest('hex').slice(0, 32);
  }

  /**
   * Whether a sync since the last call found the index published anew: a table dropped and created again writes its
   * version numbers from 1 again, so a reader that moves to "the latest version" of the tables it has open would
   * look for files that are gone, or trust what it cached for a version number that now names other bytes. Such a
   * reader opens the tables again instead (`LanceStore.refresh`, the version check in `openIndex`).
   */
  takeRestarted(): boolean {
    const restarted = this.restarted;
    this.restarted = false;
    return restarted;
  }

  /** True when the bucket listing of the last sync held a documents table (an index, not an empty prefix). */
  holdsTable(name: string): boolean {
    return Object.keys(this.index).some((key) => key.startsWith(`${name}.lance/`));
  }

  private async syncOnce(abortSignal: AbortSignal | undefined): Promise<BucketSyncResult> {
    throwIfAborted(abortSignal, 'Syncing the bucket cache');
    this.stats.syncs++;
    const requestsBefore = this.stats.requests;
    if (await this.versionsUnchanged(abortSignal)) {
      this.recordSync({ mirrorChanged: false });
      return { changed: false, downloadedFiles: 0, downloadedBytes: 0, removedFiles: 0, requests: this.stats.requests - requestsBefore };
    }
    const listed = await this.list('', abortSignal);
    const totalBytes = listed.reduce((sum, object) => sum + object.size, 0);
    if (totalBytes > this.maxBytes) {
      throw new HaikuError(
        'file_too_large',
        `The index at ${this.uri} holds ${formatMiB(totalBytes)}, more than the bucket cache's bound of ${formatMiB(this.maxBytes)}. Set HAIKU_BUCKET_CACHE_DIR=off to read it from the bucket directly, and restart.`,
      );
    }
    fs.mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    const wanted = listed.filter((object) => this.index[object.key]?.etag !== object.etag || !fs.existsSync(this.localPath(object.key)));
    this.restarted ||= restartedTables(this.index, listed);
    const downloaded = { files: 0, bytes: 0 };
    // Data, index and transaction files first; manifests, which make a version visible, after all of them.
    for (const batch of [wanted.filter((object) => !isManifest(object.key)), wanted.filter((object) => isManifest(object.key))]) {
      await forEachLimited(batch, BUCKET_CACHE_DOWNLOAD_CONCURRENCY, async (object) => {
        const etag = await this.download(object.key, abortSignal);
        this.index[object.key] = { etag: etag || object.etag, size: object.size };
        downloaded.files++;
        downloaded.bytes += object.size;
      });
    }
    const listedKeys = new Set(listed.map((object) => object.key));
    let removedFiles = 0;
    const stillUnlisted = new Set<string>();
    for (const key of Object.keys(this.index)) {
      if (listedKeys.has(key)) {
        continue;
      }
      // A manifest the bucket no longer lists goes at once: its presence alone would make LanceDB open that version.
      if (this.unlisted.has(key) || isManifest(key)) {
        removeQuietly(this.localPath(key));
        delete this.index[key];
        removedFiles++;
      } else {
        stillUnlisted.add(key);
      }
    }
    this.unlisted = stillUnlisted;
    this.recordSync({ mirrorChanged: true });
    this.stats.downloadedFiles += downloaded.files;
    this.stats.downloadedBytes += downloaded.bytes;
    return { changed: downloaded.files > 0 || removedFiles > 0, downloadedFiles: downloaded.files, downloadedBytes: downloaded.bytes, removedFiles, requests: this.stats.requests - requestsBefore };
  }

  /**
   * Whether each mirrored table's version manifests are still the mirrored ones, asked with one small listing per table
   * (its `_versions/`), side by side, instead of one listing of every key. Every Lance commit writes a new manifest and
   * its data, index and deletion files have fresh names, so unchanged manifests mean unchanged tables; a table dropped
   * lists none. A table the mirror lacks comes only with writes to the mirrored ones (the recent-chunks table holds
   * copies of rows added to the chunks; a new layout changes the settings row). With the bench's latency proxy, the
   * one listing of SciFact's index took 75 ms, most of it s3rver reading every object's metadata. Not asked of an
   * empty mirror, or while files the last listing missed wait to be removed (only a whole listing removes them).
   */
  private async versionsUnchanged(abortSignal: AbortSignal | undefined): Promise<boolean> {
    const mirrored = Object.keys(this.index);
    const tables = [...new Set(mirrored.filter((key) => key.includes('/')).map((key) => key.slice(0, key.indexOf('/') + 1)))];
    if (tables.length === 0 || this.unlisted.size > 0 || mirrored.some((key) => !key.includes('/'))) {
      return false;
    }
    const listings = await Promise.all(tables.map((table) => this.list(`${table}_versions/`, abortSignal)));
    return tables.every((table, index) => {
      const mirroredManifests = mirrored.filter((key) => key.startsWith(`${table}_versions/`));
      const listed = listings[index];
      return listed.length === mirroredManifests.length && listed.every((object) => this.index[object.key]?.etag === object.etag && fs.existsSync(this.localPath(object.key)));
    });
  }

  /**
   * Saves when this sync ended (the mirror's last use); after a whole listing, also the mirror's index, then keeps the
   * cache bound. A check that found every manifest unchanged changed neither (it took 3.6-4.7 ms of a cold start).
   */
  private recordSync(options: { mirrorChanged: boolean }): void {
    if (options.mirrorChanged) {
      writeAtomically(path.join(this.folder, MIRROR_INDEX_FILE), JSON.stringify(this.index));
    }
    const record: MirrorSyncRecord = { syncedAtMs: Date.now(), credentials: this.credentials };
    writeAtomically(path.join(this.folder, MIRROR_SYNCED_FILE), JSON.stringify(record));
    if (options.mirrorChanged) {
      this.evictOtherMirrors();
    }
  }

  /** Removes other mirrors in the cache root, least recently synced first, while all of them hold more than the bound. */
  private evictOtherMirrors(): void {
    let entries: string[];
    try {
      entries = fs.readdirSync(this.cacheFolder);
    } catch {
      return;
    }
    // Only folders this code made (a hash name holding a mirror index): the cache root may be any folder the user named.
    const mirrors = entries
      .filter((name) => /^[0-9a-f]{24}$/.test(name) && fs.existsSync(path.join(this.cacheFolder, name, MIRROR_INDEX_FILE)))
      .map((name) => path.join(this.cacheFolder, name))
      .map((folder) => ({ folder, usedMs: Math.max(fileTimeMs(path.join(folder, MIRROR_SYNCED_FILE)), fileTimeMs(path.join(folder, MIRROR_INDEX_FILE))), bytes: mirrorBytes(folder) }))
      .sort((left, right) => left.usedMs - right.usedMs);
    let total = mirrors.reduce((sum, mirror) => sum + mirror.bytes, 0);
    for (const mirror of mirrors) {
      if (total <= this.maxBytes) {
        return;
      }
      if (mirror.folder !== this.folder) {
        fs.rmSync(mirror.folder, { recursive: true, force: true });
        total -= mirror.bytes;
      }
    }
  }

  /** The objects under `within` (below the index's prefix; keys relative to it), page by page; the writer lease and probes (`.haiku-…`) left out. */
  private async list(within: string, abortSignal: AbortSignal | undefined): Promise<ListedObject[]> {
    const objects: ListedObject[] = [];
    const base = this.prefix ? `${this.prefix}/` : '';
    const prefix = `${base}${within}`;
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ 'list-type': '2', prefix });
      if (token) {
        query.set('continuation-token', token);
      }
      const answer = await this.request('', `?${query.toString()}`, abortSignal);
      const xml = await readText(answer);
      if (answer.statusCode !== 200) {
        throw bucketError(this.uri, answer.statusCode ?? 0, xml);
      }
      for (const entry of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const key = decodeXml(/<Key>([\s\S]*?)<\/Key>/.exec(entry[1])?.[1] ?? '');
        const relative = key.slice(base.length);
        if (!key.startsWith(prefix) || !isSafeRelativeKey(relative)) {
          continue;
        }
        objects.push({ key: relative, etag: normalizeEtag(/<ETag>([\s\S]*?)<\/ETag>/.exec(entry[1])?.[1]), size: Number(/<Size>(\d+)<\/Size>/.exec(entry[1])?.[1] ?? 0) });
      }
      token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? decodeXml(/<NextContinuationToken>([\s\S]*?)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '') || undefined : undefined;
    } while (token);
    return objects;
  }

  /** Fetches one object into the folder (written under a temporary name, then renamed); returns its ETag. */
  private async download(key: string, abortSignal: AbortSignal | undefined): Promise<string> {
    const objectPath = [this.prefix, key].filter((part) => part !== '').join('/').split('/').map(encodeRfc3986).join('/');
    const answer = await this.request(objectPath, '', abortSignal);
    if (answer.statusCode !== 200) {
      throw bucketError(this.uri, answer.statusCode ?? 0, await readText(answer));
    }
    const target = this.localPath(key);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const partial = `${target}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      await pipeline(answer, fs.createWriteStream(partial, { mode: 0o600 }));
      fs.renameSync(partial, target);
    } catch (error) {
      removeQuietly(partial);
      throw error;
    }
    return normalizeEtag(answer.headers.etag);
  }

  private localPath(key: string): string {
    return path.join(this.folder, ...key.split('/'));
  }

  /**
   * One signed GET to the real bucket (path-style or virtual-hosted, as its storage options say). Through `node:http`,
   * not `fetch`: a process's first `fetch` loads undici, 0.3–0.5 s of a cold start on a loaded machine.
   */
  private request(objectPath: string, search: string, abortSignal: AbortSignal | undefined): Promise<http.IncomingMessage> {
    this.stats.requests++;
    const endpoint = this.options.aws_endpoint;
    const region = this.options.region ?? 'us-east-1';
    const virtualHosted = this.options.virtual_hosted_style_request === 'true' || (!endpoint && this.options.virtual_hosted_style_request !== 'false');
    const url = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
    if (virtualHosted) {
      url.hostname = `${this.bucket}.${url.hostname}`;
      url.pathname = `/${objectPath}`;
    } else {
      url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeRfc3986(this.bucket)}${objectPath ? `/${objectPath}` : ''}`;
    }
    url.search = search;
    const payloadHash = crypto.createHash('sha256').update('').digest('hex');
    const amzDate = new Date().toISOString().replace(/[:-]|\.\d{3}/g, '');
    const headers: Record<string, string> = { host: url.host, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
    if (this.options.aws_session_token) {
      headers['x-amz-security-token'] = this.options.aws_session_token;
    }
    const keyId = this.options.aws_access_key_id;
    const secret = this.options.aws_secret_access_key;
    if (keyId && secret) {
      headers.authorization = signatureV4({ method: 'GET', url, headers, payloadHash, amzDate, region, keyId, secret });
    }
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.get(url, { headers, signal: abortSignal, timeout: OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS * 1000 }, resolve);
      // A server that accepts the connection and never answers must not hold the open forever.
      request.on('timeout', () => request.destroy(new Error(`timed out after ${OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS} s without an answer`)));
      request.on('error', (error) => {
        reject(
          abortSignal?.aborted
            ? error
            : new HaikuError('storage_unreachable', `Could not reach object storage for ${this.uri} while syncing the bucket cache: ${errorMessage(error)}. Check the endpoint and the network.`, { cause: error }),
        );
      });
    });
  }
}

/**
 * True when a table's newest version number went down or a mirrored manifest came back with other bytes: the table
 * was dropped and published again. (Lance's own cleanup removes old versions only, never the newest one.)
 */
function restartedTables(mirrored: MirrorIndex, listed: readonly ListedObject[]): boolean {
  const newest = (keys: Iterable<string>) => {
    const versions = new Map<string, number>();
    for (const key of keys) {
      const match = /^(.*)\/_versions\/(\d+)\.manifest$/.exec(key);
      if (match) {
        versions.set(match[1], Math.max(versions.get(match[1]) ?? 0, Number(match[2])));
      }
    }
    return versions;
  };
  const before = newest(Object.keys(mirrored));
  const after = newest(listed.map((object) => object.key));
  if ([...before].some(([table, version]) => (after.get(table) ?? 0) < version)) {
    return true;
  }
  return listed.some((object) => isManifest(object.key) && mirrored[object.key] !== undefined && mirrored[object.key].etag !== object.etag);
}

async function readText(answer: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A typed error for a refused listing or download (credentials, a missing bucket), naming what to check. */
function bucketError(uri: string, status: number, body: string): HaikuError {
  const code = /<Code>([^<]+)<\/Code>/.exec(body)?.[1] ?? `HTTP ${status}`;
  if (status === 403 || status === 401) {
    return new HaikuError('storage_denied', `Object storage refused the credentials for ${uri} (${code}). Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to keys allowed to read this bucket.`);
  }
  if (code === 'NoSuchBucket') {
    return new HaikuError('not_found', `The bucket of ${uri} does not exist. Create it, or correct the bucket in --db / haiku.index.databaseUri.`);
  }
  if (status === 503 || status === 429) {
    return new HaikuError('storage_throttled', `Object storage is throttling requests to ${uri} (${code}). Wait a minute and try again.`);
  }
  return new HaikuError('unreadable_file', `Could not sync the bucket cache of ${uri}: the bucket answered ${status} (${code}). Set HAIKU_BUCKET_CACHE_DIR=off to read the bucket directly.`);
}

/** Runs `work` over `items` with at most `limit` at once; the first failure rejects (the others finish first). */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const lane = async () => {
    while (next < items.length && errors.length === 0) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (errors.length > 0) {
    throw errors[0];
  }
}

function readMirrorIndex(folder: string): MirrorIndex {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(folder, MIRROR_INDEX_FILE), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as MirrorIndex) : {};
  } catch {
    // None yet, or damaged: every object is fetched again.
    return {};
  }
}

/** Bytes a mirror folder holds, from its index (a folder without one counts as empty: a sync never finished there). */
function mirrorBytes(folder: string): number {
  return Object.values(readMirrorIndex(folder)).reduce((sum, entry) => sum + (Number(entry.size) || 0), 0);
}

function decodeXml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Written under a temporary name, then renamed: a reader in another process never sees half a file. */
function writeAtomically(file: string, data: string): void {
  const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(partial, data, { mode: 0o600 });
  fs.renameSync(partial, file);
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Gone already.
  }
}

function fileTimeMs(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
