import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Index builds that fail (a full disk) leave their half-written `_indices/<uuid>` folder behind, referenced by
 * no manifest: about 716 KB per failed FTS build, and a retry then needs more space than was freed. Around
 * a build, the folders present before are noted; on failure, the ones it added are removed. Safe under the
 * writer lease only (no other process builds an index meanwhile); object storage is left alone.
 */
export class IndexFolders {
  private readonly folder: string | undefined;

  /** `tableFolder`: the table's `.lance` folder, or undefined when the index is not on a local disk. */
  constructor(tableFolder: string | undefined) {
    this.folder = tableFolder === undefined ? undefined : path.join(tableFolder, '_indices');
  }

  /** Runs an index build; when it fails, removes the index folders it created. */
  async build<T>(work: () => Promise<T>): Promise<T> {
    const before = this.list();
    try {
      return await work();
    } catch (error) {
      if (before) {
        for (const name of this.list() ?? []) {
          if (!before.has(name)) {
            fs.rmSync(path.join(this.folder!, name), { recursive: true, force: true });
          }
        }
      }
      throw error;
    }
  }

  private list(): Set<string> | undefined {
    if (!this.folder) {
      return undefined;
    }
    try {
      return new Set(fs.readdirSync(this.folder));
    } catch {
      return new Set();
    }
  }
}
