import { getResolvedPDFJS } from 'unpdf';
import type { ConvertedDocument } from '../../core/model/document';
import { ConversionError, isHaikuError, throwIfAborted } from '../../core/errors';
import { CONVERSION_TIMEOUT_MS, PDF_PAGE_TIMEOUT_MS, PICTURE_MAX_SOURCE_PIXELS } from '../../core/limits';
import { conversionTimeoutError, raceConversion } from './conversionDeadline';
import { layoutPage, type PdfTextRun } from './pdfLayout';
import { buildPdfStructure, type PdfOutlineEntry, type PdfPageLines, type PdfPagePictureBlock } from './pdfStructure';
import { extractPagePictures, type PdfJsOperators } from './pictures/pdfPictures';
import { PictureCollector } from './pictures/pictureCollector';
import type { PictureProcessing } from './convertFile';
import { invertMatrix, mapRectangle, multiplyMatrices } from './pdfMatrix';

interface ConvertPdfOptions {
  fileName: string;
  /** The path errors name (the file's name when absent), like the other converters' errors. */
  filePath?: string;
  abortSignal?: AbortSignal;
  /** `none`: picture items are not extracted; `image` (default) and `description`: raster images become picture items with bytes. */
  pictures?: PictureProcessing;
}

/** What one page read needs beside the page itself. */
interface PageReadContext {
  fonts: Map<string, FontStyle>;
  /** Set when pictures are extracted. */
  pictures?: { collector: PictureCollector; operators: PdfJsOperators };
}

/** The parts of pdf.js's API used here (unpdf bundles pdf.js; its typings are loose). */
interface PdfJsDocument {
  numPages: number;
  getPage(pageNumber: number): Promise<PdfJsPage>;
  getOutline(): Promise<PdfJsOutlineNode[] | null>;
  getDestination(name: string): Promise<unknown[] | null>;
  getPageIndex(reference: unknown): Promise<number>;
  getMetadata(): Promise<{ info?: Record<string, unknown> }>;
}

interface PdfJsPage {
  getViewport(parameters: { scale: number }): { width: number; height: number; transform: number[] };
  getTextContent(): Promise<{ items: Array<PdfJsTextItem | object>; styles: Record<string, { fontFamily?: string }> }>;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  commonObjs: { has(id: string): boolean; get(id: string, callback?: (value: unknown) => void): unknown };
  objs: { get(id: string, callback: (value: unknown) => void): unknown };
  cleanup(): void;
}

interface PdfJsTextItem {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
}

interface PdfJsOutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items?: PdfJsOutlineNode[];
}

interface PdfJsLoadingTask {
  promise: Promise<PdfJsDocument>;
  destroy(): Promise<void>;
}

interface FontStyle {
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
const BOLD_FONT = /bold|black|heavy|semibold|demi|[-,+]?bd\b|[-,]md\b|medi\b|cmbx|sfbx|cmb\d|^bx|ptmb|phvb/i;
const ITALIC_FONT = /italic|oblique|[-,]it\b|cmti|sfti|cmsl|sfsl|ptmri|ptmi/i;
const MONOSPACE_FONT = /mono|courier|consol|menlo|monaco|inconsolata|cmtt|sftt|lucida ?console|bookmastergothic|typewriter/i;

/** pdf.js 5 calls `ArrayBuffer.prototype.transferToFixedLength` (Node ≥ 21) when it ships fonts to the main thread. */
function ensureTransferToFixedLength(): void {
  const prototype = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (length?: number) => ArrayBuffer };
  if (typeof prototype.transferToFixedLength !== 'function') {
    Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
      configurable: true,
      writable: true,
      value(this: ArrayBuffer, length?: number): ArrayBuffer {
        const size = length ?? this.byteLength;
        const copy = new ArrayBuffer(size);
        new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
        return copy;
      },
    });
  }
}

/**
 * Converts a PDF: text per page with page numbers, headings from the outline (when it matches the text) or from
 * font size and weight, repeated top/bottom lines as page headers/footers. Damaged, encrypted or endless files
 * become `ConversionError`s naming the file; pages without a text layer become warnings.
 */
export async function convertPdf(bytes: Uint8Array, options: ConvertPdfOptions): Promise<ConvertedDocument> {
  const { abortSignal } = options;
  const namedAs = options.filePath ?? options.fileName;
  throwIfAborted(abortSignal);
  if (bytes.byteLength === 0) {
    throw new ConversionError('empty_file', namedAs, 'is empty (0 bytes); there is nothing to index. Add content or exclude the file.');
  }
  if (!hasPdfHeader(bytes)) {
    throw new ConversionError('corrupt_file', namedAs, 'is not a PDF (no "%PDF-" header). Rename it if it is another format, or exclude it.');
  }
  ensureTransferToFixedLength();
  const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(parameters: Record<string, unknown>): PdfJsLoadingTask; OPS: PdfJsOperators };
  const task = pdfjs.getDocument({
    // pdf.js may transfer (detach) the buffer it is given: hand it a copy (a Buffer's slice() would be a view).
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    // With font faces disabled pdf.js builds a glyph path per character; text extraction does not need either.
    disableFontFace: false,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
    // Images above this are dropped by pdf.js before decoding (a 20000x20000 image would need 1.6 GB).
    maxImageSize: PICTURE_MAX_SOURCE_PIXELS,
  });
  const deadline = Date.now() + CONVERSION_TIMEOUT_MS;
  try {
    const pictures = options.pictures !== 'none' ? { collector: new PictureCollector(), operators: pdfjs.OPS } : undefined;
    return await raceConversion(convertLoaded(task, options, deadline, pictures), { fileName: namedAs, abortSignal, timeoutMilliseconds: CONVERSION_TIMEOUT_MS });
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return head.includes('%PDF-');
}

async function convertLoaded(task: PdfJsLoadingTask, options: ConvertPdfOptions, deadline: number, pictures: PageReadContext['pictures']): Promise<ConvertedDocument> {
  const { fileName, abortSignal } = options;
  const namedAs = options.filePath ?? fileName;
  let document: PdfJsDocument;
  try {
    document = await task.promise;
  } catch (error) {
    throw loadError(error, namedAs);
  }
  if (document.numPages === 0) {
    throw new ConversionError('corrupt_file', namedAs, 'has no pages. Re-export the PDF or exclude it.');
  }
  const warnings: string[] = [];
  const fonts = new Map<string, FontStyle>();
  const pages: PdfPageLines[] = [];
  const pagesWithoutText: number[] = [];
  let failedPages = 0;
  for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
    throwIfAborted(abortSignal, `Converting ${namedAs}`);
    if (Date.now() > deadline) {
      throw conversionTimeoutError(namedAs, CONVERSION_TIMEOUT_MS);
    }
    try {
      const page = await withPageTimeout(readPage(document, pageNumber, { fonts, pictures }), pageNumber);
      if (page.lines.length === 0) {
        pagesWithoutText.push(pageNumber);
      }
      pages.push(page);
    } catch (error) {
      if (isHaikuError(error)) {
        throw error;
      }
      failedPages++;
      warnings.push(`Page ${pageNumber} could not be read (${error instanceof Error ? error.message : String(error)}); its text is missing.`);
      pages.push({ pageNumber, width: 0, height: 0, lines: [] });
    }
  }
  if (failedPages === document.numPages) {
    throw new ConversionError('corrupt_file', namedAs, 'is damaged: none of its pages could be read. Re-export the PDF or exclude it.');
  }
  if (pagesWithoutText.length > 0) {
    const list = pagesWithoutText.length > 10 ? `${pagesWithoutText.slice(0, 10).join(', ')} and ${pagesWithoutText.length - 10} more` : pagesWithoutText.join(', ');
    warnings.push(`No text layer on page${pagesWithoutText.length > 1 ? 's' : ''} ${list} (scanned or image-only); that content is not indexed. Run OCR on the PDF to include it.`);
  }
  const outline = await readOutline(document).catch(() => [] as PdfOutlineEntry[]);
  const { builder, content, title } = buildPdfStructure(pages, outline);
  warnings.push(...(pictures?.collector.warnings() ?? []));
  const metadataTitle = await readMetadataTitle(document);
  const firstHeading = builder.items.find((item) => item.label === 'section_header' && !/^(table of )?contents$/i.test(item.text))?.text;
  return {
    format: 'pdf',
    title: title ?? metadataTitle ?? firstHeading ?? fileName.replace(/\.pdf$/i, ''),
    items: builder.items,
    content,
    pageCount: document.numPages,
    warnings: [...warnings, ...builder.allWarnings()],
  };
}

async function withPageTimeout<T>(work: Promise<T>, pageNumber: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`page ${pageNumber} took longer than ${Math.round(PDF_PAGE_TIMEOUT_MS / 1000)} s`)), PDF_PAGE_TIMEOUT_MS);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function loadError(error: unknown, fileName: string): ConversionError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') {
    return new ConversionError('encrypted_file', fileName, 'is password-protected; its text cannot be read. Remove the password (e.g. print to a new PDF) or exclude the file.', { cause: error });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ConversionError('corrupt_file', fileName, `is damaged or not a valid PDF (${reason}). Re-export it or exclude it.`, { cause: error });
}

async function readPage(document: PdfJsDocument, pageNumber: number, context: PageReadContext): Promise<PdfPageLines> {
  const { fonts } = context;
  const page = await document.getPage(pageNumber);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const items = content.items.filter((item): item is PdfJsTextItem => typeof (item as PdfJsTextItem).str === 'string');
    if (items.some((item) => !fonts.has(item.fontName))) {
      await resolveFonts(page, items, content.styles, fonts);
    }
    const { transform, width, height } = uprightFrame(viewport, items);
    const runs: PdfTextRun[] = [];
    const rotated: PdfTextRun[] = [];
    for (const item of items) {
      const matrix = multiplyMatrices(transform, item.transform);
      const fontSize = Math.hypot(matrix[2], matrix[3]);
      const style = fonts.get(item.fontName) ?? { bold: false, italic: false, monospace: false };
      // Control characters come from fonts without a usable encoding; they are noise in an index.
      const text = item.str.replace(CONTROL_CHARACTERS, '');
      const run: PdfTextRun = { text, x: matrix[4], baseline: matrix[5], width: item.width, fontSize, ...style };
      // Text that does not run left to right (vertical margin notes) is read after the page body.
      (matrix[0] > 0 && Math.abs(matrix[1]) <= 0.1 * Math.abs(matrix[0]) ? runs : rotated).push(run);
    }
    const lines = layoutPage(pageNumber, runs);
    if (rotated.length > 0) {
      const text = rotated.map((run) => run.text).join(' ').replace(/\s+/g, ' ').trim();
      if (text) {
        const size = rotated[0].fontSize;
        lines.push({
          pageNumber, text, left: 0, right: 0, top: height, bottom: height, baseline: height, fontSize: size,
          bold: false, italic: false, monospace: false, characterCount: text.replace(/\s+/g, '').length, runs: rotated, rotated: true,
        });
      }
    }
    // The structure pass needs lines only; dropping the runs keeps long documents small in memory.
    lines.forEach((line) => { line.runs = []; });
    const toUserSpace = invertMatrix(transform);
    const pictures = context.pictures ? await readPictures(page, pageNumber, context.pictures, transform) : undefined;
    return { pageNumber, width, height, lines, toUserSpace, pictures };
  } finally {
    page.cleanup();
  }
}

/**
 * The frame the page is read in: the viewport, turned by a quarter turns so that most text runs left to right
 * (a landscape table set sideways on a portrait page, or a scan whose text layer runs up the page).
 */
function uprightFrame(viewport: { width: number; height: number; transform: number[] }, items: readonly PdfJsTextItem[]): { transform: number[]; width: number; height: number } {
  const weights = [0, 0, 0, 0];
  for (const item of items) {
    const matrix = multiplyMatrices(viewport.transform, item.transform);
    const quarter = ((Math.round(Math.atan2(matrix[1], matrix[0]) / (Math.PI / 2)) % 4) + 4) % 4;
    weights[quarter] += item.str.length;
  }
  const quarter = weights.indexOf(Math.max(...weights));
  if (quarter === 0) {
    return { transform: viewport.transform, width: viewport.width, height: viewport.height };
  }
  const angle = -quarter * (Math.PI / 2);
  const [cos, sin] = [Math.round(Math.cos(angle)), Math.round(Math.sin(angle))];
  // Shift the turned page back into positive coordinates.
  const corners = [[0, 0], [viewport.width, 0], [0, viewport.height], [viewport.width, viewport.height]].map(([x, y]) => [cos * x - sin * y, sin * x + cos * y]);
  const left = Math.min(...corners.map(([x]) => x));
  const top = Math.min(...corners.map(([, y]) => y));
  const turned = multiplyMatrices([cos, sin, -sin, cos, -left, -top], viewport.transform);
  return { transform: turned, width: quarter % 2 === 1 ? viewport.height : viewport.width, height: quarter % 2 === 1 ? viewport.width : viewport.height };
}

/**
 * Font names (hence bold/italic) only reach the main thread with the operator list, so it is fetched for pages
 * that use fonts not seen before (font ids are per document).
 */
async function resolveFonts(page: PdfJsPage, items: readonly PdfJsTextItem[], styles: Record<string, { fontFamily?: string }>, fonts: Map<string, FontStyle>): Promise<void> {
  try {
    await page.getOperatorList();
  } catch {
    // Without font names the styles fall back to what the text content says (monospace only).
  }
  for (const fontName of new Set(items.map((item) => item.fontName))) {
    if (fonts.has(fontName)) {
      continue;
    }
    let name = '';
    try {
      if (page.commonObjs.has(fontName)) {
        name = String((page.commonObjs.get(fontName) as { name?: string } | null)?.name ?? '');
      }
    } catch {
      name = '';
    }
    const baseName = name.replace(/^[A-Z]{6}\+/, '');
    fonts.set(fontName, {
      bold: BOLD_FONT.test(baseName),
      italic: ITALIC_FONT.test(baseName),
      monospace: MONOSPACE_FONT.test(baseName) || (!baseName && styles[fontName]?.fontFamily === 'monospace'),
    });
  }
}

/** The page's raster images as blocks in the upright frame (for reading order) with their user-space boxes. */
async function readPictures(page: PdfJsPage, pageNumber: number, pictures: NonNullable<PageReadContext['pictures']>, frame: readonly number[]): Promise<PdfPagePictureBlock[]> {
  try {
    const found = await extractPagePictures(page, pageNumber, pictures.operators, pictures.collector);
    return found.map((found) => {
      const { box } = found;
      return { box, picture: found.picture, ...mapRectangle(frame, box.x, box.y, box.x + box.width, box.y + box.height) };
    });
  } catch {
    // A page whose images cannot be listed keeps its text; the pictures are simply missing.
    pictures.collector.addFailure('undecodable');
    return [];
  }
}

/** Flattens the outline (depth-first, in order) and resolves each bookmark to a page and a y position. */
async function readOutline(document: PdfJsDocument): Promise<PdfOutlineEntry[]> {
  const outline = await document.getOutline();
  const entries: PdfOutlineEntry[] = [];
  const heights = new Map<number, { height: number; transform: number[] }>();
  const visit = async (nodes: readonly PdfJsOutlineNode[], depth: number) => {
    for (const node of nodes) {
      const resolved = await resolveDestination(document, node.dest, heights);
      if (resolved && node.title?.trim()) {
        entries.push({ title: node.title.trim(), depth, ...resolved });
      }
      if (node.items?.length && entries.length < 5000) {
        await visit(node.items, depth + 1);
      }
    }
  };
  await visit(outline ?? [], 1);
  return entries;
}

async function resolveDestination(document: PdfJsDocument, destination: PdfJsOutlineNode['dest'], viewports: Map<number, { height: number; transform: number[] }>): Promise<{ pageNumber: number; top?: number } | undefined> {
  try {
    const explicit = typeof destination === 'string' ? await document.getDestination(destination) : destination;
    if (!Array.isArray(explicit) || explicit.length === 0) {
      return undefined;
    }
    const target = explicit[0];
    const pageIndex = typeof target === 'number' ? target : await document.getPageIndex(target);
    const pageNumber = pageIndex + 1;
    const kind = (explicit[1] as { name?: string } | undefined)?.name;
    const y = kind === 'XYZ' ? explicit[3] : kind === 'FitH' || kind === 'FitBH' ? explicit[2] : undefined;
    if (typeof y !== 'number') {
      return { pageNumber };
    }
    let viewport = viewports.get(pageNumber);
    if (!viewport) {
      const page = await document.getPage(pageNumber);
      viewport = page.getViewport({ scale: 1 });
      viewports.set(pageNumber, viewport);
    }
    const x = kind === 'XYZ' && typeof explicit[2] === 'number' ? explicit[2] : 0;
    const transform = viewport.transform;
    return { pageNumber, top: transform[1] * x + transform[3] * y + transform[5] };
  } catch {
    return undefined;
  }
}

async function readMetadataTitle(document: PdfJsDocument): Promise<string | undefined> {
  try {
    const { info } = await document.getMetadata();
    const title = typeof info?.Title === 'string' ? info.Title.trim() : '';
    return title && !/^(untitled|microsoft word - .*|document\d*)$/i.test(title) ? title : undefined;
  } catch {
    return undefined;
  }
}
