import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type { Embedder } from '../../core/embeddings/embedder';
import { errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import type { Reranker } from '../../core/search/reranker';
import { openStore, resolveDatabaseUri, type LanceStore } from '../store/lanceStore';
import { objectStorageError, storageOptionsFor, withoutSecrets, type ObjectStorageSettings } from '../store/objectStorage';
import { DOCUMENTS_TABLE } from '../store/schema';
import { hasUriScheme, isTableMissing } from '../store/storeTables';

export interface OpenExistingIndexOptions {
  /** Folder path or LanceDB URI, as `--db` gave it (relative paths resolve against `cwd`). */
  uri: string;
  cwd?: string;
  embedder?: Embedder;
  reranker?: Reranker;
  abortSignal?: AbortSignal;
  /** Endpoint, region and keys for `s3://…` (the AWS environment variables fill what is left out). */
  storage?: ObjectStorageSettings;
  /** Open without ever writing (a published team index): no lease, no optimize, write tools fail. */
  readOnly?: boolean;
}

/** An opened index plus a cheap check for writes made by other processes (the VS Code indexer, `haiku index`). */
export interface ExistingIndex {
  store: LanceStore;
  /** Drops the store's caches when the documents table moved since the last call, so reads see other writers. */
  refreshIfChanged(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens an index that must already exist: the server never creates one (an empty index would answer every search
 * with nothing, which looks like a working server). Missing, unreadable or outdated indexes fail here, at start.
 */
export async function openExistingIndex(options: OpenExistingIndexOptions): Promise<ExistingIndex> {
  throwIfAborted(options.abortSignal, 'Opening the index');
  const uri = resolveDatabaseUri(options.uri, options.cwd);
  const buildHint = `Build one with \`haiku index <folder> --db ${uri}\`, or point --db at an existing index.`;
  const noTablesMessage = `No Haiku index at ${uri}: the folder holds no documents table. ${buildHint}`;
  if (!hasUriScheme(uri)) {
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
      throw new HaikuError('not_found', noTablesMessage);
    }
  }
  // A second connection that re-reads the manifest on every call: the store's own tables keep the version they
  // opened, which is what makes its reads fast and consistent within one search.
  // Opened by name, not listed: listing through some S3-compatible servers returns nothing (see `StoreTables`).
  const storageOptions = storageOptionsFor(uri, options.storage);
  let probe: lancedb.Connection | undefined;
  let documentsTable: lancedb.Table;
  try {
    probe = await lancedb.connect(uri, { readConsistencyInterval: 0, ...(storageOptions ? { storageOptions } : {}) });
    documentsTable = await probe.openTable(DOCUMENTS_TABLE);
  } catch (error) {
    probe?.close();
    if (isTableMissing(error)) {
      throw new HaikuError('not_found', noTablesMessage);
    }
    throw objectStorageError(error, uri, storageOptions) ?? new HaikuError('unreadable_file', `Could not read the index at ${uri}: ${withoutSecrets(errorMessage(error), storageOptions)}. Check --db and the folder's permissions.`, { cause: error });
  }
  let store: LanceStore;
  try {
    store = await openStore({ uri, embedder: options.embedder, reranker: options.reranker, abortSignal: options.abortSignal, storage: options.storage, readOnly: options.readOnly, mustExist: true });
  } catch (error) {
    probe.close();
    throw error;
  }
  try {
    store.assertUsable();
  } catch (error) {
    await store.close();
    probe.close();
    throw error;
  }
  let seenVersion = await documentsTable.version();
  // Concurrent tool calls (several HTTP sessions) share one check instead of refreshing the store twice.
  let pending: Promise<void> | undefined;
  const check = async () => {
    const version = await documentsTable.version();
    if (version !== seenVersion) {
      seenVersion = version;
      await store.refresh();
    }
  };
  return {
    store,
    refreshIfChanged: () => (pending ??= check().finally(() => (pending = undefined))),
    async close() {
      await store.close();
      probe.close();
    },
  };
}
