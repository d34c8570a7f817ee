import { isPathInside } from '../../core/pathContainment';
import { parseJson } from './schema';
import { sqlString } from '../../core/search/documentFilter';
import type { StoreTables } from './storeTables';
import type { WriteQueue } from './writeQueue';

/** A root as indexed: the path given, and the folder its files' relative paths (and so document ids) hang from. */
export interface IndexedRoot {
  path: string;
  baseFolder: string;
}

/** The folders and files indexed so far, kept in the settings row: what `rebuild` re-indexes. */
export class RootsRegistry {
  private readonly tables: StoreTables;
  private readonly queue: WriteQueue;

  constructor(tables: StoreTables, queue: WriteQueue) {
    this.tables = tables;
    this.queue = queue;
  }

  get roots(): IndexedRoot[] {
    return this.tables.settings ? parseJson<IndexedRoot[]>(this.tables.settings.roots, []) : [];
  }

  /** Adds folders/files (absolute paths) to the roots; a root given again keeps its latest base folder. */
  recordRoots(roots: readonly IndexedRoot[]): Promise<void> {
    return this.queue.run(async () => {
      this.tables.assertUsable();
      const recorded = this.roots;
      const byPath = new Map(recorded.map((root) => [root.path, root]));
      for (const root of roots) {
        // A file or folder inside a recorded root with the same base is re-indexed with it already.
        const covered = recorded.some((other) => other.baseFolder === root.baseFolder && other.path !== root.path && isPathInside(root.path, other.path));
        if (!covered) {
          byPath.set(root.path, { path: root.path, baseFolder: root.baseFolder });
        }
      }
      const merged = [...byPath.values()].sort((left, right) => left.path.localeCompare(right.path));
      if (JSON.stringify(merged) !== JSON.stringify(recorded)) {
        await this.writeRoots(merged);
      }
    });
  }

  /** Forgets roots by path (e.g. after `haiku remove <root>`). */
  forgetRoots(rootPaths: readonly string[]): Promise<void> {
    return this.queue.run(async () => {
      const drop = new Set(rootPaths);
      const kept = this.roots.filter((root) => !drop.has(root.path));
      if (kept.length !== this.roots.length) {
        await this.writeRoots(kept);
      }
    });
  }

  private async writeRoots(roots: IndexedRoot[]): Promise<void> {
    const now = new Date().toISOString();
    const json = JSON.stringify(roots);
    await this.tables.settingsTable.update({ where: "id = 'settings'", valuesSql: { roots: sqlString(json), updated_at: sqlString(now) } });
    this.tables.settings = { ...this.tables.settings!, roots: json, updated_at: now };
  }
}
