/**
 * Page layout analysis for PDF text: text runs → line segments → reading order (recursive XY-cut) → lines.
 * Pure geometry, no pdf.js: coordinates are device space with y growing downwards (top of page = 0).
 */

/** One text run as pdf.js reports it, moved to device space. */
export interface PdfTextRun {
  text: string;
  /** Left edge of the run. */
  x: number;
  /** Baseline (y grows downwards). */
  baseline: number;
  width: number;
  fontSize: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

/** A visual line (or a piece of one separated by a wide gap) with its dominant style. */
export interface PdfLine {
  pageNumber: number;
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  baseline: number;
  fontSize: number;
  /** Most of the line's characters are in a bold / italic / monospaced font. */
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Characters that are not white space. */
  characterCount: number;
  /** Text not running left to right (vertical margin notes, rotated table headers), placed after the page body. */
  rotated?: boolean;
  runs: PdfTextRun[];
  /** A table found on the page: rows of cell texts (first row = header); `text` holds the cells joined. */
  table?: string[][];
  /** Lines read by OCR: the paragraph OCR put the line in (lines group into blocks as OCR grouped them). */
  ocrParagraph?: number;
}

/** Runs on one baseline further apart than this (in font sizes) start a new segment. */
const SEGMENT_GAP_RATIO = 0.8;
/** A white-space run wider than this (in font sizes) separates segments; justified word spaces stay below it. */
const BLANK_SPLIT_RATIO = 2;
/** Segments on one baseline closer than this (in font sizes) are rejoined after ordering. */
const REJOIN_GAP_RATIO = 1.6;
/** Horizontal cuts need a white band at least this high (in median font sizes). */
const HORIZONTAL_CUT_RATIO = 0.45;
/** Vertical cuts need a white band at least this wide (in median font sizes). */
const VERTICAL_CUT_RATIO = 0.6;
/** Pages with more segments than this skip table detection and XY-cut (both can be quadratic). */
const MAX_SEGMENTS_FOR_LAYOUT = 4000;
/** Share of a line's characters that must be bold/italic/monospaced for the line to count as such. */
const STYLE_SHARE = 0.8;

/**
 * Turns the runs of one page into lines in reading order. Runs are first chained in content-stream order into
 * segments (a wide gap, a big size change or a jump backwards starts a new one), segments are ordered by a
 * recursive XY-cut (columns before rows when both sides look like text columns), and neighbouring segments on
 * one baseline are rejoined into lines.
 */
export function layoutPage(pageNumber: number, runs: readonly PdfTextRun[]): PdfLine[] {
  const segments = buildSegments(pageNumber, runs, false);
  if (segments.length > MAX_SEGMENTS_FOR_LAYOUT) {
    // Pages with huge numbers of fragments (maps, charts) are read row by row: XY-cut is quadratic at worst.
    return rejoinSegments(readRowByRow(segments));
  }
  // Tables are looked for in finer segments (cut at wide spaces too); text outside them keeps the normal ones.
  const { tables, used } = detectTables(buildSegments(pageNumber, runs, true));
  const rest = tables.length === 0 ? segments : buildSegments(pageNumber, runs.filter((run) => !used.has(run)), false);
  const ordered = orderByXyCut([...rest, ...tables]);
  return rejoinSegments(ordered);
}

function buildSegments(pageNumber: number, runs: readonly PdfTextRun[], splitAtWideSpaces: boolean): PdfLine[] {
  const segments: PdfLine[] = [];
  let current: PdfLine | undefined;
  for (const run of runs) {
    if (run.text.length === 0 || !(run.fontSize > 0) || !Number.isFinite(run.x) || !Number.isFinite(run.baseline)) {
      continue;
    }
    const blank = run.text.trim().length === 0;
    if (current && fitsSegment(current, run, blank, splitAtWideSpaces)) {
      current.runs.push(run);
      current.right = Math.max(current.right, run.x + Math.max(0, run.width));
      continue;
    }
    if (blank) {
      continue;
    }
    current = {
      pageNumber, text: '', left: run.x, right: run.x + Math.max(0, run.width), top: 0, bottom: 0, baseline: run.baseline,
      fontSize: run.fontSize, bold: false, italic: false, monospace: false, characterCount: 0, runs: [run],
    };
    segments.push(current);
  }
  segments.forEach(finishLine);
  return segments.filter((segment) => segment.characterCount > 0);
}

function fitsSegment(segment: PdfLine, run: PdfTextRun, blank: boolean, splitAtWideSpaces: boolean): boolean {
  const size = segment.fontSize;
  const gap = run.x - segment.right;
  if (gap < -0.5 * size || gap > SEGMENT_GAP_RATIO * Math.max(size, run.fontSize)) {
    return false;
  }
  const shift = run.baseline - segment.baseline;
  if (blank) {
    // pdf.js fills wide gaps (table cells) with one space run: a very wide one separates, like a gap.
    return Math.abs(shift) < 0.5 * size && (!splitAtWideSpaces || run.width <= BLANK_SPLIT_RATIO * size);
  }
  const ratio = run.fontSize / size;
  if (Math.abs(shift) <= 0.2 * size && ratio > 1 / 1.3 && ratio < 1.3) {
    return true;
  }
  // Superscripts and subscripts: smaller and a little off the baseline.
  return run.fontSize < 0.9 * size && Math.abs(shift) <= 0.6 * size;
}

/** Computes text, bounds and dominant style of a line from its runs. */
function finishLine(line: PdfLine): void {
  const runs = [...line.runs].sort((left, right) => left.x - right.x);
  line.runs = runs;
  const sizeWeights = new Map<number, number>();
  let bold = 0;
  let italic = 0;
  let monospace = 0;
  let characters = 0;
  let text = '';
  let previousEnd = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  let left = Infinity;
  let right = -Infinity;
  for (const run of runs) {
    const count = run.text.replace(/\s+/g, '').length;
    if (count > 0) {
      const key = Math.round(run.fontSize * 2) / 2;
      sizeWeights.set(key, (sizeWeights.get(key) ?? 0) + count);
      characters += count;
      if (run.bold) bold += count;
      if (run.italic) italic += count;
      if (run.monospace) monospace += count;
      top = Math.min(top, run.baseline - 0.75 * run.fontSize);
      bottom = Math.max(bottom, run.baseline + 0.25 * run.fontSize);
      left = Math.min(left, run.x);
      right = Math.max(right, run.x + Math.max(0, run.width));
    }
    const gap = run.x - previousEnd;
    if (text.length > 0 && gap > 0.15 * run.fontSize && !/\s$/.test(text) && !/^\s/.test(run.text)) {
      text += ' ';
    }
    text += run.text;
    previousEnd = Math.max(previousEnd, run.x + Math.max(0, run.width));
  }
  let dominantSize = line.fontSize;
  let best = -1;
  for (const [size, weight] of sizeWeights) {
    if (weight > best || (weight === best && size > dominantSize)) {
      best = weight;
      dominantSize = size;
    }
  }
  const baselineRun = runs.find((run) => Math.round(run.fontSize * 2) / 2 === dominantSize) ?? runs[0];
  line.text = text.replace(/\s+/g, ' ').trim();
  line.fontSize = dominantSize;
  line.baseline = baselineRun.baseline;
  line.characterCount = characters;
  line.bold = characters > 0 && bold >= STYLE_SHARE * characters;
  line.italic = characters > 0 && italic >= STYLE_SHARE * characters;
  line.monospace = characters > 0 && monospace >= STYLE_SHARE * characters;
  line.top = Number.isFinite(top) ? top : line.baseline - 0.75 * dominantSize;
  line.bottom = Number.isFinite(bottom) ? bottom : line.baseline + 0.25 * dominantSize;
  line.left = Number.isFinite(left) ? left : line.left;
  line.right = Number.isFinite(right) ? right : line.right;
}

function median(values: readonly number[]): number {
  if (values.length === 0) {
    return 0;
  }
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Splits items into groups separated by white bands along one axis at least `minimumGap` wide. */
function splitByGaps(items: readonly PdfLine[], axis: 'x' | 'y', minimumGap: number): PdfLine[][] {
  const start = (item: PdfLine) => (axis === 'y' ? item.top : item.left);
  const end = (item: PdfLine) => (axis === 'y' ? item.bottom : item.right);
  const sorted = [...items].sort((left, right) => start(left) - start(right));
  const groups: PdfLine[][] = [];
  let group: PdfLine[] = [];
  let reach = -Infinity;
  for (const item of sorted) {
    if (group.length > 0 && start(item) - reach >= minimumGap) {
      groups.push(group);
      group = [];
    }
    group.push(item);
    reach = Math.max(reach, end(item));
  }
  if (group.length > 0) {
    groups.push(group);
  }
  return groups;
}

/** Both sides of a vertical cut look like columns of running text (not a table or a margin label). */
function looksLikeTextColumns(groups: readonly PdfLine[][], height: number): boolean {
  if (groups.length < 2 || height <= 0) {
    return false;
  }
  return groups.every((group) => {
    const top = Math.min(...group.map((line) => line.top));
    const bottom = Math.max(...group.map((line) => line.bottom));
    const characters = group.reduce((sum, line) => sum + line.characterCount, 0);
    return group.length >= 3 && bottom - top >= 0.5 * height && characters / group.length >= 20;
  });
}

/** Recursive XY-cut: rows split by horizontal white bands, columns by vertical ones, leaves read row by row. */
function orderByXyCut(items: readonly PdfLine[]): PdfLine[] {
  if (items.length <= 1) {
    return [...items];
  }
  const size = median(items.map((item) => item.fontSize)) || 10;
  const rows = splitByGaps(items, 'y', HORIZONTAL_CUT_RATIO * size);
  const columns = mergeMarkerColumns(splitByGaps(items, 'x', VERTICAL_CUT_RATIO * size), size);
  const height = Math.max(...items.map((item) => item.bottom)) - Math.min(...items.map((item) => item.top));
  if (columns.length > 1 && (rows.length === 1 || looksLikeTextColumns(columns, height))) {
    return columns.flatMap((column) => orderByXyCut(column));
  }
  if (rows.length > 1) {
    return rows.flatMap((row) => orderByXyCut(row));
  }
  return readRowByRow(items);
}

/**
 * A narrow column whose every piece sits on the baseline of a piece in the next column holds list bullets,
 * numbers or row labels: it belongs to that column, row by row, not before it.
 */
function mergeMarkerColumns(columns: PdfLine[][], size: number): PdfLine[][] {
  const merged: PdfLine[][] = [];
  for (let index = 0; index < columns.length; index++) {
    const column = columns[index];
    const next = columns[index + 1];
    const width = Math.max(...column.map((item) => item.right)) - Math.min(...column.map((item) => item.left));
    const aligned = next !== undefined && width < 2.5 * size
      && column.every((item) => next.some((other) => Math.abs(other.baseline - item.baseline) <= 0.35 * Math.max(item.fontSize, other.fontSize)));
    if (aligned) {
      columns[index + 1] = [...column, ...next];
    } else {
      merged.push(column);
    }
  }
  return merged;
}

/** Leaf order: by baseline (items within a third of a font size share a row), then left to right. */
function readRowByRow(items: readonly PdfLine[]): PdfLine[] {
  const sorted = [...items].sort((left, right) => left.baseline - right.baseline);
  const result: PdfLine[] = [];
  let row: PdfLine[] = [];
  for (const item of sorted) {
    if (row.length > 0 && Math.abs(item.baseline - row[0].baseline) > 0.35 * Math.min(item.fontSize, row[0].fontSize)) {
      result.push(...row.sort((left, right) => left.left - right.left));
      row = [];
    }
    row.push(item);
  }
  result.push(...row.sort((left, right) => left.left - right.left));
  return result;
}

/** Joins consecutive segments of one visual line (e.g. a section number and its title). */
function rejoinSegments(ordered: readonly PdfLine[]): PdfLine[] {
  const lines: PdfLine[] = [];
  for (const segment of ordered) {
    const previous = lines[lines.length - 1];
    if (previous && sameVisualLine(previous, segment)) {
      previous.runs.push(...segment.runs);
      finishLine(previous);
      continue;
    }
    lines.push({ ...segment, runs: [...segment.runs] });
  }
  return lines;
}

function sameVisualLine(previous: PdfLine, next: PdfLine): boolean {
  if (previous.table || next.table) {
    return false;
  }
  const size = Math.max(previous.fontSize, next.fontSize);
  const ratio = next.fontSize / previous.fontSize;
  const gap = next.left - previous.right;
  // A bullet glyph may be set in a much smaller or larger symbol font than its text.
  const bullet = previous.characterCount <= 2;
  return Math.abs(next.baseline - previous.baseline) <= 0.25 * Math.min(previous.fontSize, next.fontSize) + (bullet ? 0.15 * size : 0)
    && ((ratio > 1 / 1.3 && ratio < 1.3) || bullet)
    && gap > -0.5 * size && gap <= REJOIN_GAP_RATIO * size;
}

/** Rows of a table are at most this many font sizes apart (baseline to baseline). */
const TABLE_ROW_PITCH_RATIO = 3;
const MATH_OPERATORS = /[∂∑∏∫∈∉∣‖⋃⋂∪∩→⇒⇔↦≤≥≠≈∀∃⊆⊂⊇⊃×÷±∞√∇]|7→/u;
/** Prose columns have longer lines than this on average (characters); tables have at least one column of shorter cells. */
const TABLE_CELL_CHARACTERS = 25;

/**
 * Simple table detection: runs of consecutive rows (segments sharing a baseline) where most rows have two or more
 * segments, and the segments fall into two or more column bands (x ranges no segment crosses). Two columns of prose
 * (both with long lines) are page columns, not a table. A row with nothing in the first column continues the row
 * above (wrapped cells). Each table becomes one pseudo-line carrying the cell grid.
 */
function detectTables(segments: readonly PdfLine[]): { tables: PdfLine[]; used: Set<PdfTextRun> } {
  const rows = groupRows(segments);
  const used = new Set<PdfTextRun>();
  const tables: PdfLine[] = [];
  let start = 0;
  while (start < rows.length) {
    if (rows[start].length < 2) {
      start++;
      continue;
    }
    // Extend the run while rows stay close; a single-segment row may continue a wrapped cell.
    let end = start + 1;
    while (end < rows.length) {
      const previous = rows[end - 1];
      const size = Math.max(...previous.map((item) => item.fontSize));
      if (rows[end][0].baseline - previous[0].baseline > TABLE_ROW_PITCH_RATIO * size) {
        break;
      }
      if (rows[end].length < 2 && (end + 1 >= rows.length || rows[end + 1].length < 2)) {
        break;
      }
      end++;
    }
    const table = buildTable(rows.slice(start, end));
    if (table) {
      tables.push(table);
      rows.slice(start, end).flat().forEach((item) => item.runs.forEach((member) => used.add(member)));
      start = end;
    } else {
      start++;
    }
  }
  return { tables, used };
}

function groupRows(segments: readonly PdfLine[]): PdfLine[][] {
  const sorted = [...segments].sort((left, right) => left.baseline - right.baseline || left.left - right.left);
  const rows: PdfLine[][] = [];
  for (const segment of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(segment.baseline - row[0].baseline) <= 0.35 * Math.min(segment.fontSize, row[0].fontSize)) {
      row.push(segment);
    } else {
      rows.push([segment]);
    }
  }
  rows.forEach((row) => row.sort((left, right) => left.left - right.left));
  return rows;
}

function buildTable(rows: readonly PdfLine[][]): PdfLine | undefined {
  const multiCell = rows.filter((row) => row.length >= 2);
  if (multiCell.length < 2 || rows.length < 3 || rows.every((row) => row.every((item) => item.monospace))) {
    // Aligned monospaced lines are code, not a table.
    return undefined;
  }
  const size = median(rows.flat().map((item) => item.fontSize)) || 10;
  const bands = splitByGaps(multiCell.flat(), 'x', 0.5 * size).map((band) => [Math.min(...band.map((item) => item.left)), Math.max(...band.map((item) => item.right))] as const);
  if (bands.length < 2) {
    return undefined;
  }
  const bandOf = (item: PdfLine) => {
    const centre = (item.left + item.right) / 2;
    return bands.findIndex(([left, right]) => centre >= left - 0.5 * size && centre <= right + 0.5 * size);
  };
  const cellLengths = bands.map(() => [] as number[]);
  const grid: string[][] = [];
  for (const row of rows) {
    const cells = bands.map(() => [] as string[]);
    for (const item of row) {
      const index = bandOf(item);
      if (index < 0) {
        return undefined;
      }
      cells[index].push(item.text);
      cellLengths[index].push(item.characterCount);
    }
    const texts = cells.map((parts) => parts.join(' '));
    // A row with an empty first cell under a filled one continues the wrapped cells of the row above.
    if (grid.length > 0 && !texts[0] && grid[grid.length - 1][0]) {
      const previous = grid[grid.length - 1];
      texts.forEach((text, index) => {
        if (text) {
          previous[index] = previous[index] ? `${previous[index]} ${text}` : text;
        }
      });
    } else {
      grid.push(texts);
    }
  }
  const averages = cellLengths.map((lengths) => (lengths.length ? lengths.reduce((sum, length) => sum + length, 0) / lengths.length : 0));
  if (grid.length < 2 || (bands.length === 2 && averages.every((average) => average >= TABLE_CELL_CHARACTERS))) {
    return undefined;
  }
  // Bullets or step numbers beside text are a list.
  if (bands.length === 2 && grid.every((row) => row[0].replace(/\s+/g, '').length <= 3)) {
    return undefined;
  }
  // A column whose cells run on into the next row's cell (lower-case start) is running text beside other text.
  const prose = bands.some((_, column) => {
    let pairs = 0;
    let continued = 0;
    for (let index = 1; index < grid.length; index++) {
      const [above, below] = [grid[index - 1][column], grid[index][column]];
      if (above && below) {
        pairs++;
        if (!/[.:;!?]$/.test(above) && /^\p{Ll}/u.test(below)) {
          continued++;
        }
      }
    }
    return averages[column] >= TABLE_CELL_CHARACTERS && continued >= Math.max(1, 0.4 * pairs);
  });
  if (prose) {
    return undefined;
  }
  // Displayed formulas break into aligned fragments too; a table has words in many cells and few operators.
  const cells = grid.flat().filter(Boolean);
  const worded = cells.filter((cell) => /\p{L}{2}/u.test(cell)).length;
  const mathematical = cells.filter((cell) => MATH_OPERATORS.test(cell)).length;
  if (worded < 0.3 * cells.length || mathematical > 0.15 * cells.length) {
    return undefined;
  }
  const members = rows.flat();
  return {
    pageNumber: members[0].pageNumber,
    text: grid.map((row) => row.filter(Boolean).join(' ')).join(' '),
    left: Math.min(...members.map((item) => item.left)),
    right: Math.max(...members.map((item) => item.right)),
    top: Math.min(...members.map((item) => item.top)),
    bottom: Math.max(...members.map((item) => item.bottom)),
    baseline: members[0].baseline,
    fontSize: size,
    bold: false,
    italic: false,
    monospace: false,
    characterCount: members.reduce((sum, item) => sum + item.characterCount, 0),
    runs: members.flatMap((item) => item.runs),
    table: grid,
  };
}
