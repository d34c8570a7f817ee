import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConvertedDocument, HaikuDocument } from '../../core/model/document';
import { ConversionError, isHaikuError, throwIfAborted } from '../../core/errors';
import { documentIdForPath } from '../../core/hash';
import { BINARY_SNIFF_BYTES, MAX_FILE_BYTES } from '../../core/limits';
import { convertAsciidoc } from './asciidoc';
import { CODE_LANGUAGE_BY_EXTENSION, convertCode } from './code';
import { convertCsv } from './csv';
import { convertHtml } from './html';
import { convertMarkdown } from './markdown';
import { convertNotebook } from './notebook';
import { convertText } from './text';

export interface ConvertFileOptions {
  abortSignal?: AbortSignal;
  /** Files larger than this are refused before reading; defaults to `MAX_FILE_BYTES`. */
  maxBytes?: number;
  /** `image` (default): images become picture items with bytes; `none`: no picture bytes are extracted; `description` converts as `image` (the indexer describes the pictures). */
  pictures?: PictureProcessing;
  /** Folders Markdown and HTML images may be read from (the indexed roots); defaults to the document's folder. */
  pictureRoots?: readonly string[];
  /** OCR of PDF pages without a text layer and of image files; defaults to `DEFAULT_OCR_OPTIONS`. */
  ocr?: OcrOptions;
}

/** The OCR settings as converters take them. */
export interface OcrOptions {
  /** Off: scanned pages and images yield no text (a warning says so). */
  enabled: boolean;
  /** Tesseract language codes (`eng`, `deu`, …), tried together. */
  languages: readonly string[];
}

/** The `processing.pictures` setting as converters take it. */
export type PictureProcessing = 'none' | 'image' | 'description';

/** Which converter a file goes to, by extension; anything unknown is read as text. */
export type ConverterKind =
  | 'markdown'
  | 'html'
  | 'docx'
  | 'pdf'
  | 'restructuredText'
  | 'csv'
  | 'notebook'
  | 'asciidoc'
  | 'code'
  | 'pptx'
  | 'odp'
  | 'xlsx'
  | 'ods'
  | 'odt'
  | 'latex'
  | 'image'
  | 'text';

const CONVERTER_BY_EXTENSION: Readonly<Record<string, ConverterKind>> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.docx': 'docx',
  '.pdf': 'pdf',
  '.rst': 'restructuredText',
  '.txt': 'text',
  '.csv': 'csv',
  '.tsv': 'csv',
  '.tab': 'csv',
  '.ipynb': 'notebook',
  '.adoc': 'asciidoc',
  '.asciidoc': 'asciidoc',
  '.asc': 'asciidoc',
  '.pptx': 'pptx',
  '.pptm': 'pptx',
  '.odp': 'odp',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.ods': 'ods',
  '.odt': 'odt',
  '.tex': 'latex',
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.tif': 'image',
  '.tiff': 'image',
  '.webp': 'image',
};

export function converterFor(filePath: string): ConverterKind {
  const extension = path.extname(filePath).toLowerCase();
  return CONVERTER_BY_EXTENSION[extension] ?? (CODE_LANGUAGE_BY_EXTENSION[extension] !== undefined ? 'code' : 'text');
}

/**
 * Converts one file into a document. Every refusal is a `ConversionError` naming the file: missing or unreadable
 * (`unreadable_file`), empty, over `maxBytes` (checked before reading), binary or not UTF-8 where text is
 * expected, or a damaged DOCX/PDF.
 */
export async function convertFile(filePath: string, options: ConvertFileOptions = {}): Promise<ConvertedDocument> {
  const bytes = await readFileChecked(filePath, options);
  return convertBytes(filePath, bytes, options);
}

/**
 * Reads a file whole after checking it is a non-empty regular file within the limits. Synchronous on purpose:
 * it runs on a conversion worker (or for a few small files in-process), where one open + fstat + read + close
 * costs a fraction of the promise API's thread-pool round trips (about 0.5 ms per small file on SciFact).
 * Opened non-blocking, so a FIFO or device is refused by its fstat instead of blocking the open.
 */
async function readFileChecked(filePath: string, options: ConvertFileOptions): Promise<Uint8Array> {
  throwIfAborted(options.abortSignal);
  const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
  let descriptor: number;
  try {
    descriptor = fs.openSync(filePath, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new ConversionError('unreadable_file', filePath, `cannot be read (${systemReason(error)}). Check that the file exists and that you have permission to read it.`, { cause: error });
  }
  try {
    const stats = fs.fstatSync(descriptor);
    if (!stats.isFile()) {
      throw new ConversionError('unreadable_file', filePath, 'is not a regular file (a folder or a device). Point to a file instead.');
    }
    if (stats.size === 0) {
      throw new ConversionError('empty_file', filePath, 'is empty (0 bytes); there is nothing to index. Add content or exclude the file.');
    }
    if (stats.size > maxBytes) {
      throw new ConversionError('file_too_large', filePath, `is ${formatBytes(stats.size)}, over the ${formatBytes(maxBytes)} limit. Split the file or raise the size limit.`);
    }
    const bytes = readWhole(descriptor, stats.size, maxBytes);
    if (bytes.byteLength === 0) {
      // Emptied between the fstat and the read.
      throw new ConversionError('empty_file', filePath, 'is empty (0 bytes); there is nothing to index. Add content or exclude the file.');
    }
    return bytes;
  } catch (error) {
    if (isHaikuError(error)) {
      throw error;
    }
    throw new ConversionError('unreadable_file', filePath, `cannot be read (${systemReason(error)}). Check that you have permission to read it.`, { cause: error });
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Scratch space of `readWhole`'s end-of-file probe (reads are synchronous, so one per thread is enough). */
const readProbe = Buffer.allocUnsafeSlow(64 * 1024);

/** Reads to the end of the file: `size` from the fstat is the expected length, but a file grown meanwhile is read on (up to `maxBytes`). */
function readWhole(descriptor: number, size: number, maxBytes: number): Buffer {
  // Not from the shared pool: a converter may transfer (detach) the buffer's memory.
  let buffer = Buffer.allocUnsafeSlow(size);
  let length = 0;
  for (;;) {
    if (length === buffer.byteLength) {
      // Full: one probe read tells the usual end of file from a file that grew since the fstat.
      const probeLength = Math.min(readProbe.byteLength, Math.max(0, maxBytes - length));
      const extra = probeLength === 0 ? 0 : fs.readSync(descriptor, readProbe, 0, probeLength, null);
      if (extra === 0) {
        return buffer;
      }
      const grown = Buffer.allocUnsafeSlow(Math.min(maxBytes, Math.max(length + extra, length * 2)));
      buffer.copy(grown, 0, 0, length);
      readProbe.copy(grown, length, 0, extra);
      buffer = grown;
      length += extra;
      continue;
    }
    const read = fs.readSync(descriptor, buffer, length, buffer.byteLength - length, null);
    if (read === 0) {
      return buffer.subarray(0, length);
    }
    length += read;
  }
}

/**
 * Runs the converter chosen by `filePath`'s extension on bytes already in memory (a file read, a download, pasted
 * text); anything it throws that is not already typed becomes a `ConversionError` naming the file.
 */
export async function convertBytes(filePath: string, bytes: Uint8Array, options: ConvertFileOptions): Promise<ConvertedDocument> {
  try {
    return await convertWithConverter(filePath, bytes, options);
  } catch (error) {
    if (isHaikuError(error)) {
      throw error;
    }
    throw new ConversionError('corrupt_file', filePath, `could not be converted (${error instanceof Error ? error.message : String(error)}). Exclude the file or report the problem with a copy of it.`, { cause: error });
  }
}

/**
 * PDF and DOCX converters (pdf.js, mammoth) are required on first use: a conversion worker that only meets
 * Markdown or text never loads them (0.3 s of each worker's start-up under tsx on SciFact).
 */
async function convertWithConverter(filePath: string, bytes: Uint8Array, options: ConvertFileOptions): Promise<ConvertedDocument> {
  const fileName = path.basename(filePath);
  const kind = converterFor(filePath);
  throwIfAborted(options.abortSignal);
  if (kind === 'pdf') {
    // pdf.js refuses Node's Buffer subclass: hand it a plain view of the same bytes.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { convertPdf } = require('./pdf') as typeof import('./pdf');
    return convertPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { fileName, filePath, abortSignal: options.abortSignal, pictures: options.pictures, ocr: options.ocr });
  }
  if (kind === 'docx') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { convertDocx } = require('./docx') as typeof import('./docx');
    return convertDocx(bytes, { fileName, filePath, abortSignal: options.abortSignal, pictures: options.pictures });
  }
  if (kind === 'pptx' || kind === 'odp') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { convertPresentation } = require('./presentation') as typeof import('./presentation');
    return convertPresentation(bytes, { fileName, filePath, abortSignal: options.abortSignal, pictures: options.pictures, format: kind });
  }
  if (kind === 'xlsx' || kind === 'ods') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { convertSpreadsheet } = require('./spreadsheet') as typeof import('./spreadsheet');
    return convertSpreadsheet(bytes, { fileName, filePath, abortSignal: options.abortSignal, pictures: options.pictures, format: kind });
  }
  if (kind === 'odt') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { convertOdt } = require('./odt') as typeof import('./odt');
    return convertOdt(bytes, { fileName, filePath, abortSignal: options.abortSignal, pictures: options.pictures });
  }
  if (kind === 'image') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { convertImage } = require('./image') as typeof import('./image');
    return convertImage(bytes, { fileName, filePath, abortSignal: options.abortSignal, pictures: options.pictures, ocr: options.ocr });
  }
  const text = decodeText(filePath, bytes);
  switch (kind) {
    case 'markdown':
      return convertMarkdown(text, { fileName, abortSignal: options.abortSignal, filePath: path.resolve(filePath), pictures: options.pictures, pictureRoots: options.pictureRoots });
    case 'html':
      return convertHtml(text, { fileName, abortSignal: options.abortSignal, filePath: path.resolve(filePath), pictures: options.pictures, pictureRoots: options.pictureRoots });
    case 'restructuredText':
      return convertText(text, { fileName, abortSignal: options.abortSignal, restructuredText: true });
    case 'csv':
      return convertCsv(text, { fileName, abortSignal: options.abortSignal, preferTab: /\.(tsv|tab)$/i.test(fileName) });
    case 'notebook':
      return convertNotebook(text, { fileName, abortSignal: options.abortSignal, filePath: path.resolve(filePath), pictures: options.pictures, pictureRoots: options.pictureRoots });
    case 'asciidoc':
      return convertAsciidoc(text, { fileName, abortSignal: options.abortSignal, filePath: path.resolve(filePath), pictures: options.pictures, pictureRoots: options.pictureRoots });
    case 'latex': {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { convertLatex } = require('./latex') as typeof import('./latex');
      return convertLatex(text, { fileName, abortSignal: options.abortSignal, filePath: path.resolve(filePath), pictures: options.pictures, pictureRoots: options.pictureRoots });
    }
    case 'code':
      return convertCode(text, { fileName, abortSignal: options.abortSignal, language: CODE_LANGUAGE_BY_EXTENSION[path.extname(filePath).toLowerCase()] });
    default:
      return convertText(text, { fileName, abortSignal: options.abortSignal });
  }
}

/** One strict decoder for every file: `decode` without `stream` leaves no state behind, even after an error. */
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * UTF-8 text, refusing binary content (a NUL early on) and invalid byte sequences; a BOM is dropped.
 * Files with a UTF-16 byte-order mark (Windows "Unicode" text) are decoded as UTF-16 instead.
 */
export function decodeText(filePath: string, bytes: Uint8Array): string {
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : undefined;
  if (utf16) {
    try {
      return new TextDecoder(utf16, { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch (error) {
      throw new ConversionError('invalid_encoding', filePath, `starts like ${utf16.toUpperCase()} text but is not valid ${utf16.toUpperCase()}. Re-save it as UTF-8.`, { cause: error });
    }
  }
  const sniffLength = Math.min(bytes.byteLength, BINARY_SNIFF_BYTES);
  for (let index = 0; index < sniffLength; index++) {
    if (bytes[index] === 0) {
      throw new ConversionError('binary_file', filePath, `looks binary (a NUL byte at offset ${index}), not text. Exclude it from indexing or give it the right extension.`);
    }
  }
  try {
    return utf8Decoder.decode(bytes);
  } catch (error) {
    throw new ConversionError('invalid_encoding', filePath, 'is not valid UTF-8. Re-save it as UTF-8 (other encodings are not supported).', { cause: error });
  }
}

export interface LoadDocumentOptions {
  /** The indexed folder; `relativePath` and the id are relative to it. */
  rootPath: string;
  filePath: string;
  abortSignal?: AbortSignal;
  maxBytes?: number;
  pictures?: PictureProcessing;
  pictureRoots?: readonly string[];
  ocr?: OcrOptions;
}

/** Converts a file and gives it its identity: id from the root-relative path, `file://` URI, sha256 of the bytes. */
export async function loadDocument(options: LoadDocumentOptions): Promise<HaikuDocument> {
  const absolutePath = path.resolve(options.rootPath, options.filePath);
  const bytes = await readFileChecked(absolutePath, options);
  // Hashed before converting: a converter may transfer (detach) the buffer.
  const contentHash = createHash('sha256').update(bytes).digest('hex');
  const converted = await convertBytes(absolutePath, bytes, options);
  const relativePath = path.relative(path.resolve(options.rootPath), absolutePath).split(path.sep).join('/');
  return {
    ...converted,
    id: documentIdForPath(relativePath),
    uri: pathToFileURL(absolutePath).href,
    relativePath,
    contentHash,
  };
}

export type ConvertFilesResult = { filePath: string; document: ConvertedDocument; error?: undefined } | { filePath: string; document?: undefined; error: Error };

export interface ConvertFilesOptions extends ConvertFileOptions {
  /** Called once per file, in order, with its document or its error. */
  onResult?: (result: ConvertFilesResult) => void;
}

/**
 * Converts files one after another, continuing past files that fail; each failure is reported, not thrown.
 * Only cancellation stops the batch.
 */
export async function convertFiles(filePaths: readonly string[], options: ConvertFilesOptions = {}): Promise<ConvertFilesResult[]> {
  const results: ConvertFilesResult[] = [];
  for (const filePath of filePaths) {
    throwIfAborted(options.abortSignal);
    let result: ConvertFilesResult;
    try {
      result = { filePath, document: await convertFile(filePath, options) };
    } catch (error) {
      if (isHaikuError(error, 'cancelled')) {
        throw error;
      }
      const reported = error instanceof ConversionError ? error : new ConversionError('corrupt_file', filePath, `could not be converted (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
      result = { filePath, error: reported };
    }
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

function systemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) {
    return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  }
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} bytes`;
}
