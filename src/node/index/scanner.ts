import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { compileExcludeGlobs, type ExcludeMatcher } from '../../core/excludeGlobs';
import ignore, { type Ignore } from 'ignore';
import { throwIfAborted } from '../../core/errors';
import { DEFAULT_EXCLUDE_GLOBS, DEFAULT_INCLUDE_GLOBS, MAX_FILE_BYTES, SCAN_GLOB_CACHE_ENTRIES, SCAN_STATS_PER_TURN, SCAN_TURN_MAX_MS } from '../../core/limits';
import { isPathInside } from '../../core/pathContainment';
import type { IndexedRoot } from '../store/rootsRegistry';

/** A root as indexed: the path given, and the folder its files' relative paths (and so document ids) hang from. */
export interface ScannedFile {
  absolutePath: string;
  /** The folder `relativePath` is relative to (passed to the converter as `rootPath`). */
  baseFolder: string;
  /** Forward slashes. */
  relativePath: string;
  mtimeMs: number;
  size: number;
}

export interface ScanOptions {
  roots: readonly string[];
  /** Relative paths hang from here when a root lies inside it (the workspace or current folder); else from the root. */
  baseFolder?: string;
  include?: readonly string[];
  exclude?: readonly string[];
  maxFileBytes?: number;
  respectGitignore?: boolean;
  /** Index linked files whose real path lies outside every indexed folder (default false: they are skipped and reported). */
  followLinksOutside?: boolean;
  /**
   * File roots obey the include globs and `.gitignore` files like files found by walking (file-watcher events).
   * Default false: a file the user names is indexed whatever its extension or `.gitignore`, unless excluded.
   */
  fileRootsFollowRules?: boolean;
  abortSignal?: AbortSignal;
  /** Each indexable file as the scan finds it, before the sorted list is complete (a first build starts workers). */
  onFile?: (file: ScannedFile) => void;
}

/** A folder or file that exists but could not be listed or examined. */
export interface UnreadablePath {
  absolutePath: string;
  /** Relative to the root's base folder, forward slashes. */
  relativePath: string;
  reason: string;
}

/** A link left out because its target lies outside the indexed folders. */
export interface LinkOutside {
  /** The link, relative to the root's base folder. */
  path: string;
  /** The target's real path. */
  target: string;
}

export interface ScanResult {
  files: ScannedFile[];
  /** Files found but not indexable (too large), with a message. */
  skipped: Array<{ path: string; reason: string }>;
  /** Roots that do not exist. */
  missingRoots: string[];
  /** Paths that exist but could not be read: what they hold is unknown, so nothing below them counts as gone. */
  unreadable: UnreadablePath[];
  /** Linked files pointing outside the indexed folders, not indexed (see `followLinksOutside`). */
  linksOutside: LinkOutside[];
  roots: IndexedRoot[];
}

/** Folders never descended into, whatever the globs say. */
const ALWAYS_SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** Errors that mean "not there (any more)"; any other failure to read a path makes it unreadable. */
const ABSENT_ERROR_CODES = new Set(['ENOENT', 'ENOTDIR']);

/** Resolves each root against `cwd` and picks its base folder. */
export function resolveRoots(roots: readonly string[], baseFolder: string | undefined, cwd = process.cwd()): IndexedRoot[] {
  return roots.map((root) => {
    const absolute = path.resolve(cwd, root);
    let base: string;
    if (baseFolder && isPathInside(absolute, path.resolve(cwd, baseFolder))) {
      base = path.resolve(cwd, baseFolder);
    } else {
      base = isDirectory(absolute) ? absolute : path.dirname(absolute);
    }
    return { path: absolute, baseFolder: base };
  });
}

/**
 * Lists indexable files under the roots: include/exclude globs, nested `.gitignore` files, size limit.
 * Paths that cannot be read are reported, not treated as empty; links to files outside the indexed folders
 * are skipped and reported unless `followLinksOutside`.
 */
export async function scanRoots(options: ScanOptions): Promise<ScanResult> {
  const { include, exclude } = compiledGlobs(options.include ?? DEFAULT_INCLUDE_GLOBS, options.exclude ?? DEFAULT_EXCLUDE_GLOBS);
  const maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
  const respectGitignore = options.respectGitignore ?? true;
  const roots = resolveRoots(options.roots, options.baseFolder);
  const result: ScanResult = { files: [], skipped: [], missingRoots: [], unreadable: [], linksOutside: [], roots };
  const seen = new Set<string>();
  // Asked for only when a linked file must be checked against them (a one-file run of a plain file never does).
  let indexedFolders: Promise<string[]> | undefined;
  const realFolders = (): Promise<string[]> => (indexedFolders ??= realIndexedFolders(roots));
  // The watcher's burst of file roots shares its ancestors' .gitignore files: each is read once per scan.
  const ignoreFiles = new Map<string, Promise<Ignore | undefined>>();
  const readIgnoreOnce = (file: string): Promise<Ignore | undefined> => {
    let rules = ignoreFiles.get(file);
    if (!rules) {
      rules = readIgnoreFile(file);
      ignoreFiles.set(file, rules);
    }
    return rules;
  };

  const consider = (file: FoundFile, baseFolder: string, explicit: boolean, folders: readonly string[]) => {
    const { absolutePath, stats, linkTarget } = file;
    if (seen.has(absolutePath)) {
      return;
    }
    const relativePath = toForwardSlashes(path.relative(baseFolder, absolutePath));
    // A file named explicitly is indexed whatever its extension, unless excluded.
    if (!explicit && !include(relativePath)) {
      return;
    }
    if (exclude.file(relativePath)) {
      return;
    }
    seen.add(absolutePath);
    if (linkTarget !== undefined && !options.followLinksOutside && !folders.some((folder) => isPathInside(linkTarget, folder))) {
      result.linksOutside.push({ path: relativePath, target: linkTarget });
      return;
    }
    if (stats.size > maxFileBytes) {
      result.skipped.push({ path: relativePath, reason: `${relativePath}: the file is ${formatBytes(stats.size)}, above the ${formatBytes(maxFileBytes)} limit; raise the maximum file size to index it.` });
      return;
    }
    const scanned: ScannedFile = { absolutePath, baseFolder, relativePath, mtimeMs: stats.mtimeMs, size: stats.size };
    result.files.push(scanned);
    options.onFile?.(scanned);
  };

  // A burst of file roots (a checkout's) is stat'ed in runs between turns of the event loop, as a walk is.
  const rootStats = new StatRuns();
  for (const root of roots) {
    await rootStats.beforeStat(options.abortSignal);
    throwIfAborted(options.abortSignal, 'Scanning');
    const onUnreadable = (absolutePath: string, error: unknown) => result.unreadable.push(unreadablePath(absolutePath, root.baseFolder, error));
    let stats: fs.Stats;
    try {
      // Synchronous: a root is one path, and the watcher's one-file run waited ~1-2 ms for two promised stats.
      stats = fs.statSync(root.path);
    } catch (error) {
      if (isAbsent(error)) {
        result.missingRoots.push(root.path);
      } else {
        onUnreadable(root.path, error);
      }
      continue;
    }
    if (stats.isFile()) {
      let linkTarget: string | undefined;
      try {
        linkTarget = fs.lstatSync(root.path).isSymbolicLink() ? fs.realpathSync(root.path) : undefined;
      } catch (error) {
        onUnreadable(root.path, error);
        continue;
      }
      const followRules = options.fileRootsFollowRules ?? false;
      if (followRules && respectGitignore && isIgnored(await ancestorIgnores(root.baseFolder, root.path, readIgnoreOnce), root.path, false)) {
        continue;
      }
      consider({ absolutePath: root.path, stats, linkTarget }, root.baseFolder, !followRules, linkTarget === undefined ? [] : await realFolders());
      continue;
    }
    const inherited = respectGitignore ? await ancestorIgnores(root.baseFolder, root.path, readIgnoreOnce) : [];
    const folders = await realFolders();
    await walk(root.path, root.baseFolder, inherited, { exclude, respectGitignore, abortSignal: options.abortSignal, onUnreadable }, (file) => consider(file, root.baseFolder, false, folders));
  }
  result.files.sort((left, right) => left.absolutePath.localeCompare(right.absolutePath));
  return result;
}

/** Compiled include and exclude globs, by their patterns: a run per watcher event compiled the same ones (~0.3 ms). */
const globCache = new Map<string, { include: picomatch.Matcher; exclude: ExcludeMatcher }>();

function compiledGlobs(include: readonly string[], exclude: readonly string[]): { include: picomatch.Matcher; exclude: ExcludeMatcher } {
  const key = JSON.stringify([include, exclude]);
  let compiled = globCache.get(key);
  if (!compiled) {
    compiled = { include: picomatch([...include], { nocase: true }), exclude: compileExcludeGlobs(exclude) };
    if (globCache.size >= SCAN_GLOB_CACHE_ENTRIES) {
      globCache.delete(globCache.keys().next().value!);
    }
    globCache.set(key, compiled);
  }
  return compiled;
}

/** Real paths of the folders being indexed: each folder root, and for a file root its base folder. */
async function realIndexedFolders(roots: readonly IndexedRoot[]): Promise<string[]> {
  const folders: string[] = [];
  for (const root of roots) {
    const folder = isDirectory(root.path) ? root.path : root.baseFolder;
    const real = await fs.promises.realpath(folder).catch(() => undefined);
    if (real !== undefined) {
      folders.push(real);
    }
  }
  return folders;
}

function isAbsent(error: unknown): boolean {
  return ABSENT_ERROR_CODES.has((error as NodeJS.ErrnoException)?.code ?? '');
}

function unreadablePath(absolutePath: string, baseFolder: string, error: unknown): UnreadablePath {
  const relativePath = toForwardSlashes(path.relative(baseFolder, absolutePath)) || '.';
  const code = (error as NodeJS.ErrnoException)?.code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error instanceof Error ? error.message : String(error));
  return { absolutePath, relativePath, reason: `${relativePath}: cannot be read (${why}); what was indexed from it is kept. Check its permissions and index again.` };
}

/** A file met while walking: its stats (of the target, for a link) and, for a link, the target's real path. */
interface FoundFile {
  absolutePath: string;
  stats: fs.Stats;
  linkTarget?: string;
}

interface ScopedIgnore {
  folder: string;
  rules: Ignore;
}

interface WalkOptions {
  exclude: ExcludeMatcher;
  respectGitignore: boolean;
  abortSignal?: AbortSignal;
  onUnreadable: (absolutePath: string, error: unknown) => void;
}

/**
 * Synchronous stats in runs of `SCAN_STATS_PER_TURN` files or `SCAN_TURN_MAX_MS`, with a turn of the event loop (and a
 * cancellation check) between runs.
 */
class StatRuns {
  private stats = 0;
  private started = performance.now();

  async beforeStat(abortSignal: AbortSignal | undefined): Promise<void> {
    if (++this.stats >= SCAN_STATS_PER_TURN || performance.now() - this.started >= SCAN_TURN_MAX_MS) {
      this.stats = 0;
      await new Promise((resolve) => setImmediate(resolve));
      throwIfAborted(abortSignal, 'Scanning');
      this.started = performance.now();
    }
  }
}

async function walk(folder: string, baseFolder: string, ignores: ScopedIgnore[], options: WalkOptions, onFile: (file: FoundFile) => void): Promise<void> {
  throwIfAborted(options.abortSignal, 'Scanning');
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(folder, { withFileTypes: true });
  } catch (error) {
    // A folder removed since it was listed is simply gone; one that cannot be listed is reported.
    if (!isAbsent(error)) {
      options.onUnreadable(folder, error);
    }
    return;
  }
  let scoped = ignores;
  if (options.respectGitignore && entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
    const rules = await readIgnoreFile(path.join(folder, '.gitignore'));
    if (rules) {
      scoped = [...ignores, { folder, rules }];
    }
  }
  entries.sort((left, right) => left.name.localeCompare(right.name));
  const fileStats = new StatRuns();
  for (const entry of entries) {
    const absolute = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (ALWAYS_SKIPPED_FOLDERS.has(entry.name) || isIgnored(scoped, absolute, true)) {
        continue;
      }
      const relative = toForwardSlashes(path.relative(baseFolder, absolute));
      if (options.exclude.folder(relative)) {
        continue;
      }
      await walk(absolute, baseFolder, scoped, options, onFile);
    } else if ((entry.isFile() || entry.isSymbolicLink()) && !isIgnored(scoped, absolute, false)) {
      // Linked files count (their target's real path decides whether they stay inside); linked folders are
      // skipped (they can loop). Dangling links and looping links are nothing to index.
      let linkTarget: string | undefined;
      let stats: fs.Stats;
      await fileStats.beforeStat(options.abortSignal);
      try {
        // Synchronous, in short runs between turns of the event loop. SciFact's 5,183 files: 230-330 ms one promise
        // stat after another, 117-244 ms 32 at a time, 60-97 ms so. A slow network folder stalls the event loop for
        // at most SCAN_TURN_MAX_MS plus one stat; a hung one would hang it, as the roots' own stat already does.
        linkTarget = entry.isSymbolicLink() ? fs.realpathSync(absolute) : undefined;
        stats = fs.statSync(linkTarget ?? absolute);
      } catch (error) {
        if (!isAbsent(error) && (error as NodeJS.ErrnoException).code !== 'ELOOP') {
          options.onUnreadable(absolute, error);
        }
        continue;
      }
      if (stats.isFile()) {
        onFile({ absolutePath: absolute, stats, linkTarget });
      }
    }
  }
}

function isIgnored(ignores: readonly ScopedIgnore[], absolute: string, isFolder: boolean): boolean {
  for (const scope of ignores) {
    const relative = toForwardSlashes(path.relative(scope.folder, absolute));
    if (relative && isPathInside(absolute, scope.folder) && scope.rules.ignores(isFolder ? `${relative}/` : relative)) {
      return true;
    }
  }
  return false;
}

/** `.gitignore` files from the base folder down to (excluding) the root: they apply inside the root too. */
async function ancestorIgnores(baseFolder: string, root: string, readIgnore: (file: string) => Promise<Ignore | undefined>): Promise<ScopedIgnore[]> {
  if (!isPathInside(root, baseFolder) || root === baseFolder) {
    return [];
  }
  const folders: string[] = [];
  for (let folder = path.dirname(root); isPathInside(folder, baseFolder); folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (folder === baseFolder) {
      break;
    }
  }
  const scoped: ScopedIgnore[] = [];
  for (const folder of folders) {
    const rules = await readIgnore(path.join(folder, '.gitignore'));
    if (rules) {
      scoped.push({ folder, rules });
    }
  }
  return scoped;
}

async function readIgnoreFile(file: string): Promise<Ignore | undefined> {
  try {
    return ignore().add(await fs.promises.readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function toForwardSlashes(file: string): string {
  return file.split(path.sep).join('/');
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
