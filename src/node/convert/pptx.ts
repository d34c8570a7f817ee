import type { Element } from 'domhandler' with { 'resolution-mode': 'import' };
import { throwIfAborted } from '../../core/errors';
import { SLIDE_MAX_NESTING_DEPTH } from '../../core/limits';
import {
  attribute,
  childAt,
  childElements,
  descendants,
  firstChild,
  inReadingOrder,
  localName,
  parseXmlPart,
  prefixedAttribute,
  readRelationships,
  relationshipIs,
  spanCount,
  textContent,
  type Relationship,
  type SourceCell,
} from './officeXml';
import type { ChartData, SlideBlock, SlideComment, SlideContent } from './presentation';
import type { ZipArchive } from './zipArchive';

/**
 * Reads a PPTX (PresentationML) deck slide by slide: the title placeholder, then every shape in reading order
 * (text frames with their bullets resolved through the layout and master, tables, pictures, charts, SmartArt),
 * the speaker notes and the comments.
 */

/** Placeholders that repeat on every slide (date, footer, slide number, header): furniture, left out. */
const FURNITURE_PLACEHOLDERS = new Set(['dt', 'ftr', 'sldNum', 'hdr']);
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);

/** What a layout or master says about one placeholder: where it sits and its list style. */
interface PlaceholderInfo {
  top?: number;
  left?: number;
  listStyle?: Element;
}

/** A slide layout or master: its placeholders (by `idx:<n>` and `type:<t>`) and, for masters, the text styles. */
interface TemplatePart {
  placeholders: Map<string, PlaceholderInfo>;
  textStyles?: Element;
  /** The layout's master. */
  master?: TemplatePart;
}

interface BulletKind {
  list: boolean;
  ordered: boolean;
}

export async function* readPptxSlides(archive: ZipArchive, warn: (message: string) => void, abortSignal?: AbortSignal): AsyncGenerator<SlideContent> {
  const reader = new PptxReader(archive, warn);
  const slideParts = await reader.slideParts();
  for (let index = 0; index < slideParts.length; index++) {
    throwIfAborted(abortSignal);
    yield await reader.readSlide(slideParts[index], index + 1);
  }
}

class PptxReader {
  private readonly templates = new Map<string, Promise<TemplatePart>>();
  private authors: Promise<Map<string, string>> | undefined;

  constructor(
    private readonly archive: ZipArchive,
    private readonly warn: (message: string) => void,
  ) {}

  /** The slides' part names in presentation order (`sldIdLst`), else the slide parts by number. */
  async slideParts(): Promise<string[]> {
    const presentation = await parseXmlPart(this.archive, 'ppt/presentation.xml');
    const relationships = await readRelationships(this.archive, 'ppt/presentation.xml');
    const listed = childElements(firstChild(presentation, 'sldIdLst'), 'sldId')
      .map((slideId) => relationships.get(prefixedAttribute(slideId, 'id') ?? ''))
      .filter((relationship): relationship is Relationship => relationship !== undefined && !relationship.external && this.archive.has(relationship.target))
      .map((relationship) => relationship.target);
    if (listed.length > 0) {
      return listed;
    }
    const numbered = (name: string) => Number(/(\d+)\.xml$/.exec(name)?.[1] ?? 0);
    return this.archive.names.filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name)).sort((a, b) => numbered(a) - numbered(b));
  }

  async readSlide(partName: string, number: number): Promise<SlideContent> {
    const root = await parseXmlPart(this.archive, partName);
    const relationships = await readRelationships(this.archive, partName);
    const layoutRelationship = [...relationships.values()].find((relationship) => relationshipIs(relationship, 'slideLayout'));
    const layout = layoutRelationship ? await this.template(layoutRelationship.target, true) : undefined;
    const context: ShapeContext = { slideNumber: number, relationships, layout, blocks: [], titles: [] };
    const tree = childAt(root, 'cSld', 'spTree');
    if (!root || !tree) {
      this.warn(`Slide ${number} could not be read (its part ${partName} is missing or not a slide); it is left out.`);
    }
    await this.readShapes(childElements(tree), context);
    return {
      title: context.titles.join(' ').trim() || undefined,
      blocks: context.blocks,
      notes: await this.notes(relationships),
      comments: await this.comments(relationships),
    };
  }

  /** Shapes of a tree or group, in reading order (top, then left), each read into blocks. */
  private async readShapes(elements: readonly Element[], context: ShapeContext, depth = 0): Promise<void> {
    if (depth > SLIDE_MAX_NESTING_DEPTH) {
      this.warn(`Slide ${context.slideNumber} nests shape groups more than ${SLIDE_MAX_NESTING_DEPTH} deep; the deeper shapes are left out.`);
      return;
    }
    const shapes = elements.flatMap(unwrapAlternateContent).filter((element) => ['sp', 'pic', 'graphicFrame', 'grpSp', 'cxnSp', 'contentPart'].includes(localName(element)));
    const entries = shapes.map((shape) => ({ shape, ...this.position(shape, context.layout) }));
    for (const { shape } of inReadingOrder(entries)) {
      await this.readShape(shape, context, depth);
    }
  }

  private async readShape(shape: Element, context: ShapeContext, depth: number): Promise<void> {
    switch (localName(shape)) {
      case 'sp':
        this.readTextShape(shape, context);
        return;
      case 'grpSp':
        await this.readShapes(childElements(shape), context, depth + 1);
        return;
      case 'pic':
        context.blocks.push(this.picture(shape, context));
        return;
      case 'graphicFrame':
        await this.readGraphicFrame(shape, context);
        return;
    }
  }

  private readTextShape(shape: Element, context: ShapeContext): void {
    const placeholder = childAt(shape, 'nvSpPr', 'nvPr', 'ph');
    const placeholderType = placeholder ? (attribute(placeholder, 'type') ?? 'obj') : undefined;
    if (placeholderType && FURNITURE_PLACEHOLDERS.has(placeholderType)) {
      return;
    }
    const body = firstChild(shape, 'txBody');
    const paragraphs = childElements(body, 'p');
    if (placeholderType && TITLE_PLACEHOLDERS.has(placeholderType) && context.titles.length === 0) {
      const title = paragraphs.map(paragraphText).filter(Boolean).join(' ');
      if (title) {
        context.titles.push(title);
        return;
      }
    }
    if (placeholderType === 'subTitle') {
      const subtitle = paragraphs.map(paragraphText).filter(Boolean).join(' ');
      if (subtitle) {
        context.blocks.push({ kind: 'heading', text: subtitle });
      }
      return;
    }
    const inherited = placeholder ? this.inheritedListStyles(placeholder, placeholderType ?? 'obj', context.layout) : [];
    const listStyles = [firstChild(body, 'lstStyle'), ...inherited];
    for (const paragraph of paragraphs) {
      const text = paragraphText(paragraph);
      if (!text) {
        continue;
      }
      const properties = firstChild(paragraph, 'pPr');
      const level = Math.min(8, Math.max(0, Number.parseInt(attribute(properties, 'lvl') ?? '0', 10) || 0));
      const bullet = bulletOf(properties) ?? listStyles.map((style) => bulletOf(firstChild(style, `lvl${level + 1}pPr`))).find((kind) => kind !== undefined);
      if (bullet?.list) {
        context.blocks.push({ kind: 'list_item', text, ordered: bullet.ordered, depth: level + 1 });
      } else {
        context.blocks.push({ kind: 'paragraph', text });
      }
    }
  }

  /** List styles a placeholder inherits, nearest first: the layout's placeholder, the master's, the master's text style. */
  private inheritedListStyles(placeholder: Element, type: string, layout: TemplatePart | undefined): Array<Element | undefined> {
    const styles: Array<Element | undefined> = [];
    for (const part of [layout, layout?.master]) {
      styles.push(part ? matchPlaceholder(part, placeholder, type)?.listStyle : undefined);
    }
    const textStyles = layout?.master?.textStyles;
    const styleName = TITLE_PLACEHOLDERS.has(type) ? 'titleStyle' : type === 'body' || type === 'obj' || type === 'subTitle' ? 'bodyStyle' : 'otherStyle';
    styles.push(firstChild(textStyles, styleName));
    return styles;
  }

  private picture(picture: Element, context: ShapeContext): SlideBlock {
    const description = (attribute(childAt(picture, 'nvPicPr', 'cNvPr'), 'descr') ?? '').trim();
    const blip = childAt(picture, 'blipFill', 'blip');
    if (!blip) {
      return { kind: 'picture', description, problem: 'a picture has no image data' };
    }
    const embed = attribute(blip, 'embed');
    const relationship = embed ? context.relationships.get(embed) : undefined;
    if (!relationship || relationship.external) {
      const linked = attribute(blip, 'link') !== undefined || relationship?.external;
      return linked ? { kind: 'picture', description } : { kind: 'picture', description, problem: 'a picture refers to an image that is not in the file' };
    }
    const bytes = this.archive.bytes(relationship.target);
    return bytes ? { kind: 'picture', description, bytes } : { kind: 'picture', description, problem: 'a picture refers to an image that is not in the file' };
  }

  private async readGraphicFrame(frame: Element, context: ShapeContext): Promise<void> {
    const data = childAt(frame, 'graphic', 'graphicData');
    const table = firstChild(data, 'tbl');
    if (table) {
      const rows = childElements(table, 'tr').map((row) =>
        childElements(row, 'tc').map(
          (cell): SourceCell => ({
            text: childElements(firstChild(cell, 'txBody'), 'p').map(paragraphText).filter(Boolean).join(' '),
            columnSpan: spanCount(attribute(cell, 'gridSpan')),
            rowSpan: spanCount(attribute(cell, 'rowSpan')),
            covered: attribute(cell, 'hMerge') === '1' || attribute(cell, 'vMerge') === '1' || attribute(cell, 'hMerge') === 'true' || attribute(cell, 'vMerge') === 'true',
          }),
        ),
      );
      context.blocks.push({ kind: 'table', rows });
      return;
    }
    const chart = firstChild(data, 'chart');
    if (chart) {
      const relationship = context.relationships.get(prefixedAttribute(chart, 'id') ?? '');
      const chartData = relationship && !relationship.external ? await this.chart(relationship.target) : undefined;
      if (chartData) {
        context.blocks.push({ kind: 'chart', ...chartData });
      }
      return;
    }
    const diagram = firstChild(data, 'relIds');
    if (diagram) {
      const relationship = context.relationships.get(attribute(diagram, 'dm') ?? '');
      const model = relationship && !relationship.external ? await parseXmlPart(this.archive, relationship.target) : undefined;
      // SmartArt: the text of its nodes, in the data model's order.
      for (const point of descendants(model, 'pt')) {
        const type = attribute(point, 'type') ?? 'node';
        const text = childElements(firstChild(point, 't'), 'p').map(paragraphText).filter(Boolean).join(' ');
        if (type === 'node' && text) {
          context.blocks.push({ kind: 'list_item', text, ordered: false, depth: 1 });
        }
      }
    }
  }

  /** A chart's kind, title and data (categories down, one column per series) from its cached values. */
  private async chart(partName: string): Promise<ChartData | undefined> {
    const space = await parseXmlPart(this.archive, partName);
    const chart = firstChild(space, 'chart');
    if (!chart) {
      return undefined;
    }
    const titleElement = firstChild(chart, 'title');
    const title = descendants(titleElement, 'p').map(paragraphText).filter(Boolean).join(' ') || descendants(childAt(titleElement, 'tx', 'strRef'), 'v').map(textContent).join(' ').trim();
    const plots = childElements(firstChild(chart, 'plotArea')).filter((element) => localName(element).endsWith('Chart'));
    const series = plots.flatMap((plot) => childElements(plot, 'ser'));
    const columns = series.map((entry) => ({ name: cachedValues(firstChild(entry, 'tx')).join(' '), values: cachedValues(firstChild(entry, 'val', 'yVal')) }));
    const categories = series.length > 0 ? cachedValues(firstChild(series[0], 'cat', 'xVal')) : [];
    const length = Math.max(categories.length, ...columns.map((column) => column.values.length));
    const rows = length === 0 ? undefined : [['', ...columns.map((column) => column.name)], ...Array.from({ length }, (_, row) => [categories[row] ?? '', ...columns.map((column) => column.values[row] ?? '')])];
    return { chartKind: chartKind(plots[0] ? localName(plots[0]) : ''), title: title || undefined, rows };
  }

  private async notes(relationships: Map<string, Relationship>): Promise<string[]> {
    const notesRelationship = [...relationships.values()].find((relationship) => relationshipIs(relationship, 'notesSlide'));
    if (!notesRelationship || notesRelationship.external) {
      return [];
    }
    const root = await parseXmlPart(this.archive, notesRelationship.target);
    const bodies = descendants(childAt(root, 'cSld', 'spTree'), 'sp').filter((shape) => attribute(childAt(shape, 'nvSpPr', 'nvPr', 'ph'), 'type') === 'body');
    return bodies.flatMap((shape) => childElements(firstChild(shape, 'txBody'), 'p').map(paragraphText)).filter(Boolean);
  }

  /** Legacy (`p:cmLst`) and modern (`p188:cmLst`, with replies) comments, with their authors' names. */
  private async comments(relationships: Map<string, Relationship>): Promise<SlideComment[]> {
    const comments: SlideComment[] = [];
    for (const relationship of relationships.values()) {
      if (!relationshipIs(relationship, 'comments') || relationship.external) {
        continue;
      }
      const root = await parseXmlPart(this.archive, relationship.target);
      const authors = await this.commentAuthors();
      for (const comment of descendants(root, 'cm', 'reply')) {
        const legacyText = firstChild(comment, 'text');
        const text = legacyText ? textContent(legacyText).trim() : childElements(firstChild(comment, 'txBody'), 'p').map(paragraphText).filter(Boolean).join('\n');
        if (text) {
          comments.push({ author: authors.get(attribute(comment, 'authorId') ?? ''), date: attribute(comment, 'dt') ?? attribute(comment, 'created'), text });
        }
      }
    }
    return comments;
  }

  private commentAuthors(): Promise<Map<string, string>> {
    this.authors ??= (async () => {
      const authors = new Map<string, string>();
      const relationships = await readRelationships(this.archive, 'ppt/presentation.xml');
      for (const relationship of relationships.values()) {
        if ((relationshipIs(relationship, 'commentAuthors') || relationshipIs(relationship, 'authors')) && !relationship.external) {
          const root = await parseXmlPart(this.archive, relationship.target);
          for (const author of descendants(root, 'cmAuthor', 'author')) {
            const id = attribute(author, 'id');
            const name = attribute(author, 'name');
            if (id && name) {
              authors.set(id, name);
            }
          }
        }
      }
      return authors;
    })();
    return this.authors;
  }

  /** A layout (with its master) or a master, read once. */
  private template(partName: string, isLayout: boolean): Promise<TemplatePart> {
    let template = this.templates.get(partName);
    if (!template) {
      template = (async () => {
        const root = await parseXmlPart(this.archive, partName);
        const placeholders = new Map<string, PlaceholderInfo>();
        for (const shape of descendants(childAt(root, 'cSld', 'spTree'), 'sp')) {
          const placeholder = childAt(shape, 'nvSpPr', 'nvPr', 'ph');
          if (!placeholder) {
            continue;
          }
          const info: PlaceholderInfo = { ...offsetOf(childAt(shape, 'spPr', 'xfrm')), listStyle: childAt(shape, 'txBody', 'lstStyle') };
          const idx = attribute(placeholder, 'idx');
          if (idx !== undefined && !placeholders.has(`idx:${idx}`)) {
            placeholders.set(`idx:${idx}`, info);
          }
          const type = attribute(placeholder, 'type') ?? 'obj';
          if (!placeholders.has(`type:${type}`)) {
            placeholders.set(`type:${type}`, info);
          }
        }
        let master: TemplatePart | undefined;
        if (isLayout) {
          const masterRelationship = [...(await readRelationships(this.archive, partName)).values()].find((relationship) => relationshipIs(relationship, 'slideMaster'));
          master = masterRelationship && !masterRelationship.external ? await this.template(masterRelationship.target, false) : undefined;
        }
        return { placeholders, textStyles: firstChild(root, 'txStyles'), master };
      })();
      this.templates.set(partName, template);
    }
    return template;
  }

  /** Where a shape sits (EMU); a placeholder without its own position takes its layout's or master's. */
  private position(shape: Element, layout: TemplatePart | undefined): { top?: number; left?: number } {
    const name = localName(shape);
    const transform =
      name === 'graphicFrame' ? firstChild(shape, 'xfrm') : name === 'grpSp' ? childAt(shape, 'grpSpPr', 'xfrm') : childAt(shape, 'spPr', 'xfrm');
    const own = offsetOf(transform);
    if (own.top !== undefined) {
      return own;
    }
    const placeholder = childAt(shape, 'nvSpPr', 'nvPr', 'ph');
    if (placeholder && layout) {
      const type = attribute(placeholder, 'type') ?? 'obj';
      for (const part of [layout, layout.master]) {
        const info = part ? matchPlaceholder(part, placeholder, type) : undefined;
        if (info?.top !== undefined) {
          return { top: info.top, left: info.left };
        }
      }
    }
    return {};
  }
}

interface ShapeContext {
  slideNumber: number;
  relationships: Map<string, Relationship>;
  layout: TemplatePart | undefined;
  blocks: SlideBlock[];
  titles: string[];
}

/** A layout's or master's placeholder for a slide's: by `idx` when it has one, else by type (titles match either kind). */
function matchPlaceholder(part: TemplatePart, placeholder: Element, type: string): PlaceholderInfo | undefined {
  const idx = attribute(placeholder, 'idx');
  const byIndex = idx !== undefined && idx !== '0' ? part.placeholders.get(`idx:${idx}`) : undefined;
  if (byIndex) {
    return byIndex;
  }
  const alternatives = TITLE_PLACEHOLDERS.has(type) ? ['title', 'ctrTitle'] : type === 'obj' ? ['obj', 'body'] : [type];
  for (const alternative of [type, ...alternatives]) {
    const byType = part.placeholders.get(`type:${alternative}`);
    if (byType) {
      return byType;
    }
  }
  return undefined;
}

function offsetOf(transform: Element | undefined): { top?: number; left?: number } {
  const offset = firstChild(transform, 'off');
  const top = Number(attribute(offset, 'y'));
  const left = Number(attribute(offset, 'x'));
  return offset && Number.isFinite(top) && Number.isFinite(left) ? { top, left } : {};
}

/** `mc:AlternateContent` stands for its first choice (else its fallback); anything else for itself. */
function unwrapAlternateContent(element: Element): Element[] {
  if (localName(element) !== 'AlternateContent') {
    return [element];
  }
  const choice = firstChild(element, 'Choice');
  const chosen = childElements(choice).length > 0 ? choice : firstChild(element, 'Fallback');
  return childElements(chosen).flatMap(unwrapAlternateContent);
}

/** A paragraph's bullet as its properties set it, or undefined when they leave it to the styles. */
function bulletOf(properties: Element | undefined): BulletKind | undefined {
  for (const child of childElements(properties)) {
    switch (localName(child)) {
      case 'buNone':
        return { list: false, ordered: false };
      case 'buAutoNum':
        return { list: true, ordered: true };
      case 'buChar':
      case 'buBlip':
        return { list: true, ordered: false };
    }
  }
  return undefined;
}

/** A DrawingML paragraph's text: runs and fields, line breaks as spaces, whitespace runs collapsed. */
function paragraphText(paragraph: Element): string {
  let text = '';
  for (const child of childElements(paragraph)) {
    const name = localName(child);
    if (name === 'r' || name === 'fld') {
      text += childElements(child, 't').map(textContent).join('');
    } else if (name === 'br') {
      text += ' ';
    }
  }
  return text.replace(/[\s\u000b]+/g, ' ').trim();
}

/** The cached values of a chart reference (`c:strRef`/`c:numRef`/`c:multiLvlStrRef`/literals), in point order. */
function cachedValues(element: Element | undefined): string[] {
  if (!element) {
    return [];
  }
  const direct = firstChild(element, 'v');
  if (direct) {
    return [textContent(direct).trim()];
  }
  const values: string[] = [];
  // Multi-level categories: the innermost level (the first `c:lvl`) names each point.
  const cache = descendants(element, 'strCache')[0] ?? descendants(element, 'numCache')[0] ?? descendants(element, 'lvl')[0] ?? firstChild(element, 'strLit', 'numLit');
  for (const point of childElements(cache, 'pt')) {
    const index = Number.parseInt(attribute(point, 'idx') ?? '', 10);
    if (Number.isFinite(index) && index >= 0 && index < 100_000) {
      values[index] = textContent(firstChild(point, 'v') ?? point).trim();
    }
  }
  return Array.from(values, (value) => value ?? '');
}

function chartKind(plotName: string): string {
  const name = plotName.toLowerCase();
  if (name.startsWith('pie') || name.startsWith('doughnut') || name.startsWith('ofpie')) {
    return 'Pie chart';
  }
  if (name.startsWith('scatter') || name.startsWith('bubble')) {
    return 'Scatter chart';
  }
  if (name.startsWith('line')) {
    return 'Line chart';
  }
  if (name.startsWith('bar')) {
    return 'Bar chart';
  }
  if (name.startsWith('area')) {
    return 'Area chart';
  }
  return name.startsWith('radar') ? 'Radar chart' : 'Chart';
}
