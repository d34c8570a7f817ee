import * as path from 'node:path';

/**
 * The folder document paths (and so document ids) are relative to. One workspace folder: itself. Several:
 * their deepest common ancestor, so `a/README.md` and `b/README.md` stay two documents instead of one id.
 */
export function indexBaseFolder(folders: readonly string[]): string | undefined {
  if (folders.length === 0) {
    return undefined;
  }
  let base = path.resolve(folders[0]);
  for (const folder of folders.slice(1)) {
    const resolved = path.resolve(folder);
    while (!isInsideOrEqual(resolved, base)) {
      const parent = path.dirname(base);
      if (parent === base) {
        return base;
      }
      base = parent;
    }
  }
  return base;
}

export function isInsideOrEqual(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
