import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import ignore, { type Ignore } from 'ignore';
import { throwIfAborted } from '../../core/errors';
import { DEFAULT_EXCLUDE_GLOBS, DEFAULT_INCLUDE_GLOBS, MAX_FILE_BYTES } from '../../core/limits';
import { isPathInside } from '../../core/pathContainment';

/** A root as indexed: the path given, and the folder its files' relative paths (and so document ids) hang from. */
export interface IndexedRoot {
  path: string;
  baseFolder: string;
}

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
  abortSignal?: AbortSignal;
}

export interface ScanResult {
  files: ScannedFile[];
  /** Files found but not indexable (too large), with a message. */
  skipped: Array<{ path: string; reason: string }>;
  /** Roots that do not exist. */
  missingRoots: string[];
  roots: IndexedRoot[];
}

/** Folders never descended into, whatever the globs say. */
const ALWAYS_SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

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

/** Lists indexable files under the roots: include/exclude globs, nested `.gitignore` files, size limit. */
export async function scanRoots(options: ScanOptions): Promise<ScanResult> {
  const include = picomatch([...(options.include ?? DEFAULT_INCLUDE_GLOBS)], { nocase: true });
  const exclude = picomatch([...(options.exclude ?? DEFAULT_EXCLUDE_GLOBS)], { dot: true });
  const maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
  const respectGitignore = options.respectGitignore ?? true;
  const roots = resolveRoots(options.roots, options.baseFolder);
  const result: ScanResult = { files: [], skipped: [], missingRoots: [], roots };
  const seen = new Set<string>();

  const consider = (absolutePath: string, baseFolder: string, stats: fs.Stats, explicit: boolean) => {
    if (seen.has(absolutePath)) {
      return;
    }
    const relativePath = toForwardSlashes(path.relative(baseFolder, absolutePath));
    // A file named explicitly is indexed whatever its extension, unless excluded.
    if (!explicit && !include(relativePath)) {
      return;
    }
    if (exclude(relativePath)) {
      return;
    }
    seen.add(absolutePath);
    if (stats.size > maxFileBytes) {
      result.skipped.push({ path: relativePath, reason: `${relativePath}: the file is ${formatBytes(stats.size)}, above the ${formatBytes(maxFileBytes)} limit; raise the maximum file size to index it.` });
      return;
    }
    result.files.push({ absolutePath, baseFolder, relativePath, mtimeMs: stats.mtimeMs, size: stats.size });
  };

  for (const root of roots) {
    throwIfAborted(options.abortSignal, 'Scanning');
    let stats: fs.Stats;
    try {
      stats = await fs.promises.stat(root.path);
    } catch {
      result.missingRoots.push(root.path);
      continue;
    }
    if (stats.isFile()) {
      consider(root.path, root.baseFolder, stats, true);
      continue;
    }
    const inherited = respectGitignore ? await ancestorIgnores(root.baseFolder, root.path) : [];
    await walk(root.path, root.baseFolder, inherited, { exclude, respectGitignore, abortSignal: options.abortSignal }, (file, fileStats) => consider(file, root.baseFolder, fileStats, false));
  }
  result.files.sort((left, right) => left.absolutePath.localeCompare(right.absolutePath));
  return result;
}

interface ScopedIgnore {
  folder: string;
  rules: Ignore;
}

interface WalkOptions {
  exclude: (path: string) => boolean;
  respectGitignore: boolean;
  abortSignal?: AbortSignal;
}

async function walk(folder: string, baseFolder: string, ignores: ScopedIgnore[], options: WalkOptions, onFile: (file: string, stats: fs.Stats) => void): Promise<void> {
  throwIfAborted(options.abortSignal, 'Scanning');
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(folder, { withFileTypes: true });
  } catch {
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
  for (const entry of entries) {
    const absolute = path.join(folder, entry.name);
    let isFolder = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      // Linked files count; linked folders are skipped (they can loop).
      const target = await fs.promises.stat(absolute).catch(() => undefined);
      isFile = !!target?.isFile();
      isFolder = false;
    }
    if (isFolder) {
      if (ALWAYS_SKIPPED_FOLDERS.has(entry.name) || isIgnored(scoped, absolute, true)) {
        continue;
      }
      const relative = toForwardSlashes(path.relative(baseFolder, absolute));
      if (options.exclude(`${relative}/_`)) {
        continue;
      }
      await walk(absolute, baseFolder, scoped, options, onFile);
    } else if (isFile && !isIgnored(scoped, absolute, false)) {
      const stats = await fs.promises.stat(absolute).catch(() => undefined);
      if (stats) {
        onFile(absolute, stats);
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
async function ancestorIgnores(baseFolder: string, root: string): Promise<ScopedIgnore[]> {
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
    const rules = await readIgnoreFile(path.join(folder, '.gitignore'));
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

/** Kept for the store and the `remove` command, which still import it; new code calls `isPathInside`. */
export function isInside(child: string, parent: string): boolean {
  return isPathInside(child, parent);
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
