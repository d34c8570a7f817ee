/** What a native addon was built for, read from its header: enough to tell the VSIX targets apart. */
export interface BinaryFormat {
  format: 'ELF' | 'Mach-O' | 'PE';
  /** `x64` or `arm64`, or the raw machine number when neither. */
  architecture: string;
  /** ELF only: the shared libraries it needs (DT_NEEDED), which name the C library (glibc's libc.so.6, musl's libc.musl-*). */
  needed?: string[];
}

const ELF_MACHINES: Record<number, string> = { 0x3e: 'x64', 0xb7: 'arm64' };
const MACH_O_CPU_TYPES: Record<number, string> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };
const PE_MACHINES: Record<number, string> = { 0x8664: 'x64', 0xaa64: 'arm64' };

export function binaryFormat(bytes: Buffer): BinaryFormat {
  if (bytes.readUInt32BE(0) === 0x7f454c46) {
    return { format: 'ELF', architecture: ELF_MACHINES[bytes.readUInt16LE(18)] ?? String(bytes.readUInt16LE(18)), needed: elfNeeded(bytes) };
  }
  if (bytes.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = bytes.readUInt32LE(4);
    return { format: 'Mach-O', architecture: MACH_O_CPU_TYPES[cpu] ?? String(cpu) };
  }
  if (bytes.readUInt32BE(0) === 0xcafebabe) {
    // A universal binary: every architecture it holds, joined.
    const count = bytes.readUInt32BE(4);
    const cpus = Array.from({ length: count }, (_, index) => bytes.readUInt32BE(8 + index * 20));
    return { format: 'Mach-O', architecture: cpus.map((cpu) => MACH_O_CPU_TYPES[cpu] ?? String(cpu)).join('+') };
  }
  if (bytes.toString('latin1', 0, 2) === 'MZ') {
    const header = bytes.readUInt32LE(0x3c);
    if (bytes.toString('latin1', header, header + 4) !== 'PE\0\0') {
      throw new Error('An MZ file without a PE header.');
    }
    const machine = bytes.readUInt16LE(header + 4);
    return { format: 'PE', architecture: PE_MACHINES[machine] ?? String(machine) };
  }
  throw new Error(`Not ELF, Mach-O or PE (starts with ${bytes.subarray(0, 4).toString('hex')}).`);
}

/** DT_NEEDED of a 64-bit little-endian ELF: the dynamic section's string table entries, found through PT_LOAD. */
function elfNeeded(bytes: Buffer): string[] {
  if (bytes[4] !== 2 || bytes[5] !== 1) {
    throw new Error('Only 64-bit little-endian ELF is read.');
  }
  const headerOffset = Number(bytes.readBigUInt64LE(0x20));
  const headerSize = bytes.readUInt16LE(0x36);
  const headerCount = bytes.readUInt16LE(0x38);
  const loads: { virtualAddress: number; offset: number; size: number }[] = [];
  let dynamic: { offset: number; size: number } | undefined;
  for (let index = 0; index < headerCount; index += 1) {
    const at = headerOffset + index * headerSize;
    const type = bytes.readUInt32LE(at);
    const offset = Number(bytes.readBigUInt64LE(at + 8));
    const virtualAddress = Number(bytes.readBigUInt64LE(at + 16));
    const size = Number(bytes.readBigUInt64LE(at + 32));
    if (type === 1) {
      loads.push({ virtualAddress, offset, size });
    } else if (type === 2) {
      dynamic = { offset, size };
    }
  }
  if (dynamic === undefined) {
    return [];
  }
  const neededOffsets: number[] = [];
  let stringTableAddress = -1;
  for (let at = dynamic.offset; at < dynamic.offset + dynamic.size; at += 16) {
    const tag = Number(bytes.readBigInt64LE(at));
    const value = Number(bytes.readBigUInt64LE(at + 8));
    if (tag === 0) {
      break;
    }
    if (tag === 1) {
      neededOffsets.push(value);
    } else if (tag === 5) {
      stringTableAddress = value;
    }
  }
  const load = loads.find((segment) => stringTableAddress >= segment.virtualAddress && stringTableAddress < segment.virtualAddress + segment.size);
  if (load === undefined) {
    throw new Error('The ELF string table is outside every loaded segment.');
  }
  const stringTable = stringTableAddress - load.virtualAddress + load.offset;
  return neededOffsets.map((offset) => {
    const start = stringTable + offset;
    return bytes.toString('latin1', start, bytes.indexOf(0, start));
  });
}
