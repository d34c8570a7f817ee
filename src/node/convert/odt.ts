import type { ChildNode, Element } from 'domhandler' with { 'resolution-mode': 'import' };
import type { ConvertedDocument, PictureData } from '../../core/model/document';
import { ConversionError, throwIfAborted } from '../../core/errors';
import { DocumentBuilder, markdownTable } from './documentBuilder';
import { attribute, childElements, descendants, firstChild, isElement, localName, odfTableRows, parseXmlPart, spanCount, spannedGrid, textContent, type SourceCell } from './officeXml';
import { PictureCollector } from './pictures/pictureCollector';
import type { PictureProcessing } from './convertFile';
import { openZipArchive, type ZipArchive } from './zipArchive';

export interface OdtConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
}

const ODT_MIME_TYPES = new Set(['application/vnd.oasis.opendocument.text', 'application/vnd.oasis.opendocument.text-template', 'application/vnd.oasis.opendocument.text-master']);

/** Paragraph styles (display names, parents followed) that make a paragraph a caption. */
const CAPTION_STYLES = new Set(['caption', 'illustration', 'figure', 'table', 'drawing', 'text']);

/**
 * Converts an ODT (OpenDocument text) file from its `content.xml`: headings by outline level, the Title and Subtitle
 * paragraph styles, paragraphs, lists (numbered or bulleted by their list style, nested), tables with merged cells
 * laid out as docling does, pictures with their bytes, captions. Like DOCX, items carry no source range.
 * Title: the Title paragraph or first heading, else `dc:title`, else the file name.
 */
export async function convertOdt(bytes: Uint8Array, options: OdtConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const repair = 'Re-save it from LibreOffice Writer';
  const archive = await openZipArchive(bytes, { filePath: options.filePath, kind: 'an ODT document', repair, abortSignal: options.abortSignal });
  const mimeType = archive.text('mimetype')?.trim();
  if (mimeType !== undefined && !ODT_MIME_TYPES.has(mimeType)) {
    throw new ConversionError('corrupt_file', options.filePath, `is not an ODT text document (its mimetype is "${mimeType.slice(0, 100)}"). Give it the extension of its format, or exclude it from indexing.`);
  }
  if (/encryption-data/.test(archive.text('META-INF/manifest.xml') ?? '')) {
    throw new ConversionError('encrypted_file', options.filePath, 'is password-protected. Save it without a password in LibreOffice (File > Properties > Security) or exclude it.');
  }
  let content: Element | undefined;
  try {
    content = await parseXmlPart(archive, 'content.xml');
  } catch (error) {
    throw new ConversionError('corrupt_file', options.filePath, `is a damaged ODT document: its content.xml cannot be read (${error instanceof Error ? error.message : String(error)}). ${repair} or exclude it from indexing.`, { cause: error });
  }
  const text = firstChild(firstChild(content, 'body'), 'text');
  if (!content || !text) {
    throw new ConversionError('corrupt_file', options.filePath, `is a damaged ODT document: it has no text body (content.xml is missing or holds no office:text). ${repair} or exclude it from indexing.`);
  }
  const styles = await readStyles(archive, content);
  const builder = new DocumentBuilder();
  const reader = new OdtReader(archive, builder, styles, options);
  await reader.blocks(childElements(text), 0);
  builder.releaseHeldCaption();
  throwIfAborted(options.abortSignal);
  const heading = builder.items.find((item) => item.label === 'title' || item.label === 'section_header')?.text;
  const title = heading ?? (await metadataTitle(archive)) ?? options.fileName.replace(/\.odt$/i, '');
  return { format: 'odt', title, items: builder.items, content: builder.toMarkdown(), warnings: [...builder.allWarnings(), ...reader.collector.warnings()] };
}

interface OdtStyles {
  /** Paragraph style name → its parent's name. */
  parents: Map<string, string>;
  /** Paragraph style name → its display name (`Heading_20_1` → `Heading 1`). */
  displayNames: Map<string, string>;
  /** Paragraph style name → the outline level a heading style gives. */
  outlineLevels: Map<string, number>;
  /** List style name → per level (1-based index), whether that level is numbered. */
  orderedLevels: Map<string, boolean[]>;
  /** Paragraph style name → the list style it attaches. */
  paragraphLists: Map<string, string>;
}

async function readStyles(archive: ZipArchive, content: Element): Promise<OdtStyles> {
  const styles: OdtStyles = { parents: new Map(), displayNames: new Map(), outlineLevels: new Map(), orderedLevels: new Map(), paragraphLists: new Map() };
  let stylesPart: Element | undefined;
  try {
    stylesPart = await parseXmlPart(archive, 'styles.xml');
  } catch {
    stylesPart = undefined;
  }
  for (const root of [content, stylesPart]) {
    for (const style of descendants(root, 'style')) {
      const name = attribute(style, 'name');
      if (!name || styles.displayNames.has(name)) {
        continue;
      }
      styles.displayNames.set(name, attribute(style, 'display-name') ?? name.replace(/_20_/g, ' '));
      const parent = attribute(style, 'parent-style-name');
      if (parent) {
        styles.parents.set(name, parent);
      }
      const level = Number(attribute(style, 'default-outline-level'));
      if (level >= 1) {
        styles.outlineLevels.set(name, level);
      }
      const list = attribute(style, 'list-style-name');
      if (list) {
        styles.paragraphLists.set(name, list);
      }
    }
    for (const listStyle of descendants(root, 'list-style')) {
      const name = attribute(listStyle, 'name');
      if (!name || styles.orderedLevels.has(name)) {
        continue;
      }
      const levels: boolean[] = [];
      for (const level of childElements(listStyle)) {
        const index = Number(attribute(level, 'level') ?? '1');
        levels[index] = localName(level) === 'list-level-style-number' && (attribute(level, 'num-format') ?? '') !== '';
      }
      styles.orderedLevels.set(name, levels);
    }
  }
  return styles;
}

async function metadataTitle(archive: ZipArchive): Promise<string | undefined> {
  try {
    const meta = await parseXmlPart(archive, 'meta.xml');
    const title = descendants(meta, 'title')[0];
    const text = title ? textContent(title).replace(/\s+/g, ' ').trim() : '';
    return text || undefined;
  } catch {
    return undefined;
  }
}

class OdtReader {
  readonly collector = new PictureCollector();

  constructor(
    private readonly archive: ZipArchive,
    private readonly builder: DocumentBuilder,
    private readonly styles: OdtStyles,
    private readonly options: OdtConvertOptions,
  ) {}

  /** Block elements in order: headings, paragraphs, lists, tables, sections. */
  async blocks(elements: readonly Element[], depth: number): Promise<void> {
    for (const element of elements) {
      throwIfAborted(this.options.abortSignal);
      switch (localName(element)) {
        case 'h':
          await this.heading(element, depth);
          break;
        case 'p':
          await this.paragraph(element, depth);
          break;
        case 'list':
          await this.list(element, depth, 1, attribute(element, 'style-name'));
          break;
        case 'table':
          this.table(element, depth);
          break;
        case 'section':
        case 'deletion':
          if (localName(element) === 'section') {
            await this.blocks(childElements(element), depth);
          }
          break;
        default:
          // sequence-decls, tracked changes, tables of contents (their entries repeat the headings), forms: not content.
          break;
      }
    }
  }

  private async heading(element: Element, depth: number): Promise<void> {
    await this.frames(element, depth);
    const text = inlineText(element);
    if (!text) {
      return;
    }
    if (this.hasStyle(attribute(element, 'style-name'), 'title') && !this.builder.first('title')) {
      this.builder.add({ label: 'title', text });
      return;
    }
    const level = Number(attribute(element, 'outline-level')) || this.styles.outlineLevels.get(attribute(element, 'style-name') ?? '') || 1;
    this.builder.add({ label: 'section_header', text, headingLevel: Math.min(6, level) });
  }

  private async paragraph(element: Element, depth: number): Promise<void> {
    await this.frames(element, depth);
    const text = inlineText(element);
    if (!text) {
      return;
    }
    const style = attribute(element, 'style-name');
    if (this.hasStyle(style, 'title')) {
      this.builder.add(this.builder.first('title') ? { label: 'section_header', text, headingLevel: 1 } : { label: 'title', text });
    } else if (this.hasStyle(style, 'subtitle')) {
      this.builder.add({ label: 'section_header', text, headingLevel: 1 });
    } else if (this.styleChain(style).some((name) => /^heading \d$/.test(name))) {
      const level = Number(this.styleChain(style).find((name) => /^heading \d$/.test(name))!.slice(-1));
      this.builder.add({ label: 'section_header', text, headingLevel: Math.max(1, level) });
    } else if (this.styleChain(style).some((name) => CAPTION_STYLES.has(name))) {
      this.builder.addCaptionCandidate({ label: 'caption', text, treeDepth: depth });
    } else {
      this.builder.addCaptionCandidate({ label: 'paragraph', text, treeDepth: depth });
    }
  }

  /** Pictures and text boxes anchored in a paragraph, before the paragraph's own text. */
  private async frames(element: Element, depth: number): Promise<void> {
    for (const frame of framesIn(element)) {
      const image = firstChild(frame, 'image');
      const textBox = firstChild(frame, 'text-box');
      if (image) {
        const description = [firstChild(frame, 'title'), firstChild(frame, 'desc')].filter((node): node is Element => node !== undefined).map((node) => textContent(node).trim()).filter(Boolean).join(' ');
        this.builder.add({ label: 'picture', text: description, treeDepth: depth, picture: await this.picture(image) });
      }
      if (textBox) {
        await this.blocks(childElements(textBox), depth);
      }
    }
  }

  private async picture(image: Element): Promise<PictureData | undefined> {
    if (this.options.pictures === 'none') {
      return undefined;
    }
    const href = (attribute(image, 'href') ?? '').replace(/^\.\//, '');
    const bytes = href && !/^[a-z][a-z0-9+.-]*:/i.test(href) ? this.archive.bytes(href) : undefined;
    if (!bytes) {
      // Linked (not embedded) images are never fetched; the picture keeps its caption.
      return undefined;
    }
    try {
      return (await this.collector.addEncodedScaled(bytes)).picture;
    } catch {
      return this.collector.addFailure('undecodable').picture;
    }
  }

  private async list(element: Element, depth: number, level: number, inheritedStyle: string | undefined): Promise<void> {
    const styleName = attribute(element, 'style-name') ?? inheritedStyle;
    for (const item of childElements(element, 'list-item', 'list-header')) {
      for (const child of childElements(item)) {
        const name = localName(child);
        if (name === 'list') {
          await this.list(child, depth + 1, level + 1, styleName);
        } else if (name === 'p' || name === 'h') {
          await this.frames(child, depth + 1);
          const text = inlineText(child);
          const listStyle = styleName ?? this.styles.paragraphLists.get(attribute(child, 'style-name') ?? '');
          const ordered = listStyle ? this.styles.orderedLevels.get(listStyle)?.[level] === true : false;
          if (text) {
            this.builder.add({ label: 'list_item', text, treeDepth: depth + 1 }, { ordered });
          }
        } else {
          await this.blocks([child], depth + 1);
        }
      }
    }
  }

  private table(element: Element, depth: number): void {
    const { grid, truncated } = spannedGrid(tableRows(element));
    if (truncated) {
      this.builder.warn('A table has more cells than are indexed; only its first rows are kept.');
    }
    const rows = grid.filter((row) => row.some((cell) => cell !== ''));
    if (rows.length > 0) {
      this.builder.add({ label: 'table', text: markdownTable(rows), treeDepth: depth });
    }
  }

  /** The style's display names, lowercased, from the style itself up through its parents. */
  private styleChain(style: string | undefined): string[] {
    const chain: string[] = [];
    let current = style;
    while (current && chain.length < 16) {
      chain.push((this.styles.displayNames.get(current) ?? current.replace(/_20_/g, ' ')).toLowerCase());
      current = this.styles.parents.get(current);
    }
    return chain;
  }

  private hasStyle(style: string | undefined, displayName: string): boolean {
    return this.styleChain(style).includes(displayName);
  }
}

/** The frames inside a paragraph (in spans and links too), not those inside a nested text box's own paragraphs. */
function framesIn(element: Element): Element[] {
  const frames: Element[] = [];
  const visit = (node: Element) => {
    for (const child of childElements(node)) {
      if (localName(child) === 'frame') {
        frames.push(child);
      } else if (localName(child) !== 'note') {
        visit(child);
      }
    }
  };
  visit(element);
  return frames;
}

/** The rows of an ODF table, cells as stored (a cell's lists read through), trailing empty columns dropped. */
function tableRows(table: Element): SourceCell[][] {
  return odfTableRows(table, (cell) =>
    childElements(cell)
      .flatMap((block) => (localName(block) === 'list' ? descendants(block, 'p') : [block]))
      .map((block) => inlineText(block))
      .filter(Boolean)
      .join(' '),
  );
}

/** A paragraph's text: spans and links read through, `text:s` as its count of spaces, line breaks kept; frames, notes' marks and comments left out. */
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
        parts.push(' '.repeat(Math.min(spanCount(attribute(node, 'c')), 8)));
        return;
      case 'tab':
        parts.push(' ');
        return;
      case 'line-break':
        parts.push('\n');
        return;
      case 'note-citation':
      case 'annotation':
      case 'annotation-end':
      case 'frame':
      case 'tracked-changes':
        return;
      case 'note-body':
        parts.push(` (${node.children.map((child) => (isElement(child) ? inlineText(child) : '')).filter(Boolean).join(' ')})`);
        return;
      default:
        node.children.forEach(visit);
    }
  };
  element.children.forEach(visit);
  return parts
    .join('')
    .replace(/[ \t\r\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}
