/**
 * Finding the tables on a spreadsheet: non-empty cells that touch (left, right, above, below; a merged range counts
 * as filled over its whole span) form one region, and empty rows or columns between them split regions — as
 * docling's Excel backend does with its default gap tolerance of 0. A lone label just above a table is that table's
 * caption; a lone cell elsewhere is text.
 */

/** A non-empty cell; rows and columns 1-based as the sheet numbers them. */
export interface SheetCell {
  row: number;
  column: number;
  text: string;
}

/** A merged range, inclusive, 1-based; its text is its top-left cell's. */
export interface CellMerge {
  firstRow: number;
  firstColumn: number;
  lastRow: number;
  lastColumn: number;
}

export interface CellBox {
  firstRow: number;
  firstColumn: number;
  lastRow: number;
  lastColumn: number;
}

/** A connected block of cells: its bounding box and the texts in it, row by row (merged text repeated over the span, gaps ''). */
export interface TableRegion extends CellBox {
  rows: string[][];
  /** How many distinct cells (a merged range once) hold text. */
  filledCells: number;
}

/** What a sheet shows, in reading order (top to bottom, then left to right). */
export type SheetBlock = { kind: 'table'; region: TableRegion } | { kind: 'caption' | 'text'; text: string; box: CellBox };

export interface FindTableRegionsOptions {
  /** Empty rows/columns bridged between cells of one region (docling's `gap_tolerance`); 0 = cells must touch. */
  gapTolerance?: number;
  /** A merged range is expanded over at most this many rows and columns each (a merge of a whole sheet is clipped). */
  maxMergeSpan?: number;
  /** Positions all merges together may cover; merges past it count as their top-left cell alone. */
  maxMergedPositions?: number;
}

/**
 * A region whose bounding box exceeds this many positions and `SPARSE_REGION_AREA_RATIO` times its filled ones
 * (a comb or a staircase of cells) is not laid out as one grid, which could take gigabytes: each row's runs of
 * touching cells become regions of their own.
 */
export const SPARSE_REGION_MIN_AREA = 1_000_000;
export const SPARSE_REGION_AREA_RATIO = 8;

/** Empty rows allowed between a label and the table below it for the label to be taken as the table's caption. */
export const CAPTION_MAX_GAP_ROWS = 2;

/** Sheets have at most 16,384 columns (XFD); farther ones are ignored. */
const MAX_SHEET_COLUMNS = 16_384;

/** The regions of a sheet, in reading order. Cells with empty text are ignored; merges whose top-left cell is empty are formatting, not data. */
export function findTableRegions(cells: readonly SheetCell[], merges: readonly CellMerge[], options: FindTableRegionsOptions = {}): TableRegion[] {
  const gapTolerance = Math.max(0, Math.floor(options.gapTolerance ?? 0));
  const maxMergeSpan = options.maxMergeSpan ?? Number.POSITIVE_INFINITY;
  // Positions are keyed row * stride + column, the stride just past the widest column: keys stay small integers
  // (V8 keeps them unboxed up to 2^30), which made a sheet of a million cells several times faster than a fixed 2^15.
  let widest = 0;
  for (const cell of cells) {
    widest = Math.max(widest, Math.min(cell.column, MAX_SHEET_COLUMNS));
  }
  for (const merge of merges) {
    widest = Math.max(widest, Math.min(merge.lastColumn, merge.firstColumn + maxMergeSpan - 1, MAX_SHEET_COLUMNS));
  }
  const stride = widest + 1;
  const key = (row: number, column: number) => row * stride + column;
  const texts = new Map<number, string>();
  for (const cell of cells) {
    if (cell.text.trim() !== '' && cell.column <= MAX_SHEET_COLUMNS) {
      texts.set(key(cell.row, cell.column), cell.text);
    }
  }
  // Positions covered by a merge (its top-left cell excluded) → that top-left cell's key.
  const shadows = new Map<number, number>();
  let mergedPositionsLeft = options.maxMergedPositions ?? Number.POSITIVE_INFINITY;
  for (const merge of merges) {
    const anchor = key(merge.firstRow, merge.firstColumn);
    if (merge.firstColumn > MAX_SHEET_COLUMNS || !texts.has(anchor)) {
      continue;
    }
    const lastRow = Math.min(merge.lastRow, merge.firstRow + maxMergeSpan - 1);
    const lastColumn = Math.min(merge.lastColumn, merge.firstColumn + maxMergeSpan - 1, MAX_SHEET_COLUMNS);
    mergedPositionsLeft -= (lastRow - merge.firstRow + 1) * (lastColumn - merge.firstColumn + 1);
    if (mergedPositionsLeft < 0) {
      break;
    }
    for (let row = merge.firstRow; row <= lastRow; row++) {
      for (let column = merge.firstColumn; column <= lastColumn; column++) {
        const position = key(row, column);
        if (position !== anchor) {
          // A cell inside someone else's merge is hidden by Excel: the merge wins.
          texts.delete(position);
          shadows.set(position, anchor);
        }
      }
    }
  }
  let lastRow = 0;
  for (const cell of cells) {
    lastRow = Math.max(lastRow, cell.row);
  }
  for (const merge of merges) {
    lastRow = Math.max(lastRow, Math.min(merge.lastRow, merge.firstRow + maxMergeSpan - 1));
  }
  const positions = (lastRow + 2) * stride;
  const filled = new PositionSet(positions);
  for (const position of texts.keys()) {
    filled.add(position);
  }
  for (const position of shadows.keys()) {
    filled.add(position);
  }
  const starts = [...texts.keys()];
  // Readers deliver cells row by row, so without merges the keys are usually sorted already.
  if (shadows.size > 0 || starts.some((value, index) => index > 0 && value < starts[index - 1])) {
    starts.push(...shadows.keys());
    starts.sort((a, b) => a - b);
  }
  const visited = new PositionSet(positions);
  const regions: TableRegion[] = [];
  const directions: ReadonlyArray<readonly [number, number]> = [[0, 1], [0, -1], [1, 0], [-1, 0]];
  for (const start of starts) {
    if (visited.has(start)) {
      continue;
    }
    visited.add(start);
    const members: number[] = [start];
    for (let next = 0; next < members.length; next++) {
      const row = Math.floor(members[next] / stride);
      const column = members[next] - row * stride;
      for (const [rowStep, columnStep] of directions) {
        for (let step = 1; step <= gapTolerance + 1; step++) {
          const neighbourRow = row + rowStep * step;
          const neighbourColumn = column + columnStep * step;
          if (neighbourRow < 1 || neighbourColumn < 1 || neighbourColumn >= stride) {
            break;
          }
          const neighbour = key(neighbourRow, neighbourColumn);
          if (!filled.has(neighbour)) {
            continue;
          }
          if (!visited.has(neighbour)) {
            visited.add(neighbour);
            members.push(neighbour);
          }
          break;
        }
      }
    }
    regions.push(...denseRegions(members, stride, texts, shadows));
  }
  return regions.sort((a, b) => a.firstRow - b.firstRow || a.firstColumn - b.firstColumn);
}

/** The region of `members`, or for a sparse one the regions of its rows' runs of touching cells. */
function denseRegions(members: number[], stride: number, texts: ReadonlyMap<number, string>, shadows: ReadonlyMap<number, number>): TableRegion[] {
  let firstRow = Number.POSITIVE_INFINITY;
  let firstColumn = Number.POSITIVE_INFINITY;
  let lastRow = 0;
  let lastColumn = 0;
  for (const member of members) {
    const row = Math.floor(member / stride);
    firstRow = Math.min(firstRow, row);
    lastRow = Math.max(lastRow, row);
    firstColumn = Math.min(firstColumn, member - row * stride);
    lastColumn = Math.max(lastColumn, member - row * stride);
  }
  const area = (lastRow - firstRow + 1) * (lastColumn - firstColumn + 1);
  if (area <= SPARSE_REGION_MIN_AREA || area <= SPARSE_REGION_AREA_RATIO * members.length) {
    return [regionOf(members, stride, texts, shadows)];
  }
  members.sort((a, b) => a - b);
  const runs: TableRegion[] = [];
  let start = 0;
  for (let index = 1; index <= members.length; index++) {
    // Keys of touching cells in one row differ by one; a row's last column and the next row's first never do (the stride leaves a gap).
    if (index === members.length || members[index] !== members[index - 1] + 1) {
      runs.push(regionOf(members.slice(start, index), stride, texts, shadows));
      start = index;
    }
  }
  return runs;
}

/** Bitmap positions up to this many; a sparser, larger sheet uses a `Set` (16 MiB of bits at most). */
const BITMAP_MAX_POSITIONS = 2 ** 27;

/** A set of position keys: a bitmap when the sheet's box is small enough (a million cells took a third of the time a `Set` took), else a `Set`. */
class PositionSet {
  private readonly bits: Uint8Array | undefined;
  private readonly set: Set<number> | undefined;

  constructor(positions: number) {
    if (positions <= BITMAP_MAX_POSITIONS) {
      this.bits = new Uint8Array(Math.ceil(positions / 8));
    } else {
      this.set = new Set();
    }
  }

  has(position: number): boolean {
    return this.bits ? (this.bits[position >>> 3] & (1 << (position & 7))) !== 0 : this.set!.has(position);
  }

  add(position: number): void {
    if (this.bits) {
      this.bits[position >>> 3] |= 1 << (position & 7);
    } else {
      this.set!.add(position);
    }
  }
}

function regionOf(members: readonly number[], stride: number, texts: ReadonlyMap<number, string>, shadows: ReadonlyMap<number, number>): TableRegion {
  let firstRow = Number.POSITIVE_INFINITY;
  let firstColumn = Number.POSITIVE_INFINITY;
  let lastRow = 0;
  let lastColumn = 0;
  for (const member of members) {
    const row = Math.floor(member / stride);
    const column = member - row * stride;
    firstRow = Math.min(firstRow, row);
    lastRow = Math.max(lastRow, row);
    firstColumn = Math.min(firstColumn, column);
    lastColumn = Math.max(lastColumn, column);
  }
  const rows = Array.from({ length: lastRow - firstRow + 1 }, () => new Array<string>(lastColumn - firstColumn + 1).fill(''));
  let filledCells = 0;
  for (const member of members) {
    const row = Math.floor(member / stride);
    const own = texts.get(member);
    // A merged range's positions are all in the region of its top-left cell, which counts it once.
    if (own !== undefined) {
      filledCells++;
    }
    rows[row - firstRow][member - row * stride - firstColumn] = own ?? texts.get(shadows.get(member)!) ?? '';
  }
  return { firstRow, firstColumn, lastRow, lastColumn, rows, filledCells };
}

/**
 * Turns regions into what a reader sees: tables, their captions, and lone cells as text. A caption is
 * - a region of one filled cell on one row (merged across columns or not) that no other region shares rows with, with
 *   a table of at least two rows and two columns starting at most `CAPTION_MAX_GAP_ROWS` empty rows below it and
 *   sharing a column with it; or
 * - the first row of a region when that row is a single merged cell starting at the region's left edge and the row
 *   under it has at least two filled cells (a title merged over its table's header, as docling splits it).
 */
export function sheetBlocks(regions: readonly TableRegion[]): SheetBlock[] {
  const blocks: SheetBlock[] = [];
  const captioned = new Set<TableRegion>();
  for (let index = 0; index < regions.length; index++) {
    const region = regions[index];
    if (isLabel(region)) {
      // A label sharing its rows with another region is a field of a form ("Arc testing" next to "Yes/no: Yes"), not a title.
      const alone = !regions.some((other, otherIndex) => otherIndex !== index && other.firstRow <= region.lastRow && region.firstRow <= other.lastRow);
      const table = alone ? regions.find((other, otherIndex) => otherIndex !== index && !captioned.has(other) && isCaptionedBy(other, region)) : undefined;
      if (table) {
        captioned.add(table);
        blocks.push({ kind: 'caption', text: labelText(region), box: boxOf(region) });
        // The table follows its caption at once, even when another region starts between them on the sheet.
        blocks.push(...tableBlocks(table));
        continue;
      }
      if (!captioned.has(region)) {
        blocks.push({ kind: 'text', text: labelText(region), box: boxOf(region) });
      }
      continue;
    }
    if (!captioned.has(region)) {
      blocks.push(...tableBlocks(region));
    }
  }
  return blocks;
}

/** A table region, its merged title row split off as a caption when it has one. */
function tableBlocks(region: TableRegion): SheetBlock[] {
  const [first, second] = region.rows;
  if (region.rows.length >= 3 && first[0] !== '' && first.length >= 2) {
    const titleWidth = first.findIndex((text) => text !== first[0]);
    const span = titleWidth < 0 ? first.length : titleWidth;
    const restEmpty = first.slice(span).every((text) => text === '');
    if (span >= 2 && restEmpty && second.filter((text) => text !== '').length >= 2 && new Set(second.filter((text) => text !== '')).size >= 2) {
      const rest: TableRegion = { ...region, firstRow: region.firstRow + 1, rows: region.rows.slice(1), filledCells: region.filledCells - 1 };
      return [
        { kind: 'caption', text: first[0], box: { firstRow: region.firstRow, firstColumn: region.firstColumn, lastRow: region.firstRow, lastColumn: region.firstColumn + span - 1 } },
        { kind: 'table', region: rest },
      ];
    }
  }
  return [{ kind: 'table', region }];
}

function isLabel(region: TableRegion): boolean {
  return region.filledCells === 1 && region.firstRow === region.lastRow;
}

function isCaptionedBy(table: TableRegion, label: TableRegion): boolean {
  if (isLabel(table) || table.rows.length < 2 || table.rows[0].length < 2) {
    return false;
  }
  const gap = table.firstRow - label.lastRow - 1;
  return gap >= 0 && gap <= CAPTION_MAX_GAP_ROWS && table.firstColumn <= label.lastColumn && label.firstColumn <= table.lastColumn;
}

function labelText(region: TableRegion): string {
  return region.rows[0].find((text) => text !== '') ?? '';
}

function boxOf(region: CellBox): CellBox {
  return { firstRow: region.firstRow, firstColumn: region.firstColumn, lastRow: region.lastRow, lastColumn: region.lastColumn };
}

/** A native chart: its kind ("bar chart"), title, and plotted data as a table (categories down, one column per series). */
export interface SheetChart {
  type: 'chart';
  chartKind: string;
  title: string;
  header: string[];
  rows: string[][];
  /** The cells it is drawn over, when anchored to cells. */
  box?: CellBox;
}

/** A picture placed on a sheet: its alternative text, and the archive part holding its image when it is embedded. */
export interface SheetPicture {
  type: 'picture';
  description: string;
  part?: string;
  box?: CellBox;
}

export type SheetDrawing = SheetChart | SheetPicture;

/** What a converter read of one sheet, before regions are found. */
export interface SheetContents {
  name: string;
  /** A chart sheet (XLSX `chartsheet`): listed by name, no cells. */
  chart: boolean;
  cells: SheetCell[];
  merges: CellMerge[];
  /** Native charts (with the data they plot) and pictures on the sheet. */
  drawings: SheetDrawing[];
  /** Cells past the row limit, the column limit or the workbook's cell budget were dropped. */
  rowsCut: boolean;
  columnsCut: boolean;
  cellsCut: boolean;
}

export interface SheetLimits {
  maxRows: number;
  maxColumns: number;
}

/** The cells left to read in the whole workbook, shared by its sheets. */
export interface CellBudget {
  cellsLeft: number;
}

/** Collects a sheet's non-empty cells within the row and column limits and the workbook's cell budget, noting what it drops. */
export class SheetCollector implements SheetContents {
  readonly cells: SheetCell[] = [];
  readonly merges: CellMerge[] = [];
  readonly drawings: SheetDrawing[] = [];
  rowsCut = false;
  columnsCut = false;
  cellsCut = false;

  constructor(
    readonly name: string,
    readonly chart: boolean,
    private readonly limits: SheetLimits,
    private readonly budget: CellBudget,
  ) {}

  add(row: number, column: number, text: string): void {
    if (text.trim() === '') {
      return;
    }
    if (row > this.limits.maxRows) {
      this.rowsCut = true;
      return;
    }
    if (column > this.limits.maxColumns) {
      this.columnsCut = true;
      return;
    }
    if (this.budget.cellsLeft <= 0) {
      this.cellsCut = true;
      return;
    }
    this.budget.cellsLeft--;
    this.cells.push({ row, column, text });
  }

  merge(range: CellMerge): void {
    if (range.firstRow <= this.limits.maxRows && range.firstColumn <= this.limits.maxColumns && range.lastRow >= range.firstRow && range.lastColumn >= range.firstColumn) {
      this.merges.push({ ...range, lastRow: Math.min(range.lastRow, this.limits.maxRows), lastColumn: Math.min(range.lastColumn, this.limits.maxColumns) });
    }
  }
}

/** Column letters to a 1-based number ("A" = 1, "AA" = 27); 0 when not letters. */
export function columnIndex(letters: string): number {
  let value = 0;
  for (let index = 0; index < letters.length; index++) {
    const code = letters.charCodeAt(index) & ~32;
    if (code < 65 || code > 90) {
      return 0;
    }
    value = value * 26 + (code - 64);
  }
  return value;
}

/** An A1 reference ("$B$12" too) as 1-based row and column; undefined when malformed. */
export function parseCellReference(reference: string): { row: number; column: number } | undefined {
  const match = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(reference.trim());
  if (!match) {
    return undefined;
  }
  const row = Number(match[2]);
  return row >= 1 ? { row, column: columnIndex(match[1]) } : undefined;
}

/** An A1 range ("B2:D9", or one cell) as a merge box; undefined when malformed. */
export function parseCellRange(range: string): CellMerge | undefined {
  const [from, to = from] = range.split(':');
  const start = parseCellReference(from);
  const end = parseCellReference(to);
  if (!start || !end) {
    return undefined;
  }
  return { firstRow: Math.min(start.row, end.row), firstColumn: Math.min(start.column, end.column), lastRow: Math.max(start.row, end.row), lastColumn: Math.max(start.column, end.column) };
}
