import * as fs from 'node:fs';
import * as path from 'node:path';
import { HaikuError } from '../../core/errors';
import { isPathInside } from '../../core/pathContainment';
import { indexPaths, type IndexPathsOptions, type IndexSummary } from '../index/indexer';
import type { OpenedIndex } from './openIndex';

/** What an index run may set beyond the configured rules (which it takes from the opened index). */
export type IndexWithRulesOptions = Omit<IndexPathsOptions, 'roots' | 'store' | 'embedder' | 'include' | 'exclude' | 'maxFileBytes' | 'respectGitignore' | 'followLinksOutside' | 'pictures' | 'pictureDescription' | 'ocr'> & {
  /** Replaces the configured include globs (`haiku index --include`). */
  include?: readonly string[];
  /** Exclusions on top of the configured ones (`haiku index --exclude`). */
  extraExclude?: readonly string[];
};

/**
 * Indexes files and folders into an opened index with its configured rules (include/exclude, size limit, links,
 * pictures); relative paths hang from `baseFolder`, by default the source root, else the working folder.
 */
export function indexWithRules(index: OpenedIndex, roots: readonly string[], options: IndexWithRulesOptions = {}): Promise<IndexSummary> {
  const { rules } = index;
  const { include, extraExclude, ...run } = options;
  return indexPaths({
    ...run,
    roots,
    store: index.store,
    embedder: index.embedder,
    baseFolder: options.baseFolder ?? rules.baseFolder,
    include: include ?? rules.include,
    exclude: [...rules.exclude, ...(extraExclude ?? [])],
    maxFileBytes: rules.maxFileBytes,
    respectGitignore: rules.respectGitignore,
    followLinksOutside: rules.followLinksOutside,
    pictures: rules.pictures,
    pictureDescription: rules.pictureDescription,
    ocr: rules.ocr,
  });
}

/** A folder (or file) new documents may come from, and the folder their relative paths hang from. */
export interface AddableRoot {
  path: string;
  baseFolder: string;
}

/** Where a client may add files from: the folders and files the index was built from, and the configured source root. */
export async function addableRoots(index: OpenedIndex): Promise<AddableRoot[]> {
  const roots: AddableRoot[] = (await index.indexedRoots()).map((root) => ({ path: root.path, baseFolder: root.baseFolder }));
  if (index.rules.sourceRoot !== undefined) {
    roots.push({ path: index.rules.sourceRoot, baseFolder: index.rules.sourceRoot });
  }
  return roots;
}

function realPathOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The path a client asked to add, checked against the index's roots with symlinks resolved: a file outside them
 * (`/etc/passwd`, or a link inside a root that points outside) is refused with an error naming the roots. Returns
 * the path to index, spelled under its root (so its document id is the one `haiku index` gave it), and that root's
 * base folder.
 */
export async function checkAddablePath(index: OpenedIndex, requested: string, cwd: string): Promise<{ target: string; baseFolder: string }> {
  const absolute = path.resolve(cwd, requested);
  const realTarget = realPathOrUndefined(absolute);
  if (realTarget === undefined) {
    throw new HaikuError('not_found', `${absolute} does not exist. Give a path on the server machine (relative paths resolve against ${cwd}).`);
  }
  const roots = await addableRoots(index);
  let best: { root: AddableRoot; real: string } | undefined;
  for (const root of roots) {
    const real = realPathOrUndefined(root.path);
    if (real !== undefined && isPathInside(realTarget, real) && (best === undefined || real.length > best.real.length)) {
      best = { root, real };
    }
  }
  if (!best) {
    const named = roots.length > 0 ? roots.map((root) => root.path).join(', ') : 'none recorded yet (index a folder with `haiku index <folder>` first)';
    throw new HaikuError('invalid_settings', `${absolute} is outside the index's folders, so it cannot be added. Files may be added only from: ${named}.`);
  }
  const inside = path.relative(best.real, realTarget);
  return { target: inside === '' ? best.root.path : path.join(best.root.path, inside), baseFolder: best.root.baseFolder };
}
