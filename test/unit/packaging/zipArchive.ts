import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

/** One file of a zip archive (a VSIX), read on demand. */
export interface ZipEntry {
  name: string;
  size: number;
  read(): Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/**
 * The entries of a zip file, from its central directory (no zip64: a VSIX has fewer than 65,535 files under 4 GB).
 * Written here rather than adding an unzip dependency for the packaging tests.
 */
export function zipEntries(file: string): ZipEntry[] {
  const archive = fs.readFileSync(file);
  let end = archive.length - 22;
  while (end >= 0 && archive.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) {
    end -= 1;
  }
  if (end < 0) {
    throw new Error(`${file} is not a zip file (no end of central directory).`);
  }
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    if (archive.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) {
      throw new Error(`${file}: bad central directory entry ${index}.`);
    }
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const size = archive.readUInt32LE(offset + 24);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localHeader = archive.readUInt32LE(offset + 42);
    const name = archive.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.push({
      name,
      size,
      read: () => {
        if (archive.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER) {
          throw new Error(`${file}: bad local header for ${name}.`);
        }
        const start = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
        const data = archive.subarray(start, start + compressedSize);
        return method === 0 ? Buffer.from(data) : zlib.inflateRawSync(data);
      },
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
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
