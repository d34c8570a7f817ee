import { SANDBOX_READ_AHEAD_MAX_FILES } from '../../core/limits';

/** Files sent ahead on the second read in sequence; each further read in sequence multiplies it by the growth. */
const READ_AHEAD_FIRST_WINDOW = 4;
const READ_AHEAD_GROWTH = 4;

/** `/documents/{id}/{name}` exactly as the VFS lists it; other spellings of a path get no read-ahead. */
const DOCUMENT_FILE_PATH = /^\/documents\/([^/]+)\/([^/]+)$/;

/**
 * Decides which VFS files to send to the sandbox worker along with one it asked for, so that guest code reading
 * the same file of every document (`toc.json` of each, in `list_documents()` order) crosses threads a few times
 * instead of once per file. Like a disk's read-ahead: a read of document i+1's file right after document i's (in
 * listing order, counting files sent ahead as read) opens the window of that file name at 4 files and
 * quadruples it up to `SANDBOX_READ_AHEAD_MAX_FILES`; any other read closes it. Each crossing costs two thread
 * wake-ups, which on a loaded machine are most of a read's wall time. Reads in another order get nothing extra.
 *
 * One planner per worker: the worker's cache holds what was sent, so a new worker starts over.
 */
export class ReadAheadPlanner {
  private readonly byName = new Map<string, { lastIndex: number; window: number }>();

  /** The paths to send ahead with `path`, given the listing of `/documents` (may be empty). */
  plan(path: string, documentIds: readonly string[]): string[] {
    const match = DOCUMENT_FILE_PATH.exec(path);
    if (!match) {
      return [];
    }
    const [, documentId, name] = match;
    const index = documentIds.indexOf(documentId);
    if (index < 0) {
      return [];
    }
    const previous = this.byName.get(name);
    const window = previous && previous.lastIndex === index - 1 ? Math.min(Math.max(READ_AHEAD_FIRST_WINDOW, previous.window * READ_AHEAD_GROWTH), SANDBOX_READ_AHEAD_MAX_FILES) : 0;
    this.byName.set(name, { lastIndex: index, window });
    return documentIds.slice(index + 1, index + 1 + window).map((id) => `/documents/${id}/${name}`);
  }

  /** Of the planned paths, the first `count` were sent: the next sequential read is the one after them. */
  sent(path: string, count: number): void {
    const match = DOCUMENT_FILE_PATH.exec(path);
    const state = match ? this.byName.get(match[2]) : undefined;
    if (state) {
      state.lastIndex += count;
    }
  }
}

/**
 * The files sent ahead: in planned order, stopping at the first that could not be read (undefined) or would take
 * the batch past `room` characters; the rest of the window follows with later reads.
 */
export function filesWithinRoom(paths: readonly string[], texts: ReadonlyArray<string | undefined>, room: number): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  let chars = 0;
  for (const [index, text] of texts.entries()) {
    if (text === undefined || chars + text.length > room) {
      break;
    }
    chars += text.length;
    files.push([paths[index], text]);
  }
  return files;
}
