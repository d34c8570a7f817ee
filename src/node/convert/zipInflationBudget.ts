import * as zlib from 'node:zlib';
import { throwIfAborted } from '../../core/errors';

/**
 * Checks what a zip (DOCX) inflates to before a library inflates it whole in memory: a 5.9 MB DOCX whose
 * `word/document.xml` inflates to ~2 GB took mammoth (jszip) to 4.2 GB. First the central directory's declared
 * sizes are summed (no inflation at all); then every deflated entry is inflated as a stream and counted, its
 * output thrown away, because the declared sizes can lie. Inflation stops at the first byte past the entry's
 * declared size or past the budget, so memory stays at one stream's window.
 */

export interface ZipInflationBudget {
  /** Bytes all entries together may inflate to. */
  maxTotalBytes: number;
  /** Bytes the entries `isMarkup` selects (XML parts, parsed into a tree) may inflate to together. */
  maxMarkupBytes: number;
  isMarkup(name: string): boolean;
}

/** What is wrong: sizes in bytes, for the message. */
export type ZipInflationProblem =
  | { kind: 'declared_total'; declaredBytes: number; limitBytes: number }
  | { kind: 'declared_markup'; declaredBytes: number; limitBytes: number }
  | { kind: 'inflates_past_declared'; entry: string; declaredBytes: number };

/** One entry of a zip's central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const END_OF_DIRECTORY_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_END_SIGNATURE = 0x06064b50;
const DIRECTORY_ENTRY_SIGNATURE = 0x02014b50;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const ZIP64_EXTRA_FIELD = 0x0001;
const DEFLATED = 8;
/** The end-of-directory record is 22 bytes plus a comment of at most 65,535. */
const END_OF_DIRECTORY_SEARCH_BYTES = 22 + 0xffff;

/**
 * The first problem found, or undefined when the zip inflates within the budget (or is not a zip this reader
 * understands: the converter's own error says so then).
 */
export async function zipInflationProblem(bytes: Uint8Array, budget: ZipInflationBudget, abortSignal?: AbortSignal): Promise<ZipInflationProblem | undefined> {
  const entries = readCentralDirectory(bytes);
  if (!entries) {
    return undefined;
  }
  let declaredTotal = 0;
  let declaredMarkup = 0;
  for (const entry of entries) {
    declaredTotal += entry.uncompressedSize;
    if (budget.isMarkup(entry.name)) {
      declaredMarkup += entry.uncompressedSize;
    }
  }
  if (declaredTotal > budget.maxTotalBytes) {
    return { kind: 'declared_total', declaredBytes: declaredTotal, limitBytes: budget.maxTotalBytes };
  }
  if (declaredMarkup > budget.maxMarkupBytes) {
    return { kind: 'declared_markup', declaredBytes: declaredMarkup, limitBytes: budget.maxMarkupBytes };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const entry of entries) {
    throwIfAborted(abortSignal);
    if (entry.method !== DEFLATED) {
      // Stored entries are their own bytes (counted above); methods other than deflate jszip refuses itself.
      continue;
    }
    const header = entry.localHeaderOffset;
    if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_HEADER_SIGNATURE) {
      continue;
    }
    const dataStart = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
    const data = bytes.subarray(dataStart, Math.min(bytes.length, dataStart + entry.compressedSize));
    // Declared sizes passed the budget, so an entry that keeps to its own declared size keeps to the budget.
    const inflated = await inflatedLength(data, entry.uncompressedSize + 1);
    if (inflated > entry.uncompressedSize) {
      return { kind: 'inflates_past_declared', entry: entry.name, declaredBytes: entry.uncompressedSize };
    }
  }
  return undefined;
}

/** The entries of the central directory, or undefined when there is none to read. */
/** The entries of a zip's central directory (ZIP64 aware), or undefined when `bytes` is not a zip. */
export function readCentralDirectory(bytes: Uint8Array): ZipEntry[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let offset = bytes.length - 22; offset >= Math.max(0, bytes.length - END_OF_DIRECTORY_SEARCH_BYTES); offset--) {
    if (view.getUint32(offset, true) === END_OF_DIRECTORY_SIGNATURE) {
      end = offset;
      break;
    }
  }
  if (end < 0) {
    return undefined;
  }
  let count = view.getUint16(end + 10, true);
  let directoryOffset = view.getUint32(end + 16, true);
  const locator = end - 20;
  if (locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64End = Number(view.getBigUint64(locator + 8, true));
    if (zip64End + 56 <= bytes.length && view.getUint32(zip64End, true) === ZIP64_END_SIGNATURE) {
      count = Number(view.getBigUint64(zip64End + 32, true));
      directoryOffset = Number(view.getBigUint64(zip64End + 48, true));
    }
  }
  const entries: ZipEntry[] = [];
  let offset = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== DIRECTORY_ENTRY_SIGNATURE) {
      return entries.length > 0 ? entries : undefined;
    }
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const entry: ZipEntry = {
      name: Buffer.from(bytes.buffer, bytes.byteOffset + offset + 46, Math.min(nameLength, bytes.length - offset - 46)).toString('utf8'),
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      uncompressedSize: view.getUint32(offset + 24, true),
      localHeaderOffset: view.getUint32(offset + 42, true),
    };
    readZip64Sizes(view, offset + 46 + nameLength, Math.min(extraLength, bytes.length - offset - 46 - nameLength), entry);
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Sizes and offset of 0xFFFFFFFF are in the ZIP64 extra field, in this order, present only when so marked. */
function readZip64Sizes(view: DataView, start: number, length: number, entry: ZipEntry): void {
  const marked = 0xffffffff;
  for (let field = start; field + 4 <= start + length;) {
    const id = view.getUint16(field, true);
    const size = view.getUint16(field + 2, true);
    if (id === ZIP64_EXTRA_FIELD) {
      let value = field + 4;
      const next = (): number | undefined => {
        if (value + 8 > field + 4 + size) {
          return undefined;
        }
        const read = Number(view.getBigUint64(value, true));
        value += 8;
        return read;
      };
      if (entry.uncompressedSize === marked) {
        entry.uncompressedSize = next() ?? Number.MAX_SAFE_INTEGER;
      }
      if (entry.compressedSize === marked) {
        entry.compressedSize = next() ?? Number.MAX_SAFE_INTEGER;
      }
      if (entry.localHeaderOffset === marked) {
        entry.localHeaderOffset = next() ?? Number.MAX_SAFE_INTEGER;
      }
      return;
    }
    field += 4 + size;
  }
}

/** How many bytes `data` inflates to, counting no further than `stopAt` (the output is never kept). */
function inflatedLength(data: Uint8Array, stopAt: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = zlib.createInflateRaw();
    let length = 0;
    let settled = false;
    const finish = (): void => {
      if (!settled) {
        settled = true;
        inflate.destroy();
        resolve(length);
      }
    };
    inflate.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length >= stopAt) {
        finish();
      }
    });
    // A corrupt stream is the converter's to report: count what inflated.
    inflate.on('error', finish);
    inflate.on('end', finish);
    inflate.end(data);
  });
}
