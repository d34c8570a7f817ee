import type { ConvertedDocument } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { countChunkTokens } from '../../core/chunker';
import { CSV_DIALECT_SNIFF_CHARS, CSV_MAX_COLUMNS, CSV_MAX_ROWS, CSV_TABLE_ITEM_MAX_TOKENS } from '../../core/limits';
import { DocumentBuilder, markdownTable } from './documentBuilder';
import type { ConvertOptions } from './html';

/** The delimiters tried, in order of preference when two fit equally well. */
const CANDIDATE_DELIMITERS = [',', ';', '\t', '|'] as const;

/** Records the dialect sniffer parses per candidate delimiter. */
const SNIFF_RECORDS = 50;

export interface CsvRecord {
  cells: string[];
  /** 0-based lines the record starts and ends on (a quoted cell may hold line ends). */
  startLine: number;
  endLine: number;
  /** Length of the record's last line, for the range's end column. */
  endColumn: number;
}

export interface CsvConvertOptions extends ConvertOptions {
  /** `.tsv`/`.tab` files: tab wins a tie. */
  preferTab?: boolean;
}

/**
 * Parses CSV text (RFC 4180 quoting: `"` around cells, `""` inside them; quoted cells may hold delimiters and line
 * ends) into records with their lines. Stops after `maxRecords` records, reporting whether more followed.
 */
export function parseCsv(text: string, delimiter: string, maxRecords: number = Number.POSITIVE_INFINITY): { records: CsvRecord[]; truncated: boolean } {
  const records: CsvRecord[] = [];
  const delimiterCode = delimiter.charCodeAt(0);
  let cells: string[] = [];
  let line = 0;
  let lineStart = 0;
  let recordStartLine = 0;
  let index = 0;
  const length = text.length;
  // Cells are sliced from the text, never built a character at a time (a 5 MB quoted cell took seconds).
  while (index <= length) {
    if (text.charCodeAt(index) === 34 /* " */) {
      // A quoted cell: up to the closing quote, `""` standing for one quote; line ends inside are counted.
      let from = index + 1;
      let quoted = '';
      for (;;) {
        const quote = text.indexOf('"', from);
        const stop = quote < 0 ? length : quote;
        for (let scan = from; scan < stop; scan++) {
          const code = text.charCodeAt(scan);
          if (code === 10 || (code === 13 && text.charCodeAt(scan + 1) !== 10)) {
            line++;
            lineStart = scan + 1;
          }
        }
        quoted += text.slice(from, stop);
        if (quote < 0) {
          index = length;
          break;
        }
        if (text.charCodeAt(quote + 1) === 34) {
          quoted += '"';
          from = quote + 2;
          continue;
        }
        index = quote + 1;
        break;
      }
      // Text after the closing quote, up to the delimiter or line end, stays part of the cell (as lenient readers do).
      const restStart = index;
      while (index < length && !isCellEnd(text.charCodeAt(index), delimiterCode)) {
        index++;
      }
      cells.push(quoted + text.slice(restStart, index));
    } else {
      const cellStart = index;
      while (index < length && !isCellEnd(text.charCodeAt(index), delimiterCode)) {
        index++;
      }
      cells.push(text.slice(cellStart, index));
    }
    const code = index < length ? text.charCodeAt(index) : -1;
    if (code === delimiterCode) {
      index++;
      continue;
    }
    // A line end or the end of the text closes the record; a blank line is no record.
    if (!(cells.length === 1 && cells[0] === '')) {
      records.push({ cells, startLine: recordStartLine, endLine: line, endColumn: index - lineStart });
    }
    cells = [];
    if (code === -1) {
      break;
    }
    index += code === 13 && text.charCodeAt(index + 1) === 10 ? 2 : 1;
    line++;
    lineStart = index;
    recordStartLine = line;
    if (records.length >= maxRecords) {
      return { records, truncated: /\S/.test(text.slice(index, index + 4096)) || index < length - 4096 };
    }
  }
  return { records, truncated: false };
}

function isCellEnd(code: number, delimiterCode: number): boolean {
  return code === delimiterCode || code === 10 || code === 13;
}

/**
 * The delimiter that splits the first records into the most rows of one consistent width (more than one column);
 * a file no candidate splits is one column. Parsing with quotes means a quoted `"a, b"` does not count as a split.
 */
export function detectDelimiter(text: string, preferTab = false): string {
  const sample = text.slice(0, CSV_DIALECT_SNIFF_CHARS);
  // A sample cut inside a record would skew the last record's width: drop the partial last line.
  const trimmed = text.length > sample.length ? sample.slice(0, Math.max(sample.lastIndexOf('\n'), 0)) : sample;
  const order = preferTab ? ['\t', ...CANDIDATE_DELIMITERS.filter((delimiter) => delimiter !== '\t')] : [...CANDIDATE_DELIMITERS];
  let best = { delimiter: order[0], score: 0, width: 1 };
  for (const delimiter of order) {
    const { records } = parseCsv(trimmed, delimiter, SNIFF_RECORDS);
    const widths = new Map<number, number>();
    for (const record of records) {
      widths.set(record.cells.length, (widths.get(record.cells.length) ?? 0) + 1);
    }
    let modeWidth = 1;
    let modeCount = 0;
    for (const [width, count] of widths) {
      if (count > modeCount || (count === modeCount && width > modeWidth)) {
        modeWidth = width;
        modeCount = count;
      }
    }
    if (modeWidth < 2) {
      continue;
    }
    if (modeCount > best.score || (modeCount === best.score && modeWidth > best.width)) {
      best = { delimiter, score: modeCount, width: modeWidth };
    }
  }
  return best.delimiter;
}

/**
 * CSV and TSV: one section titled by the file name holding the table. The delimiter is detected; ragged rows are
 * kept (short rows padded, long rows' extra cells kept as extra columns, up to `CSV_MAX_COLUMNS`). The table is
 * cut into `table` items of at most `CSV_TABLE_ITEM_MAX_TOKENS` (a longer row is an item alone), each repeating the header row and covering the lines
 * of its rows, so a chunk is whole rows with their column names and a citation jumps to those lines.
 * Past `CSV_MAX_ROWS` rows the rest is dropped with a warning.
 */
export function convertCsv(text: string, options: CsvConvertOptions): ConvertedDocument {
  throwIfAborted(options.abortSignal);
  const builder = new DocumentBuilder();
  const delimiter = detectDelimiter(text, options.preferTab);
  // The header row comes on top of the limit's rows.
  const { records, truncated } = parseCsv(text, delimiter, CSV_MAX_ROWS + 1);
  throwIfAborted(options.abortSignal);
  if (truncated) {
    builder.warn(`The file has more than ${CSV_MAX_ROWS.toLocaleString('en-US')} rows; only the first ${CSV_MAX_ROWS.toLocaleString('en-US')} are indexed. Split the file to index all of it.`);
  }
  let width = 0;
  for (const record of records) {
    if (record.cells.length > CSV_MAX_COLUMNS) {
      record.cells.length = CSV_MAX_COLUMNS;
      builder.warn(`Some rows have more than ${CSV_MAX_COLUMNS.toLocaleString('en-US')} cells; the cells past column ${CSV_MAX_COLUMNS.toLocaleString('en-US')} are not indexed.`);
    }
    width = Math.max(width, record.cells.length);
  }
  builder.add({ label: 'title', text: options.fileName, sourceRange: { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 } });
  if (records.length === 0) {
    return { format: 'csv', title: options.fileName, items: builder.items, content: `# ${options.fileName}\n`, warnings: builder.allWarnings() };
  }
  const padded = (cells: readonly string[]) => (cells.length === width ? cells : [...cells, ...new Array<string>(width - cells.length).fill('')]);
  const header = padded(records[0].cells);
  // Data rows [from, to); the first item's range starts at the header line, since the header is its first row.
  const addRows = (from: number, to: number) => {
    const rows = records.slice(from, to);
    const first = from === 1 ? records[0] : rows[0] ?? records[0];
    const last = rows[rows.length - 1] ?? records[0];
    builder.add({
      label: 'table',
      text: markdownTable([header, ...rows.map((record) => padded(record.cells))]),
      sourceRange: { startLine: first.startLine, startColumn: 0, endLine: last.endLine, endColumn: last.endColumn },
    });
  };
  for (const [from, to] of tableRowRuns(header, records.length - 1, (index) => padded(records[index + 1].cells), options.abortSignal)) {
    addRows(from + 1, to + 1);
  }
  return { format: 'csv', title: options.fileName, items: builder.items, content: builder.toMarkdown(), warnings: builder.allWarnings() };
}

/**
 * Cuts a table's data rows into runs whose Markdown, header row repeated, stays within `CSV_TABLE_ITEM_MAX_TOKENS`
 * (a longer row is a run alone), as [from, to) indexes of the data rows; no data rows is one empty run. CSV and
 * spreadsheet tables are cut this way, so a chunk is whole rows with their column names.
 */
export function tableRowRuns(header: readonly string[], rowCount: number, rowCells: (index: number) => readonly string[], abortSignal?: AbortSignal): Array<[number, number]> {
  // Counted as the chunker counts (the header, its separator row, then each row's own line), so an item fits one chunk.
  const headerTokens = countChunkTokens(markdownTable([header]));
  const runs: Array<[number, number]> = [];
  let start = 0;
  let tokens = headerTokens;
  for (let index = 0; index < rowCount; index++) {
    if (index % 1000 === 999) {
      throwIfAborted(abortSignal);
    }
    // The row's line alone: rendered as a one-row table it would count a separator line it does not have.
    const rowTokens = countChunkTokens(markdownTable([rowCells(index)]).split('\n', 1)[0]) + 1;
    if (index > start && tokens + rowTokens > CSV_TABLE_ITEM_MAX_TOKENS) {
      runs.push([start, index]);
      start = index;
      tokens = headerTokens;
    }
    tokens += rowTokens;
  }
  runs.push([start, rowCount]);
  return runs;
}
