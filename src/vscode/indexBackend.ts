import type { KnowledgeBase } from '../core/model/search';
import type { HaikuConfig } from '../core/config';

/** The read side the extension needs beyond `KnowledgeBase`: counts for the status bar, picture bytes for the views. */
export interface ExtensionKnowledgeBase extends KnowledgeBase {
  stats(): Promise<{ documents: number; chunks: number }>;
  /** A picture item's image, or undefined when the item has none (captions-only figures, `pictures: none`). */
  pictureBytes(documentId: string, selfRef: string): Promise<{ bytes: Uint8Array; mimeType: string; width: number; height: number } | undefined>;
}

export interface IndexProgress {
  done: number;
  total: number;
  /** The file being converted, when known. */
  path?: string;
}

export interface IndexRunSummary {
  indexed: number;
  unchanged: number;
  removed: number;
  /** Files not indexed: `path` as the indexer gave it (relative to the base folder, or absolute), `code` the typed error's. */
  failed: Array<{ path: string; message: string; code?: string }>;
}

/**
 * What the index service drives: the store and the indexer of `src/node`, behind one narrow interface so the
 * glue stays thin. Loaded with `await import()` on first use (see `loadIndexBackend`), keeping activation cheap.
 */
export interface IndexBackend {
  readonly knowledgeBase: ExtensionKnowledgeBase;
  /** Where the open index lives (a folder path or a LanceDB URI). */
  readonly databaseUri: string;
  /** `haiku.index.mode` "remote-readonly": the index is never written; `refresh` follows the publisher. */
  readonly readOnly: boolean;
  /** Moves to the index's latest published version (another process's writes); true when it changed. */
  refresh(): Promise<boolean>;
  /**
   * Indexes files and folders (new or changed files are converted; unchanged ones skipped; vanished ones removed when
   * `prune`). `fileRootsFollowRules`: file paths obey the include globs and `.gitignore` (watcher events).
   */
  indexPaths(
    paths: readonly string[],
    options: { baseFolder: string; prune: boolean; abortSignal: AbortSignal; onProgress?: (progress: IndexProgress) => void; fileRootsFollowRules?: boolean },
  ): Promise<IndexRunSummary>;
  /** Removes the documents of these files (and of every file below these folders). */
  removePaths(paths: readonly string[], options: { baseFolder: string }): Promise<number>;
  /** Drops every document (for "Rebuild Index"). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export type IndexBackendLoader = (
  config: HaikuConfig,
  options: {
    abortSignal: AbortSignal;
    log: (line: string) => void;
    /** Local folders a read-only index's documents map onto (`haiku.index.sourceRoot` in each workspace folder). */
    sourceRoots?: readonly string[];
  },
) => Promise<IndexBackend>;
