import * as zlib from 'node:zlib';

/** One entry of a zip the tests build: its bytes (or text), deflated when written. */
export interface ZipEntryInput {
  name: string;
  data: Uint8Array | string;
  /** Overrides the uncompressed size the headers declare (a zip bomb's lie). */
  declaredSize?: number;
}

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
    const content = Buffer.from(entry.data);
    const name = Buffer.from(entry.name, 'utf8');
    const data = zlib.deflateRawSync(content);
    const crc = zlib.crc32(content);
    const size = entry.declaredSize ?? content.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
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
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(list.length, 8);
  end.writeUInt16LE(list.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

/** The entries of a zip (stored or deflated), read with its central directory, in order. */
export function readZip(bytes: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let offset = bytes.readUInt32LE(end + 16);
  for (let index = 0; index < bytes.readUInt16LE(end + 10); index++) {
    const method = bytes.readUInt16LE(offset + 10);
    const compressedSize = bytes.readUInt32LE(offset + 20);
    const nameLength = bytes.readUInt16LE(offset + 28);
    const extraLength = bytes.readUInt16LE(offset + 30);
    const commentLength = bytes.readUInt16LE(offset + 32);
    const local = bytes.readUInt32LE(offset + 42);
    const name = bytes.subarray(offset + 46, offset + 46 + nameLength).toString('utf8');
    const dataStart = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(dataStart, dataStart + compressedSize);
    entries.set(name, method === 0 ? Buffer.from(data) : zlib.inflateRawSync(data));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
