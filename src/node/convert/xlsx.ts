import { throwIfAborted } from '../../core/errors';
import { MAX_TABLE_CELLS } from '../../core/limits';
import { parseCellRange, parseCellReference, SheetCollector, type CellBox, type CellBudget, type SheetChart, type SheetContents, type SheetDrawing, type SheetLimits } from '../../core/tableRegions';
import { resolvePartName } from './officeXml';
import { localName, missingPartError, readXmlPart, type SpreadsheetPartContext } from './spreadsheetXml';
import type { ZipArchive } from './zipArchive';

/**
 * The sheets of an XLSX/XLSM workbook: names and order from `workbook.xml`, parts found through the relationships,
 * cell values as Excel shows them in the simplest form — shared and inline strings, numbers, TRUE/FALSE, error codes,
 * formulas by their cached value, date-formatted numbers as ISO dates. Hidden sheets are left out (as docling does);
 * chart sheets are listed without cells.
 */
export function readXlsxSheets(archive: ZipArchive, context: SpreadsheetPartContext, limits: SheetLimits, budget: CellBudget): SheetContents[] {
  const workbookPart = officeDocumentPart(archive, context) ?? 'xl/workbook.xml';
  const relations = readRelationships(archive, workbookPart, context);
  const sheets: Array<{ name: string; relationId: string }> = [];
  let date1904 = false;
  const found = readXmlPart(archive, workbookPart, context, {
    open: (name, attributes) => {
      const local = localName(name);
      if (local === 'sheet' && attributes.state !== 'hidden' && attributes.state !== 'veryHidden') {
        sheets.push({ name: attributes.name ?? `Sheet${sheets.length + 1}`, relationId: attributeByLocalName(attributes, 'id') ?? '' });
      } else if (local === 'workbookPr') {
        date1904 = attributes.date1904 === '1' || attributes.date1904 === 'true';
      }
    },
  });
  if (!found) {
    throw missingPartError(context, workbookPart);
  }
  const sharedStringsPart = [...relations.values()].find((relation) => relation.type.endsWith('/sharedStrings'))?.target ?? 'xl/sharedStrings.xml';
  const sharedStrings = readSharedStrings(archive, sharedStringsPart, context);
  const stylesPart = [...relations.values()].find((relation) => relation.type.endsWith('/styles'))?.target ?? 'xl/styles.xml';
  const styles = readCellStyles(archive, stylesPart, context);
  const result: SheetContents[] = [];
  for (const sheet of sheets) {
    throwIfAborted(context.abortSignal);
    const relation = relations.get(sheet.relationId);
    const isChart = relation?.type.endsWith('/chartsheet') ?? false;
    const collector = new SheetCollector(sheet.name, isChart, limits, budget);
    if (relation && relation.type.endsWith('/worksheet')) {
      if (!readWorksheet(archive, relation.target, context, collector, { sharedStrings, styles, date1904 })) {
        throw missingPartError(context, relation.target);
      }
    } else if (!isChart) {
      // Dialog and macro sheets hold no cell data worth indexing.
      continue;
    }
    if (relation) {
      collector.drawings.push(...readSheetDrawings(archive, relation.target, context, limits));
    }
    result.push(collector);
  }
  return result;
}

interface Relationship {
  type: string;
  /** Zip entry name of the target part. */
  target: string;
}

interface CellStyles {
  /** `cellXfs` index → number format id. */
  formatIds: number[];
  /** Custom number format id → format code. */
  formatCodes: Map<number, string>;
}

interface ValueContext {
  sharedStrings: string[];
  styles: CellStyles;
  date1904: boolean;
}

/** The workbook part named by the package's `officeDocument` relationship. */
function officeDocumentPart(archive: ZipArchive, context: SpreadsheetPartContext): string | undefined {
  for (const relation of readRelationships(archive, '', context).values()) {
    if (relation.type.endsWith('/officeDocument')) {
      return relation.target;
    }
  }
  return undefined;
}

/** A part's relationships by id (`xl/_rels/workbook.xml.rels` for `xl/workbook.xml`; `_rels/.rels` for the package, part ''). */
function readRelationships(archive: ZipArchive, part: string, context: SpreadsheetPartContext): Map<string, Relationship> {
  const slash = part.lastIndexOf('/');
  const folder = slash < 0 ? '' : part.slice(0, slash + 1);
  const relsPart = `${folder}_rels/${part.slice(slash + 1)}.rels`;
  const relations = new Map<string, Relationship>();
  readXmlPart(archive, relsPart, context, {
    open: (name, attributes) => {
      if (localName(name) === 'Relationship' && attributes.Id && attributes.Target && attributes.TargetMode !== 'External') {
        relations.set(attributes.Id, { type: attributes.Type ?? '', target: resolvePartName(folder, attributes.Target) });
      }
    },
  });
  return relations;
}

function attributeByLocalName(attributes: Readonly<Record<string, string>>, local: string): string | undefined {
  for (const [name, value] of Object.entries(attributes)) {
    if (localName(name) === local && name.includes(':')) {
      return value;
    }
  }
  return undefined;
}

/** The shared string table: each `<si>`'s text runs joined, phonetic guides (`<rPh>`) left out. */
function readSharedStrings(archive: ZipArchive, part: string, context: SpreadsheetPartContext): string[] {
  const strings: string[] = [];
  let current: string[] | undefined;
  let inText = false;
  let phoneticDepth = 0;
  readXmlPart(archive, part, context, {
    open: (name) => {
      const local = localName(name);
      if (local === 'si') {
        current = [];
      } else if (local === 'rPh') {
        phoneticDepth++;
      } else if (local === 't' && phoneticDepth === 0) {
        inText = true;
      }
    },
    text: (text) => {
      if (inText && current) {
        current.push(text);
      }
    },
    close: (name) => {
      const local = localName(name);
      if (local === 'si') {
        strings.push(current?.join('') ?? '');
        current = undefined;
      } else if (local === 'rPh') {
        phoneticDepth--;
      } else if (local === 't') {
        inText = false;
      }
    },
  });
  return strings;
}

function readCellStyles(archive: ZipArchive, part: string, context: SpreadsheetPartContext): CellStyles {
  const styles: CellStyles = { formatIds: [], formatCodes: new Map() };
  let inCellFormats = false;
  readXmlPart(archive, part, context, {
    open: (name, attributes) => {
      const local = localName(name);
      if (local === 'cellXfs') {
        inCellFormats = true;
      } else if (local === 'xf' && inCellFormats) {
        styles.formatIds.push(Number(attributes.numFmtId ?? 0));
      } else if (local === 'numFmt' && attributes.numFmtId !== undefined) {
        styles.formatCodes.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
      }
    },
    close: (name) => {
      if (localName(name) === 'cellXfs') {
        inCellFormats = false;
      }
    },
  });
  return styles;
}

/** Reads a worksheet's cells and merged ranges into the collector; false when the part is missing. */
function readWorksheet(archive: ZipArchive, part: string, context: SpreadsheetPartContext, collector: SheetCollector, values: ValueContext): boolean {
  let row = 0;
  let column = 0;
  let cell: { row: number; column: number; type: string; style: number; value: string[]; inline: string[] } | undefined;
  let capture: 'value' | 'inline' | undefined;
  let phoneticDepth = 0;
  return readXmlPart(archive, part, context, {
    open: (name, attributes) => {
      switch (localName(name)) {
        case 'row':
          row = attributes.r !== undefined ? Number(attributes.r) : row + 1;
          column = 0;
          break;
        case 'c': {
          const reference = attributes.r !== undefined ? parseCellReference(attributes.r) : undefined;
          column = reference ? reference.column : column + 1;
          cell = { row: reference ? reference.row : row, column, type: attributes.t ?? 'n', style: Number(attributes.s ?? 0), value: [], inline: [] };
          break;
        }
        case 'v':
          capture = cell ? 'value' : undefined;
          break;
        case 't':
          if (cell && phoneticDepth === 0) {
            capture = 'inline';
          }
          break;
        case 'rPh':
          phoneticDepth++;
          break;
        case 'mergeCell': {
          const range = attributes.ref !== undefined ? parseCellRange(attributes.ref) : undefined;
          if (range) {
            collector.merge(range);
          }
          break;
        }
      }
    },
    text: (text) => {
      if (capture === 'value') {
        cell?.value.push(text);
      } else if (capture === 'inline') {
        cell?.inline.push(text);
      }
    },
    close: (name) => {
      switch (localName(name)) {
        case 'v':
        case 't':
          capture = undefined;
          break;
        case 'rPh':
          phoneticDepth--;
          break;
        case 'c':
          if (cell) {
            collector.add(cell.row, cell.column, cellText(cell.type, cell.value.join(''), cell.inline.join(''), cell.style, values));
          }
          cell = undefined;
          break;
      }
    },
  });
}

/** A cell's value as text: what Excel shows, minus number formatting other than dates, times and percentages. */
function cellText(type: string, value: string, inline: string, style: number, values: ValueContext): string {
  switch (type) {
    case 's':
      return values.sharedStrings[Number(value)] ?? '';
    case 'inlineStr':
      return inline || value;
    case 'str':
    case 'e':
      return value;
    case 'b':
      return value === '1' || value === 'true' ? 'TRUE' : value === '' ? '' : 'FALSE';
    case 'd':
      // An ISO 8601 date cell (strict OOXML); midnight times dropped.
      return value.replace(/T00:00:00(?:\.0+)?Z?$/, '');
    default: {
      if (value.trim() === '') {
        return '';
      }
      const number = Number(value);
      if (!Number.isFinite(number)) {
        return value;
      }
      const formatId = values.styles.formatIds[style] ?? 0;
      const kind = numberFormatKind(formatId, values.styles.formatCodes.get(formatId));
      if (kind === 'date' || kind === 'time') {
        return excelSerialText(number, values.date1904, kind === 'time') ?? String(number);
      }
      if (kind === 'percent') {
        return `${Number((number * 100).toPrecision(12))}%`;
      }
      return String(number);
    }
  }
}

/** Built-in number formats that show dates (14–17, 22, and the East Asian date formats 27–36, 50–58). */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 22, 27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
/** Built-in number formats that show times only (18–21, 45–47, 32–33). */
const BUILT_IN_TIME_FORMATS = new Set([18, 19, 20, 21, 32, 33, 45, 46, 47]);

/** Whether a number format shows a date, a time of day, a percentage or a plain number. */
export function numberFormatKind(formatId: number, formatCode: string | undefined): 'date' | 'time' | 'percent' | 'number' {
  if (BUILT_IN_DATE_FORMATS.has(formatId)) {
    return 'date';
  }
  if (BUILT_IN_TIME_FORMATS.has(formatId)) {
    return 'time';
  }
  if (formatId === 9 || formatId === 10) {
    return 'percent';
  }
  if (formatCode === undefined) {
    return 'number';
  }
  // Only the first section (positive numbers) counts; quoted text, escapes, [Red]/[$-409] brackets and fill/pad characters are not tokens.
  const section = formatCode.split(';')[0];
  const elapsed = /\[(?:h+|m+|s+)\]/i.test(section);
  const tokens = section.replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/\[[^\]]*\]/g, '').replace(/[_*]./g, '');
  if (/[dy]/i.test(tokens) || (/m/i.test(tokens) && !/[hs]/i.test(tokens) && !/[0#?]/.test(tokens))) {
    return 'date';
  }
  if (/[hs]/i.test(tokens) || elapsed) {
    return 'time';
  }
  return tokens.includes('%') ? 'percent' : 'number';
}

const MILLISECONDS_PER_DAY = 86_400_000;

/**
 * An Excel serial date as ISO 8601: `2024-03-05`, `2024-03-05T14:30:00` when it has a time of day, `14:30:00` for
 * time formats under one day. Undefined out of range. Serials count days from 1899-12-30 (1900 system, which keeps
 * Lotus's phantom 1900-02-29: serials below 61 are one day off and corrected) or from 1904-01-01.
 */
export function excelSerialText(serial: number, date1904: boolean, timeFormat = false): string | undefined {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_466) {
    return undefined;
  }
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, serial < 61 ? 31 : 30);
  const milliseconds = Math.round(serial * MILLISECONDS_PER_DAY / 1000) * 1000;
  const iso = new Date(epoch + milliseconds).toISOString();
  const date = iso.slice(0, 10);
  const time = iso.slice(11, 19);
  if (timeFormat && serial < 1) {
    return time;
  }
  return time === '00:00:00' ? date : `${date}T${time}`;
}

/** Chart kinds by their DrawingML plot element, as a reader names them. */
const CHART_KINDS: Readonly<Record<string, string>> = {
  barChart: 'bar chart', bar3DChart: 'bar chart', lineChart: 'line chart', line3DChart: 'line chart', pieChart: 'pie chart', pie3DChart: 'pie chart',
  doughnutChart: 'doughnut chart', ofPieChart: 'pie chart', scatterChart: 'scatter chart', bubbleChart: 'bubble chart', areaChart: 'area chart',
  area3DChart: 'area chart', radarChart: 'radar chart', stockChart: 'stock chart', surfaceChart: 'surface chart', surface3DChart: 'surface chart',
};

/** The charts and pictures drawn on a sheet (worksheet or chart sheet), found through the sheet's drawing, in drawing order. */
function readSheetDrawings(archive: ZipArchive, sheetPart: string, context: SpreadsheetPartContext, limits: SheetLimits): SheetDrawing[] {
  const drawings: SheetDrawing[] = [];
  for (const drawing of readRelationships(archive, sheetPart, context).values()) {
    if (!drawing.type.endsWith('/drawing')) {
      continue;
    }
    const relations = readRelationships(archive, drawing.target, context);
    const found: Array<{ kind: 'chart' | 'picture'; relationId?: string; description: string; box?: CellBox }> = [];
    const from = { row: -1, column: -1 };
    const to = { row: -1, column: -1 };
    let corner: typeof from | undefined;
    let field: 'row' | 'column' | undefined;
    let picture: (typeof found)[number] | undefined;
    // Anchors count rows and columns from 0; an absolute anchor has neither.
    const box = (): CellBox | undefined => {
      if (from.row < 0 || from.column < 0) {
        return undefined;
      }
      return { firstRow: from.row + 1, firstColumn: from.column + 1, lastRow: Math.max(from.row, to.row) + 1, lastColumn: Math.max(from.column, to.column) + 1 };
    };
    readXmlPart(archive, drawing.target, context, {
      open: (name, attributes) => {
        const local = localName(name);
        if (local === 'twoCellAnchor' || local === 'oneCellAnchor' || local === 'absoluteAnchor') {
          from.row = from.column = to.row = to.column = -1;
        } else if (local === 'from' || local === 'to') {
          corner = local === 'from' ? from : to;
        } else if (corner && (local === 'row' || local === 'col')) {
          field = local === 'row' ? 'row' : 'column';
        } else if (local === 'chart') {
          const relationId = attributeByLocalName(attributes, 'id');
          if (relationId) {
            found.push({ kind: 'chart', relationId, description: '', box: box() });
          }
        } else if (local === 'pic') {
          picture = { kind: 'picture', description: '', box: box() };
        } else if (picture && local === 'cNvPr') {
          picture.description = (attributes.descr ?? attributes.title ?? '').trim();
        } else if (picture && local === 'blip') {
          picture.relationId = attributeByLocalName(attributes, 'embed');
        }
      },
      text: (text) => {
        if (corner && field) {
          corner[field] = Number(text.trim());
        }
      },
      close: (name) => {
        const local = localName(name);
        if (local === 'from' || local === 'to') {
          corner = undefined;
        } else if (local === 'row' || local === 'col') {
          field = undefined;
        } else if (local === 'pic' && picture) {
          found.push(picture);
          picture = undefined;
        }
      },
    });
    for (const entry of found) {
      const relation = entry.relationId ? relations.get(entry.relationId) : undefined;
      if (entry.kind === 'picture') {
        drawings.push({ type: 'picture', description: entry.description, part: relation?.type.endsWith('/image') ? relation.target : undefined, box: entry.box });
        continue;
      }
      const chart = relation && relation.type.endsWith('/chart') ? readChart(archive, relation.target, context, limits) : undefined;
      if (chart) {
        drawings.push({ ...chart, box: entry.box });
      }
    }
  }
  return drawings;
}

/** A chart part's kind, title and cached data (what the chart last showed; the cells it refers to may be elsewhere). */
function readChart(archive: ZipArchive, part: string, context: SpreadsheetPartContext, limits: SheetLimits): Omit<SheetChart, 'box'> | undefined {
  const path: string[] = [];
  let kind = '';
  const titleParts: string[] = [];
  const series: Array<{ name: string[]; categories: Map<number, string>; values: Map<number, string> }> = [];
  let point = -1;
  const found = readXmlPart(archive, part, context, {
    open: (name, attributes) => {
      const local = localName(name);
      if (!kind && path[path.length - 1] === 'plotArea' && local.endsWith('Chart')) {
        kind = CHART_KINDS[local] ?? 'chart';
      } else if (local === 'ser') {
        series.push({ name: [], categories: new Map(), values: new Map() });
      } else if (local === 'pt') {
        point = Number(attributes.idx ?? -1);
      } else if (local === 'p' && path.includes('title') && path[path.indexOf('title') - 1] === 'chart' && titleParts.length > 0) {
        titleParts.push(' ');
      }
      // Self-closing tags are closed (and popped) at once by the reader.
      path.push(local);
    },
    text: (text) => {
      const local = path[path.length - 1];
      const titleAt = path.indexOf('title');
      if (local === 't' && titleAt > 0 && path[titleAt - 1] === 'chart') {
        titleParts.push(text);
        return;
      }
      const current = series[series.length - 1];
      if (local !== 'v' || !current || !path.includes('ser')) {
        return;
      }
      if (path.includes('tx')) {
        current.name.push(text);
      } else if (point >= 0 && point < limits.maxRows && (path.includes('cat') || path.includes('xVal'))) {
        current.categories.set(point, text);
      } else if (point >= 0 && point < limits.maxRows && (path.includes('val') || path.includes('yVal'))) {
        current.values.set(point, formatChartNumber(text));
      }
    },
    close: () => {
      path.pop();
    },
  });
  if (!found || series.length === 0) {
    return undefined;
  }
  let pointCount = 0;
  for (const entry of series) {
    for (const index of [...entry.categories.keys(), ...entry.values.keys()]) {
      pointCount = Math.max(pointCount, index + 1);
    }
  }
  // The grid is points × series: bounded like any rendered table, however sparse the caches claim to be.
  series.length = Math.min(series.length, limits.maxColumns);
  pointCount = Math.min(pointCount, Math.floor(MAX_TABLE_CELLS / (series.length + 1)));
  const categories = series.find((entry) => entry.categories.size > 0)?.categories;
  const rows = Array.from({ length: pointCount }, (_, index) => [categories?.get(index) ?? String(index + 1), ...series.map((entry) => entry.values.get(index) ?? '')]);
  return {
    type: 'chart',
    chartKind: kind || 'chart',
    title: titleParts.join('').replace(/\s+/g, ' ').trim(),
    header: ['', ...series.map((entry, index) => entry.name.join('').trim() || `Series ${index + 1}`)],
    rows,
  };
}

function formatChartNumber(text: string): string {
  const number = Number(text);
  return text.trim() !== '' && Number.isFinite(number) ? String(number) : text;
}
