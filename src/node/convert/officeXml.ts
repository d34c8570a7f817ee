import type { ChildNode, Element } from 'domhandler' with { 'resolution-mode': 'import' };
import { MAX_TABLE_CELL_SPAN, MAX_TABLE_CELLS } from '../../core/limits';
import type { ZipArchive } from './zipArchive';

/**
 * Reading the XML parts of office files (OOXML: PPTX, XLSX; ODF: ODP, ODS, ODT). Elements are matched by their
 * local name, because prefixes are only conventions (`p:sp` is usually, not necessarily, spelled `p:`).
 */

type HtmlParserModule = typeof import('htmlparser2', { with: { 'resolution-mode': 'import' } });

let htmlParserModule: Promise<HtmlParserModule> | undefined;

/** Parses an XML part (htmlparser2 in XML mode: names keep their case, no DTD entities are expanded). */
export async function parseXml(text: string): Promise<Element | undefined> {
  // htmlparser2 is ESM-only; the extension and CLI are CommonJS bundles, so it is loaded with `import()`.
  htmlParserModule ??= import('htmlparser2');
  const { parseDocument } = await htmlParserModule;
  const document = parseDocument(text, { xmlMode: true, decodeEntities: true });
  return document.children.find(isElement);
}

/** Parses a part of the archive, or undefined when the part is missing. */
export async function parseXmlPart(archive: ZipArchive, name: string): Promise<Element | undefined> {
  const text = archive.text(name);
  return text === undefined ? undefined : parseXml(text);
}

export function isElement(node: ChildNode): node is Element {
  return node.type === 'tag';
}

/** An element's name without its namespace prefix. */
export function localName(element: Element): string {
  const colon = element.name.indexOf(':');
  return colon < 0 ? element.name : element.name.slice(colon + 1);
}

/** The child elements, those with one of `names` (local names) when given. */
export function childElements(element: Element | undefined, ...names: string[]): Element[] {
  if (!element) {
    return [];
  }
  const children = element.children.filter(isElement);
  return names.length === 0 ? children : children.filter((child) => names.includes(localName(child)));
}

export function firstChild(element: Element | undefined, ...names: string[]): Element | undefined {
  return element?.children.find((child): child is Element => isElement(child) && names.includes(localName(child)));
}

/** Follows a path of local names through first children (`child(sp, 'nvSpPr', 'nvPr', 'ph')`). */
export function childAt(element: Element | undefined, ...path: string[]): Element | undefined {
  let current = element;
  for (const name of path) {
    current = firstChild(current, name);
  }
  return current;
}

/** Every descendant element with one of the local names, in document order. */
export function descendants(element: Element | undefined, ...names: string[]): Element[] {
  const found: Element[] = [];
  const visit = (node: Element) => {
    for (const child of node.children) {
      if (isElement(child)) {
        if (names.includes(localName(child))) {
          found.push(child);
        }
        visit(child);
      }
    }
  };
  if (element) {
    visit(element);
  }
  return found;
}

/** An attribute by its local name (`r:embed` is found as `embed`). */
export function attribute(element: Element | undefined, name: string): string | undefined {
  if (!element) {
    return undefined;
  }
  const exact = element.attribs[name];
  if (exact !== undefined) {
    return exact;
  }
  for (const [key, value] of Object.entries(element.attribs)) {
    if (key.endsWith(`:${name}`)) {
      return value;
    }
  }
  return undefined;
}

/** A prefixed attribute by its local name only (`r:id` as `id`, where a plain `id` attribute may sit beside it). */
export function prefixedAttribute(element: Element | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(element?.attribs ?? {})) {
    if (key.endsWith(`:${name}`)) {
      return value;
    }
  }
  return undefined;
}

/** All the text below an element, concatenated. */
export function textContent(node: ChildNode): string {
  if (node.type === 'text') {
    return node.data;
  }
  return isElement(node) ? node.children.map(textContent).join('') : '';
}

/** One OOXML relationship: its type URI and the part (or external address) it points at. */
export interface Relationship {
  type: string;
  /** The target resolved against the source part's folder (an archive name), or the address when external. */
  target: string;
  external: boolean;
}

/** The relationships of an OOXML part (`ppt/slides/slide1.xml` → `ppt/slides/_rels/slide1.xml.rels`), by id. */
export async function readRelationships(archive: ZipArchive, partName: string): Promise<Map<string, Relationship>> {
  const slash = partName.lastIndexOf('/');
  const folder = slash < 0 ? '' : partName.slice(0, slash);
  const relsName = `${folder ? folder + '/' : ''}_rels/${partName.slice(slash + 1)}.rels`;
  const relationships = new Map<string, Relationship>();
  const root = await parseXmlPart(archive, relsName);
  for (const relationship of childElements(root, 'Relationship')) {
    const id = attribute(relationship, 'Id');
    const target = attribute(relationship, 'Target');
    if (!id || target === undefined) {
      continue;
    }
    const external = attribute(relationship, 'TargetMode') === 'External';
    relationships.set(id, { type: attribute(relationship, 'Type') ?? '', target: external ? target : resolvePartName(folder, target), external });
  }
  return relationships;
}

/** Whether a relationship type URI ends with the given name (`…/relationships/slide`). */
export function relationshipIs(relationship: Relationship | undefined, typeName: string): boolean {
  return relationship !== undefined && relationship.type.endsWith(`/${typeName}`);
}

/** A relative target against a folder of the archive (`ppt/slides` + `../media/a.png` → `ppt/media/a.png`). */
export function resolvePartName(folder: string, target: string): string {
  const segments = target.startsWith('/') ? [] : folder.split('/').filter(Boolean);
  for (const segment of decodeUriSafely(target).split('/')) {
    if (segment === '..') {
      segments.pop();
    } else if (segment !== '.' && segment !== '') {
      segments.push(segment);
    }
  }
  return segments.join('/');
}

function decodeUriSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** An OLE compound file: a legacy binary Office file, or a password-protected OOXML file. */
export function isOleCompoundFile(bytes: Uint8Array): boolean {
  return bytes.byteLength >= OLE_SIGNATURE.length && OLE_SIGNATURE.every((value, index) => bytes[index] === value);
}

/** Whether an OLE container holds an `EncryptedPackage` stream (a password-protected OOXML file). */
export function isEncryptedOoxml(bytes: Uint8Array): boolean {
  const needle = Buffer.from('EncryptedPackage', 'utf16le');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(needle) >= 0;
}

/** One table cell as the file stores it, before spans are laid out. */
export interface SourceCell {
  text: string;
  /** Columns and rows the cell covers (1 when it does not span). */
  columnSpan: number;
  rowSpan: number;
  /** A position another cell's span covers (OOXML `hMerge`/`vMerge`, ODF `covered-table-cell`). */
  covered: boolean;
}

/**
 * Lays cells out on a grid where every position is present in the source (OOXML and ODF both store covered
 * positions), repeating a spanning cell's text in each position it covers, as docling's Markdown does. The grid
 * stays within `MAX_TABLE_CELLS`: rows past it are dropped and `truncated` says so.
 */
export function spannedGrid(rows: readonly (readonly SourceCell[])[]): { grid: string[][]; truncated: boolean } {
  const width = Math.max(0, ...rows.map((row) => row.length));
  const rowLimit = Math.floor(MAX_TABLE_CELLS / Math.max(1, width));
  const kept = rows.slice(0, rowLimit);
  const spanText = new Map<string, string>();
  const grid = kept.map((row, rowIndex) =>
    Array.from({ length: width }, (_, column) => {
      const cell = row[column];
      if (!cell) {
        return '';
      }
      if (cell.covered) {
        return spanText.get(`${rowIndex},${column}`) ?? '';
      }
      const rowEnd = Math.min(kept.length, rowIndex + Math.min(cell.rowSpan, MAX_TABLE_CELL_SPAN));
      const columnEnd = Math.min(width, column + Math.min(cell.columnSpan, MAX_TABLE_CELL_SPAN));
      for (let spannedRow = rowIndex; spannedRow < rowEnd; spannedRow++) {
        for (let spannedColumn = column; spannedColumn < columnEnd; spannedColumn++) {
          if (spannedRow !== rowIndex || spannedColumn !== column) {
            spanText.set(`${spannedRow},${spannedColumn}`, cell.text);
          }
        }
      }
      return cell.text;
    }),
  );
  return { grid, truncated: kept.length < rows.length };
}

/** A span attribute as a count of at least 1. */
export function spanCount(value: string | undefined): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isFinite(parsed) && parsed >= 1 ? Math.min(parsed, MAX_TABLE_CELL_SPAN) : 1;
}

/** Shapes whose top edges lie within this many EMU (0.05 inch, as docling) of the previous shape's read as one row. */
export const SHAPE_ROW_TOLERANCE_EMU = 45_720;

/**
 * Shapes in reading order as docling reads slides: sorted by top edge, shapes whose tops lie within
 * `SHAPE_ROW_TOLERANCE_EMU` of the previous one form a row read left to right; shapes without a position
 * come last in their stored order.
 */
export function inReadingOrder<T extends { top?: number; left?: number }>(shapes: readonly T[]): T[] {
  const entries = shapes.map((shape, index) => ({ shape, index, top: shape.top ?? Number.POSITIVE_INFINITY, left: shape.left ?? Number.POSITIVE_INFINITY }));
  entries.sort((a, b) => a.top - b.top || a.index - b.index);
  const ordered: T[] = [];
  let row: typeof entries = [];
  const flush = () => {
    row.sort((a, b) => a.left - b.left || a.index - b.index);
    ordered.push(...row.map((entry) => entry.shape));
    row = [];
  };
  for (const entry of entries) {
    const previous = row[row.length - 1];
    if (previous && !(entry.top - previous.top <= SHAPE_ROW_TOLERANCE_EMU)) {
      flush();
    }
    row.push(entry);
  }
  flush();
  return ordered;
}

/**
 * The rows of an OpenDocument table (header rows, row groups and repeats expanded up to `MAX_TABLE_CELL_SPAN`), each
 * cell's text as `cellText` reads it, spans as stored; trailing empty columns dropped. ODP and ODT share it.
 */
export function odfTableRows(table: Element, cellText: (cell: Element) => string): SourceCell[][] {
  const rows: SourceCell[][] = [];
  const visit = (element: Element) => {
    for (const child of childElements(element)) {
      const name = localName(child);
      if (name === 'table-row') {
        const cells: SourceCell[] = [];
        for (const cell of childElements(child, 'table-cell', 'covered-table-cell')) {
          const repeat = Math.min(spanCount(attribute(cell, 'number-columns-repeated')), MAX_TABLE_CELL_SPAN);
          const source: SourceCell = {
            text: cellText(cell),
            columnSpan: spanCount(attribute(cell, 'number-columns-spanned')),
            rowSpan: spanCount(attribute(cell, 'number-rows-spanned')),
            covered: localName(cell) === 'covered-table-cell',
          };
          for (let copy = 0; copy < repeat; copy++) {
            cells.push(source);
          }
        }
        const repeat = Math.min(spanCount(attribute(child, 'number-rows-repeated')), MAX_TABLE_CELL_SPAN);
        for (let copy = 0; copy < repeat; copy++) {
          rows.push(cells);
        }
      } else if (name === 'table-header-rows' || name === 'table-rows' || name === 'table-row-group') {
        visit(child);
      }
    }
  };
  visit(table);
  // Blank columns repeated to the table's edge widen nothing.
  const width = Math.max(0, ...rows.map((row) => row.reduce((last, cell, index) => (cell.text || cell.covered ? index + 1 : last), 0)));
  return rows.map((row) => row.slice(0, width));
}
