import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What the tables of an index in a local folder have committed, as the file system shows it: for each table folder
 * (one holding `_versions/`), the names of its version manifests and that folder's modification time. Every LanceDB
 * commit writes a new manifest, so equal fingerprints mean nobody committed in between; a table created or dropped
 * changes the list of folders. Read in ~0.1-0.3 ms, against 1.5-3 ms for asking LanceDB each table's latest version.
 * Undefined when the folder cannot be read (the caller then asks LanceDB).
 */
export function localVersionsFingerprint(indexFolder: string): string | undefined {
  try {
    const parts: string[] = [];
    for (const name of fs.readdirSync(indexFolder).sort()) {
      const versions = path.join(indexFolder, name, '_versions');
      let manifests: string[];
      try {
        manifests = fs.readdirSync(versions);
      } catch {
        // Not a table (the writer lock, a stray file).
        continue;
      }
      // The modification time too: a table dropped and made again may reuse its manifests' names.
      parts.push(`${name} ${fs.statSync(versions, { bigint: true }).mtimeNs} ${manifests.sort().join(',')}`);
    }
    return parts.join('\n');
  } catch {
    return undefined;
  }
}
