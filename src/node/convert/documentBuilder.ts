import { MAX_DOCUMENT_ITEMS } from '../../core/limits';
import type { DocumentItem, ItemLabel, PageBox, PictureData, SourceRange } from '../../core/model/document';
import { looksLikeCaption } from './pictures/captions';

/** How an item is written in the Markdown rendering, beyond what `DocumentItem` records. */
export interface RenderHint {
  /** List items: numbered (`1.`) rather than bulleted (`-`). */
  ordered?: boolean;
}

/** Docling's `self_ref` family of a label: tables and pictures have their own counters, the rest are texts. */
export function selfRefKind(label: ItemLabel): 'texts' | 'tables' | 'pictures' {
  if (label === 'table' || label === 'document_index') {
    return 'tables';
  }
  return label === 'picture' ? 'pictures' : 'texts';
}

export interface NewItem {
  label: ItemLabel;
  text: string;
  headingLevel?: number;
  treeDepth?: number;
  sourceRange?: SourceRange;
  language?: string;
  pageNumbers?: number[];
  boxes?: PageBox[];
  picture?: PictureData;
}

/**
 * Collects items in reading order, numbering positions and per-kind `selfRef`s as they arrive,
 * and renders the whole document as Markdown for formats whose source is not Markdown already.
 * Past `maxItems` items are dropped with one warning, so hostile input cannot grow a document without bound.
 */
export class DocumentBuilder {
  readonly items: DocumentItem[] = [];
  /** What the converter had to leave out or cut, for the document's `warnings`. */
  readonly warnings: string[] = [];
  private readonly hints: RenderHint[] = [];
  private readonly counters = { texts: 0, tables: 0, pictures: 0 };
  private droppedItems = 0;
  /** A caption (or a paragraph reading like one) waiting to see whether a picture follows at once. */
  private heldCaption: { item: NewItem; hint: RenderHint } | undefined;

  constructor(private readonly maxItems: number = MAX_DOCUMENT_ITEMS) {}

  /** Whether the item limit has been reached: walkers may stop early. */
  get full(): boolean {
    return this.items.length >= this.maxItems;
  }

  /** Records a warning once (repeats of the same message are dropped). */
  warn(message: string): void {
    if (!this.warnings.includes(message)) {
      this.warnings.push(message);
    }
  }

  /** The warnings, plus one for items dropped at the limit. */
  allWarnings(): string[] {
    if (this.droppedItems === 0) {
      return [...this.warnings];
    }
    return [...this.warnings, `The document has more than ${this.maxItems.toLocaleString('en-US')} items; only the first ${this.maxItems.toLocaleString('en-US')} are indexed (${this.droppedItems.toLocaleString('en-US')} dropped). Split the file to index all of it.`];
  }

  /**
   * Adds a paragraph or caption that may caption a picture, keeping "a caption at position p describes the picture
   * at p − 1": right after a picture it becomes that picture's caption; otherwise it is held, and a picture that
   * follows at once goes before it (captions set above their figure). Anything else releases it unchanged.
   */
  addCaptionCandidate(item: NewItem, hint: RenderHint = {}): void {
    if (item.label !== 'caption' && !(item.label === 'paragraph' && looksLikeCaption(item.text))) {
      this.add(item, hint);
      return;
    }
    this.releaseHeldCaption();
    if (this.items[this.items.length - 1]?.label === 'picture') {
      this.add({ ...item, label: 'caption' }, hint);
      return;
    }
    this.heldCaption = { item, hint };
  }

  /** Adds a held caption candidate as it came (walkers call this when they finish). */
  releaseHeldCaption(): void {
    const held = this.heldCaption;
    this.heldCaption = undefined;
    if (held) {
      this.add(held.item, held.hint);
    }
  }

  /** Adds an item; past the limit the item is counted as dropped and returned without being kept. */
  add(item: NewItem, hint: RenderHint = {}): DocumentItem {
    const held = this.heldCaption;
    if (held) {
      this.heldCaption = undefined;
      if (item.label === 'picture') {
        const picture = this.add(item, hint);
        this.add({ ...held.item, label: 'caption' }, held.hint);
        return picture;
      }
      this.add(held.item, held.hint);
    }
    const kept = !this.full;
    const kind = selfRefKind(item.label);
    const added: DocumentItem = {
      position: this.items.length,
      selfRef: `#/${kind}/${kept ? this.counters[kind]++ : this.counters[kind]}`,
      label: item.label,
      text: item.text,
      headingLevel: item.label === 'section_header' ? clampHeadingLevel(item.headingLevel ?? 1) : 0,
      pageNumbers: item.pageNumbers ?? [],
      treeDepth: item.treeDepth ?? 0,
    };
    if (item.sourceRange) {
      added.sourceRange = item.sourceRange;
    }
    if (item.language) {
      added.language = item.language;
    }
    if (item.boxes && item.boxes.length > 0) {
      added.boxes = item.boxes;
    }
    if (item.picture) {
      added.picture = item.picture;
    }
    if (kept) {
      this.items.push(added);
      this.hints.push(hint);
    } else {
      this.droppedItems++;
    }
    return added;
  }

  /** The first item with this label, if any. */
  first(label: ItemLabel): DocumentItem | undefined {
    return this.items.find((item) => item.label === label);
  }

  /** A Markdown rendering of the items (headings as `#`, tables as pipe tables, code fenced). */
  toMarkdown(): string {
    const blocks: string[] = [];
    this.items.forEach((item, index) => {
      const hint = this.hints[index];
      switch (item.label) {
        case 'title':
          blocks.push(`# ${oneLine(item.text)}`);
          break;
        case 'section_header':
          blocks.push(`${'#'.repeat(item.headingLevel)} ${oneLine(item.text)}`);
          break;
        case 'list_item': {
          const indent = '    '.repeat(Math.max(0, item.treeDepth - 1));
          const marker = hint.ordered ? '1.' : '-';
          const joined = item.text.split('\n').join(`\n${indent}  `);
          // Consecutive list items belong to one Markdown list: no blank line between them.
          const previous = index > 0 ? this.items[index - 1] : undefined;
          const line = `${indent}${marker} ${joined}`;
          if (previous?.label === 'list_item' && blocks.length > 0) {
            blocks[blocks.length - 1] += `\n${line}`;
          } else {
            blocks.push(line);
          }
          break;
        }
        case 'code': {
          const fence = item.text.includes('```') ? '~~~~' : '```';
          blocks.push(`${fence}${item.language ?? ''}\n${item.text}\n${fence}`);
          break;
        }
        case 'picture':
          blocks.push(item.text ? `<!-- image: ${item.text.replace(/--/g, '- -')} -->` : '<!-- image -->');
          break;
        default:
          if (item.text.trim()) {
            blocks.push(item.text);
          }
      }
    });
    return blocks.length > 0 ? blocks.join('\n\n') + '\n' : '';
  }
}

function clampHeadingLevel(level: number): number {
  return Math.min(6, Math.max(1, Math.round(level)));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** Renders rows of cell texts as a Markdown pipe table; the first row is the header. */
export function markdownTable(rows: readonly (readonly string[])[]): string {
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (rows.length === 0 || width === 0) {
    return '';
  }
  const line = (cells: readonly string[]) => '| ' + Array.from({ length: width }, (_, index) => escapeCell(cells[index] ?? '')).join(' | ') + ' |';
  return [line(rows[0]), '| ' + new Array<string>(width).fill('-').join(' | ') + ' |', ...rows.slice(1).map(line)].join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

/** Maps string offsets to 0-based line/column pairs (UTF-16 columns, as VS Code counts them). */
export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(private readonly text: string) {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === 10) {
        this.lineStarts.push(index + 1);
      } else if (code === 13 && text.charCodeAt(index + 1) !== 10) {
        this.lineStarts.push(index + 1);
      }
    }
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle] <= offset) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return { line: low, column: offset - this.lineStarts[low] };
  }

  /** The offset of a 0-based line and column (the line's end when the column is past it). */
  offset(line: number, column: number): number {
    const clamped = Math.min(Math.max(0, line), this.lineStarts.length - 1);
    return this.lineStarts[clamped] + column;
  }

  /** A line's text without its line end. */
  lineText(line: number): string {
    const start = this.lineStarts[line] ?? this.text.length;
    const next = this.lineStarts[line + 1] ?? this.text.length + 1;
    return this.text.slice(start, next - 1).replace(/\r$/, '');
  }

  /** The range of `[start, end)` offsets. */
  range(start: number, end: number): SourceRange {
    const from = this.position(start);
    const to = this.position(Math.max(start, end));
    return { startLine: from.line, startColumn: from.column, endLine: to.line, endColumn: to.column };
  }
}
