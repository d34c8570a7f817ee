/**
 * The files the last index runs could not index (a corrupt PDF, a file over the size limit), kept until the file
 * indexes or is deleted. Pure (no `vscode` import): the Problems panel, the status item and the Sections tree
 * read it through `indexProblems.ts`.
 */
import type { ConfigPath } from '../core/config';
import { isPathInside } from '../core/pathContainment';

export interface NotIndexedFile {
  /** Absolute path of the file. */
  fsPath: string;
  /** Why it was not indexed (the indexer's message). */
  message: string;
  /** The typed error's code (`file_too_large`, `corrupt_file`, …) when the indexer gave one. */
  code?: string;
}

/** What one finished index job says about the files it looked at. */
export type NotIndexedUpdate =
  /** A full sync looked at every file: its failures replace all earlier ones. */
  | { kind: 'full'; failed: readonly NotIndexedFile[] }
  /** An update of single files or folders: failures of these paths (and of files below them) are replaced. */
  | { kind: 'files'; touched: readonly string[]; failed: readonly NotIndexedFile[] };

/** Failures that name no file to fix: a root that vanished is not a problem of any file still there. */
const CODES_WITHOUT_FILE = new Set(['not_found']);

/** The configuration path whose setting fixes a failure, by its code (the others are fixed in the file itself). */
const REMEDY_SETTINGS: Readonly<Record<string, ConfigPath>> = { file_too_large: 'index.maxFileBytes' };

/**
 * The reason, naming the file by its name instead of the full path the indexer put first (the Problems panel and the
 * tree show the path already): `/w/docs/a.pdf: is damaged…` becomes `a.pdf is damaged…`.
 */
export function notIndexedReason(file: NotIndexedFile): string {
  const fsPath = file.fsPath.replace(/\\/g, '/');
  const name = fsPath.slice(fsPath.lastIndexOf('/') + 1);
  const end = file.message.indexOf(`${name}: `);
  const prefix = end < 0 ? '' : file.message.slice(0, end + name.length).replace(/\\/g, '/');
  if (prefix === '' || !fsPath.endsWith(prefix)) {
    return file.message;
  }
  const reason = file.message.slice(end + name.length + 2);
  return reason.startsWith('is ') ? `${name} ${reason}` : `${name}: ${reason}`;
}

export function remedySettingOf(file: NotIndexedFile): ConfigPath | undefined {
  return file.code === undefined ? undefined : REMEDY_SETTINGS[file.code];
}

export class NotIndexedFiles {
  private readonly files = new Map<string, NotIndexedFile>();

  /** Applies a finished job; true when the set of files or their reasons changed. */
  apply(update: NotIndexedUpdate): boolean {
    const before = this.signature();
    if (update.kind === 'full') {
      this.files.clear();
    } else {
      this.forget(update.touched);
    }
    for (const file of update.failed) {
      if (!CODES_WITHOUT_FILE.has(file.code ?? '')) {
        this.files.set(file.fsPath, file);
      }
    }
    return this.signature() !== before;
  }

  /** Drops the files at or below these paths (deleted, or indexed again); true when any was dropped. */
  forget(paths: readonly string[]): boolean {
    let changed = false;
    for (const fsPath of [...this.files.keys()]) {
      if (paths.some((touched) => isPathInside(fsPath, touched))) {
        this.files.delete(fsPath);
        changed = true;
      }
    }
    return changed;
  }

  /** The files, by path. */
  get list(): NotIndexedFile[] {
    return [...this.files.values()].sort((left, right) => left.fsPath.localeCompare(right.fsPath));
  }

  get count(): number {
    return this.files.size;
  }

  private signature(): string {
    return JSON.stringify(this.list);
  }
}
