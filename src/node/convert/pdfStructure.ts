/**
 * Turns laid-out PDF lines into document items: page furniture, paragraphs, headings (from the outline when it
 * matches the text, else from font size and weight), lists, captions, code, footnotes and tables of contents.
 * Pure logic over `PdfLine`s; pdf.js stays in `pdf.ts`.
 */
import type { ItemLabel, PageBox, PictureData } from '../../core/model/document';
import { DocumentBuilder, markdownTable } from './documentBuilder';
import type { PdfLine } from './pdfLayout';
import { IDENTITY_MATRIX, mapToPageBox, type PdfMatrix } from './pdfMatrix';
import { CAPTION_START, FIGURE_CAPTION_START } from './pictures/captions';
import { PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS, PDF_VECTOR_FIGURE_MIN_GAP_POINTS } from '../../core/limits';

export interface PdfPageLines {
  pageNumber: number;
  width: number;
  height: number;
  /** Lines in reading order. */
  lines: PdfLine[];
  /** Maps the upright frame the lines are in back to PDF user space (for item boxes); identity when absent. */
  toUserSpace?: number[];
  /**
   * Raster images of the page, in painting order. Absent when pictures are off (`processing.pictures: none`):
   * then the page gets no picture items at all, not even vector-drawn figures found from their captions.
   */
  pictures?: PdfPagePictureBlock[];
}

/** A raster image placed on the page: frame coordinates for reading order, a user-space box for highlights. */
export interface PdfPagePictureBlock {
  left: number;
  right: number;
  top: number;
  bottom: number;
  box: PageBox;
  /** Absent when the image was skipped (too small, undecodable, over the budget) or is still to be rendered. */
  picture?: PictureData;
  /** A figure region whose pixels are rendered from its box once the items exist (see `convertPdf`). */
  renderLater?: boolean;
}

/** One bookmark of the PDF outline, resolved to a page. */
export interface PdfOutlineEntry {
  title: string;
  /** 1 for top-level bookmarks. */
  depth: number;
  pageNumber: number;
  /** Device-space y of the destination (top of the view), when the destination gives one. */
  top?: number;
}

export interface PdfStructureResult {
  builder: DocumentBuilder;
  /** Markdown of the items without page headers and footers (furniture would interrupt sentences across pages). */
  content: string;
  title?: string;
  /** The outline matched enough headings to be trusted as the heading source. */
  usedOutline: boolean;
}

interface PdfBlock {
  pageNumber: number;
  lines: PdfLine[];
  text: string;
  fontSize: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  top: number;
  bottom: number;
  left: number;
  right: number;
  label: ItemLabel;
  headingLevel: number;
  /** Heading found through the outline. */
  outlineDepth?: number;
}

type FurnitureLabel = 'page_header' | 'page_footer';

/** Share of the page height at the top and bottom where headers and footers live. */
const FURNITURE_ZONE = 0.13;
/** The same for a line holding nothing but a page number. */
const PAGE_NUMBER_ZONE = 0.2;
/** A header/footer text must repeat on at least this share of pages. */
const FURNITURE_REPEAT_SHARE = 0.3;
/** A header/footer band (same position, with a page number) must appear on at least this share of pages. */
const FURNITURE_BAND_SHARE = 0.4;
/** Headings are at least this much larger than the body text, unless bold or set apart in italics. */
const HEADING_SIZE_RATIO = 1.1;
/** The title is at least this much larger than the body text. */
const TITLE_SIZE_RATIO = 1.25;

const BULLET = /^([•●○◦▪▫■□‣⁃∙·*➢➤►▶✓✔❖♦◆-]|[\uE000-\uF8FF])\s*(?=\S)/u;
const ENUMERATION = /^(\(?(\d{1,3}|[a-z]|[ivx]{1,4})[.)])\s+\S/i;
const TOC_LINE = /(\.\s?){3,}\s*([\dA-Za-z]{0,8})\s*$|\s\.{3,}/;
const TOC_HEADING = /^(table of contents|contents|inhalt|inhaltsverzeichnis|sommaire|table des matières|índice|indice|inhoud|innehåll|spis treści)$/i;
const ENDS_WITH_PAGE_NUMBER = /\s(\d{1,4}|[ivxlcdm]{1,7})$/i;
const PAGE_NUMBER_CELL = /^(\d{1,4}|[ivxlc]{1,7})$/;
const SECTION_NUMBER = /^(\d{1,2}(?:\.\d{1,3}){0,5})\.?\s+\S/;
const CODE_CHARACTERS = /[;{}()[\]=<>]|^\s{2,}\S|^\s*(#|\/\/)/;
/** A bare page number ("7", "- 7 -", "Page 7 of 9", "xi"); roman numerals in lower case only, so table cells like "X" do not count. */
const PAGE_NUMBER_ONLY = /^(?:[Pp]age|PAGE|[Ss]eite|p\.)?\s*[-–—]?\s*(\d{1,4}|[ivxlc]{1,7}|\d{1,2}[-–]\d{1,4})\s*[-–—]?(\s*(of|von|\/)\s*\d{1,4})?$/;
/** A page number before or after the text of a header/footer ("12 Chapter title", "Title  xi"); not a section number ("2.1 Title"). */
const PAGE_NUMBER_AT_EDGE = /^(\d{1,4}|[ivxlc]{1,7})\s+\S|\S\s+(\d{1,4}|[ivxlc]{1,7})$/;

/** Builds the items of a PDF from its laid-out pages. */
export function buildPdfStructure(pages: readonly PdfPageLines[], outline: readonly PdfOutlineEntry[]): PdfStructureResult {
  const furniture = detectFurniture(pages);
  const bodySize = dominantSize(pages.flatMap((page) => page.lines.filter((line) => !furniture.has(line))));
  const referenceSizes = new Map(pages.map((page) => [page.pageNumber, pageReferenceSize(page, furniture, bodySize)]));
  const blocksByPage = new Map(pages.map((page) => [page.pageNumber, groupBlocks(page.lines.filter((line) => !furniture.has(line)), bodySize)]));
  const allBlocks = pages.flatMap((page) => blocksByPage.get(page.pageNumber) ?? []);

  const matched = matchOutline(outline, blocksByPage);
  const usedOutline = matched >= Math.max(2, Math.ceil(0.5 * outline.length));
  if (!usedOutline) {
    allBlocks.forEach((block) => { block.outlineDepth = undefined; });
  }
  const smallestOutlineHeading = usedOutline
    ? Math.min(...allBlocks.filter((block) => block.outlineDepth !== undefined).map((block) => block.fontSize))
    : 0;

  const heights = new Map(pages.map((page) => [page.pageNumber, page.height]));
  let inTableOfContents = false;
  for (const block of allBlocks) {
    const reference = referenceSizes.get(block.pageNumber) ?? bodySize;
    block.label = classifyBlock(block, reference, heights.get(block.pageNumber) ?? 0, inTableOfContents);
    if (block.outlineDepth !== undefined) {
      block.label = 'section_header';
    } else if (block.label === 'section_header' && usedOutline && block.fontSize < smallestOutlineHeading * 0.98) {
      // With a trusted outline, only text styled like the outline's headings may add headings.
      block.label = 'paragraph';
    }
    if (block.label === 'section_header') {
      inTableOfContents = TOC_HEADING.test(block.text.trim());
    } else if (inTableOfContents && block.label !== 'document_index' && !isTableOfContentsBlock(block, true)) {
      inTableOfContents = false;
    }
  }

  const title = chooseTitle(allBlocks, bodySize, pages) ?? openingHeading(allBlocks, pages);
  if (title) {
    title.label = 'title';
  }
  assignHeadingLevels(allBlocks, bodySize);

  const builder = new DocumentBuilder();
  const contentBuilder = new DocumentBuilder();
  for (const page of pages) {
    const pageFurniture = page.lines.filter((line) => furniture.has(line));
    for (const line of pageFurniture.filter((candidate) => furniture.get(candidate) === 'page_header')) {
      builder.add({ label: 'page_header', text: line.text, pageNumbers: [page.pageNumber], sourceRange: { page: page.pageNumber } });
    }
    const pageBlocks = blocksByPage.get(page.pageNumber) ?? [];
    const anchors = anchorPictures(page, pageBlocks, bodySize);
    if (page.pictures) {
      anchorVectorFigures(page, pageBlocks, pageFurniture, anchors);
    }
    const toUserSpace = page.toUserSpace ?? IDENTITY_MATRIX;
    pageBlocks.forEach((block, index) => {
      for (const picture of anchors.get(index) ?? []) {
        emitPicture(builder, page.pageNumber, picture);
        emitPicture(contentBuilder, page.pageNumber, picture);
      }
      emitBlock(builder, block, toUserSpace);
      emitBlock(contentBuilder, block, toUserSpace);
    });
    for (const picture of anchors.get(pageBlocks.length) ?? []) {
      emitPicture(builder, page.pageNumber, picture);
      emitPicture(contentBuilder, page.pageNumber, picture);
    }
    for (const line of pageFurniture.filter((candidate) => furniture.get(candidate) === 'page_footer')) {
      builder.add({ label: 'page_footer', text: line.text, pageNumbers: [page.pageNumber], sourceRange: { page: page.pageNumber } });
    }
  }
  return { builder, content: contentBuilder.toMarkdown(), title: title?.text, usedOutline };
}

/**
 * Where each kept picture goes in reading order: immediately before its caption ("Figure 3: …" just above or below
 * it, overlapping it horizontally), so that a caption at position p has its picture at p − 1; otherwise before
 * the first block that starts below the picture's top. Keyed by the index of the block it precedes.
 */
function anchorPictures(page: PdfPageLines, blocks: readonly PdfBlock[], bodySize: number): Map<number, PdfPagePictureBlock[]> {
  const anchors = new Map<number, PdfPagePictureBlock[]>();
  const taken = new Set<number>();
  for (const picture of page.pictures ?? []) {
    if (!picture.picture && !picture.renderLater) {
      continue;
    }
    const reach = 4 * bodySize;
    let index = blocks.findIndex((block, blockIndex) => !taken.has(blockIndex) && block.label === 'caption' && CAPTION_START.test(block.text)
      && block.right > picture.left && block.left < picture.right
      && (Math.abs(block.top - picture.bottom) <= reach || Math.abs(picture.top - block.bottom) <= reach));
    if (index >= 0) {
      taken.add(index);
    } else {
      index = blocks.findIndex((block) => block.top >= picture.top);
      index = index < 0 ? blocks.length : index;
    }
    anchors.set(index, [...(anchors.get(index) ?? []), picture]);
  }
  return anchors;
}

/**
 * Figures drawn with paths have no image to find, so their caption stands for them: a figure caption with no
 * picture placed before it gets a picture item without bytes (caption at p, picture at p − 1), boxed by the empty
 * band between the caption and the nearest text on the side with the larger gap, across the caption's column.
 * Short blocks do not bound the band (they may be labels inside the drawing); a band under
 * `PDF_VECTOR_FIGURE_MIN_GAP_POINTS` or over a kept raster image records nothing.
 */
function anchorVectorFigures(page: PdfPageLines, blocks: readonly PdfBlock[], furniture: readonly PdfLine[], anchors: Map<number, PdfPagePictureBlock[]>): void {
  const toUserSpace = page.toUserSpace ?? IDENTITY_MATRIX;
  const upright = page.lines.filter((line) => !line.rotated);
  const pageTop = Math.min(...upright.map((line) => line.top));
  const pageBottom = Math.max(...upright.map((line) => line.bottom));
  const rasters = (page.pictures ?? []).filter((picture) => picture.picture || picture.renderLater);
  blocks.forEach((caption, index) => {
    if (caption.label !== 'caption' || !FIGURE_CAPTION_START.test(caption.text) || anchors.has(index) || caption.lines[0].rotated) {
      return;
    }
    const text = blocks.filter((block) => block !== caption && !block.lines[0].rotated
      && (block.label === 'section_header' || block.label === 'title' || block.text.length > PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS));
    // The caption's column: the text running across it; then the band stops at any text of that column.
    const column = text.filter((block) => block.right > caption.left && block.left < caption.right);
    const left = Math.min(caption.left, ...column.map((block) => block.left));
    const right = Math.max(caption.right, ...column.map((block) => block.right));
    // Headers and footers are not blocks but bound the band too.
    const inColumn = [...text, ...furniture.filter((line) => !line.rotated)].filter((block) => block.right > left && block.left < right);
    const topBound = Math.max(pageTop, ...inColumn.filter((block) => block.bottom <= caption.top).map((block) => block.bottom));
    const bottomBound = Math.min(pageBottom, ...inColumn.filter((block) => block.top >= caption.bottom).map((block) => block.top));
    const gapAbove = caption.top - topBound;
    const gapBelow = bottomBound - caption.bottom;
    if (Math.max(gapAbove, gapBelow) < PDF_VECTOR_FIGURE_MIN_GAP_POINTS) {
      return;
    }
    const top = gapAbove >= gapBelow ? topBound : caption.bottom;
    const bottom = gapAbove >= gapBelow ? caption.top : bottomBound;
    if (rasters.some((picture) => picture.left < right && picture.right > left && picture.top < bottom && picture.bottom > top)) {
      return;
    }
    const box = mapToPageBox(toUserSpace, page.pageNumber, left, top, right, bottom);
    anchors.set(index, [{ left, right, top, bottom, box }]);
  });
}

function emitPicture(builder: DocumentBuilder, pageNumber: number, picture: PdfPagePictureBlock): void {
  builder.add({ label: 'picture', text: '', pageNumbers: [pageNumber], sourceRange: { page: pageNumber }, boxes: [picture.box], picture: picture.picture });
}

/** A line's rectangle in PDF user space (the frame is a rotation by quarter turns plus a shift, so corners suffice). */
function lineBox(line: PdfLine, toUserSpace: PdfMatrix): PageBox {
  return mapToPageBox(toUserSpace, line.pageNumber, line.left, line.top, line.right, line.bottom);
}

function emitBlock(builder: DocumentBuilder, block: PdfBlock, toUserSpace: PdfMatrix): void {
  const base = { pageNumbers: [block.pageNumber], sourceRange: { page: block.pageNumber }, boxes: block.lines.filter((line) => !line.rotated).map((line) => lineBox(line, toUserSpace)) };
  if (block.label === 'paragraph' && !/[\p{L}\p{N}]/u.test(block.text)) {
    // Glyphs of a font without a usable encoding come out as stray punctuation; they carry no text.
    return;
  }
  switch (block.label) {
    case 'list_item': {
      // Bullets go (the Markdown rendering adds its own); enumerators ("2.", "b)") stay in the text.
      const text = block.text.replace(BULLET, '').trim();
      if (text) {
        builder.add({ ...base, label: 'list_item', text, treeDepth: 1 });
      }
      return;
    }
    case 'section_header':
      builder.add({ ...base, label: 'section_header', text: block.text, headingLevel: block.headingLevel });
      return;
    case 'code':
      builder.add({ ...base, label: 'code', text: codeText(block.lines) });
      return;
    case 'table':
      builder.add({ ...base, label: 'table', text: markdownTable(block.lines[0].table ?? []) });
      return;
    case 'document_index': {
      const grid = block.lines[0].table;
      builder.add({ ...base, label: 'document_index', text: grid ? markdownTable(grid) : block.lines.map((line) => line.text).join('\n') });
      return;
    }
    default:
      builder.add({ ...base, label: block.label, text: block.text });
  }
}

/** The font size most characters use (rounded to half points). */
function dominantSize(lines: readonly PdfLine[]): number {
  const weights = new Map<number, number>();
  for (const line of lines) {
    weights.set(line.fontSize, (weights.get(line.fontSize) ?? 0) + line.characterCount);
  }
  let best = 10;
  let bestWeight = -1;
  for (const [size, weight] of weights) {
    if (weight > bestWeight) {
      best = size;
      bestWeight = weight;
    }
  }
  return best;
}

/** The body size headings on this page are compared with: the page's own when it clearly uses smaller text. */
function pageReferenceSize(page: PdfPageLines, furniture: ReadonlyMap<PdfLine, FurnitureLabel>, bodySize: number): number {
  const lines = page.lines.filter((line) => !furniture.has(line));
  const characters = lines.reduce((sum, line) => sum + line.characterCount, 0);
  if (characters < 200) {
    return bodySize;
  }
  const pageSize = dominantSize(lines);
  return pageSize < 0.85 * bodySize ? pageSize : bodySize;
}

function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\b[ivxlcdm]{1,7}\b/g, '#').replace(/\s+/g, ' ').trim();
}

/**
 * Headers and footers: lines in the top/bottom margin zone, set apart from the body, that either repeat (digits
 * folded) on many pages, or carry a page number at a position used on many pages, or are a bare page number.
 */
function detectFurniture(pages: readonly PdfPageLines[]): Map<PdfLine, FurnitureLabel> {
  interface Candidate { line: PdfLine; zone: FurnitureLabel; key: string; band: string }
  const candidates: Candidate[] = [];
  const pagesByKey = new Map<string, Set<number>>();
  const pagesByBand = new Map<string, Set<number>>();
  const note = (map: Map<string, Set<number>>, key: string, pageNumber: number) => {
    const set = map.get(key) ?? new Set<number>();
    set.add(pageNumber);
    map.set(key, set);
  };
  for (const page of pages) {
    for (const line of page.lines) {
      const zone = furnitureZone(line, page);
      if (!zone || !isSetApart(line, page, zone)) {
        continue;
      }
      const key = `${zone}:${furnitureKey(line.text)}`;
      const band = `${zone}:${Math.round(line.baseline / 4)}`;
      candidates.push({ line, zone, key, band });
      note(pagesByKey, key, page.pageNumber);
      note(pagesByBand, band, page.pageNumber);
      // Neighbouring bands too, so a baseline on a bin edge still counts.
      note(pagesByBand, `${zone}:${Math.round(line.baseline / 4) - 1}`, page.pageNumber);
      note(pagesByBand, `${zone}:${Math.round(line.baseline / 4) + 1}`, page.pageNumber);
    }
  }
  const pageCount = pages.length;
  const bodySize = dominantSize(pages.flatMap((page) => page.lines));
  const pageByNumber = new Map(pages.map((page) => [page.pageNumber, page]));
  const result = new Map<PdfLine, FurnitureLabel>();
  for (const candidate of candidates) {
    const text = candidate.line.text.trim();
    // Bare numbers repeat too (table cells), so repetition alone needs some words.
    const repeated = pageCount >= 2 && /\p{L}{3}/u.test(furnitureKey(text)) && (pagesByKey.get(candidate.key)?.size ?? 0) >= Math.max(2, Math.ceil(FURNITURE_REPEAT_SHARE * pageCount));
    const banded = pageCount === 1 || (pagesByBand.get(candidate.band)?.size ?? 0) >= Math.max(2, Math.ceil(FURNITURE_BAND_SHARE * pageCount));
    const small = candidate.line.fontSize <= 1.3 * bodySize && text.length <= 120;
    const numbered = PAGE_NUMBER_AT_EDGE.test(text);
    // Footers without a page number ("© 2014 Company") count when they sit in a band many pages share.
    const bandedFooter = pageCount >= 3 && candidate.zone === 'page_footer';
    // Only the line nearest the page edge: a bold "Definition 20" opening the body is not a header.
    const outermost = isOutermost(candidate.line, pageByNumber.get(candidate.line.pageNumber), candidate.zone);
    const pageNumberOnly = PAGE_NUMBER_ONLY.test(text);
    if (repeated || (small && outermost && ((banded && (numbered || bandedFooter)) || pageNumberOnly))) {
      result.set(candidate.line, candidate.zone);
    }
  }
  // The text beside a page number on the same row ("Paper title ... 9") belongs to the header too.
  for (const candidate of candidates) {
    const text = candidate.line.text.trim();
    const besideFurniture = [...result.keys()].some((line) => line.pageNumber === candidate.line.pageNumber && line !== candidate.line
      && Math.abs(line.baseline - candidate.line.baseline) <= 0.3 * Math.min(line.fontSize, candidate.line.fontSize));
    if (besideFurniture && !result.has(candidate.line) && text.length <= 120 && candidate.line.fontSize <= 1.3 * bodySize) {
      result.set(candidate.line, candidate.zone);
    }
  }
  return result;
}

function furnitureZone(line: PdfLine, page: PdfPageLines): FurnitureLabel | undefined {
  if (line.rotated || line.table) {
    return undefined;
  }
  // Bare page numbers may sit further in (LaTeX puts them well above the bottom edge).
  const zone = PAGE_NUMBER_ONLY.test(line.text.trim()) ? PAGE_NUMBER_ZONE : FURNITURE_ZONE;
  if (line.baseline <= page.height * zone) {
    return 'page_header';
  }
  return line.baseline >= page.height * (1 - zone) ? 'page_footer' : undefined;
}

/** No other line lies between this one and the page edge (a footnote marker above the footer is not a page number). */
function isOutermost(line: PdfLine, page: PdfPageLines | undefined, zone: FurnitureLabel): boolean {
  const tolerance = 0.5 * line.fontSize;
  return !page?.lines.some((other) => other !== line && !other.rotated && (zone === 'page_header' ? other.baseline < line.baseline - tolerance : other.baseline > line.baseline + tolerance));
}

/** Headers and footers stand apart from the body: the next line towards the page centre is at least 0.8 of a line away. */
function isSetApart(line: PdfLine, page: PdfPageLines, zone: FurnitureLabel): boolean {
  const header = zone === 'page_header';
  const inward = page.lines.filter((other) => other !== line && !other.rotated
    && Math.abs(other.baseline - line.baseline) > 0.3 * Math.min(other.fontSize, line.fontSize)
    && (header ? other.baseline > line.baseline : other.baseline < line.baseline));
  if (inward.length === 0) {
    return true;
  }
  const nearest = inward.reduce((best, other) => (header ? (other.top < best.top ? other : best) : (other.bottom > best.bottom ? other : best)));
  const gap = header ? nearest.top - line.bottom : line.top - nearest.bottom;
  return gap >= 0.8 * line.fontSize;
}

function startsListItem(text: string): boolean {
  return BULLET.test(text) || ENUMERATION.test(text);
}

/** Groups lines (in reading order) into paragraphs: same style, regular line pitch, overlapping columns. */
function groupBlocks(lines: readonly PdfLine[], bodySize: number): PdfBlock[] {
  const blocks: PdfBlock[] = [];
  let current: PdfLine[] = [];
  for (const line of lines) {
    if (current.length > 0 && continuesBlock(current, line, bodySize)) {
      current.push(line);
    } else {
      if (current.length > 0) {
        blocks.push(makeBlock(current));
      }
      current = [line];
    }
  }
  if (current.length > 0) {
    blocks.push(makeBlock(current));
  }
  return blocks;
}

function continuesBlock(lines: readonly PdfLine[], line: PdfLine, bodySize: number): boolean {
  const previous = lines[lines.length - 1];
  if (line.rotated || previous.rotated || line.table || previous.table) {
    return false;
  }
  if (line.ocrParagraph !== undefined || previous.ocrParagraph !== undefined) {
    return line.ocrParagraph === previous.ocrParagraph;
  }
  if (line.bold !== previous.bold || line.italic !== previous.italic || line.monospace !== previous.monospace) {
    return false;
  }
  const size = Math.max(line.fontSize, previous.fontSize);
  const large = Math.min(line.fontSize, previous.fontSize) >= 1.25 * bodySize;
  const tolerance = large ? 1.2 : 1.08;
  const ratio = line.fontSize / previous.fontSize;
  if (ratio > tolerance || ratio < 1 / tolerance) {
    return false;
  }
  const pitch = line.baseline - previous.baseline;
  if (pitch < 0.6 * Math.min(line.fontSize, previous.fontSize) || pitch > 1.75 * size) {
    return false;
  }
  if (lines.length >= 2) {
    const previousPitch = previous.baseline - lines[lines.length - 2].baseline;
    if (pitch > 1.3 * previousPitch + 0.5) {
      return false;
    }
  }
  const blockLeft = Math.min(...lines.map((candidate) => candidate.left));
  const blockRight = Math.max(...lines.map((candidate) => candidate.right));
  const overlap = Math.min(line.right, blockRight) - Math.max(line.left, blockLeft);
  if (overlap <= 0) {
    return false;
  }
  if (startsListItem(line.text)) {
    return false;
  }
  if (!previous.monospace) {
    const endsSentence = /[.!?:]["'”’)]?$/.test(previous.text);
    // A first-line indent after a finished sentence starts a new paragraph.
    if (endsSentence && line.left - blockLeft > 0.8 * line.fontSize && line.left - previous.left > 0.8 * line.fontSize) {
      return false;
    }
    // A finished sentence on a line that stops well short of the column's right edge ends the paragraph.
    const right = Math.max(blockRight, line.right);
    if (endsSentence && right - previous.right > Math.max(4 * line.fontSize, 0.25 * (right - blockLeft))) {
      return false;
    }
  }
  return true;
}

function makeBlock(lines: PdfLine[]): PdfBlock {
  const characters = lines.reduce((sum, line) => sum + line.characterCount, 0);
  const share = (predicate: (line: PdfLine) => boolean) => lines.filter(predicate).reduce((sum, line) => sum + line.characterCount, 0) >= 0.8 * characters;
  const sizes = new Map<number, number>();
  for (const line of lines) {
    sizes.set(line.fontSize, (sizes.get(line.fontSize) ?? 0) + line.characterCount);
  }
  const fontSize = [...sizes.entries()].sort((left, right) => right[1] - left[1] || right[0] - left[0])[0][0];
  return {
    pageNumber: lines[0].pageNumber,
    lines,
    text: joinLines(lines.map((line) => line.text)),
    fontSize,
    bold: share((line) => line.bold),
    italic: share((line) => line.italic),
    monospace: share((line) => line.monospace),
    top: Math.min(...lines.map((line) => line.top)),
    bottom: Math.max(...lines.map((line) => line.bottom)),
    left: Math.min(...lines.map((line) => line.left)),
    right: Math.max(...lines.map((line) => line.right)),
    label: 'paragraph',
    headingLevel: 0,
  };
}

/** Joins wrapped lines, undoing end-of-line hyphenation ("adip-" + "iscing" → "adipiscing"). */
export function joinLines(lines: readonly string[]): string {
  let text = '';
  for (const raw of lines) {
    const part = raw.trim();
    if (!part) {
      continue;
    }
    if (!text) {
      text = part;
    } else if (/\p{L}[-\u00AD]$/u.test(text) && /^\p{Ll}/u.test(part)) {
      text = text.slice(0, -1) + part;
    } else {
      text += ` ${part}`;
    }
  }
  return text;
}

/** Code keeps its lines and its indentation (estimated from the x offsets). */
function codeText(lines: readonly PdfLine[]): string {
  const left = Math.min(...lines.map((line) => line.left));
  return lines.map((line) => ' '.repeat(Math.max(0, Math.round((line.left - left) / (0.6 * line.fontSize)))) + line.text).join('\n');
}

function isTableOfContentsBlock(block: PdfBlock, afterContentsHeading: boolean): boolean {
  const leaders = block.lines.filter((line) => TOC_LINE.test(line.text)).length;
  if (leaders >= Math.max(1, Math.ceil(0.5 * block.lines.length))) {
    return true;
  }
  return afterContentsHeading && block.lines.filter((line) => ENDS_WITH_PAGE_NUMBER.test(line.text)).length >= Math.ceil(0.5 * block.lines.length);
}

function classifyBlock(block: PdfBlock, referenceSize: number, pageHeight: number, inTableOfContents: boolean): ItemLabel {
  const text = block.text.trim();
  const grid = block.lines[0].table;
  if (grid) {
    // A table of titles and page numbers is a table of contents (Docling keeps those as tables too).
    const indexRows = grid.filter((row) => {
      const cells = row.filter(Boolean);
      return cells.length >= 2 && /\p{L}{2}/u.test(cells[0]) && PAGE_NUMBER_CELL.test(cells[cells.length - 1]);
    }).length;
    return inTableOfContents || indexRows >= 0.7 * grid.length ? 'document_index' : 'table';
  }
  if (isTableOfContentsBlock(block, inTableOfContents)) {
    return 'document_index';
  }
  if (block.monospace && (block.lines.length >= 2 || CODE_CHARACTERS.test(text))) {
    return 'code';
  }
  if (CAPTION_START.test(text)) {
    return 'caption';
  }
  if (isHeading(block, referenceSize)) {
    return 'section_header';
  }
  if (BULLET.test(text) || ENUMERATION.test(text)) {
    return 'list_item';
  }
  if (block.fontSize <= 0.9 * referenceSize && pageHeight > 0 && block.top >= 0.7 * pageHeight && /^(\d{1,3}|[*†‡§])\s*\S/.test(text)) {
    return 'footnote';
  }
  return 'paragraph';
}

function isHeading(block: PdfBlock, referenceSize: number): boolean {
  const text = block.text.trim();
  const words = text.split(/\s+/).length;
  const size = block.fontSize;
  const numberOnly = /^\d{1,3}$/.test(text);
  if (numberOnly) {
    // A big chapter number ("1" in 40 pt) is a heading; a small one is a page or list number.
    return size >= 1.5 * referenceSize;
  }
  // Two letters in a row at least: figure labels ("α", "s2") are not headings.
  if (!/\p{L}{2}/u.test(text) || text.length > 160 || words > 20 || block.lines.length > (size >= 1.5 * referenceSize ? 4 : 3)) {
    return false;
  }
  if (BULLET.test(text) || TOC_LINE.test(text) || block.monospace) {
    return false;
  }
  if (/[,;:]$/.test(text) || (/\.$/.test(text) && !/^(\d+(\.\d+)*\.|(chapter|kapitel|part|teil|appendix|anhang)\s+\S+\.)$/i.test(text))) {
    return false;
  }
  if (size >= HEADING_SIZE_RATIO * referenceSize) {
    return true;
  }
  if (block.bold && size >= 0.95 * referenceSize && block.lines.length <= 2) {
    return true;
  }
  // A short line set apart in italics at body size (e.g. run-in subsection titles of handbooks).
  return block.italic && block.lines.length === 1 && Math.abs(size - referenceSize) <= 0.1 * referenceSize && words <= 8
    && /^[\p{Lu}\d]/u.test(text) && !/[.!?]$/.test(text);
}

function normalizeForMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Marks the blocks that the outline's titles point to; returns how many entries found their block. */
function matchOutline(outline: readonly PdfOutlineEntry[], blocksByPage: ReadonlyMap<number, PdfBlock[]>): number {
  let matched = 0;
  for (const entry of outline) {
    const wanted = normalizeForMatch(entry.title);
    if (!wanted) {
      continue;
    }
    let best: { block: PdfBlock; score: number; distance: number } | undefined;
    for (const pageNumber of [entry.pageNumber, entry.pageNumber + 1]) {
      for (const block of blocksByPage.get(pageNumber) ?? []) {
        if (block.outlineDepth !== undefined || block.lines.length > 4) {
          continue;
        }
        const found = normalizeForMatch(block.text);
        let score = 0;
        if (found === wanted) {
          score = 3;
        } else if (found.endsWith(wanted) && /^[\divxlcdm. ]+$|^(chapter|kapitel|part|teil|appendix|anhang|section)\b/i.test(found.slice(0, found.length - wanted.length).trim() || '1')) {
          score = 2.5;
        } else if (wanted.length >= 8 && (found.startsWith(wanted) || wanted.startsWith(found)) && Math.min(found.length, wanted.length) >= 0.6 * Math.max(found.length, wanted.length)) {
          score = 1;
        }
        if (score === 0) {
          continue;
        }
        const penalty = pageNumber === entry.pageNumber ? 0 : 0.5;
        const distance = entry.top === undefined || pageNumber !== entry.pageNumber ? 0 : Math.abs(block.top - entry.top);
        const candidate = { block, score: score - penalty, distance };
        if (!best || candidate.score > best.score || (candidate.score === best.score && candidate.distance < best.distance)) {
          best = candidate;
        }
      }
      if (best) {
        break;
      }
    }
    if (best) {
      best.block.outlineDepth = entry.depth;
      matched++;
    }
  }
  return matched;
}

/** The title: the largest text on page 1 when it stands out from the body and from the other headings there. */
function chooseTitle(blocks: readonly PdfBlock[], bodySize: number, pages: readonly PdfPageLines[]): PdfBlock | undefined {
  const firstPage = blocks.length > 0 ? blocks[0].pageNumber : 0;
  const height = pages.find((page) => page.pageNumber === firstPage)?.height ?? Infinity;
  // Titles sit in the upper half; a big logo word at the bottom of a cover is not one.
  const candidates = blocks.filter((block) => block.pageNumber === firstPage && block.label === 'section_header' && block.outlineDepth === undefined && block.top <= 0.5 * height);
  if (candidates.length === 0) {
    return undefined;
  }
  const largest = candidates.reduce((best, block) => (block.fontSize > best.fontSize ? block : best));
  if (largest.fontSize < TITLE_SIZE_RATIO * bodySize || TOC_HEADING.test(largest.text.trim())) {
    return undefined;
  }
  const rivals = candidates.filter((block) => block !== largest && block.fontSize >= 0.98 * largest.fontSize);
  const pageBlocks = blocks.filter((block) => block.pageNumber === firstPage && block.top <= 0.5 * height);
  const biggerText = pageBlocks.some((block) => block !== largest && block.fontSize > largest.fontSize);
  return rivals.length === 0 && !biggerText ? largest : undefined;
}

/** Without a title by size: an unnumbered heading that opens the document (e.g. bold text above larger section heads). */
function openingHeading(blocks: readonly PdfBlock[], pages: readonly PdfPageLines[]): PdfBlock | undefined {
  const first = blocks[0];
  const height = pages.find((page) => page.pageNumber === first?.pageNumber)?.height ?? 0;
  if (!first || first.label !== 'section_header' || first.outlineDepth !== undefined || first.top > 0.25 * height) {
    return undefined;
  }
  const text = first.text.trim();
  return SECTION_NUMBER.test(text) || TOC_HEADING.test(text) ? undefined : first;
}

/**
 * Heading levels. A heading found through the outline takes the bookmark's depth; a numbered one its numbering
 * depth ("2.1.6" → 3). Other headings take the level of their size tier: the usual depth of outline or numbered
 * headings of the same size; a size between known tiers sits one below the larger tier; sizes above every known
 * tier are level 1 (or one above the top known level), sizes below come after the deepest. Without any anchor the
 * sizes are ranked. Bold or italic headings at body size form the smallest tier.
 */
function assignHeadingLevels(blocks: readonly PdfBlock[], bodySize: number): void {
  const headers = blocks.filter((block) => block.label === 'section_header');
  const sizeKey = (block: PdfBlock) => (block.fontSize >= HEADING_SIZE_RATIO * bodySize ? Math.round(block.fontSize * 2) / 2 : 0);
  const explicitLevel = (block: PdfBlock): number | undefined => {
    if (block.outlineDepth !== undefined) {
      return block.outlineDepth;
    }
    const numbering = SECTION_NUMBER.exec(block.text.trim());
    return numbering ? numbering[1].split('.').length : undefined;
  };
  const depthCounts = new Map<number, Map<number, number>>();
  for (const block of headers) {
    const level = explicitLevel(block);
    if (level !== undefined) {
      const counts = depthCounts.get(sizeKey(block)) ?? new Map<number, number>();
      counts.set(level, (counts.get(level) ?? 0) + 1);
      depthCounts.set(sizeKey(block), counts);
    }
  }
  const known = new Map([...depthCounts].map(([size, counts]) => [size, [...counts].sort((left, right) => right[1] - left[1] || left[0] - right[0])[0][0]]));
  const sizes = [...new Set(headers.map(sizeKey))].sort((left, right) => right - left);
  const tierLevel = (size: number): number => {
    const exact = known.get(size);
    if (exact !== undefined) {
      return exact;
    }
    if (known.size === 0) {
      return sizes.indexOf(size) + 1;
    }
    const larger = [...known.keys()].filter((candidate) => candidate > size).sort((left, right) => left - right)[0];
    const smaller = [...known.keys()].filter((candidate) => candidate < size).sort((left, right) => right - left)[0];
    if (larger === undefined) {
      return Math.max(1, Math.min(...known.values()) - 1);
    }
    const below = (known.get(larger) ?? 1) + 1;
    return smaller === undefined ? below : Math.min(below, Math.max(known.get(smaller) ?? below, known.get(larger) ?? 1));
  };
  for (const block of headers) {
    block.headingLevel = Math.min(6, Math.max(1, explicitLevel(block) ?? tierLevel(sizeKey(block))));
  }
}
