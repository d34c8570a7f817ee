/**
 * The one place that opens an index. VS Code, the CLI and the MCP server each resolve their layered configuration
 * (settings, or `haiku.config.json` < environment < flags) and hand it here; what comes back (store, models, search
 * options, index rules, write policy) is the same for all three, so they cannot drift apart again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type { HaikuConfig } from '../../core/config';
import type { Embedder } from '../../core/embeddings/embedder';
import { errorMessage, HaikuError, isHaikuError, throwIfAborted } from '../../core/errors';
import type { Reranker } from '../../core/search/reranker';
import type { OcrOptions, PictureProcessing } from '../convert/convertFile';
import { createEmbedder } from '../embeddings/createEmbedder';
import type { PictureDescriptionSettings } from '../index/pictureDescriptions';
import { createReranker } from '../search/httpReranker';
import { openStore, resolveDatabaseUri, type LanceStore } from '../store/lanceStore';
import type { BucketMirror } from '../store/bucketMirror';
import { isS3Uri, objectStorageError, requireObjectStorageAnswers, storageOptionsFor, withoutSecrets, type ObjectStorageSettings } from '../store/objectStorage';
import type { IndexedRoot } from '../store/rootsRegistry';
import { DOCUMENTS_TABLE, parseJson, SETTINGS_TABLE } from '../store/schema';
import { hasUriScheme, isTableMissing } from '../store/storeTables';

/** How files become documents: the same for `haiku index`, VS Code and MCP's `add_document_from_file`. */
export interface IndexRules {
  /** Relative paths (and so document ids) hang from here: the source root, else the working folder. */
  baseFolder: string;
  /** The configured source root as an absolute folder, when the configuration names one. */
  sourceRoot?: string;
  include: readonly string[];
  exclude: readonly string[];
  maxFileBytes: number;
  respectGitignore: boolean;
  followLinksOutside: boolean;
  pictures: PictureProcessing;
  pictureDescription: PictureDescriptionSettings;
  ocr: OcrOptions;
}

/** The index rules of a configuration, with relative folders resolved against `cwd`. */
export function indexRulesFromConfig(config: HaikuConfig, cwd: string): IndexRules {
  const sourceRoot = config.index.sourceRoot.trim() === '' ? undefined : path.resolve(cwd, config.index.sourceRoot);
  return {
    baseFolder: sourceRoot ?? path.resolve(cwd),
    sourceRoot,
    include: config.index.include,
    exclude: config.index.exclude,
    maxFileBytes: config.index.maxFileBytes,
    respectGitignore: config.index.respectGitignore,
    followLinksOutside: config.index.followLinksOutside,
    pictures: config.processing.pictures,
    pictureDescription: config.processing.pictureDescription,
    ocr: config.processing.ocr,
  };
}

/** The object-storage settings of a configuration (keys included when the configuration holds them). */
export function storageSettingsFromConfig(config: HaikuConfig): ObjectStorageSettings {
  const { storage } = config.index;
  return {
    endpoint: storage.endpoint || undefined,
    region: storage.region || undefined,
    pathStyle: storage.pathStyle,
    allowHttp: storage.allowHttp,
    accessKeyId: storage.accessKeyId,
    secretAccessKey: storage.secretAccessKey,
  };
}

export interface OpenIndexOptions {
  config: HaikuConfig;
  /** Relative database paths and the source root resolve against this folder. */
  cwd: string;
  /** Everyone but `haiku index` and VS Code's indexer needs an existing index: a missing one is `not_found`, never created. */
  mustExist: boolean;
  /** Read-only on top of the configuration's `index.mode: remote-readonly` (`--read-only`). */
  readOnly?: boolean;
  /** Another database than `config.index.databaseUri` (one of `haiku search --db a --db b`). */
  databaseUri?: string;
  /** Object-storage settings (the CLI merges flags and AWS variables); default: the configuration's `index.storage`. */
  storage?: ObjectStorageSettings;
  /** The models to use; absent, made from the configuration's `embeddings` and `reranker`. */
  models?: { embedder?: Embedder; reranker?: Reranker };
  /**
   * Long-lived readers (the MCP server) follow other processes' writes: a second connection re-reads the documents
   * table's version, and `refreshIfChanged` drops the caches when it moved. Also checks the folder strictly at start.
   */
  followOtherWriters?: boolean;
  /** Progress of a wait for another writer's lease (default: stderr). */
  onWriterWait?: (message: string) => void;
  /**
   * With `followOtherWriters` on object storage, read-only: ask the bucket for a newer version at most this often (ms), so a tool
   * call does not pay a listing's round trip each time; a bucket mirror synced within it (by any process, with the
   * same keys) is opened without a listing too. Default 0: every call checks, and the open lists.
   */
  versionCheckIntervalMs?: number;
  /** The index answers one request and is closed (a one-shot CLI search): see `OpenStoreOptions.transient`. */
  transient?: boolean;
  /** A read-only index on `s3://` is mirrored into a folder below this one and read there (default `bucketCacheFolder()`; false: read the bucket). */
  bucketCacheFolder?: string | false;
  abortSignal?: AbortSignal;
}

/** An opened index and everything a front end needs to serve it the way the configuration says. */
export interface OpenedIndex {
  store: LanceStore;
  embedder?: Embedder;
  reranker?: Reranker;
  /** Never written: `index.mode: remote-readonly` or `--read-only`. Front ends leave their write commands out. */
  readOnly: boolean;
  /** The configuration's `search` (limit, max_context_chars, rerank pool, weights); the store searches with it. */
  search: HaikuConfig['search'];
  rules: IndexRules;
  /** Drops the store's caches when another process wrote since the last call (a no-op without `followOtherWriters`). */
  refreshIfChanged(): Promise<void>;
  /** The folders and files the index was built from, as recorded now (other processes' runs included with `followOtherWriters`). */
  indexedRoots(): Promise<IndexedRoot[]>;
  close(): Promise<void>;
}

/**
 * Commands that only use an index fail when there is none, instead of opening (and so creating) an empty one
 * where a mistyped `--db` points. A folder counts as an index when it holds LanceDB tables (`*.lance`);
 * URIs (`s3://…`) are left to LanceDB.
 */
export function requireExistingIndex(location: string): void {
  if (hasUriScheme(location)) {
    return;
  }
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(location);
  } catch {
    // Missing, not a folder, or unreadable: no index here either way.
  }
  if (!entries.some((name) => name.endsWith('.lance'))) {
    throw new HaikuError('not_found', `No Haiku index at ${location}; run \`haiku index <folder> --db ${location}\` first.`);
  }
}

/** A server's stricter start-up check: says whether the folder is missing, a file, or holds no documents table. */
function requireIndexFolder(uri: string): void {
  if (hasUriScheme(uri)) {
    return;
  }
  const buildHint = `Build one with \`haiku index <folder> --db ${uri}\`, or point --db at an existing index.`;
  let stats: fs.Stats;
  try {
    stats = fs.statSync(uri);
  } catch {
    throw new HaikuError('not_found', `No Haiku index at ${uri}: the folder does not exist. ${buildHint}`);
  }
  if (!stats.isDirectory()) {
    throw new HaikuError('unreadable_file', `${uri} is a file, not an index folder. ${buildHint}`);
  }
  // Checked on disk first: connecting to a folder writes LanceDB's namespace manifest into it.
  if (!fs.existsSync(path.join(uri, `${DOCUMENTS_TABLE}.lance`))) {
    throw new HaikuError('not_found', `No Haiku index at ${uri}: the folder holds no documents table. ${buildHint}`);
  }
}

/** A second connection that re-reads the manifest on every call, watching the documents table's version. */
async function openVersionProbe(uri: string, storage: ObjectStorageSettings | undefined): Promise<{ version(): Promise<number>; roots(): Promise<IndexedRoot[]>; close(): void }> {
  // The store's own tables keep the version they opened, which is what makes its reads fast and consistent within
  // one search. Opened by name, not listed: listing through some S3-compatible servers returns nothing.
  const storageOptions = storageOptionsFor(uri, storage);
  await requireObjectStorageAnswers(uri, storageOptions);
  let probe: lancedb.Connection | undefined;
  try {
    probe = await lancedb.connect(uri, { readConsistencyInterval: 0, ...(storageOptions ? { storageOptions } : {}) });
    const documentsTable = await probe.openTable(DOCUMENTS_TABLE);
    const connection = probe;
    const roots = async () => {
      const rows = await (await connection.openTable(SETTINGS_TABLE)).query().select(['roots']).toArray();
      return parseJson<IndexedRoot[]>(rows[0]?.roots === undefined ? undefined : String(rows[0].roots), []);
    };
    return { version: () => documentsTable.version(), roots, close: () => connection.close() };
  } catch (error) {
    probe?.close();
    if (isTableMissing(error)) {
      throw new HaikuError('not_found', `No Haiku index at ${uri}: it holds no documents table. Build one with \`haiku index <folder> --db ${uri}\`, or point --db at an existing index.`);
    }
    throw objectStorageError(error, uri, storageOptions) ?? new HaikuError('unreadable_file', `Could not read the index at ${uri}: ${withoutSecrets(errorMessage(error), storageOptions)}. Check --db and the folder's permissions.`, { cause: error });
  }
}

/**
 * The local mirror of a read-only `s3://` index, or undefined (another scheme, no cache folder, or an index larger than
 * the cache's bound: then LanceDB reads the bucket). Its sync (`syncing`) is also the reachability check: an unreachable
 * bucket, refused keys or a missing index fail with a typed error. A first sync is awaited here; a copy from an earlier
 * run is returned at once, so the caller opens it while the bucket is listed and then awaits `syncing`.
 */
async function openBucketMirror(
  uri: string,
  storage: ObjectStorageSettings,
  options: { folder: string | false | undefined; freshForMs: number; justSynced: boolean; abortSignal: AbortSignal | undefined },
): Promise<{ mirror: BucketMirror; syncing: Promise<{ ageMs: number; changed: boolean }> } | undefined> {
  if (!isS3Uri(uri)) {
    return undefined;
  }
  // Required here: its HTTP(S) client is ~5-10 ms of every local index's cold start (a one-shot `haiku search`).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { BucketMirror, bucketCacheFolder } = require('../store/bucketMirror') as typeof import('../store/bucketMirror');
  const cacheFolder = options.folder === false ? undefined : (options.folder ?? bucketCacheFolder());
  const storageOptions = storageOptionsFor(uri, storage);
  if (!storageOptions || cacheFolder === undefined) {
    return undefined;
  }
  const mirror = new BucketMirror({ uri, storageOptions, cacheFolder });
  const copiedBefore = mirror.holdsTable(DOCUMENTS_TABLE);
  const sync = options.justSynced ? Promise.resolve({ ageMs: 0, changed: false }) : mirror.syncUnlessFresh(options.freshForMs, options.abortSignal);
  const syncing = sync.then((result) => {
    if (!mirror.holdsTable(DOCUMENTS_TABLE)) {
      throw new HaikuError('not_found', `No Haiku index at ${uri}: it holds no documents table. Build one with \`haiku index <folder> --db ${uri}\`, or point --db at an existing index.`);
    }
    return result;
  });
  if (copiedBefore) {
    // The caller awaits it after opening the copy.
    syncing.catch(() => undefined);
    return { mirror, syncing };
  }
  let synced: { ageMs: number };
  try {
    synced = await syncing;
  } catch (error) {
    if (isHaikuError(error, 'file_too_large')) {
      return undefined;
    }
    throw error;
  }
  // Nothing was opened before this sync: for the caller, it changed nothing.
  return { mirror, syncing: Promise.resolve({ ageMs: synced.ageMs, changed: false }) };
}

/** Opens the index the configuration names, read-only when it says so, with its search options and index rules. */
export async function openIndex(options: OpenIndexOptions): Promise<OpenedIndex> {
  return openIndexOnce(options, { mirrorJustSynced: false });
}

/** `openIndex`; `mirrorJustSynced`: opened again because the sync beside the first open changed the mirror. */
async function openIndexOnce(options: OpenIndexOptions, internal: { mirrorJustSynced: boolean }): Promise<OpenedIndex> {
  throwIfAborted(options.abortSignal, 'Opening the index');
  const { config } = options;
  const uri = resolveDatabaseUri(options.databaseUri ?? config.index.databaseUri, options.cwd);
  const readOnly = options.readOnly === true || config.index.mode === 'remote-readonly';
  const storage = options.storage ?? storageSettingsFromConfig(config);
  if (storage.keysWithheld && hasUriScheme(uri)) {
    // Before any request: the storage library would read the AWS variables itself.
    throw new HaikuError('untrusted_endpoint', storage.keysWithheld);
  }
  const embedder = options.models ? options.models.embedder : createEmbedder(config.embeddings);
  const reranker = options.models ? options.models.reranker : createReranker(config.reranker);
  if (options.mustExist) {
    if (options.followOtherWriters) {
      requireIndexFolder(uri);
    } else {
      requireExistingIndex(uri);
    }
  }
  const checkIntervalMs = isS3Uri(uri) && readOnly ? (options.versionCheckIntervalMs ?? 0) : 0;
  // A reader that checks for new versions once per interval also opens a mirror synced within it without a listing.
  const mirrorOptions = { folder: options.bucketCacheFolder, freshForMs: checkIntervalMs, justSynced: internal.mirrorJustSynced, abortSignal: options.abortSignal };
  const mirrored = readOnly && options.mustExist ? await openBucketMirror(uri, storage, mirrorOptions) : undefined;
  const mirror = mirrored?.mirror;
  let probe: Awaited<ReturnType<typeof openVersionProbe>> | undefined;
  let store: LanceStore;
  try {
    // A mirrored index is read in the local folder it was synced into; the bucket is only listed (and new files fetched).
    probe = options.followOtherWriters ? await openVersionProbe(mirror ? mirror.folder : uri, mirror ? undefined : storage) : undefined;
    store = await openStore({
      uri,
      localMirror: mirror,
      embedder,
      reranker,
      search: config.search,
      abortSignal: options.abortSignal,
      storage,
      readOnly,
      // Only an indexer creates; on object storage (not checked on disk above) a missing index is then an error.
      mustExist: options.mustExist,
      onWriterWait: options.onWriterWait,
      transient: options.transient,
    });
    if (options.followOtherWriters) {
      store.assertUsable();
    }
  } catch (error) {
    probe?.close();
    // The copy was opened while the mirror synced: a republish may have removed what it was reading. Synced, open again.
    if (mirrored && (await mirrored.syncing.then(({ changed }) => changed, () => false))) {
      return openIndexOnce(options, { mirrorJustSynced: true });
    }
    throw error;
  }
  let syncAgeMs = 0;
  if (mirrored) {
    let synced: { ageMs: number; changed: boolean };
    try {
      synced = await mirrored.syncing;
    } catch (error) {
      await store.close();
      probe?.close();
      if (isHaikuError(error, 'file_too_large')) {
        // The index outgrew the cache's bound since it was copied: read the bucket itself.
        return openIndexOnce({ ...options, bucketCacheFolder: false }, internal);
      }
      throw error;
    }
    if (synced.changed) {
      // The copy opened before the sync fetched a newer version, maybe a republish whose version numbers start again:
      // open the synced mirror afresh (a listing's round trip saved on every open that finds nothing new).
      await store.close();
      probe?.close();
      return openIndexOnce(options, { mirrorJustSynced: true });
    }
    syncAgeMs = synced.ageMs;
  }
  let seenVersion = probe ? await probe.version() : 0;
  // The next check comes one interval after the mirror's last sync, whichever process made it.
  let checkedAt = performance.now() - syncAgeMs;
  // Concurrent tool calls (several HTTP sessions) share one check instead of refreshing the store twice.
  let pending: Promise<void> | undefined;
  const check = async () => {
    if (checkIntervalMs > 0 && performance.now() - checkedAt < checkIntervalMs) {
      return;
    }
    checkedAt = performance.now();
    await mirror?.sync(options.abortSignal);
    if (mirror?.takeRestarted()) {
      // Published anew (version numbers start again): the probe and the store open the tables again.
      probe!.close();
      probe = await openVersionProbe(mirror.folder, undefined);
      seenVersion = await probe.version();
      await store.reopenMirror();
      return;
    }
    const version = await probe!.version();
    if (version !== seenVersion) {
      seenVersion = version;
      await store.refresh();
    }
  };
  return {
    store,
    embedder,
    reranker,
    readOnly,
    search: config.search,
    rules: indexRulesFromConfig(config, options.cwd),
    indexedRoots: () => (probe ? probe.roots() : Promise.resolve(store.roots)),
    refreshIfChanged: () => (probe ? (pending ??= check().finally(() => (pending = undefined))) : Promise.resolve()),
    async close() {
      await store.close();
      probe?.close();
    },
  };
}
