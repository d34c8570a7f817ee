import type { SourceRange } from './model/document';

/**
 * The union of source ranges: earliest start, latest end (line, then column); for page-only ranges (PDF),
 * the first page. Undefined when no item has a range.
 */
export function unionSourceRanges(ranges: ReadonlyArray<SourceRange | undefined>): SourceRange | undefined {
  let union: SourceRange | undefined;
  for (const range of ranges) {
    if (!range) {
      continue;
    }
    union ??= {};
    if (range.startLine !== undefined) {
      const startColumn = range.startColumn ?? 0;
      if (union.startLine === undefined || range.startLine < union.startLine || (range.startLine === union.startLine && startColumn < (union.startColumn ?? 0))) {
        union.startLine = range.startLine;
        union.startColumn = startColumn;
      }
    }
    if (range.endLine !== undefined) {
      const endColumn = range.endColumn ?? 0;
      if (union.endLine === undefined || range.endLine > union.endLine || (range.endLine === union.endLine && endColumn > (union.endColumn ?? 0))) {
        union.endLine = range.endLine;
        union.endColumn = endColumn;
      }
    }
    if (range.page !== undefined && (union.page === undefined || range.page < union.page)) {
      union.page = range.page;
    }
    if (range.slide !== undefined && (union.slide === undefined || range.slide < union.slide)) {
      union.slide = range.slide;
    }
    if (range.cell !== undefined && (union.cell === undefined || range.cell < union.cell)) {
      union.cell = range.cell;
    }
    if (range.sheet !== undefined) {
      if (union.sheet === undefined) {
        union.sheet = range.sheet;
        if (range.cells !== undefined) {
          union.cells = range.cells;
        }
      } else if (union.sheet === range.sheet && range.cells !== undefined) {
        // Several regions of one sheet: the rectangle that holds them all.
        union.cells = union.cells === undefined ? range.cells : unionCellRanges(union.cells, range.cells);
      }
    }
  }
  return union && Object.keys(union).length > 0 ? union : undefined;
}

/**
 * A range's own name for a reader, when its format has one: "slide 3", "sheet Sales, A1:D9", "cell 4"
 * (notebook cells 1-based); undefined for lines and pages, which each caller formats its own way.
 */
export function namedLocation(range: SourceRange | undefined): string | undefined {
  if (!range) {
    return undefined;
  }
  if (range.slide !== undefined) {
    return `slide ${range.slide}`;
  }
  if (range.sheet !== undefined) {
    return range.cells !== undefined ? `sheet ${range.sheet}, ${range.cells}` : `sheet ${range.sheet}`;
  }
  if (range.cell !== undefined) {
    return `cell ${range.cell + 1}`;
  }
  return undefined;
}

/** Column letters to a 1-based number ("A" = 1, "AA" = 27). */
function columnNumber(letters: string): number {
  let value = 0;
  for (const letter of letters) {
    value = value * 26 + (letter.charCodeAt(0) - 64);
  }
  return value;
}

/** A 1-based column number as letters (27 = "AA"). */
export function columnLetters(column: number): string {
  let letters = '';
  for (let value = column; value > 0; value = Math.floor((value - 1) / 26)) {
    letters = String.fromCharCode(65 + ((value - 1) % 26)) + letters;
  }
  return letters;
}

/** The A1 range of 1-based rows and columns, inclusive ("B2:D9"; a single cell is "B2"). */
export function cellRangeText(firstRow: number, firstColumn: number, lastRow: number, lastColumn: number): string {
  const start = `${columnLetters(firstColumn)}${firstRow}`;
  const end = `${columnLetters(lastColumn)}${lastRow}`;
  return start === end ? start : `${start}:${end}`;
}

/** The smallest A1 range holding both ranges; `left` unchanged when either is not an A1 range. */
function unionCellRanges(left: string, right: string): string {
  const parse = (text: string): [number, number, number, number] | undefined => {
    const match = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(text);
    if (!match) {
      return undefined;
    }
    const firstColumn = columnNumber(match[1]);
    const firstRow = Number(match[2]);
    return [firstRow, firstColumn, match[4] ? Number(match[4]) : firstRow, match[3] ? columnNumber(match[3]) : firstColumn];
  };
  const a = parse(left);
  const b = parse(right);
  if (!a || !b) {
    return left;
  }
  return cellRangeText(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3]));
}
