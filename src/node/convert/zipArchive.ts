import * as zlib from 'node:zlib';
import { ConversionError } from '../../core/errors';
import { OFFICE_MAX_INFLATED_BYTES, OFFICE_MAX_INFLATED_XML_BYTES } from '../../core/limits';
import { readCentralDirectory, zipInflationProblem, type ZipEntry, type ZipInflationProblem } from './zipInflationBudget';

/**
 * The parts of an office file (PPTX, XLSX, ODP, ODS, ODT: all zips of XML), read one at a time after the whole
 * archive was checked against the inflation budget, so a zip bomb is refused before any part is inflated.
 */
export interface ZipArchive {
  /** Every entry's name, as stored (forward slashes). */
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The entry's inflated bytes, or undefined when there is no such entry. */
  bytes(name: string): Uint8Array | undefined;
  /** The entry as UTF-8 text (a BOM dropped), or undefined when there is no such entry. */
  text(name: string): string | undefined;
}

export interface OpenZipArchiveOptions {
  /** For messages: the file's path. */
  filePath: string;
  /** For messages: what the file is ("a PPTX", "an ODS spreadsheet"). */
  kind: string;
  /** What to do to repair it, for messages ("Re-save it from PowerPoint"). */
  repair: string;
  abortSignal?: AbortSignal;
}

const STORED = 0;
const DEFLATED = 8;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;

/**
 * Opens an office file's zip. A file that is not a zip is a `corrupt_file` error, one that inflates past
 * `OFFICE_MAX_INFLATED_BYTES` (or holds more XML than `OFFICE_MAX_INFLATED_XML_BYTES`) a `file_too_large` one;
 * both name the file and say what to do.
 */
export async function openZipArchive(bytes: Uint8Array, options: OpenZipArchiveOptions): Promise<ZipArchive> {
  const entries = readCentralDirectory(bytes);
  if (!entries) {
    throw new ConversionError('corrupt_file', options.filePath, `is not ${options.kind}: it is not a zip archive (damaged, or another format under this extension). ${options.repair} or exclude it from indexing.`);
  }
  const problem = await zipInflationProblem(bytes, { maxTotalBytes: OFFICE_MAX_INFLATED_BYTES, maxMarkupBytes: OFFICE_MAX_INFLATED_XML_BYTES, isMarkup: isXmlPart }, options.abortSignal);
  if (problem) {
    throw new ConversionError('file_too_large', options.filePath, inflationText(problem, options));
  }
  const byName = new Map<string, ZipEntry>();
  for (const entry of entries) {
    byName.set(entry.name, entry);
  }
  const decoder = new TextDecoder('utf-8');
  const read = (name: string): Uint8Array | undefined => {
    const entry = byName.get(name);
    return entry ? inflateEntry(bytes, entry, options) : undefined;
  };
  return {
    names: entries.map((entry) => entry.name),
    has: (name) => byName.has(name),
    bytes: read,
    text: (name) => {
      const data = read(name);
      return data === undefined ? undefined : decoder.decode(data);
    },
  };
}

/** XML parts become DOM trees, about ten times their size: the budget counts them apart. */
export function isXmlPart(name: string): boolean {
  return /\.(?:xml|rels)$/i.test(name);
}

function inflateEntry(bytes: Uint8Array, entry: ZipEntry, options: OpenZipArchiveOptions): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_HEADER_SIGNATURE) {
    throw new ConversionError('corrupt_file', options.filePath, `is a damaged ${options.kind}: its part ${entry.name} is missing from the archive. ${options.repair} or exclude it from indexing.`);
  }
  const dataStart = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const data = bytes.subarray(dataStart, Math.min(bytes.length, dataStart + entry.compressedSize));
  if (entry.method === STORED) {
    return data;
  }
  if (entry.method !== DEFLATED) {
    throw new ConversionError('corrupt_file', options.filePath, `uses a zip compression method (${entry.method}) other than deflate for ${entry.name}. ${options.repair} or exclude it from indexing.`);
  }
  try {
    // The budget check inflated every entry once already: none inflates past its declared size.
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch (error) {
    throw new ConversionError('corrupt_file', options.filePath, `is a damaged ${options.kind}: its part ${entry.name} does not inflate (${error instanceof Error ? error.message : String(error)}). ${options.repair} or exclude it from indexing.`, { cause: error });
  }
}

function inflationText(problem: ZipInflationProblem, options: OpenZipArchiveOptions): string {
  const mebibytes = (value: number) => `${(value / (1024 * 1024)).toFixed(1)} MiB`;
  switch (problem.kind) {
    case 'declared_total':
      return `would inflate to ${mebibytes(problem.declaredBytes)}, more than the ${mebibytes(problem.limitBytes)} ${options.kind} may (a zip bomb, or a file too large to convert). Split it or exclude it from indexing.`;
    case 'declared_markup':
      return `holds ${mebibytes(problem.declaredBytes)} of XML, more than the ${mebibytes(problem.limitBytes)} ${options.kind} may (a zip bomb, or a file too large to convert). Split it or exclude it from indexing.`;
    case 'inflates_past_declared':
      return `is damaged or a zip bomb: its part ${problem.entry} inflates past the ${problem.declaredBytes} bytes its header declares. ${options.repair} or exclude it from indexing.`;
  }
}
