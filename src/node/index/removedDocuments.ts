import { pathToFileURL } from 'node:url';
import { documentIdForPath } from '../../core/hash';
import type { DocumentState } from '../store/schema';
import type { ScanResult } from './scanner';

/**
 * Which stored documents a scan shows to be gone: those under a scanned root whose file was not found, except
 * any below a path that could not be read (an unreadable folder says nothing about what it holds, so its
 * documents stay until it can be read again). Too-large files were found, so their documents stay too.
 */
export function documentsGoneAfterScan(stored: Iterable<DocumentState>, scan: ScanResult): DocumentState[] {
  // Every root is a file that was found (the watcher's one-file run): nothing under them is gone, and the
  // stored documents (all of the workspace) need not be walked.
  const found = new Set(scan.files.map((file) => file.absolutePath));
  if (scan.roots.every((root) => found.has(root.path))) {
    return [];
  }
  const present = new Set(scan.files.map((file) => documentIdForPath(file.relativePath)));
  for (const skipped of scan.skipped) {
    present.add(documentIdForPath(skipped.path));
  }
  const roots = scan.roots.map((root) => uriScope(root.path));
  const unreadable = scan.unreadable.map((entry) => uriScope(entry.absolutePath));
  return [...stored].filter((state) => !present.has(state.id) && inScope(state.uri, roots) && !inScope(state.uri, unreadable));
}

interface UriScope {
  uri: string;
  folderPrefix: string;
}

/** A path as a file URI and the prefix of every URI below it; string prefixes, as this runs per stored document. */
function uriScope(absolutePath: string): UriScope {
  const uri = pathToFileURL(absolutePath).href;
  return { uri, folderPrefix: uri.endsWith('/') ? uri : `${uri}/` };
}

function inScope(uri: string, scopes: readonly UriScope[]): boolean {
  return scopes.some((scope) => uri === scope.uri || uri.startsWith(scope.folderPrefix));
}

/**
 * Roots (found on disk) under which the scan matched no file while documents are stored there: include/exclude
 * patterns that match nothing (a typo, `--exclude '**'`) would otherwise remove every document of the root.
 */
export function rootsMatchingNothing(gone: readonly DocumentState[], scan: ScanResult): Array<{ root: string; documents: number }> {
  const scanned = scan.files.map((file) => uriScope(file.absolutePath));
  const result: Array<{ root: string; documents: number }> = [];
  for (const root of scan.roots) {
    if (scan.missingRoots.includes(root.path)) {
      continue;
    }
    const scope = uriScope(root.path);
    if (scanned.some((file) => inScope(file.uri, [scope]))) {
      continue;
    }
    const documents = gone.filter((state) => inScope(state.uri, [scope])).length;
    if (documents > 0) {
      result.push({ root: root.path, documents });
    }
  }
  return result;
}
