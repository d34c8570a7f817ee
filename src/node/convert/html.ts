import type { ChildNode, Document, Element } from 'domhandler' with { 'resolution-mode': 'import' };
import type { ConvertedDocument, ItemLabel, PictureData } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { MAX_TABLE_CELL_SPAN, MAX_TABLE_CELLS } from '../../core/limits';
import { DocumentBuilder, LineIndex, markdownTable } from './documentBuilder';
import type { PictureProcessing } from './convertFile';
import { localPicturesFor, type LocalPictures } from './pictures/localImages';

export interface ConvertOptions {
  /** Shown as the title when the document has none. */
  fileName: string;
  abortSignal?: AbortSignal;
}

/** What Markdown and HTML need to attach local images: the file (relative `src` resolve against it) and the indexed roots. */
export interface LocalImageConvertOptions {
  /** Absolute path of the document; without it images keep their alt text only. */
  filePath?: string;
  /** Folders images may be read from (the indexed roots); defaults to the document's folder. */
  pictureRoots?: readonly string[];
  /** `none`: images are not read. */
  pictures?: PictureProcessing;
}

export interface HtmlWalkOptions {
  /** When given, items get source ranges computed from the parser's offsets. */
  lineIndex?: LineIndex;
  /** Offset of the parsed HTML inside the text `lineIndex` covers (HTML blocks embedded in Markdown). */
  baseOffset?: number;
  /** Tree depth of the items the walk produces at top level. */
  baseDepth?: number;
  /** The extracted image of an `<img>` (read before the walk, which is synchronous). */
  pictures?: (image: Element) => PictureData | undefined;
  abortSignal?: AbortSignal;
}

/** Elements whose content is never document text. */
const SKIPPED_TAGS = new Set(['script', 'style', 'nav', 'head', 'title', 'noscript', 'svg', 'canvas', 'iframe', 'object', 'embed', 'select', 'datalist', 'button']);

/** Elements that always start their own item(s). */
const BLOCK_TAGS = new Set([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'pre', 'ul', 'ol', 'menu', 'li', 'table', 'figure', 'figcaption', 'img', 'picture', 'blockquote', 'div', 'section',
  'article', 'main', 'body', 'html', 'header', 'footer', 'aside', 'center', 'details', 'summary', 'dl', 'dt', 'dd', 'address', 'fieldset', 'form', 'hgroup',
  'hr', 'caption', 'legend', 'video', 'audio', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th',
]);

const LIST_TAGS = new Set(['ul', 'ol', 'menu']);

type HtmlParserModule = typeof import('htmlparser2', { with: { 'resolution-mode': 'import' } });

let htmlParserModule: Promise<HtmlParserModule> | undefined;

/** htmlparser2 is ESM-only; the extension and CLI are CommonJS bundles, so it is loaded with `import()`. */
function loadHtmlParser(): Promise<HtmlParserModule> {
  htmlParserModule ??= import('htmlparser2');
  return htmlParserModule;
}

/** Parses HTML keeping start and end offsets on every node. */
export async function parseHtml(text: string): Promise<Document> {
  const { parseDocument } = await loadHtmlParser();
  return parseDocument(text, { withStartIndices: true, withEndIndices: true, decodeEntities: true });
}

/** Converts an HTML page or fragment. `content` is a Markdown rendering of the items. */
export async function convertHtml(text: string, options: ConvertOptions & LocalImageConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const document = await parseHtml(text);
  const builder = new DocumentBuilder();
  const localPictures = localPicturesFor(options);
  const pictures = localPictures ? await readImages(document.children, localPictures, options.abortSignal) : undefined;
  walkHtml(document.children, builder, { lineIndex: new LineIndex(text), abortSignal: options.abortSignal, pictures: pictures && ((image) => pictures.get(image)) });
  const title = frontMatterTitle(document.children) ?? titleElementText(document.children) ?? firstHeadingText(builder) ?? options.fileName;
  return { format: 'html', title, items: builder.items, content: builder.toMarkdown(), warnings: [...builder.allWarnings(), ...(localPictures?.warnings() ?? [])] };
}

/** Reads the local images the `<img>` elements name, in document order (the walk that places them is synchronous). */
export async function readImages(nodes: readonly ChildNode[], localPictures: LocalPictures, abortSignal: AbortSignal | undefined): Promise<Map<Element, PictureData>> {
  const images: Element[] = [];
  // Iterative: hostile HTML nests tens of thousands of elements deep.
  const stack: ChildNode[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node) || SKIPPED_TAGS.has(node.name)) {
      continue;
    }
    if (node.name === 'img') {
      images.push(node);
    } else {
      for (let index = node.children.length - 1; index >= 0; index--) {
        stack.push(node.children[index]);
      }
    }
  }
  const found = new Map<Element, PictureData>();
  for (const image of images) {
    throwIfAborted(abortSignal);
    const picture = image.attribs.src ? await localPictures.read(image.attribs.src) : undefined;
    if (picture) {
      found.set(image, picture);
    }
  }
  return found;
}

/** The Go site's page fragments open with `<!--{ "Title": ... }-->`: a JSON comment holding the page title. */
function frontMatterTitle(nodes: readonly ChildNode[]): string | undefined {
  for (const node of nodes) {
    if (node.type === 'comment') {
      if (!node.data.trim().startsWith('{')) {
        continue;
      }
      return jsonCommentTitle(node.data);
    } else if (node.type !== 'text' || node.data.trim()) {
      return undefined;
    }
  }
  return undefined;
}

/** The `Title` of a Go-site JSON front-matter comment body (`{ "Title": … }`), with or without `<!--` `-->`. */
export function jsonCommentTitle(comment: string): string | undefined {
  const body = comment.trim().replace(/^<!--/, '').replace(/-->$/, '').trim();
  if (!body.startsWith('{')) {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(body);
    const title = parsed !== null && typeof parsed === 'object' ? (parsed as { Title?: unknown }).Title : undefined;
    return typeof title === 'string' && title.trim() ? title.trim() : undefined;
  } catch {
    return undefined;
  }
}

function titleElementText(nodes: readonly ChildNode[]): string | undefined {
  for (const node of nodes) {
    if (isElement(node)) {
      if (node.name === 'title') {
        const text = normalizeInline(collectText(node.children));
        return text || undefined;
      }
      if (node.name === 'head' || node.name === 'html') {
        const found = titleElementText(node.children);
        if (found) {
          return found;
        }
      }
    }
  }
  return undefined;
}

/** The text of the document's `title` item, else of its first level-1 heading (deeper headings name sections, not documents). */
export function firstHeadingText(builder: DocumentBuilder): string | undefined {
  const title = builder.first('title');
  if (title?.text) {
    return title.text;
  }
  return builder.items.find((item) => item.label === 'section_header' && item.headingLevel === 1 && item.text)?.text;
}

/**
 * Walks parsed HTML and adds its items to `builder` in reading order. Used for HTML files, HTML blocks inside
 * Markdown and mammoth's rendering of DOCX files (where `h1.title` marks the Word title and `p.caption` captions).
 */
export function walkHtml(nodes: readonly ChildNode[], builder: DocumentBuilder, options: HtmlWalkOptions = {}): void {
  new HtmlWalker(builder, options).walkChildren(nodes, options.baseDepth ?? 0);
  builder.releaseHeldCaption();
}

class HtmlWalker {
  private readonly blockCache = new WeakMap<Element, boolean>();

  constructor(
    private readonly builder: DocumentBuilder,
    private readonly options: HtmlWalkOptions,
  ) {}

  walkChildren(nodes: readonly ChildNode[], depth: number): void {
    let pending: ChildNode[] = [];
    const flush = () => {
      if (pending.length > 0) {
        this.addTextItem('paragraph', pending, pending, depth);
        pending = [];
      }
    };
    for (const node of nodes) {
      if (isElement(node) && !SKIPPED_TAGS.has(node.name) && this.isBlock(node)) {
        flush();
        this.walkBlock(node, depth);
      } else if (node.type === 'text' || (isElement(node) && !SKIPPED_TAGS.has(node.name))) {
        pending.push(node);
      }
    }
    flush();
  }

  private walkBlock(element: Element, depth: number): void {
    throwIfAborted(this.options.abortSignal);
    const name = element.name;
    const classes = (element.attribs.class ?? '').split(/\s+/);
    if (/^h[1-6]$/.test(name)) {
      const label: ItemLabel = classes.includes('title') ? 'title' : 'section_header';
      // A heading closed by the wrong end tag (`<h3>…</h2>`) swallows what follows; browsers end it at the
      // first block, so its text is the inline content before that and the rest is walked as usual.
      const firstBlock = element.children.findIndex((child) => isElement(child) && !SKIPPED_TAGS.has(child.name) && this.isBlock(child));
      const own = firstBlock < 0 ? element.children : element.children.slice(0, firstBlock);
      const ownEnd = firstBlock < 0 ? undefined : lastEndIndex(own);
      this.addTextItem(label, own, [element], depth, Number(name[1]), {}, ownEnd);
      if (firstBlock >= 0) {
        this.walkChildren(element.children.slice(firstBlock), depth);
      }
    } else if (name === 'p' || name === 'dt' || name === 'dd' || name === 'summary' || name === 'legend') {
      this.walkTextBlock(element, classes.includes('caption') ? 'caption' : 'paragraph', depth, {});
    } else if (name === 'figcaption' || name === 'caption') {
      this.addTextItem('caption', element.children, [element], depth);
    } else if (name === 'pre') {
      this.addCode(element, depth);
    } else if (LIST_TAGS.has(name)) {
      this.walkList(element, depth + 1, name === 'ol');
    } else if (name === 'li') {
      this.walkListItem(element, depth + 1, false);
    } else if (name === 'table') {
      this.addTable(element, depth);
    } else if (name === 'img') {
      this.addPicture(element, depth);
    } else if (name === 'hr') {
      return;
    } else if (name === 'figure') {
      // A figure's caption follows its picture wherever the markup puts it (a caption at p describes the picture at p − 1).
      const isCaption = (child: ChildNode) => isElement(child) && child.name === 'figcaption';
      this.walkChildren([...element.children.filter((child) => !isCaption(child)), ...element.children.filter(isCaption)], depth);
    } else {
      // Containers (div, section, figure, blockquote, body …) contribute their children.
      this.walkChildren(element.children, depth);
    }
  }

  private walkList(list: Element, depth: number, ordered: boolean): void {
    for (const child of list.children) {
      if (isElement(child) && child.name === 'li') {
        this.walkListItem(child, depth, ordered);
      } else if (isElement(child) && !SKIPPED_TAGS.has(child.name)) {
        // Invalid but common: a nested list directly inside a list.
        this.walkBlock(child, depth - 1);
      }
    }
  }

  private walkListItem(item: Element, depth: number, ordered: boolean): void {
    // mammoth renders Word footnotes and endnotes as `<li id="footnote-1">…<a href="#footnote-ref-1">↑</a></li>`.
    if (/^(footnote|endnote)-\d+$/.test(item.attribs.id ?? '')) {
      this.walkTextBlock(item, 'footnote', 0, {});
      return;
    }
    this.walkTextBlock(item, 'list_item', depth, { ordered });
  }

  /**
   * An element whose own text is one item (list items, paragraphs, definitions); lists, tables, code and figures
   * inside it follow as items of their own at the same depth.
   */
  private walkTextBlock(item: Element, label: ItemLabel, depth: number, hint: { ordered?: boolean }): void {
    const own: ChildNode[] = [];
    const nested: Element[] = [];
    for (const child of item.children) {
      if (isElement(child) && (LIST_TAGS.has(child.name) || child.name === 'table' || child.name === 'pre' || child.name === 'figure' || (child.name !== 'p' && this.isBlock(child) && this.hasStructure(child)))) {
        nested.push(child);
      } else {
        own.push(child);
      }
    }
    const rangeEnd = nested.length > 0 ? nested[0].startIndex : undefined;
    this.addTextItem(label, own, [item], depth, 0, hint, rangeEnd ?? undefined);
    this.addPicturesWithin(own, depth);
    for (const child of nested) {
      this.walkBlock(child, depth);
    }
  }

  /** Whether an element holds lists, tables or code that should stay separate items inside a list item. */
  private hasStructure(element: Element): boolean {
    return element.children.some((child) => isElement(child) && (LIST_TAGS.has(child.name) || child.name === 'table' || child.name === 'pre' || (this.isBlock(child) && this.hasStructure(child))));
  }

  private addTextItem(
    label: ItemLabel,
    content: readonly ChildNode[],
    rangeNodes: readonly ChildNode[],
    depth: number,
    headingLevel = 0,
    hint: { ordered?: boolean } = {},
    rangeEndOverride?: number,
    /** Paragraphs and captions may caption a neighbouring picture (see `DocumentBuilder.addCaptionCandidate`). */
    placeWithPicture = label === 'paragraph' || label === 'caption',
  ): void {
    let text = normalizeInline(collectText(content));
    if (label === 'footnote') {
      text = text.replace(/\s*\u2191$/, '');
    }
    if (!text) {
      return;
    }
    const item = { label, text, headingLevel, treeDepth: depth, sourceRange: this.rangeOf(rangeNodes, rangeEndOverride) };
    if (placeWithPicture) {
      this.builder.addCaptionCandidate(item, hint);
    } else {
      this.builder.add(item, hint);
    }
  }

  private addCode(element: Element, depth: number): void {
    const text = collectPreformatted(element.children).replace(/^\r?\n/, '').replace(/\s+$/, '');
    if (!text.trim()) {
      return;
    }
    const code = element.children.find((child): child is Element => isElement(child) && child.name === 'code');
    const language = languageOf(element) ?? (code ? languageOf(code) : undefined);
    this.builder.add({ label: 'code', text, treeDepth: depth, language, sourceRange: this.rangeOf([element]) });
  }

  private addPicture(element: Element, depth: number): void {
    const text = (element.attribs.alt ?? element.attribs.title ?? '').replace(/\s+/g, ' ').trim();
    const picture = this.options.pictures?.(element);
    this.builder.add({ label: 'picture', text, treeDepth: depth, sourceRange: this.rangeOf([element]), picture });
  }

  /** Images inside a paragraph become picture items after it (mammoth wraps every DOCX image in a `<p>`). */
  private addPicturesWithin(nodes: readonly ChildNode[], depth: number, intoTables = false): void {
    for (const node of nodes) {
      if (isElement(node) && !SKIPPED_TAGS.has(node.name)) {
        if (node.name === 'img') {
          this.addPicture(node, depth);
        } else if (intoTables || (node.name !== 'table' && !LIST_TAGS.has(node.name))) {
          this.addPicturesWithin(node.children, depth, intoTables);
        }
      }
    }
  }

  private addTable(table: Element, depth: number): void {
    const rowElements: Element[] = [];
    let caption: Element | undefined;
    const collectRows = (nodes: readonly ChildNode[]) => {
      for (const node of nodes) {
        if (!isElement(node)) {
          continue;
        }
        if (node.name === 'tr') {
          rowElements.push(node);
        } else if (node.name === 'thead' || node.name === 'tbody' || node.name === 'tfoot') {
          collectRows(node.children);
        } else if (node.name === 'caption') {
          caption = node;
        }
      }
    };
    collectRows(table.children);
    const { grid, truncated } = spanGrid(rowElements);
    if (truncated) {
      this.builder.warn(`A table's cells, with their column and row spans expanded, exceed ${MAX_TABLE_CELLS.toLocaleString('en-US')} cells; only its first rows and columns within that limit are indexed.`);
    }
    const markdown = markdownTable(grid);
    if (markdown && grid.some((row) => row.some((cell) => cell.trim()))) {
      this.builder.add({ label: 'table', text: markdown, treeDepth: depth, sourceRange: this.rangeOf([table]) });
    }
    if (caption) {
      this.addTextItem('caption', caption.children, [caption], depth, 0, {}, undefined, false);
    }
    // Images in cells (a Word table laying out pictures) follow the table as picture items.
    this.addPicturesWithin(rowElements.flatMap((row) => row.children), depth, true);
  }

  private rangeOf(nodes: readonly ChildNode[], endOverride?: number) {
    const lineIndex = this.options.lineIndex;
    if (!lineIndex || nodes.length === 0) {
      return undefined;
    }
    const start = nodes[0].startIndex;
    const last = nodes[nodes.length - 1].endIndex;
    if (start === null || last === null) {
      return undefined;
    }
    const base = this.options.baseOffset ?? 0;
    const end = endOverride !== undefined && endOverride > start ? endOverride : last + 1;
    return lineIndex.range(base + start, base + end);
  }

  /** Block-level when its tag says so, or when an unknown/inline tag wraps block content. */
  private isBlock(element: Element): boolean {
    if (BLOCK_TAGS.has(element.name)) {
      return true;
    }
    const cached = this.blockCache.get(element);
    if (cached !== undefined) {
      return cached;
    }
    const block = element.children.some((child) => isElement(child) && !SKIPPED_TAGS.has(child.name) && this.isBlock(child));
    // An inline tag wrapping blocks (`<a><div>…</div></a>`) is walked as a container so nothing is merged away.
    this.blockCache.set(element, block);
    return block;
  }
}

/**
 * Lays out table rows on a grid, repeating the text of a cell in every position its `colspan`/`rowspan` covers
 * (as Docling's Markdown export does), so each Markdown row has its full width. The rendered grid (rows × widest
 * row) is kept within `MAX_TABLE_CELLS`: spans stop filling at the limit and rows past it are dropped.
 */
function spanGrid(rows: readonly Element[], maxCells: number = MAX_TABLE_CELLS): { grid: string[][]; truncated: boolean } {
  const grid: string[][] = [];
  let width = 0;
  let truncated = false;
  /** Rows (from the first) that fit the limit at the current width; rows after them are not filled. */
  const rowLimit = (): number => Math.floor(maxCells / Math.max(1, width));
  for (let rowIndex = 0; rowIndex < rows.length; rowIndex++) {
    if (rowIndex >= rowLimit()) {
      truncated = true;
      break;
    }
    grid[rowIndex] ??= [];
    let column = 0;
    for (const cell of rows[rowIndex].children) {
      if (!isElement(cell) || (cell.name !== 'td' && cell.name !== 'th')) {
        continue;
      }
      while (grid[rowIndex][column] !== undefined) {
        column++;
      }
      if (column >= maxCells) {
        truncated = true;
        break;
      }
      const text = normalizeInline(collectText(cell.children)).replace(/\s*\n\s*/g, ' ');
      const columnSpan = clampSpan(cell.attribs.colspan, 1);
      const rowSpanAttribute = cell.attribs.rowspan === '0' ? rows.length - rowIndex : clampSpan(cell.attribs.rowspan, 1);
      // The widest row decides every row's width: a span may widen the table only while the rows so far still fit.
      const fittingWidth = Math.floor(maxCells / (rowIndex + 1));
      const columnEnd = Math.min(column + columnSpan, Math.max(fittingWidth, width));
      if (columnEnd < column + columnSpan) {
        truncated = true;
      }
      width = Math.max(width, columnEnd);
      const rowEnd = Math.min(rowIndex + rowSpanAttribute, rows.length, rowLimit());
      for (let spanned = rowIndex; spanned < rowEnd; spanned++) {
        const target = (grid[spanned] ??= []);
        for (let spannedColumn = column; spannedColumn < columnEnd; spannedColumn++) {
          target[spannedColumn] = text;
        }
      }
      column = columnEnd;
    }
  }
  // Rows filled by spans beyond the limit are cut; holes (short rows, skipped positions) become empty cells.
  const kept = grid.slice(0, Math.min(grid.length, rowLimit()));
  if (kept.length < grid.length) {
    truncated = true;
  }
  return { grid: kept.map((row) => Array.from({ length: Math.min(row.length, width) }, (_, index) => row[index] ?? '')), truncated };
}

function clampSpan(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isFinite(parsed) && parsed >= 1 ? Math.min(parsed, MAX_TABLE_CELL_SPAN) : fallback;
}

function languageOf(element: Element): string | undefined {
  const match = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(element.attribs.class ?? '');
  return match?.[1];
}

/** Offset just past the last of `nodes`, for ranges that stop before an element's end. */
function lastEndIndex(nodes: readonly ChildNode[]): number | undefined {
  const last = nodes[nodes.length - 1]?.endIndex;
  return last === null || last === undefined ? undefined : last + 1;
}

function isElement(node: ChildNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/** Text of inline content: whitespace collapsed, `<br>` and nested blocks as line breaks, skipped tags dropped. */
function collectText(nodes: readonly ChildNode[]): string {
  let text = '';
  for (const node of nodes) {
    if (node.type === 'text') {
      text += node.data.replace(/\s+/g, ' ');
    } else if (isElement(node)) {
      if (SKIPPED_TAGS.has(node.name) || node.name === 'img') {
        continue;
      }
      if (node.name === 'br') {
        text += '\n';
      } else if (node.name === 'pre') {
        text += '\n' + collectPreformatted(node.children) + '\n';
      } else if (BLOCK_TAGS.has(node.name) && node.name !== 'td' && node.name !== 'th') {
        text += '\n' + collectText(node.children) + '\n';
      } else if (node.name === 'td' || node.name === 'th') {
        text += ' ' + collectText(node.children) + ' ';
      } else {
        text += collectText(node.children);
      }
    }
  }
  return text;
}

function collectPreformatted(nodes: readonly ChildNode[]): string {
  let text = '';
  for (const node of nodes) {
    if (node.type === 'text') {
      text += node.data;
    } else if (isElement(node) && !SKIPPED_TAGS.has(node.name)) {
      text += node.name === 'br' ? '\n' : collectPreformatted(node.children);
    }
  }
  return text;
}

/** Trims each line, collapses runs of spaces and drops empty lines. */
function normalizeInline(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}
