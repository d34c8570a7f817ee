import { getResolvedPDFJS } from 'unpdf';
import type { ConvertedDocument, DocumentItem } from '../../core/model/document';
import { ConversionError, errorMessage, isHaikuError, throwIfAborted } from '../../core/errors';
import {
  CONVERSION_TIMEOUT_MS, PDF_FIGURE_RENDER_MAX_PIXELS, PDF_FIGURE_RENDER_SCALE, PDF_FIGURES_MAX_PER_PAGE, PDF_OCR_MAX_TEXT_LAYER_CHARACTERS, PDF_OCR_SCANNED_IMAGE_SHARE,
  PDF_FIGURE_RENDER_SHARE_OF_PAGE_TIMEOUT, PDF_PAGE_TIMEOUT_MS, OCR_MAX_IMAGE_PIXELS, OCR_PAGE_TIMEOUT_MS, PICTURE_MAX_SIDE_PX,
} from '../../core/limits';
import { conversionTimeoutError, raceConversion } from './conversionDeadline';
import { layoutPage, type PdfTextRun } from './pdfLayout';
import { buildPdfStructure, type PdfOutlineEntry, type PdfPageLines, type PdfPagePictureBlock } from './pdfStructure';
import { extractPagePictures, lookUp, type PdfJsOperators, type PdfPagePicture } from './pictures/pdfPictures';
import { PictureCollector } from './pictures/pictureCollector';
import type { OcrOptions, PictureProcessing } from './convertFile';
import { invertMatrix, mapRectangle, multiplyMatrices, type PdfMatrix } from './pdfMatrix';
import { figureRegions, imageShareOfPage, scanPaintedMarks, type PaintedMark, type PdfJsDrawingOperators, type UserRectangle } from './pdfFigures';
import { PdfPageRenderer, type RenderedPixels } from './pdfRender';
import type { RawImage } from './pictures/pngEncoder';
import type { PdfLine } from './pdfLayout';
import { recognizeRenderedPage, recognizeScanImage, type OcrPageLines, type PdfOcrOptions } from './pdfOcr';
import { DEFAULT_OCR_OPTIONS } from '../ocr/ocrEngine';
import { ensureTransferToFixedLength } from './pdfJsShims';

interface ConvertPdfOptions {
  fileName: string;
  /** The path errors name (the file's name when absent), like the other converters' errors. */
  filePath?: string;
  abortSignal?: AbortSignal;
  /**
   * `none`: picture items are not extracted; `image` (default) and `description`: each figure (images and drawings
   * that touch) becomes one picture item whose bytes are the page region rendered as a reader sees it.
   */
  pictures?: PictureProcessing;
  /** OCR of pages without a text layer (scans); on unless `enabled` is false. */
  ocr?: OcrOptions;
}

/** What one page read needs beside the page itself. */
interface PageReadContext {
  fonts: Map<string, FontStyle>;
  operators: PdfJsOperators & PdfJsDrawingOperators;
  /** Renders figure regions and scanned pages (a second pdf.js document, opened on first use). */
  renderer: PdfPageRenderer;
  /** Set when pictures are extracted. */
  pictures?: { collector: PictureCollector };
  abortSignal?: AbortSignal;
}

/** A page as read, with what the OCR pass needs to know about it. */
interface ReadPage extends PdfPageLines {
  /** Almost no text layer over a page-sized image, or no text over something painted: a scan, for OCR. */
  scanned: boolean;
  /** The page could not be read at all (a warning says so already). */
  failed?: boolean;
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
  view: number[];
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
  const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(parameters: Record<string, unknown>): PdfJsLoadingTask; OPS: PdfJsOperators & PdfJsDrawingOperators };
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
    // Images above this are dropped by pdf.js before decoding (a 20000x20000 image would need 1.6 GB); OCR's limit,
    // as a 600 dpi scan (35 million pixels) is read from its pixels. Pictures keep their own limit (`PICTURE_MAX_SOURCE_PIXELS`).
    maxImageSize: OCR_MAX_IMAGE_PIXELS,
  });
  const deadline = Date.now() + CONVERSION_TIMEOUT_MS;
  const renderer = new PdfPageRenderer(bytes);
  try {
    const pictures = options.pictures !== 'none' ? { collector: new PictureCollector() } : undefined;
    const context = { operators: pdfjs.OPS, renderer, pictures, abortSignal };
    return await raceConversion(convertLoaded(task, options, deadline, context), { fileName: namedAs, abortSignal, timeoutMilliseconds: CONVERSION_TIMEOUT_MS });
  } finally {
    await task.destroy().catch(() => undefined);
    await renderer.dispose();
  }
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return head.includes('%PDF-');
}

async function convertLoaded(task: PdfJsLoadingTask, options: ConvertPdfOptions, deadline: number, context: Omit<PageReadContext, 'fonts'>): Promise<ConvertedDocument> {
  const { pictures } = context;
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
  const pages: ReadPage[] = [];
  let failedPages = 0;
  for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
    throwIfAborted(abortSignal, `Converting ${namedAs}`);
    if (Date.now() > deadline) {
      throw conversionTimeoutError(namedAs, CONVERSION_TIMEOUT_MS);
    }
    try {
      pages.push(await withPageTimeout(readPage(document, pageNumber, { ...context, fonts }), pageNumber));
    } catch (error) {
      if (isHaikuError(error)) {
        throw error;
      }
      failedPages++;
      warnings.push(`Page ${pageNumber} could not be read (${error instanceof Error ? error.message : String(error)}); its text is missing.`);
      pages.push({ pageNumber, width: 0, height: 0, lines: [], scanned: false, failed: true });
    }
  }
  if (failedPages === document.numPages) {
    throw new ConversionError('corrupt_file', namedAs, 'is damaged: none of its pages could be read. Re-export the PDF or exclude it.');
  }
  warnings.push(...await readScannedPages(document, pages, options, context, deadline));
  const outline = await readOutline(document).catch(() => [] as PdfOutlineEntry[]);
  const { builder, content, title } = buildPdfStructure(pages, outline);
  if (pictures) {
    await renderFigures(builder.items, context, deadline);
  }
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

async function readPage(document: PdfJsDocument, pageNumber: number, context: PageReadContext): Promise<ReadPage> {
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
    const textCharacters = lines.reduce((sum, line) => sum + line.characterCount, 0);
    const mayBeScanned = textCharacters < PDF_OCR_MAX_TEXT_LAYER_CHARACTERS;
    const marks = context.pictures || mayBeScanned ? await paintedMarks(page, context.operators) : [];
    const pageBox = pageRectangle(page);
    // A page that paints nothing is blank (OCR would find nothing there); images pdf.js leaves out (over `maxImageSize`) OCR could not read either.
    const scanned = (textCharacters === 0 && marks.length > 0) || (mayBeScanned && imageShareOfPage(marks, pageBox) >= PDF_OCR_SCANNED_IMAGE_SHARE);
    const pictures = context.pictures ? await readFigures(page, pageNumber, marks, lines, transform, context) : undefined;
    return { pageNumber, width, height, lines, toUserSpace, pictures, scanned };
  } finally {
    page.cleanup();
  }
}

async function paintedMarks(page: PdfJsPage, operators: PdfJsDrawingOperators): Promise<PaintedMark[]> {
  try {
    return scanPaintedMarks(await page.getOperatorList(), operators);
  } catch {
    return [];
  }
}

/** The page's crop box in user space. */
function pageRectangle(page: PdfJsPage): UserRectangle {
  const [a, b, c, d] = page.view;
  return { x0: Math.min(a, c), y0: Math.min(b, d), x1: Math.max(a, c), y1: Math.max(b, d) };
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

/**
 * The page's figures (see `figureRegions`) as blocks in the upright frame (for reading order) with user-space boxes
 * clipped to the page. Their pixels are rendered after the structure pass (`renderFigures`); where pages cannot be
 * rendered (no @napi-rs/canvas), a region with images keeps its largest raw image and a drawing keeps no picture.
 */
async function readFigures(page: PdfJsPage, pageNumber: number, marks: readonly PaintedMark[], lines: readonly PdfLine[], frame: PdfMatrix, context: PageReadContext): Promise<PdfPagePictureBlock[]> {
  const { collector } = context.pictures!;
  const toUserSpace = invertMatrix(frame);
  const text = lines.filter((line) => !line.rotated).map((line) => {
    const { left, top, right, bottom } = mapRectangle(toUserSpace, line.left, line.top, line.right, line.bottom);
    return { box: { x0: left, y0: top, x1: right, y1: bottom }, characters: line.characterCount, monospace: line.monospace, table: line.table !== undefined };
  });
  const regions = figureRegions(marks, pageRectangle(page), text).slice(0, PDF_FIGURES_MAX_PER_PAGE);
  const renderable = regions.length > 0 && await context.renderer.available();
  let rawImages: PdfPagePicture[] | undefined;
  const blocks: PdfPagePictureBlock[] = [];
  for (const region of regions) {
    const { x0, y0, x1, y1 } = region.box;
    const round = (value: number) => Math.round(value * 100) / 100;
    const box = { page: pageNumber, x: round(x0), y: round(y0), width: round(x1 - x0), height: round(y1 - y0) };
    const frameBox = mapRectangle(frame, x0, y0, x1, y1);
    if (renderable) {
      blocks.push({ box, renderLater: true, ...frameBox });
      continue;
    }
    if (region.images === 0) {
      continue;
    }
    rawImages ??= await extractPagePictures(page, pageNumber, context.operators, new PictureCollector({ maxPictures: Infinity, maxBytes: Infinity })).catch(() => []);
    const largest = rawImages
      .filter((image) => image.picture?.bytes && image.box.x < x1 && image.box.x + image.box.width > x0 && image.box.y < y1 && image.box.y + image.box.height > y0)
      .sort((first, second) => second.box.width * second.box.height - first.box.width * first.box.height)[0];
    const collected = largest?.picture?.bytes ? collector.addEncoded(largest.picture.bytes) : collector.addFailure('undecodable');
    blocks.push({ box, picture: collected.picture, ...frameBox });
  }
  return blocks;
}

/**
 * Pixels for the picture items that have none yet: figure regions, and figures found from their captions alone
 * (see pdfStructure's `anchorVectorFigures`). A page's figures render together, once, at the scale the largest
 * allows, each page within `PDF_FIGURE_RENDER_SHARE_OF_PAGE_TIMEOUT` of the page time limit; crops become PNGs.
 */
async function renderFigures(items: readonly DocumentItem[], context: Omit<PageReadContext, 'fonts'>, deadline: number): Promise<void> {
  const { collector } = context.pictures!;
  const waiting = items.filter((item) => item.label === 'picture' && !item.picture && item.boxes?.length === 1);
  if (waiting.length === 0 || !(await context.renderer.available())) {
    return;
  }
  const byPage = new Map<number, DocumentItem[]>();
  for (const item of waiting) {
    byPage.set(item.boxes![0].page, [...(byPage.get(item.boxes![0].page) ?? []), item]);
  }
  for (const [pageNumber, pageItems] of byPage) {
    throwIfAborted(context.abortSignal);
    if (Date.now() > deadline) {
      return;
    }
    const regions = pageItems.map((item) => {
      const [box] = item.boxes!;
      return { x0: box.x, y0: box.y, x1: box.x + box.width, y1: box.y + box.height };
    });
    const union = regions.reduce((first, second) => ({ x0: Math.min(first.x0, second.x0), y0: Math.min(first.y0, second.y0), x1: Math.max(first.x1, second.x1), y1: Math.max(first.y1, second.y1) }));
    const scale = Math.min(...regions.map(figureScale), Math.sqrt(PDF_FIGURE_RENDER_MAX_PIXELS / Math.max(1, (union.x1 - union.x0) * (union.y1 - union.y0))));
    const timeout = AbortSignal.timeout(PDF_FIGURE_RENDER_SHARE_OF_PAGE_TIMEOUT * PDF_PAGE_TIMEOUT_MS);
    const signal = context.abortSignal ? AbortSignal.any([context.abortSignal, timeout]) : timeout;
    const rendered = await context.renderer.renderRegion(pageNumber, union, scale, signal).catch(() => undefined);
    if (!rendered) {
      collector.addFailure('undecodable');
      continue;
    }
    pageItems.forEach((item, index) => {
      const crop = cropPixels(rendered, regions[index]);
      const collected = crop ? collector.addRaw(crop) : undefined;
      if (collected?.picture) {
        item.picture = collected.picture;
      }
    });
  }
}

/** A user-space rectangle cut out of rendered pixels, as RGB (the rendering is opaque: dropping alpha shrinks the PNG). */
function cropPixels(rendered: RenderedPixels, box: UserRectangle): RawImage | undefined {
  const { image, transform } = rendered;
  const rectangle = mapRectangle(transform, box.x0, box.y0, box.x1, box.y1);
  const left = Math.max(0, Math.floor(rectangle.left));
  const top = Math.max(0, Math.floor(rectangle.top));
  const width = Math.min(image.width, Math.ceil(rectangle.right)) - left;
  const height = Math.min(image.height, Math.ceil(rectangle.bottom)) - top;
  if (width <= 0 || height <= 0) {
    return undefined;
  }
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    let source = ((top + y) * image.width + left) * 4;
    let target = y * width * 3;
    for (let x = 0; x < width; x++, source += 4, target += 3) {
      rgb[target] = image.data[source];
      rgb[target + 1] = image.data[source + 1];
      rgb[target + 2] = image.data[source + 2];
    }
  }
  return { width, height, channels: 3, data: rgb };
}

/** Pixels per point for a figure: `PDF_FIGURE_RENDER_SCALE`, less where the region would pass the pixel or side limits. */
function figureScale(box: UserRectangle): number {
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  return Math.min(PDF_FIGURE_RENDER_SCALE, Math.sqrt(PDF_FIGURE_RENDER_MAX_PIXELS / Math.max(1, width * height)), PICTURE_MAX_SIDE_PX / Math.max(1, width, height));
}

/**
 * OCR of the scanned pages (see `ReadPage.scanned`) unless `ocr.enabled` is false: each page's text layer (if any)
 * is replaced by the lines OCR read, in the page's upright frame, and a picture covering most of the page (the
 * scan itself) is dropped. OCR stops where less than a page's time limit is left of the conversion's. Returns
 * the warnings: pages without text and why, pages read by OCR.
 */
async function readScannedPages(document: PdfJsDocument, pages: ReadPage[], options: ConvertPdfOptions, context: Omit<PageReadContext, 'fonts'>, deadline: number): Promise<string[]> {
  const warnings: string[] = [];
  const enabled = options.ocr?.enabled !== false;
  const languages = options.ocr?.languages?.length ? options.ocr.languages : DEFAULT_OCR_OPTIONS.languages;
  const read: number[] = [];
  const turned: number[] = [];
  const outOfTime: number[] = [];
  let unavailable = false;
  for (const page of pages.filter((candidate) => candidate.scanned)) {
    if (!enabled || unavailable) {
      continue;
    }
    throwIfAborted(context.abortSignal);
    const remaining = deadline - Date.now() - PDF_PAGE_TIMEOUT_MS;
    if (remaining <= 0) {
      outOfTime.push(page.pageNumber);
      continue;
    }
    try {
      const result = await recognizePage(document, page.pageNumber, context, { languages, abortSignal: context.abortSignal, timeoutMilliseconds: Math.min(OCR_PAGE_TIMEOUT_MS, remaining) });
      if (!result) {
        unavailable = true;
        continue;
      }
      if (result.lines.length === 0) {
        continue;
      }
      const pageArea = page.width * page.height;
      const frame = invertMatrix(result.toUserSpace);
      Object.assign(page, {
        lines: result.lines, width: result.width, height: result.height, toUserSpace: result.toUserSpace,
        pictures: page.pictures?.filter((picture) => picture.box.width * picture.box.height < PDF_OCR_SCANNED_IMAGE_SHARE * pageArea)
          .map((picture) => ({ ...picture, ...mapRectangle(frame, picture.box.x, picture.box.y, picture.box.x + picture.box.width, picture.box.y + picture.box.height) })),
      });
      read.push(page.pageNumber);
      if (result.rotation !== 0) {
        turned.push(page.pageNumber);
      }
    } catch (error) {
      if (isHaikuError(error, 'cancelled')) {
        throw error;
      }
      warnings.push(`OCR of page ${page.pageNumber} failed (${errorMessage(error)}); its text is missing.`);
    }
  }
  const scannedWithoutText = pages.filter((page) => page.scanned && page.lines.length === 0 && !outOfTime.includes(page.pageNumber)).map((page) => page.pageNumber);
  const blank = pages.filter((page) => !page.scanned && !page.failed && page.lines.length === 0).map((page) => page.pageNumber);
  if (scannedWithoutText.length > 0 && !enabled) {
    warnings.push(`${pageList(scannedWithoutText, true)} no text layer (scanned or image-only); OCR is off, so that text is not indexed. Turn on processing.ocr.enabled to read it.`);
  } else if (scannedWithoutText.length > 0 && unavailable) {
    warnings.push(`${pageList(scannedWithoutText, true)} no text layer (scanned or image-only); reading it by OCR needs the pages rendered with @napi-rs/canvas, which cannot load here (no binary for this platform). Index the PDF with the haiku CLI on another machine, or run OCR on it first.`);
  } else if (scannedWithoutText.length > 0) {
    warnings.push(`No text layer on ${pageList(scannedWithoutText, false)} (blank, scanned or image-only), and OCR found no legible text there; nothing there is indexed.`);
  }
  if (blank.length > 0) {
    warnings.push(`No text layer on ${pageList(blank, false)} (blank: nothing is painted there); nothing there is indexed.`);
  }
  if (outOfTime.length > 0) {
    warnings.push(`${pageList(outOfTime, true)} no text layer and were not read by OCR: the conversion's time limit was near. Split the PDF to index all of it.`);
  }
  if (read.length > 0) {
    warnings.push(`${pageList(read, false).replace(/^p/, 'P')} had no text layer and ${read.length > 1 ? 'were' : 'was'} read by OCR (${languages.join('+')}); recognition errors are possible.`);
  }
  if (turned.length > 0) {
    warnings.push(`OCR read ${pageList(turned, false)} turned upright (the scan lay sideways or upside down).`);
  }
  return warnings;
}

/**
 * OCR of one page: the scan's own pixels when one image covers most of the page (no rendering needed, so this
 * works without @napi-rs/canvas), else the page rendered. Undefined when neither is possible here.
 */
async function recognizePage(document: PdfJsDocument, pageNumber: number, context: Omit<PageReadContext, 'fonts'>, options: PdfOcrOptions): Promise<OcrPageLines | undefined> {
  const page = await document.getPage(pageNumber);
  try {
    const pageBox = pageRectangle(page);
    const pageArea = (pageBox.x1 - pageBox.x0) * (pageBox.y1 - pageBox.y0);
    const scans = (await paintedMarks(page, context.operators))
      .filter((mark) => mark.image && (mark.box.x1 - mark.box.x0) * (mark.box.y1 - mark.box.y0) >= PDF_OCR_SCANNED_IMAGE_SHARE * pageArea);
    const scan = scans.length === 1 ? scans[0].image! : undefined;
    const image = scan ? await lookUp(page, scan.id) : undefined;
    const fromImage = image && scan ? await recognizeScanImage(image, scan.matrix, pageNumber, options) : undefined;
    return fromImage ?? await recognizeRenderedPage(context.renderer, pageNumber, options);
  } finally {
    page.cleanup();
  }
}

/** "page 3" / "pages 3, 4 and 5 more", with "has"/"have" when `withVerb` (sentence start, capitalised). */
function pageList(numbers: readonly number[], withVerb: boolean): string {
  const list = numbers.length > 10 ? `${numbers.slice(0, 10).join(', ')} and ${numbers.length - 10} more` : numbers.join(', ');
  const phrase = `page${numbers.length > 1 ? 's' : ''} ${list}`;
  return withVerb ? `P${phrase.slice(1)} ${numbers.length > 1 ? 'have' : 'has'}` : phrase;
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
