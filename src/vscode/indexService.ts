import * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import { errorMessage } from '../core/errors';
import { isPathInside } from '../core/pathContainment';
import { haikuErrorCode } from './backendModule';
import { indexBaseFolder } from './workspacePaths';
import * as path from 'node:path';
import { compileExcludeGlobs, type ExcludeMatcher } from '../core/excludeGlobs';
import { vscodeErrorText } from './errorWording';
import { INDEX_WATCH_DEBOUNCE_MS, REMOTE_REFRESH_INTERVAL_MS, REMOTE_REFRESH_RETRY_MAX_MS, REMOTE_REFRESH_RETRY_MIN_MS } from '../core/limits';
import type { ExtensionKnowledgeBase, IndexBackend, IndexBackendLoader, IndexProgress, IndexRunSummary } from './indexBackend';
import { IndexScheduler, type IndexJob, type IndexJobOutcome } from '../core/indexScheduler';
import { NotIndexedFiles, type NotIndexedFile } from './notIndexed';

/** `idle`: nothing to index automatically (no folder, no indexable file, or `haiku.index.autoIndex` off); the backend is not loaded. */
export type IndexState = 'waiting-for-trust' | 'idle' | 'starting' | 'indexing' | 'ready' | 'paused' | 'error';

export interface IndexStatus {
  state: IndexState;
  documents: number;
  chunks: number;
  /** Set while indexing. */
  progress?: IndexProgress;
  /** Set in the error state: what went wrong and what to do. */
  message?: string;
  /** Files the index runs could not index (failed or skipped), until they index or are deleted. */
  notIndexed?: number;
}

/** A completed indexing job: a full sync of the workspace folders or an update of single files. */
export type IndexJobReport = IndexRunSummary & { kind: 'full' | 'files'; durationMs: number };

/**
 * Keeps the index in step with the workspace: waits for trust, opens the store lazily, runs a full sync on start
 * (a cancellable notification on the first build, the status bar afterwards), follows file-system events
 * (debounced), and can pause, resume and rebuild. The queue is an `IndexScheduler` (one job at a time); this class
 * runs its jobs against the backend and speaks VS Code.
 */
export class IndexService implements vscode.Disposable {
  private backend: IndexBackend | undefined;
  private backendPromise: Promise<IndexBackend> | undefined;
  private status: IndexStatus = { state: 'starting', documents: 0, chunks: 0 };
  /** The work queue: coalesces requests and file events, runs one job at a time (`runJob`). */
  private readonly scheduler = new IndexScheduler({
    debounceMs: INDEX_WATCH_DEBOUNCE_MS,
    runJob: (job, abort) => this.runJob(job, abort),
    mayRun: () => vscode.workspace.isTrusted,
    acceptsWork: () => !this.readOnly,
    // A read-only index is never written: builds, file changes and rebuilds have nothing to do here.
    onRefused: () => this.output.info('The index is read-only (haiku.index.mode "remote-readonly"): indexing requests are ignored; publish changes with `haiku index` instead.'),
    idleWithWork: () => this.status.state === 'waiting-for-trust',
    onJobError: (error) => this.output.error(`Indexing failed: ${errorMessage(error)}`),
  });
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshFailures = 0;
  /** Counts reopenings, so a store opened for superseded settings is closed instead of used. */
  private generation = 0;
  /** Set once a sync was asked for or the store opened: from then on every reopen syncs, whatever files match. */
  private indexInUse = false;
  private readonly lifetime = new AbortController();
  private readonly disposables: vscode.Disposable[] = [];
  /** The file-system watchers of the current include patterns (re-created when the settings change). */
  private watchers: vscode.Disposable[] = [];
  private readonly statusEmitter = new vscode.EventEmitter<IndexStatus>();
  private readonly indexEmitter = new vscode.EventEmitter<void>();
  private readonly jobEmitter = new vscode.EventEmitter<IndexJobReport>();
  private readonly notIndexedFiles = new NotIndexedFiles();
  private readonly notIndexedEmitter = new vscode.EventEmitter<readonly NotIndexedFile[]>();

  /** Fires on every state or count change. */
  readonly onDidChangeStatus = this.statusEmitter.event;
  /** Fires after documents were added, changed or removed. */
  readonly onDidChangeIndex = this.indexEmitter.event;
  /** Fires when an indexing job completed (not when it was cancelled or failed). */
  readonly onDidFinishJob = this.jobEmitter.event;
  /** Fires when the files not indexed (or their reasons) changed. */
  readonly onDidChangeNotIndexed = this.notIndexedEmitter.event;

  constructor(
    private readonly getConfig: () => HaikuConfig,
    private readonly loadBackend: IndexBackendLoader,
    private readonly output: vscode.LogOutputChannel,
    /** `haiku.index.autoIndex`: index on start and on file changes (a host setting, not part of the core config). */
    private readonly autoIndex: () => boolean,
  ) {}

  get current(): IndexStatus {
    return { ...this.status };
  }

  /** The files the index runs could not index, by path, with the reason. */
  get notIndexed(): NotIndexedFile[] {
    return this.notIndexedFiles.list;
  }

  /**
   * Starts once the workspace is trusted. With automatic indexing on and indexable files in the workspace, opens
   * the store, syncs, then watches; otherwise stays idle without loading the backend (a watcher still notices the
   * first indexable file).
   */
  start(): void {
    if (!vscode.workspace.isTrusted) {
      this.setStatus({ state: 'waiting-for-trust' });
      this.output.info('Workspace is not trusted: indexing waits until it is.');
      this.disposables.push(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()));
      return;
    }
    if (this.readOnly) {
      this.startReadOnly();
      return;
    }
    if (!this.autoIndex()) {
      this.setStatus({ state: 'idle' });
      this.output.info('Automatic indexing is off (haiku.index.autoIndex): build the index with Haiku: Build Index.');
      return;
    }
    this.watch();
    this.followWorkspaceFolders();
    void this.syncIfIndexable();
  }

  /** `haiku.index.mode` is "remote-readonly": a published index, never written here. */
  get readOnly(): boolean {
    return this.getConfig().index.mode === 'remote-readonly';
  }

  /** Read-only: no watchers and no sync; open the published index and follow its versions periodically. */
  private startReadOnly(): void {
    this.output.info(`Read-only index (haiku.index.mode "remote-readonly"): ${this.getConfig().index.databaseUri}; refreshed every ${Math.round(REMOTE_REFRESH_INTERVAL_MS / 1000)} s.`);
    this.setStatus({ state: 'starting', documents: 0, chunks: 0, message: undefined });
    void this.openBackend().then(
      () => this.setStatus({ state: 'ready', message: undefined }),
      (error: unknown) => {
        this.output.error(`Could not open the read-only index: ${errorMessage(error)}`);
        this.setStatus({ state: 'error', message: errorMessage(error) });
        this.scheduleRefresh(REMOTE_REFRESH_RETRY_MIN_MS);
      },
    );
    this.scheduleRefresh(REMOTE_REFRESH_INTERVAL_MS);
  }

  /**
   * "Haiku: Refresh Index": moves a read-only index to the publisher's latest version (a local index re-syncs).
   * On failure the last results stay and it retries with backoff (doubling up to `REMOTE_REFRESH_RETRY_MAX_MS`).
   */
  async refreshIndex(): Promise<void> {
    if (!this.readOnly) {
      await this.build();
      return;
    }
    try {
      const backend = await this.openBackend();
      const changed = await backend.refresh();
      this.refreshFailures = 0;
      await this.refreshCounts();
      this.setStatus({ state: 'ready', message: undefined });
      if (changed) {
        this.output.info('The published index changed: showing its latest version.');
        this.indexEmitter.fire();
      }
      this.scheduleRefresh(REMOTE_REFRESH_INTERVAL_MS);
    } catch (error) {
      this.refreshFailures++;
      const delay = Math.min(REMOTE_REFRESH_RETRY_MAX_MS, REMOTE_REFRESH_RETRY_MIN_MS * 2 ** (this.refreshFailures - 1));
      this.output.warn(`Refreshing the index failed (${errorMessage(error)}); keeping the last version, retrying in ${Math.round(delay / 1000)} s.`);
      this.scheduleRefresh(delay);
      throw error;
    }
  }

  private scheduleRefresh(delayMs: number): void {
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
    }
    if (this.lifetime.signal.aborted) {
      return;
    }
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.refreshIndex().catch(() => undefined);
    }, delayMs);
    this.refreshTimer.unref?.();
  }

  private followWorkspaceFolders(): void {
    let baseFolder = indexBaseFolder(this.fileFolders());
    this.disposables.push(vscode.workspace.onDidChangeWorkspaceFolders(() => {
      const next = indexBaseFolder(this.fileFolders());
      // Document ids hang from the base folder: when it moves, every id changes, so rebuild instead of syncing.
      if (baseFolder !== undefined && next !== undefined && next !== baseFolder) {
        this.output.info(`Workspace folders changed the index base from ${baseFolder} to ${next}: rebuilding.`);
        void this.rebuild();
      } else {
        void this.syncIfIndexable();
      }
      baseFolder = next;
    }));
  }

  /** A full sync when an index is open already or the workspace holds an indexable file; else idle. */
  private async syncIfIndexable(): Promise<void> {
    if (this.backend || await this.hasIndexableFile()) {
      this.requestFullSync();
    } else if (this.status.state === 'starting') {
      this.output.info('No indexable files in the workspace: the index is created when the first one appears.');
      this.setStatus({ state: 'idle' });
    }
  }

  private async hasIndexableFile(): Promise<boolean> {
    if (this.fileFolders().length === 0) {
      return false;
    }
    const { include, exclude } = this.getConfig().index;
    // One brace group of the excludes when none nests braces itself (VS Code globs do not nest groups).
    const excludeGlob = exclude.length > 0 && !exclude.some((pattern) => /[{}]/.test(pattern)) ? `{${exclude.join(',')}}` : undefined;
    for (const pattern of include) {
      if ((await vscode.workspace.findFiles(pattern, excludeGlob, 1)).length > 0) {
        return true;
      }
    }
    return false;
  }

  /** The store, opened on first use; rejects while the workspace is untrusted. */
  async knowledgeBase(): Promise<ExtensionKnowledgeBase> {
    return (await this.openBackend()).knowledgeBase;
  }

  /** Where the open index lives, or undefined before it is opened. */
  get openDatabaseUri(): string | undefined {
    return this.backend?.databaseUri;
  }

  /** The store if it is already open (the tree and tools use it without forcing a load). */
  get openKnowledgeBase(): ExtensionKnowledgeBase | undefined {
    return this.backend?.knowledgeBase;
  }

  private openBackend(): Promise<IndexBackend> {
    if (!vscode.workspace.isTrusted) {
      return Promise.reject(new Error(vscode.l10n.t('The workspace is not trusted, so Haiku has not opened its index. Trust the workspace (Manage Workspace Trust) to index and search it.')));
    }
    this.indexInUse = true;
    this.backendPromise ??= (async () => {
      const started = Date.now();
      const generation = this.generation;
      const config = this.getConfig();
      this.output.info(`Opening the index at ${config.index.databaseUri}`);
      const sourceRoots = this.fileFolders().map((folder) => path.resolve(folder, config.index.sourceRoot));
      const backend = await this.loadBackend(config, { abortSignal: this.lifetime.signal, log: (line) => this.output.info(line), sourceRoots });
      if (generation !== this.generation) {
        // Settings changed while this one opened (several updates in a row): the newest configuration wins.
        await backend.close().catch(() => undefined);
        return this.openBackend();
      }
      this.backend = backend;
      this.output.info(`Index opened in ${Date.now() - started} ms.`);
      await this.refreshCounts();
      return backend;
    })();
    const opening = this.backendPromise;
    opening.catch(() => {
      if (this.backendPromise === opening) {
        this.backendPromise = undefined;
      }
    });
    return opening;
  }

  /** Re-opens the store (after settings that change where or how it is stored). */
  async reopen(): Promise<void> {
    // At once, before waiting: a store still opening for the old settings sees the new generation and steps aside.
    this.generation++;
    // The running job ends first (it may still be using the store), then the store is closed and forgotten.
    await this.scheduler.cancelRunning();
    const backend = this.backend;
    this.backend = undefined;
    this.backendPromise = undefined;
    const closing = Date.now();
    await backend?.close().catch((error: unknown) => this.output.warn(`Closing the index failed: ${errorMessage(error)}`));
    if (backend) {
      // The close waits for the store's queued writes: its time shows in the log when a reopen seems slow.
      this.output.info(`Index closed in ${Date.now() - closing} ms; reopening it under the new settings.`);
    }
    if (!vscode.workspace.isTrusted) {
      return;
    }
    if (this.readOnly) {
      this.watchers.forEach((watcher) => watcher.dispose());
      this.watchers = [];
      this.startReadOnly();
      return;
    }
    if (this.autoIndex()) {
      this.watch();
      // An index in use syncs again under the new settings even when no file matches them any more: include patterns
      // narrowed to nothing must prune the old documents, and a second reopen must not cancel the first one's sync.
      if (this.indexInUse) {
        this.requestFullSync();
      } else {
        void this.syncIfIndexable();
      }
    } else {
      this.watchers.forEach((watcher) => watcher.dispose());
      this.watchers = [];
      this.setStatus({ state: 'idle' });
    }
  }

  private watch(): void {
    this.watchers.forEach((watcher) => watcher.dispose());
    this.watchers = [];
    const config = this.getConfig();
    for (const pattern of config.index.include) {
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      watcher.onDidCreate((uri) => this.fileChanged(uri), undefined, this.watchers);
      watcher.onDidChange((uri) => this.fileChanged(uri), undefined, this.watchers);
      watcher.onDidDelete((uri) => this.fileDeleted(uri), undefined, this.watchers);
      this.watchers.push(watcher);
    }
    // A deleted folder reports only itself: catch it with a pattern that matches everything, then remove below it.
    // A folder moved in (or a new folder whose files the watcher lost to the race with its creation) likewise reports
    // only itself: walk it.
    const folderWatcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    folderWatcher.onDidDelete((uri) => this.fileDeleted(uri), undefined, this.watchers);
    const excluded = compileExcludeGlobs(config.index.exclude);
    folderWatcher.onDidCreate((uri) => void this.folderCreated(uri, excluded), undefined, this.watchers);
    this.watchers.push(folderWatcher);
  }

  private async folderCreated(uri: vscode.Uri, excluded: ExcludeMatcher): Promise<void> {
    // Excluded folders (node_modules, .git...) are skipped as the scanner would: their churn costs no stat.
    if (uri.scheme !== 'file' || this.isExcluded(uri) || excluded.folder(vscode.workspace.asRelativePath(uri, false))) {
      return;
    }
    const stat = await vscode.workspace.fs.stat(uri).then((found) => found, () => undefined);
    // The settings may have turned watching off while the stat ran.
    if (!stat || (stat.type & vscode.FileType.Directory) === 0 || this.readOnly || !this.autoIndex()) {
      return;
    }
    if (!this.backend && this.status.state === 'idle') {
      // No index yet: a folder creates one only when a document came with it (`.vscode` appears with a setting).
      // The search takes a while: a setting that turned watching off meanwhile still wins.
      if (await this.hasIndexableFile() && this.autoIndex() && !this.backend) {
        this.requestFullSync();
      }
      return;
    }
    // Files already indexed through their own events are skipped as unchanged.
    this.fileChanged(uri);
  }

  private fileChanged(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' || this.isExcluded(uri)) {
      return;
    }
    this.scheduler.fileChanged(uri.fsPath);
  }

  private fileDeleted(uri: vscode.Uri): void {
    // With no index open and nothing indexed yet, a deletion has nothing to remove: do not create an index for it.
    if (uri.scheme !== 'file' || (!this.backend && this.status.state === 'idle')) {
      return;
    }
    this.scheduler.fileDeleted(uri.fsPath);
  }

  /** The database folder may sit inside the workspace: never index it (`/x/index2` is not inside `/x/index`). */
  private isExcluded(uri: vscode.Uri): boolean {
    const database = this.getConfig().index.databaseUri;
    return database !== '' && isPathInside(uri.fsPath, database);
  }

  /** Re-indexes these files now (Index Current File, Re-index Document). */
  async indexFiles(uris: readonly vscode.Uri[]): Promise<void> {
    this.scheduler.indexNamedFiles(uris.map((uri) => uri.fsPath));
    await this.whenIdle();
  }

  requestFullSync(): void {
    this.indexInUse = true;
    this.scheduler.requestFullSync();
  }

  /** Builds (or brings up to date) the index of the workspace folders without dropping anything. */
  async build(): Promise<void> {
    this.indexInUse = true;
    this.scheduler.requestBuild();
    await this.whenIdle();
  }

  /** Drops the index and builds it again from the workspace folders. */
  async rebuild(): Promise<void> {
    this.scheduler.requestRebuild();
    await this.whenIdle();
  }

  pause(): void {
    this.scheduler.pause();
    this.setStatus({ state: 'paused', progress: undefined });
    this.output.info('Indexing paused; file changes are queued until it resumes.');
  }

  resume(): void {
    // A paused full sync may have been cut short: the scheduler runs it again (unchanged files are skipped quickly).
    if (!this.scheduler.resume()) {
      return;
    }
    this.output.info('Indexing resumed.');
    this.setStatus({ state: 'ready' });
  }

  get isPaused(): boolean {
    return this.scheduler.paused;
  }

  /** Resolves when no indexing job runs and nothing is queued (tests wait on it). */
  whenIdle(): Promise<void> {
    return this.scheduler.whenIdle();
  }

  /** Runs one job of the scheduler against the backend; reports its errors here and says how it ended. */
  private async runJob({ full, rebuild, changed, named, deleted }: IndexJob, abort: AbortController): Promise<IndexJobOutcome> {
    const started = Date.now();
    try {
      const backend = await this.openBackend();
      if (rebuild) {
        this.output.info('Rebuilding the index: dropping every document.');
        await backend.reset();
        await this.refreshCounts();
        this.indexEmitter.fire();
      }
      const firstBuild = full && this.status.documents === 0;
      this.setStatus({ state: 'indexing', progress: { done: 0, total: 0 }, message: undefined });
      let summary: IndexRunSummary;
      if (full) {
        summary = firstBuild ? await this.withNotification((onProgress, signal) => this.syncFolders(backend, signal, onProgress), abort) : await this.syncFolders(backend, abort.signal);
      } else {
        summary = { indexed: 0, unchanged: 0, removed: 0, failed: [] };
        for (const [baseFolder, paths] of this.byFolder(deleted)) {
          summary.removed += await backend.removePaths(paths, { baseFolder });
        }
        for (const [baseFolder, paths] of this.byFolder(changed)) {
          // Watcher events obey the include globs and .gitignore, as a full sync would (build output, coverage reports).
          const groups: Array<[string[], boolean]> = [[paths.filter((fsPath) => !named.has(fsPath)), true], [paths.filter((fsPath) => named.has(fsPath)), false]];
          for (const [group, fileRootsFollowRules] of groups) {
            if (group.length === 0) {
              continue;
            }
            const part = await backend.indexPaths(group, { baseFolder, prune: false, fileRootsFollowRules, abortSignal: abort.signal, onProgress: (progress) => this.setStatus({ progress }) });
            summary.indexed += part.indexed;
            summary.unchanged += part.unchanged;
            summary.removed += part.removed;
            summary.failed.push(...part.failed);
          }
        }
      }
      const durationMs = Date.now() - started;
      this.jobEmitter.fire({ ...summary, kind: full ? 'full' : 'files', durationMs });
      this.output.info(`${full ? 'Sync' : 'Update'} done in ${durationMs} ms: ${summary.indexed} indexed, ${summary.unchanged} unchanged, ${summary.removed} removed, ${summary.failed.length} failed.`);
      for (const failure of summary.failed) {
        this.output.warn(`${failure.path}: ${failure.message}`);
      }
      this.recordNotIndexed(summary, full ? undefined : [...changed, ...deleted]);
      await this.refreshCounts();
      this.setStatus({ state: this.isPaused ? 'paused' : 'ready', progress: undefined });
      if (summary.indexed > 0 || summary.removed > 0 || rebuild) {
        this.indexEmitter.fire();
      }
      return 'done';
    } catch (error) {
      if (haikuErrorCode(error) === 'cancelled' || abort.signal.aborted) {
        this.output.info(`Indexing stopped after ${Date.now() - started} ms.`);
        // The scheduler runs what was cut short again on resume.
        await this.refreshCounts().catch(() => undefined);
        this.setStatus({ state: this.isPaused ? 'paused' : 'ready', progress: undefined });
        this.indexEmitter.fire();
        return 'cancelled';
      }
      const message = vscodeErrorText(error, vscode.l10n.t);
      this.output.error(`Indexing failed: ${message}`);
      this.setStatus({ state: 'error', progress: undefined, message });
      return 'failed';
    }
  }

  /** Keeps the files not indexed: a full sync replaces them all, an update those of the paths it touched. */
  private recordNotIndexed(summary: IndexRunSummary, touched: readonly string[] | undefined): void {
    const baseFolder = indexBaseFolder(this.fileFolders());
    // Paths come relative to the base folder (or absolute: a root given by path); the Problems panel needs absolute.
    const failed = summary.failed.map((failure) => ({ fsPath: baseFolder ? path.resolve(baseFolder, failure.path) : failure.path, message: failure.message, code: failure.code }));
    this.updateNotIndexed(this.notIndexedFiles.apply(touched === undefined ? { kind: 'full', failed } : { kind: 'files', touched, failed }));
  }

  private updateNotIndexed(changed: boolean): void {
    if (changed) {
      this.setStatus({ notIndexed: this.notIndexedFiles.count });
      this.notIndexedEmitter.fire(this.notIndexedFiles.list);
    }
  }

  private async syncFolders(backend: IndexBackend, abortSignal: AbortSignal, onProgress?: (progress: IndexProgress) => void): Promise<IndexRunSummary> {
    const folders = this.fileFolders();
    const baseFolder = indexBaseFolder(folders);
    if (!baseFolder) {
      return { indexed: 0, unchanged: 0, removed: 0, failed: [] };
    }
    return backend.indexPaths(folders, {
      baseFolder,
      prune: true,
      abortSignal,
      onProgress: (progress) => {
        this.setStatus({ progress });
        onProgress?.(progress);
      },
    });
  }

  private fileFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file').map((folder) => folder.uri.fsPath);
  }

  /** The first build shows a cancellable notification; cancelling stops the build (what was indexed stays). */
  private withNotification(work: (onProgress: (progress: IndexProgress) => void, signal: AbortSignal) => Promise<IndexRunSummary>, abort: AbortController): Promise<IndexRunSummary> {
    return Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Haiku: indexing documents'), cancellable: true }, async (progress, token) => {
      token.onCancellationRequested(() => abort.abort());
      let reported = 0;
      return work((current) => {
        if (current.total > 0) {
          const percent = (current.done / current.total) * 100;
          progress.report({ increment: percent - reported, message: `${current.done}/${current.total}${current.path ? ` ${current.path}` : ''}` });
          reported = percent;
        }
      }, abort.signal);
    }));
  }

  /** Groups paths under the index's base folder (paths outside every workspace folder are dropped). */
  private byFolder(paths: readonly string[]): Map<string, string[]> {
    const folders = this.fileFolders();
    const baseFolder = indexBaseFolder(folders);
    const inside = paths.filter((fsPath) => folders.some((folder) => isPathInside(fsPath, folder)));
    return baseFolder && inside.length > 0 ? new Map([[baseFolder, inside]]) : new Map();
  }

  private async refreshCounts(): Promise<void> {
    if (!this.backend) {
      return;
    }
    const stats = await this.backend.knowledgeBase.stats();
    this.setStatus({ documents: stats.documents, chunks: stats.chunks });
  }

  private setStatus(update: Partial<IndexStatus>): void {
    this.status = { ...this.status, ...update };
    if ('progress' in update && update.progress === undefined) {
      delete this.status.progress;
    }
    this.statusEmitter.fire(this.current);
  }

  dispose(): void {
    this.lifetime.abort();
    this.scheduler.dispose();
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
    }
    this.disposables.forEach((disposable) => disposable.dispose());
    this.watchers.forEach((watcher) => watcher.dispose());
    this.statusEmitter.dispose();
    this.indexEmitter.dispose();
    this.jobEmitter.dispose();
    this.notIndexedEmitter.dispose();
    void this.backend?.close().catch(() => undefined);
  }
}
