import type { ConvertedDocument, PictureData, SourceRange } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { MAX_TABLE_CELLS } from '../../core/limits';
import { DocumentBuilder, markdownTable } from './documentBuilder';
import type { ConvertOptions, LocalImageConvertOptions } from './html';
import { localPicturesFor, type LocalPictures } from './pictures/localImages';

/** `=` headings, and the Markdown-style `#` ones Asciidoctor also accepts. */
const HEADING = /^(={1,6}|#{1,6})[ \t]+(\S.*)$/;
/** Preprocessor and macro lines that are not text: includes, conditionals, the table of contents, breaks. */
const DIRECTIVE = /^(?:include::|ifdef::|ifndef::|ifeval::|endif::|toc::|<<<\s*$|'{3,}\s*$)/;
const ATTRIBUTE_ENTRY = /^:(!?[\w][\w-]*!?):(?:\s+(.*))?$/;
const BLOCK_ATTRIBUTES = /^\[([^\]]*)\]\s*$/;
/** `.Title` of the next block (not `..`, not `. item`). */
const BLOCK_TITLE = /^\.([^.\s].*)$/;
const LIST_ITEM = /^(\s*)(\*{1,5}|-|\.{1,5}|\d+\.|[a-zA-Z]\.|[ivxIVX]+\))\s+(.*)$/;
const ADMONITION = /^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+(.*)$/;
const ADMONITION_STYLES = new Set(['NOTE', 'TIP', 'IMPORTANT', 'WARNING', 'CAUTION']);
const BLOCK_IMAGE = /^image::([^[\s]+)\[(.*)\]\s*$/;
/** Delimiter lines of blocks: the same character four or more times (`|===` for tables). */
const DELIMITER = /^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|\/{4,}|-{2})\s*$/;
const TABLE_DELIMITER = /^[|!,:]={3,}\s*$/;

interface PendingBlock {
  /** The `[...]` line before a block: its first positional attribute is the style (`source`, `NOTE`, `quote`), the second a source language. */
  attributes?: string[];
  /** `.Title` before a block. */
  title?: { text: string; line: number };
}

/**
 * AsciiDoc (`.adoc`, `.asciidoc`, `.asc`): `=` document title and `==`…`======` sections, paragraphs, lists
 * (`*`/`-`/`.`/numbered, nested by marker and indentation), `|===` tables (first row as header) and bare `|` rows,
 * `----`/`....` listing and literal blocks as code (`[source,lang]` gives the language), admonitions (`NOTE:` lines
 * and `[WARNING]` blocks) as paragraphs starting with their kind, `image::` blocks as pictures (local files inside
 * the indexed folders, like Markdown's images), `.Title` lines as captions. Attribute entries (`:name: value`) are
 * not text; `{name}` references are replaced by their values. Items carry their lines.
 */
export async function convertAsciidoc(text: string, options: ConvertOptions & LocalImageConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const converter = new AsciidocConverter(text.split(/\r\n|\r|\n/), options.abortSignal, localPicturesFor(options));
  await converter.convertRange(0, converter.lines.length, 0);
  converter.builder.releaseHeldCaption();
  const builder = converter.builder;
  const title = builder.first('title')?.text ?? builder.first('section_header')?.text ?? options.fileName;
  return { format: 'asciidoc', title, items: builder.items, content: builder.toMarkdown(), warnings: [...builder.allWarnings(), ...(converter.localPictures?.warnings() ?? [])] };
}

class AsciidocConverter {
  readonly builder = new DocumentBuilder();
  private readonly attributes = new Map<string, string>();
  private pending: PendingBlock = {};

  constructor(
    readonly lines: string[],
    private readonly abortSignal: AbortSignal | undefined,
    readonly localPictures: LocalPictures | undefined,
  ) {}

  /** Converts lines [from, to); `depth` is the tree depth of the items (blocks inside blocks). */
  async convertRange(from: number, to: number, depth: number): Promise<void> {
    const lines = this.lines;
    let index = from;
    while (index < to) {
      if (index % 500 === 0) {
        throwIfAborted(this.abortSignal);
      }
      const line = lines[index];
      const trimmed = line.trim();
      if (!trimmed) {
        index++;
        continue;
      }
      // Comments: `//` lines and `////` blocks.
      if (/^\/{4,}\s*$/.test(line)) {
        index = this.closingLine(index, to) + 1;
        continue;
      }
      if (line.startsWith('//') || DIRECTIVE.test(line)) {
        index++;
        continue;
      }
      const attribute = ATTRIBUTE_ENTRY.exec(line);
      if (attribute) {
        const name = attribute[1];
        if (name.startsWith('!') || name.endsWith('!')) {
          this.attributes.delete(name.replace(/!/g, ''));
        } else {
          this.attributes.set(name, attribute[2] ?? '');
        }
        index++;
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        const level = heading[1].length - 1;
        const headingText = this.inline(headingTitle(heading[2]));
        this.builder.add({ label: level === 0 ? 'title' : 'section_header', text: headingText, headingLevel: Math.max(1, level), sourceRange: this.range(index, index) });
        this.pending = {};
        index++;
        continue;
      }
      const blockAttributes = BLOCK_ATTRIBUTES.exec(line);
      if (blockAttributes && !line.startsWith('[[')) {
        this.pending.attributes = blockAttributes[1].split(',').map((part) => part.trim());
        index++;
        continue;
      }
      const blockTitle = BLOCK_TITLE.exec(line);
      if (blockTitle && !LIST_ITEM.test(line)) {
        this.pending.title = { text: this.inline(blockTitle[1]), line: index };
        index++;
        continue;
      }
      if (TABLE_DELIMITER.test(line)) {
        const end = this.closingLine(index, to);
        this.addTitleCaption();
        this.addTable(index + 1, end, line[0] === '|' ? '|' : line[0], index, Math.min(end, to - 1), depth);
        this.pending = {};
        index = end + 1;
        continue;
      }
      if (line.startsWith('|')) {
        let end = index;
        while (end + 1 < to && lines[end + 1].startsWith('|')) {
          end++;
        }
        this.addTitleCaption();
        this.addTable(index, end + 1, '|', index, end, depth);
        this.pending = {};
        index = end + 1;
        continue;
      }
      const delimiter = DELIMITER.exec(line);
      if (delimiter) {
        const end = this.closingLine(index, to);
        await this.addDelimitedBlock(delimiter[1], index, end, depth);
        this.pending = {};
        index = end + 1;
        continue;
      }
      const image = BLOCK_IMAGE.exec(line);
      if (image) {
        await this.addImage(image[1], image[2], index);
        this.pending = {};
        index++;
        continue;
      }
      if (LIST_ITEM.test(line) && !(line.startsWith(' ') && !this.isListContext(index, from))) {
        index = this.addList(index, to, depth);
        this.pending = {};
        continue;
      }
      if (/^\s/.test(line)) {
        // A literal paragraph: indented lines, kept as they are.
        let end = index;
        while (end + 1 < to && lines[end + 1].trim() && /^\s/.test(lines[end + 1])) {
          end++;
        }
        this.builder.add({ label: 'code', text: dedent(lines.slice(index, end + 1)), treeDepth: depth, sourceRange: this.range(index, end) });
        this.pending = {};
        index = end + 1;
        continue;
      }
      index = this.addParagraph(index, to, depth);
      this.pending = {};
    }
  }

  /** The line closing the block opened at `open` (the same delimiter), or the last line of the range when it is never closed. */
  private closingLine(open: number, to: number): number {
    const delimiter = this.lines[open].trim();
    for (let index = open + 1; index < to; index++) {
      if (this.lines[index].trim() === delimiter) {
        return index;
      }
    }
    return to - 1;
  }

  /** Whether an indented list marker continues a list (a list item above without a blank line between). */
  private isListContext(index: number, from: number): boolean {
    for (let line = index - 1; line >= from; line--) {
      const text = this.lines[line];
      if (!text.trim()) {
        return false;
      }
      if (LIST_ITEM.test(text) && !text.startsWith(' ')) {
        return true;
      }
    }
    return false;
  }

  private addTitleCaption(): void {
    const title = this.pending.title;
    if (title) {
      this.builder.add({ label: 'caption', text: title.text, sourceRange: this.range(title.line, title.line) });
    }
  }

  private async addDelimitedBlock(delimiter: string, open: number, close: number, depth: number): Promise<void> {
    const style = this.pending.attributes?.[0] ?? '';
    const body = this.lines.slice(open + 1, close);
    const kind = delimiter[0];
    if (kind === '+' && delimiter.length >= 4) {
      // Passthrough: raw output (HTML), not text to index.
      return;
    }
    if (ADMONITION_STYLES.has(style.toUpperCase())) {
      this.addTitleCaption();
      const inner = body.map((line) => line.trim()).filter(Boolean).join(' ');
      if (inner) {
        this.builder.add({ label: 'paragraph', text: `${style.toUpperCase()}: ${this.inline(inner)}`, treeDepth: depth, sourceRange: this.range(open, close) });
      }
      return;
    }
    if (kind === '-' || kind === '.') {
      if (delimiter === '--') {
        // An open block: its content is ordinary blocks.
        await this.convertRange(open + 1, close, depth);
        return;
      }
      this.addTitleCaption();
      const language = style === 'source' || style === 'listing' ? this.pending.attributes?.[1] : undefined;
      const code = body.join('\n').trimEnd();
      if (code.trim()) {
        this.builder.add({ label: 'code', text: code, language: language || undefined, treeDepth: depth, sourceRange: this.range(open + 1, Math.max(open + 1, close - 1)) });
      }
      return;
    }
    // Example (====), sidebar (****), quote (____): their content is ordinary blocks.
    this.addTitleCaption();
    this.pending = {};
    await this.convertRange(open + 1, close, depth);
  }

  private async addImage(target: string, attributeText: string, line: number): Promise<void> {
    const attributes = attributeText.split(',').map((part) => part.trim());
    const named = attributes.find((part) => /^alt\s*=/.test(part));
    const alt = (named ? named.replace(/^alt\s*=\s*/, '') : attributes[0] && !attributes[0].includes('=') ? attributes[0] : '').replace(/^"|"$/g, '');
    const directory = this.attributes.get('imagesdir');
    const reference = this.substitute(directory && !/^[a-z][\w+.-]*:|^\//i.test(target) ? `${directory.replace(/\/$/, '')}/${target}` : target);
    let picture: PictureData | undefined;
    if (this.localPictures) {
      picture = await this.localPictures.read(reference);
    }
    const title = this.pending.title;
    if (title) {
      this.builder.addCaptionCandidate({ label: 'caption', text: title.text, sourceRange: this.range(title.line, title.line) });
    }
    this.builder.add({ label: 'picture', text: alt, picture, sourceRange: this.range(line, line) });
  }

  /** A table's rows: cells start at `separator`; a line holding fewer cells than the first row continues a row across lines. */
  private addTable(from: number, to: number, separator: string, rangeStart: number, rangeEnd: number, depth: number): void {
    const rows: string[][] = [];
    let columns = 0;
    let pending: string[] = [];
    let cells = 0;
    let truncated = false;
    for (let index = from; index < to; index++) {
      const line = this.lines[index];
      if (!line.trim()) {
        continue;
      }
      const lineCells = splitCells(line, separator);
      if (lineCells === undefined) {
        // Text without a cell marker continues the previous cell.
        const target = pending.length > 0 ? pending : rows[rows.length - 1];
        if (target && target.length > 0) {
          target[target.length - 1] += ` ${line.trim()}`;
        }
        continue;
      }
      if (columns === 0) {
        columns = this.columnCount() ?? lineCells.length;
      }
      if (pending.length === 0 && lineCells.length >= columns) {
        rows.push(lineCells);
      } else {
        pending.push(...lineCells);
        if (pending.length >= columns) {
          rows.push(pending);
          pending = [];
        }
      }
      cells += lineCells.length;
      if (cells > MAX_TABLE_CELLS) {
        truncated = true;
        break;
      }
    }
    if (pending.length > 0) {
      rows.push(pending);
    }
    if (truncated) {
      this.builder.warn(`A table has more than ${MAX_TABLE_CELLS.toLocaleString('en-US')} cells; the rest of it is not indexed.`);
    }
    if (rows.length > 0) {
      this.builder.add({ label: 'table', text: markdownTable(rows.map((row) => row.map((cell) => this.inline(cell)))), treeDepth: depth, sourceRange: this.range(rangeStart, rangeEnd) });
    }
  }

  /** The column count from `[cols="1,2,3"]` or `[cols=3]`, if given. */
  private columnCount(): number | undefined {
    const spec = this.pending.attributes?.join(',').match(/cols\s*=\s*"?([^"\]]*)"?/);
    if (!spec) {
      return undefined;
    }
    const value = spec[1].trim();
    if (/^\d+$/.test(value)) {
      return Number(value);
    }
    const count = value.split(/[,;]/).reduce((sum, part) => {
      const repeat = /^(\d+)\*/.exec(part.trim());
      return sum + (repeat ? Number(repeat[1]) : 1);
    }, 0);
    return count > 0 ? count : undefined;
  }

  /** A list from `start`: nesting follows the distinct markers (`*`, `**`, `.`) and their indentation, as AsciiDoc nests by marker. Returns the line after it. */
  private addList(start: number, to: number, depth: number): number {
    const levels: string[] = [];
    let index = start;
    let current: { text: string; startLine: number; endLine: number; level: number; ordered: boolean } | undefined;
    const flush = () => {
      if (current) {
        this.builder.add({ label: 'list_item', text: this.inline(current.text), treeDepth: depth + current.level, sourceRange: this.range(current.startLine, current.endLine) }, { ordered: current.ordered });
        current = undefined;
      }
    };
    while (index < to) {
      const line = this.lines[index];
      const item = LIST_ITEM.exec(line);
      if (item) {
        flush();
        const marker = item[2];
        const ordered = /^[.\d]|^[a-zA-Z]\.|\)$/.test(marker);
        // Numbers and letters are one marker kind: `1.` and `2.` are siblings.
        const key = `${item[1].length}:${marker.replace(/^\d+\.$/, '#.').replace(/^[a-zA-Z]\.$/, 'a.').replace(/^[ivxIVX]+\)$/, 'i)')}`;
        const found = levels.indexOf(key);
        if (found >= 0) {
          levels.length = found + 1;
        } else {
          levels.push(key);
        }
        current = { text: item[3], startLine: index, endLine: index, level: levels.length, ordered };
        index++;
        continue;
      }
      if (!line.trim()) {
        // A blank line ends the list unless another item follows.
        let next = index + 1;
        while (next < to && !this.lines[next].trim()) {
          next++;
        }
        if (next < to && LIST_ITEM.test(this.lines[next]) && !BLOCK_TITLE.test(this.lines[next].trim())) {
          index = next;
          continue;
        }
        break;
      }
      if (line.trim() === '+') {
        index++;
        continue;
      }
      if (line.startsWith('//') || DIRECTIVE.test(line) || DELIMITER.test(line) || TABLE_DELIMITER.test(line) || HEADING.test(line) || BLOCK_ATTRIBUTES.test(line) || BLOCK_IMAGE.test(line)) {
        break;
      }
      // A continuation line of the item's text.
      if (current) {
        current.text += ` ${line.trim()}`;
        current.endLine = index;
      }
      index++;
    }
    flush();
    return index;
  }

  /** A paragraph: lines up to a blank line or a line that starts another block. `NOTE:` and its kin label it. */
  private addParagraph(start: number, to: number, depth: number): number {
    let end = start;
    while (end + 1 < to) {
      const next = this.lines[end + 1];
      if (!next.trim() || next.startsWith('//') || DIRECTIVE.test(next) || HEADING.test(next) || DELIMITER.test(next) || TABLE_DELIMITER.test(next) || BLOCK_IMAGE.test(next) || (BLOCK_ATTRIBUTES.test(next) && !next.startsWith('[['))) {
        break;
      }
      end++;
    }
    const joined = this.lines.slice(start, end + 1).map((line) => line.trim()).join(' ');
    const style = this.pending.attributes?.[0]?.toUpperCase() ?? '';
    const admonition = ADMONITION.exec(joined);
    const text = admonition ? `${admonition[1]}: ${this.inline(admonition[2])}` : ADMONITION_STYLES.has(style) ? `${style}: ${this.inline(joined)}` : this.inline(joined);
    if (text) {
      this.addTitleCaption();
      if (style === 'SOURCE' || style === 'LISTING' || style === 'LITERAL') {
        this.builder.add({ label: 'code', text: this.lines.slice(start, end + 1).join('\n'), language: this.pending.attributes?.[1] || undefined, treeDepth: depth, sourceRange: this.range(start, end) });
      } else {
        this.builder.add({ label: 'paragraph', text, treeDepth: depth, sourceRange: this.range(start, end) });
      }
    }
    return end + 1;
  }

  /** Inline markup to plain text: attribute references, formatting marks, links and cross references. */
  private inline(text: string): string {
    return this.substitute(text)
      .replace(/\bimage:([^\s[]+)\[([^\][]*)\]/g, (_, target: string, alt: string) => alt.split(',')[0] || target)
      .replace(/\b(?:link|mailto):([^\s[]+)\[([^\][]*)\]/g, (_, target: string, label: string) => label.split(',')[0] || target)
      .replace(/\b((?:https?|ftp|file):\/\/[^\s[]+)\[([^\][]*)\]/g, (_, target: string, label: string) => label.split(',')[0] || target)
      .replace(/<<([^,<>]+)(?:,\s*([^<>]+))?>>/g, (_, target: string, label: string | undefined) => label ?? target)
      .replace(/\bxref:([^\s[]+)\[([^\][]*)\]/g, (_, target: string, label: string) => label || target)
      .replace(/\[\[[^\][]*\]\]/g, '')
      .replace(/(^|[^\w*])\*\*?([^*\n]+?)\*\*?(?=[^\w*]|$)/g, '$1$2')
      .replace(/(^|[^\w_])__?([^_\n]+?)__?(?=[^\w_]|$)/g, '$1$2')
      .replace(/``?([^`\n]+?)``?/g, '$1')
      .replace(/(^|[^\w#])##?([^#\n]+?)##?(?=[^\w#]|$)/g, '$1$2')
      .replace(/ \+$/, '')
      // Runs of spaces become one (the Markdown rendering's `\s*\n\s*` on a heading is quadratic in a long run).
      .replace(/\s+/g, ' ')
      .trim();
  }

  /** `{name}` references replaced by attribute values; unknown names are left as written, as Asciidoctor does by default. */
  private substitute(text: string): string {
    return text.replace(/\\?\{([\w][\w-]*)\}/g, (match: string, name: string) => (match.startsWith('\\') ? match.slice(1) : this.attributes.get(name) ?? match));
  }

  private range(startLine: number, endLine: number): SourceRange {
    return { startLine, startColumn: 0, endLine, endColumn: this.lines[endLine]?.length ?? 0 };
  }
}

/** A table line's cells: text after each unescaped separator (a cell specifier such as `2+` or `a` before it is dropped); undefined for a line with no separator at its start. */
function splitCells(line: string, separator: string): string[] | undefined {
  const trimmed = line.trim();
  const first = /^(?:[\d.+*<>^a-z]*)\|/.exec(trimmed);
  if (separator === '|' ? !first : !trimmed.startsWith(separator)) {
    return undefined;
  }
  const body = separator === '|' ? trimmed.slice(first![0].length) : trimmed.slice(1);
  const cells: string[] = [];
  let cell = '';
  for (let index = 0; index < body.length; index++) {
    const character = body[index];
    if (character === '\\' && body[index + 1] === separator) {
      cell += separator;
      index++;
    } else if (character === separator) {
      cells.push(cleanCell(cell));
      cell = '';
    } else {
      cell += character;
    }
  }
  cells.push(cleanCell(cell));
  return cells;
}

/** A cell's text without the specifier of the next cell glued to its end (`a 2+|b` leaves `a`). */
function cleanCell(cell: string): string {
  const trimmed = cell.trim();
  // Only the end is searched: a regular expression over a long run of spaces would be quadratic.
  const specifier = /\s(?:\d+[+*]|\d*\.\d+[+*])$/.exec(trimmed.slice(-16));
  return specifier ? trimmed.slice(0, trimmed.length - specifier[0].length).trim() : trimmed;
}

/** A heading's title without the closing `=` marks of the symmetric style (`== Title ==`). */
function headingTitle(text: string): string {
  const trimmed = text.trimEnd();
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === '=') {
    end--;
  }
  return end < trimmed.length && end > 0 && /\s/.test(trimmed[end - 1]) ? trimmed.slice(0, end).trimEnd() : trimmed;
}

function dedent(lines: readonly string[]): string {
  const indent = Math.min(...lines.filter((line) => line.trim()).map((line) => /^\s*/.exec(line)![0].length));
  return lines.map((line) => line.slice(indent)).join('\n').trimEnd();
}
