import * as fs from 'node:fs';
import * as path from 'node:path';
import { zipEntriesOf, type ZipEntry } from '../../support/zipWriter';

/** The entries of a VSIX (a zip file), read on demand. */
export function zipEntries(file: string): ZipEntry[] {
  return zipEntriesOf(fs.readFileSync(file), file);
}

/** Writes the entries under `prefix` (e.g. `extension/`) into `folder`, without the prefix. */
export function unzipFolder(file: string, prefix: string, folder: string): void {
  for (const entry of zipEntries(file)) {
    if (!entry.name.startsWith(prefix) || entry.name.endsWith('/')) {
      continue;
    }
    const target = path.join(folder, entry.name.slice(prefix.length));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, entry.read());
  }
}
