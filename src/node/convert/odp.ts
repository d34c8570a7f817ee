import type { ChildNode, Element } from 'domhandler' with { 'resolution-mode': 'import' };
import { throwIfAborted } from '../../core/errors';
import { SLIDE_MAX_NESTING_DEPTH } from '../../core/limits';
import { attribute, childElements, descendants, firstChild, inReadingOrder, isElement, localName, odfTableRows, parseXmlPart, resolvePartName, spannedGrid, textContent, type SourceCell } from './officeXml';
import type { ChartData, SlideBlock, SlideComment, SlideContent } from './presentation';
import type { ZipArchive } from './zipArchive';

/**
 * Reads an ODP (OpenDocument presentation) page by page from `content.xml`: the title frame, then every shape
 * in reading order (text boxes and their lists, tables, pictures, charts), the speaker notes and the comments.
 */

/** Frames that repeat on every page (header, footer, date, page number): furniture, left out. */
const FURNITURE_CLASSES = new Set(['header', 'footer', 'date-time', 'page-number']);

/** Drawing shapes whose text is read (frames are handled apart). */
const TEXT_SHAPES = new Set(['custom-shape', 'rect', 'ellipse', 'circle', 'polygon', 'polyline', 'path', 'line', 'connector', 'caption', 'measure', 'regular-polygon']);

/** EMU per unit of an ODF length, so positions compare with PPTX's. */
const EMU_PER_UNIT: Record<string, number> = { cm: 360_000, mm: 36_000, in: 914_400, pt: 12_700, pc: 152_400, px: 9_525 };

export async function* readOdpSlides(archive: ZipArchive, warn: (message: string) => void, abortSignal?: AbortSignal): AsyncGenerator<SlideContent> {
  const content = await parseXmlPart(archive, 'content.xml');
  const reader = new OdpReader(archive, warn, await listStyles(archive, content));
  const presentation = firstChild(firstChild(content, 'body'), 'presentation');
  const pages = childElements(presentation, 'page');
  for (let index = 0; index < pages.length; index++) {
    throwIfAborted(abortSignal);
    yield await reader.readPage(pages[index]);
  }
}

interface PageContext {
  blocks: SlideBlock[];
  titles: string[];
}

class OdpReader {
  constructor(
    private readonly archive: ZipArchive,
    private readonly warn: (message: string) => void,
    /** List style name → whether its first level is numbered. */
    private readonly orderedLists: Map<string, boolean>,
  ) {}

  async readPage(page: Element): Promise<SlideContent> {
    const context: PageContext = { blocks: [], titles: [] };
    await this.readShapes(childElements(page), context);
    const notes = childElements(firstChild(page, 'notes'), 'frame')
      .filter((frame) => attribute(frame, 'class') === 'notes')
      .flatMap((frame) => this.textBlocks(childElements(frame, 'text-box')).map((block) => ('text' in block ? block.text : '')))
      .filter(Boolean);
    const comments: SlideComment[] = childElements(page, 'annotation')
      .map((annotation) => ({
        author: (firstChild(annotation, 'creator') ? textContent(firstChild(annotation, 'creator')!).trim() : '') || undefined,
        date: firstChild(annotation, 'date') ? textContent(firstChild(annotation, 'date')!).trim() : undefined,
        text: childElements(annotation, 'p', 'list').map((paragraph) => inlineText(paragraph)).filter(Boolean).join('\n'),
      }))
      .filter((comment) => comment.text);
    return { title: context.titles.join(' ').trim() || undefined, blocks: context.blocks, notes, comments };
  }

  private async readShapes(elements: readonly Element[], context: PageContext, depth = 0): Promise<void> {
    if (depth > SLIDE_MAX_NESTING_DEPTH) {
      this.warn(`A slide nests shape groups or lists more than ${SLIDE_MAX_NESTING_DEPTH} deep; the deeper content is left out.`);
      return;
    }
    // A hyperlinked shape sits inside `draw:a`: read the shape.
    const unwrapped = elements.flatMap((element) => (localName(element) === 'a' ? childElements(element) : [element]));
    const shapes = unwrapped.filter((element) => ['frame', 'g'].includes(localName(element)) || TEXT_SHAPES.has(localName(element)));
    for (const { shape } of inReadingOrder(shapes.map((shape) => ({ shape, ...positionOf(shape) })))) {
      await this.readShape(shape, context, depth);
    }
  }

  private async readShape(shape: Element, context: PageContext, depth: number): Promise<void> {
    const name = localName(shape);
    if (name === 'g') {
      await this.readShapes(childElements(shape), context, depth + 1);
      return;
    }
    if (name !== 'frame') {
      context.blocks.push(...this.textBlocks([shape]));
      return;
    }
    const placeholderClass = attribute(shape, 'class');
    if (placeholderClass && FURNITURE_CLASSES.has(placeholderClass)) {
      return;
    }
    const textBoxes = childElements(shape, 'text-box');
    if (placeholderClass === 'title' && context.titles.length === 0) {
      const title = this.textBlocks(textBoxes).map((block) => ('text' in block ? block.text : '')).filter(Boolean).join(' ');
      if (title) {
        context.titles.push(title);
        return;
      }
    }
    if (placeholderClass === 'subtitle') {
      const subtitle = this.textBlocks(textBoxes).map((block) => ('text' in block ? block.text : '')).filter(Boolean).join(' ');
      if (subtitle) {
        context.blocks.push({ kind: 'heading', text: subtitle });
      }
      return;
    }
    context.blocks.push(...this.textBlocks(textBoxes));
    const table = firstChild(shape, 'table');
    if (table) {
      context.blocks.push({ kind: 'table', rows: tableRows(table) });
      // Pictures in cells follow the table.
      for (const cellFrame of descendants(table, 'frame')) {
        const cellImages = childElements(cellFrame, 'image');
        if (cellImages.length > 0) {
          context.blocks.push(this.picture(cellFrame, cellImages));
        }
      }
      return;
    }
    const object = firstChild(shape, 'object');
    if (object) {
      const chart = await this.chart(attribute(object, 'href') ?? '');
      if (chart) {
        context.blocks.push({ kind: 'chart', ...chart });
      }
      return;
    }
    if (firstChild(shape, 'object-ole')) {
      return;
    }
    const images = childElements(shape, 'image');
    if (images.length > 0) {
      context.blocks.push(this.picture(shape, images));
    }
  }

  /** Paragraphs and list items of text containers (text boxes, shapes), in order. */
  private textBlocks(containers: readonly Element[]): Array<Extract<SlideBlock, { kind: 'paragraph' | 'list_item' }>> {
    const blocks: Array<Extract<SlideBlock, { kind: 'paragraph' | 'list_item' }>> = [];
    const visitList = (list: Element, depth: number, inheritedOrdered: boolean | undefined) => {
      if (depth > SLIDE_MAX_NESTING_DEPTH) {
        this.warn(`A slide nests shape groups or lists more than ${SLIDE_MAX_NESTING_DEPTH} deep; the deeper content is left out.`);
        return;
      }
      const styleName = attribute(list, 'style-name');
      const ordered = (styleName !== undefined ? this.orderedLists.get(styleName) : undefined) ?? inheritedOrdered;
      for (const item of childElements(list, 'list-item', 'list-header')) {
        for (const child of childElements(item)) {
          const name = localName(child);
          if (name === 'list') {
            visitList(child, depth + 1, ordered);
          } else if (name === 'p' || name === 'h') {
            const text = inlineText(child);
            if (text) {
              blocks.push({ kind: 'list_item', text, ordered: ordered ?? false, depth });
            }
          }
        }
      }
    };
    const visit = (container: Element) => {
      for (const child of childElements(container)) {
        const name = localName(child);
        if (name === 'p' || name === 'h') {
          const text = inlineText(child);
          if (text) {
            blocks.push({ kind: 'paragraph', text });
          }
        } else if (name === 'list') {
          visitList(child, 1, undefined);
        } else if (name === 'section') {
          visit(child);
        }
      }
    };
    containers.forEach(visit);
    return blocks;
  }

  private picture(frame: Element, images: readonly Element[]): SlideBlock {
    const description = [firstChild(frame, 'title'), firstChild(frame, 'desc')].map((element) => (element ? textContent(element).trim() : '')).filter(Boolean).join(' ');
    // A frame may offer the same picture in several formats (an SVG with a PNG fallback): the first raster one wins.
    const image = images.find((candidate) => !/\.(?:svg|svm|wmf|emf)$/i.test(attribute(candidate, 'href') ?? '')) ?? images[0];
    const inline = firstChild(image, 'binary-data');
    if (inline) {
      return { kind: 'picture', description, bytes: new Uint8Array(Buffer.from(textContent(inline).replace(/\s+/g, ''), 'base64')) };
    }
    const href = attribute(image, 'href') ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) {
      return { kind: 'picture', description };
    }
    const bytes = this.archive.bytes(resolvePartName('', href));
    return bytes ? { kind: 'picture', description, bytes } : { kind: 'picture', description, problem: 'a picture refers to an image that is not in the file' };
  }

  /** An embedded chart object (`Object 1/content.xml`): its kind, title and local data table. */
  private async chart(href: string): Promise<ChartData | undefined> {
    const folder = resolvePartName('', href);
    if (!folder || /^[a-z][a-z0-9+.-]*:/i.test(href)) {
      return undefined;
    }
    let root: Element | undefined;
    try {
      root = await parseXmlPart(this.archive, `${folder}/content.xml`);
    } catch {
      this.warn(`An embedded object (${folder}) could not be read; it is left out.`);
      return undefined;
    }
    const chart = firstChild(firstChild(firstChild(root, 'body'), 'chart'), 'chart');
    if (!chart) {
      return undefined;
    }
    const title = childElements(firstChild(chart, 'title'), 'p').map((paragraph) => inlineText(paragraph)).filter(Boolean).join(' ');
    const table = descendants(chart, 'table')[0];
    const rows = table ? spannedGrid(tableRows(table)).grid : undefined;
    const chartClass = (attribute(chart, 'class') ?? '').replace(/^chart:/, '');
    return { chartKind: chartKind(chartClass), title: title || undefined, rows: rows && rows.length > 0 ? rows : undefined };
  }
}

/** The rows of an ODF table, cells as stored, trailing empty rows and columns dropped. */
function tableRows(table: Element): SourceCell[][] {
  const rows = odfTableRows(table, (cell) => descendants(cell, 'p', 'h').map((paragraph) => inlineText(paragraph)).filter(Boolean).join(' '));
  let height = rows.length;
  while (height > 0 && rows[height - 1].every((cell) => !cell.text && !cell.covered)) {
    height--;
  }
  return rows.slice(0, height);
}

/** A paragraph's text: spans and links read through, `text:s` as spaces, tabs and line breaks as spaces. */
function inlineText(element: Element): string {
  const parts: string[] = [];
  const visit = (node: ChildNode) => {
    if (node.type === 'text') {
      parts.push(node.data);
      return;
    }
    if (!isElement(node)) {
      return;
    }
    switch (localName(node)) {
      case 's':
        parts.push(' ');
        return;
      case 'tab':
      case 'line-break':
        parts.push(' ');
        return;
      case 'note':
      case 'annotation':
      case 'creator':
      case 'date':
        return;
      default:
        node.children.forEach(visit);
    }
  };
  element.children.forEach(visit);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** Where a shape sits, in EMU; a group sits where its first-placed member does. */
function positionOf(shape: Element): { top?: number; left?: number } {
  if (localName(shape) === 'g') {
    const members = childElements(shape).map(positionOf).filter((position) => position.top !== undefined);
    if (members.length === 0) {
      return {};
    }
    return { top: Math.min(...members.map((position) => position.top!)), left: Math.min(...members.map((position) => position.left ?? 0)) };
  }
  const top = lengthInEmu(attribute(shape, 'y') ?? attribute(shape, 'y1'));
  const left = lengthInEmu(attribute(shape, 'x') ?? attribute(shape, 'x1'));
  return top === undefined ? {} : { top, left };
}

function lengthInEmu(value: string | undefined): number | undefined {
  const match = /^\s*(-?[\d.]+)\s*([a-z]*)\s*$/i.exec(value ?? '');
  if (!match) {
    return undefined;
  }
  const amount = Number(match[1]);
  const unit = EMU_PER_UNIT[match[2].toLowerCase() || 'cm'];
  return Number.isFinite(amount) && unit ? amount * unit : undefined;
}

/** Every list style of the document (content and styles parts) → whether its first level is numbered. */
async function listStyles(archive: ZipArchive, content: Element | undefined): Promise<Map<string, boolean>> {
  const styles = new Map<string, boolean>();
  const roots = [content, await parseXmlPart(archive, 'styles.xml')];
  for (const root of roots) {
    for (const style of descendants(root, 'list-style')) {
      const name = attribute(style, 'name');
      const first = childElements(style).find((level) => attribute(level, 'level') === '1') ?? childElements(style)[0];
      if (name && first && !styles.has(name)) {
        styles.set(name, localName(first) === 'list-level-style-number' && (attribute(first, 'num-format') ?? '') !== '');
      }
    }
  }
  return styles;
}

function chartKind(chartClass: string): string {
  switch (chartClass) {
    case 'bar':
      return 'Bar chart';
    case 'line':
      return 'Line chart';
    case 'circle':
    case 'ring':
      return 'Pie chart';
    case 'scatter':
    case 'bubble':
      return 'Scatter chart';
    case 'area':
      return 'Area chart';
    case 'radar':
    case 'filled-radar':
      return 'Radar chart';
    default:
      return 'Chart';
  }
}
