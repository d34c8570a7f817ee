/**
 * Path containment on absolute, already-resolved paths (callers pass `path.resolve(…)` or `Uri.fsPath`).
 * Pure string logic so every layer can share it: `/x/index` does not contain `/x/index2`, and a child
 * named `..notes` inside the parent is inside.
 */

/** True when `child` is `parent` itself or lies below it. Both '/' and '\\' separate segments. */
export function isPathInside(child: string, parent: string): boolean {
  const normalizedChild = normalizeSeparators(child);
  const normalizedParent = normalizeSeparators(parent);
  if (normalizedChild === normalizedParent) {
    return true;
  }
  const prefix = normalizedParent.endsWith('/') ? normalizedParent : `${normalizedParent}/`;
  return normalizedChild.startsWith(prefix);
}

function normalizeSeparators(file: string): string {
  const forward = file.replace(/\\/g, '/');
  // Windows drive letters compare case-insensitively (`C:` and `c:` are one drive).
  const withDrive = /^[A-Za-z]:/.test(forward) ? forward[0].toLowerCase() + forward.slice(1) : forward;
  return withDrive.length > 1 && withDrive.endsWith('/') && !/^[a-z]:\/$/.test(withDrive) ? withDrive.replace(/\/+$/, '') : withDrive;
}
