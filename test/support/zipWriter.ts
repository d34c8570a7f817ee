import * as zlib from 'node:zlib';

/**
 * One entry of a zip the tests build: its bytes (or text), deflated when written, or bytes deflated already (a zip
 * bomb's 1.5 GB run, built without inflating it), whose CRC is 0 unless given.
 */
export type ZipEntryInput =
  | {
      name: string;
      data: Uint8Array | string;
      /** Overrides the uncompressed size the headers declare (a zip bomb's lie). */
      declaredSize?: number;
    }
  | { name: string; deflated: Buffer; declaredSize: number; crc?: number };

/** One file of a zip archive, read on demand. */
export interface ZipEntry {
  name: string;
  size: number;
  read(): Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/**
 * A zip of deflated entries, as office suites write them (no zip64), for converter tests that build or alter office
 * files. Entries as a list, or as a map or record of name → bytes or text.
 */
export function writeZip(entries: readonly ZipEntryInput[] | ReadonlyMap<string, Uint8Array | string> | Readonly<Record<string, Uint8Array | string>>): Buffer {
  const list: readonly ZipEntryInput[] = Array.isArray(entries)
    ? entries
    : [...(entries instanceof Map ? entries : Object.entries(entries))].map(([name, data]) => ({ name, data }));
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of list) {
    const name = Buffer.from(entry.name, 'utf8');
    const { data, crc, size } = deflatedEntry(entry);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_FILE_HEADER, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(CENTRAL_DIRECTORY_ENTRY, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    directory.push(header, name);
    offset += local.length + name.length + data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(list.length, 8);
  end.writeUInt16LE(list.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

function deflatedEntry(entry: ZipEntryInput): { data: Buffer; crc: number; size: number } {
  if ('deflated' in entry) {
    return { data: entry.deflated, crc: entry.crc ?? 0, size: entry.declaredSize };
  }
  const content = Buffer.from(entry.data);
  return { data: zlib.deflateRawSync(content), crc: zlib.crc32(content), size: entry.declaredSize ?? content.length };
}

/** The entries of a zip (stored or deflated), read, by name in order. */
export function readZip(bytes: Buffer): Map<string, Buffer> {
  return new Map(zipEntriesOf(bytes, 'the zip').map((entry) => [entry.name, entry.read()]));
}

/**
 * The entries of a zip archive, from its central directory (no zip64: the tests' office files and a VSIX have fewer
 * than 65,535 files under 4 GB). Written here rather than adding an unzip dependency; `label` names it in errors.
 */
export function zipEntriesOf(archive: Buffer, label: string): ZipEntry[] {
  let end = archive.length - 22;
  while (end >= 0 && archive.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) {
    end -= 1;
  }
  if (end < 0) {
    throw new Error(`${label} is not a zip file (no end of central directory).`);
  }
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    if (archive.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) {
      throw new Error(`${label}: bad central directory entry ${index}.`);
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
          throw new Error(`${label}: bad local header for ${name}.`);
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
