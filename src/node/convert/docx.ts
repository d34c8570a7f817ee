import * as mammoth from 'mammoth';
import type { ConvertedDocument, PictureData } from '../../core/model/document';
import { ConversionError, throwIfAborted } from '../../core/errors';
import { DOCX_MAX_INFLATED_BYTES, DOCX_MAX_INFLATED_XML_BYTES } from '../../core/limits';
import { DocumentBuilder } from './documentBuilder';
import { firstHeadingText, parseHtml, walkHtml, type ConvertOptions } from './html';
import { PictureCollector } from './pictures/pictureCollector';
import type { PictureProcessing } from './convertFile';
import { zipInflationProblem, type ZipInflationProblem } from './zipInflationBudget';

/** The paragraph style our document transform gives code paragraphs; mapped to `<pre>` below. */
const CODE_STYLE_NAME = 'Haiku Code';

/**
 * Word styles → HTML the walker understands. mammoth maps `heading 1`–`heading 6` itself; the Word title
 * becomes `h1.title` (the walker's `title` label), captions `p.caption`, and code paragraphs one `<pre>` per run
 * of consecutive paragraphs.
 */
const STYLE_MAP = [
  "p[style-name='Title'] => h1.title:fresh",
  "p[style-name='caption'] => p.caption:fresh",
  `p[style-name='${CODE_STYLE_NAME}'] => pre:separator('\\n')`,
];

/** Paragraph styles that mean "code" (exact names, case-insensitive: `Source Reference` is not code). */
const CODE_STYLE_NAMES = new Set(['source code', 'code', 'code block', 'html preformatted', 'macro text', 'preformatted text', 'verbatim char', 'verbatim']);

const MONOSPACE_FONT = /mono|courier|consolas|menlo|monaco|lucida console|lucida sans typewriter|inconsolata|fira code|cascadia|source code/i;

/** Characters that make a run of monospaced paragraphs code rather than typewriter-styled prose. */
const CODE_CHARACTERS = /[;{}()[\]=<>]|^\s{2,}\S|^\s*(?:#|\/\/)/;

const HEADING_STYLE = /^heading ([1-9])(.*)$/i;

/** The parts of mammoth's internal document model the transform reads and writes. */
interface DocxNode {
  type: string;
  children?: DocxNode[];
  styleId?: string | null;
  styleName?: string | null;
  numbering?: { isOrdered: boolean; level: string } | null;
  value?: string;
  font?: string | null;
}

/**
 * Converts a DOCX file: mammoth renders it as HTML (headings, lists, tables with `colspan`/`rowspan`, images),
 * then the HTML walker turns that into items. DOCX has no source lines, so items carry no source range.
 */
export async function convertDocx(bytes: Uint8Array, options: ConvertOptions & { filePath?: string; pictures?: PictureProcessing }): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const filePath = options.filePath ?? options.fileName;
  if (isOleCompoundFile(bytes)) {
    // DOCX is a zip; an OLE container is either a password-protected DOCX or a legacy binary .doc.
    if (containsUtf16(bytes, 'EncryptedPackage')) {
      throw new ConversionError('encrypted_file', filePath, 'is password-protected. Remove the password in Word (File > Info > Protect Document) or exclude the file.');
    }
    throw new ConversionError('corrupt_file', filePath, 'is a legacy binary Word file (.doc), not DOCX. Save it as .docx in Word or LibreOffice.');
  }
  const inflation = await zipInflationProblem(bytes, { maxTotalBytes: DOCX_MAX_INFLATED_BYTES, maxMarkupBytes: DOCX_MAX_INFLATED_XML_BYTES, isMarkup: isXmlPart }, options.abortSignal);
  if (inflation) {
    throw new ConversionError('file_too_large', filePath, inflationProblemText(inflation));
  }
  const pictures: DocxPictures = { collector: new PictureCollector(), bySource: new Map(), enabled: options.pictures !== 'none' };
  let result: { value: string; messages: Array<{ type: string; message: string }> };
  try {
    result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        transformDocument: (document: DocxNode) => transformDocument(document),
        // Each image's bytes go through the picture collector; the HTML walker finds them again by this `src`.
        convertImage: mammoth.images.imgElement(async (image: MammothImage) => ({ src: await capturePicture(image, pictures) })),
        externalFileAccess: false,
      },
    );
  } catch (error) {
    throw new ConversionError('corrupt_file', filePath, `is not a readable DOCX file (${error instanceof Error ? error.message : String(error)}). Re-save it from Word or exclude it from indexing.`, { cause: error });
  }
  throwIfAborted(options.abortSignal);
  const html = await parseHtml(result.value);
  const builder = new DocumentBuilder();
  walkHtml(html.children, builder, { abortSignal: options.abortSignal, pictures: (image) => pictures.bySource.get(image.attribs.src ?? '') });
  const warnings = [...new Set(result.messages.filter((message) => message.type === 'error').map((message) => message.message)), ...builder.allWarnings(), ...pictures.collector.warnings()];
  return { format: 'docx', title: firstHeadingText(builder) ?? options.fileName, items: builder.items, content: builder.toMarkdown(), warnings };
}

/** The part of mammoth's image object used here. */
interface MammothImage {
  contentType?: string;
  read(): Promise<Buffer>;
}

interface DocxPictures {
  collector: PictureCollector;
  bySource: Map<string, PictureData>;
  enabled: boolean;
}

/** Keeps an embedded image's bytes (when pictures are on) and returns the placeholder `src` that finds them. */
async function capturePicture(image: MammothImage, pictures: DocxPictures): Promise<string> {
  if (!pictures.enabled) {
    return '';
  }
  let collected;
  try {
    collected = await pictures.collector.addEncodedScaled(new Uint8Array(await image.read()));
  } catch {
    collected = pictures.collector.addFailure('undecodable');
  }
  if (!collected.picture) {
    return '';
  }
  const source = `haiku-picture:${pictures.bySource.size}`;
  pictures.bySource.set(source, collected.picture);
  return source;
}

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function isXmlPart(name: string): boolean {
  return /\.(?:xml|rels)$/i.test(name);
}

function mebibytes(bytes: number): string {
  return `${Math.ceil(bytes / 1024 / 1024)} MiB`;
}

function inflationProblemText(problem: ZipInflationProblem): string {
  switch (problem.kind) {
    case 'declared_total':
      return `would inflate to ${mebibytes(problem.declaredBytes)}, more than the ${mebibytes(problem.limitBytes)} a DOCX may (a zip bomb, or a document too large to convert). Split it or exclude it from indexing.`;
    case 'declared_markup':
      return `holds ${mebibytes(problem.declaredBytes)} of XML, more than the ${mebibytes(problem.limitBytes)} a DOCX may (a zip bomb, or a document too large to convert). Split it or exclude it from indexing.`;
    case 'inflates_past_declared':
      return `is damaged or a zip bomb: its part ${problem.entry} inflates past the ${problem.declaredBytes} bytes its header declares. Re-save it from Word or exclude it from indexing.`;
  }
}

function isOleCompoundFile(bytes: Uint8Array): boolean {
  return bytes.byteLength >= OLE_SIGNATURE.length && OLE_SIGNATURE.every((value, index) => bytes[index] === value);
}

/** Whether `text` occurs in `bytes` as UTF-16LE (how OLE directory entries store stream names). */
function containsUtf16(bytes: Uint8Array, text: string): boolean {
  const needle = Buffer.from(text, 'utf16le');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(needle) >= 0;
}

/** Adds outline numbers to numbered headings, normalises heading style variants and marks code paragraphs. */
function transformDocument(document: DocxNode): DocxNode {
  const paragraphs: DocxNode[] = [];
  collectParagraphs(document, paragraphs);
  numberHeadings(paragraphs);
  markCodeParagraphs(document);
  return document;
}

function collectParagraphs(node: DocxNode, into: DocxNode[]): void {
  if (node.type === 'paragraph') {
    into.push(node);
    return;
  }
  for (const child of node.children ?? []) {
    collectParagraphs(child, into);
  }
}

/**
 * Word shows outline numbers ("1.2.1") that are not in the text. mammoth exposes numbering only where the
 * paragraph itself carries it (usually `heading 1`), not where it is inherited from the heading styles, so when
 * level-1 headings are numbered the whole outline is numbered the way Word counts it: a skipped level counts as 1.
 */
function numberHeadings(paragraphs: readonly DocxNode[]): void {
  const headings = paragraphs
    .map((paragraph) => ({ paragraph, match: HEADING_STYLE.exec(paragraph.styleName ?? '') }))
    .filter((entry): entry is { paragraph: DocxNode; match: RegExpExecArray } => entry.match !== null);
  const numbered = headings.some(({ paragraph, match }) => match[1] === '1' && match[2] === '' && paragraph.numbering?.isOrdered === true);
  const counters: number[] = [];
  for (const { paragraph, match } of headings) {
    const level = Number(match[1]);
    // Variants such as "heading 2 invisible num" keep their level but show no number.
    paragraph.styleName = `heading ${Math.min(level, 6)}`;
    if (!numbered || match[2] !== '') {
      continue;
    }
    counters[level - 1] = (counters[level - 1] ?? 0) + 1;
    counters.length = level;
    for (let index = 0; index < level - 1; index++) {
      counters[index] = counters[index] || 1;
    }
    prependText(paragraph, counters.join('.') + ' ');
  }
}

function prependText(paragraph: DocxNode, text: string): void {
  const firstRun = paragraph.children?.find((child) => child.type === 'run');
  if (firstRun?.children) {
    firstRun.children.unshift({ type: 'text', value: text });
  }
}

/**
 * Code paragraphs: a code paragraph style, or a run of consecutive paragraphs set entirely in a monospaced font
 * of which at least one line looks like code (so typewriter-styled prose stays prose).
 */
function markCodeParagraphs(node: DocxNode): void {
  const children = node.children ?? [];
  let group: DocxNode[] = [];
  const flush = () => {
    if (group.some((paragraph) => CODE_CHARACTERS.test(paragraphText(paragraph)))) {
      for (const paragraph of group) {
        paragraph.styleName = CODE_STYLE_NAME;
      }
    }
    group = [];
  };
  for (const child of children) {
    if (child.type !== 'paragraph') {
      flush();
      markCodeParagraphs(child);
      continue;
    }
    if (CODE_STYLE_NAMES.has((child.styleName ?? '').toLowerCase())) {
      flush();
      child.styleName = CODE_STYLE_NAME;
    } else if (!HEADING_STYLE.test(child.styleName ?? '') && isMonospaced(child)) {
      group.push(child);
    } else {
      flush();
    }
  }
  flush();
}

function isMonospaced(paragraph: DocxNode): boolean {
  let sawText = false;
  let allMonospace = true;
  const visit = (node: DocxNode, font: string | null | undefined) => {
    const currentFont = node.type === 'run' ? node.font : font;
    if (node.type === 'text' && node.value && node.value.trim()) {
      sawText = true;
      if (!currentFont || !MONOSPACE_FONT.test(currentFont)) {
        allMonospace = false;
      }
    }
    for (const child of node.children ?? []) {
      visit(child, currentFont);
    }
  };
  visit(paragraph, undefined);
  return sawText && allMonospace;
}

function paragraphText(node: DocxNode): string {
  if (node.type === 'text') {
    return node.value ?? '';
  }
  if (node.type === 'tab') {
    return '\t';
  }
  return (node.children ?? []).map(paragraphText).join('');
}
