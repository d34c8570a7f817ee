import type { ConvertedDocument } from '../../core/model/document';
import { ConversionError, throwIfAborted } from '../../core/errors';
import { MAX_TABLE_CELL_SPAN, SPREADSHEET_MAX_CELLS, SPREADSHEET_MAX_COLUMNS, SPREADSHEET_MAX_ROWS } from '../../core/limits';
import { cellRangeText } from '../../core/sourceRanges';
import { findTableRegions, sheetBlocks, type CellBudget, type SheetContents, type SheetDrawing, type SheetLimits } from '../../core/tableRegions';
import { tableRowRuns } from './csv';
import { DocumentBuilder, markdownTable } from './documentBuilder';
import { readOdsSheets } from './ods';
import { isEncryptedOoxml, isOleCompoundFile } from './officeXml';
import type { SpreadsheetPartContext } from './spreadsheetXml';
import { readXlsxSheets } from './xlsx';
import { openZipArchive, type ZipArchive } from './zipArchive';
import { PictureCollector } from './pictures/pictureCollector';
import type { PictureProcessing } from './convertFile';

export interface SpreadsheetConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  format: 'xlsx' | 'ods';
  /** Bounds (tests lower them); default the `SPREADSHEET_MAX_*` limits. */
  limits?: Partial<SheetLimits & { maxCells: number }>;
}

/**
 * Converts XLSX/XLSM and ODS spreadsheets: a title (the file name), then per visible sheet a `section_header` with
 * its name and the sheet's blocks in reading order — each table region a `table` (its first row the header, merged
 * cells' text repeated over their span, cut into items of whole rows under the chunk budget with the header
 * repeated), a label just above a table its `caption`, a lone cell a `paragraph`; a chart a `picture` named by its
 * kind, its title the `caption`, the data it plots a `table`; a picture a `picture` (with its image unless pictures
 * are off). Every item names its sheet and cells (`sourceRange.sheet`, `.cells`). Chart sheets hold their chart only.
 */
export async function convertSpreadsheet(bytes: Uint8Array, options: SpreadsheetConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const isOds = options.format === 'ods';
  const context: SpreadsheetPartContext = {
    filePath: options.filePath,
    kind: isOds ? 'an ODS spreadsheet' : 'an XLSX workbook',
    repair: isOds ? 'Re-save it from LibreOffice Calc' : 'Re-save it from Excel or LibreOffice Calc',
    abortSignal: options.abortSignal,
  };
  if (!isOds && isOleCompoundFile(bytes)) {
    // XLSX is a zip; an OLE container is either a password-protected workbook or a legacy binary .xls.
    if (isEncryptedOoxml(bytes)) {
      throw new ConversionError('encrypted_file', options.filePath, 'is password-protected. Remove the password in Excel (File > Info > Protect Workbook > Encrypt with Password) or exclude the file.');
    }
    throw new ConversionError('corrupt_file', options.filePath, 'is a legacy binary Excel file (.xls), not XLSX. Save it as .xlsx in Excel or LibreOffice Calc, or exclude it from indexing.');
  }
  const archive = await openZipArchive(bytes, { filePath: options.filePath, kind: context.kind, repair: context.repair, abortSignal: options.abortSignal });
  const limits: SheetLimits = { maxRows: options.limits?.maxRows ?? SPREADSHEET_MAX_ROWS, maxColumns: options.limits?.maxColumns ?? SPREADSHEET_MAX_COLUMNS };
  const budget: CellBudget = { cellsLeft: options.limits?.maxCells ?? SPREADSHEET_MAX_CELLS };
  const sheets = isOds ? readOdsSheets(archive, context, limits, budget) : readXlsxSheets(archive, context, limits, budget);
  throwIfAborted(options.abortSignal);

  const builder = new DocumentBuilder();
  const drawings = new DrawingWriter(builder, archive, options.pictures !== 'none');
  builder.add({ label: 'title', text: options.fileName, sourceRange: sheets[0] ? { sheet: sheets[0].name } : undefined });
  for (const sheet of sheets) {
    throwIfAborted(options.abortSignal);
    if (builder.full) {
      break;
    }
    warnAboutCuts(builder, sheet, limits);
    await addSheet(builder, sheet, drawings, options.abortSignal);
  }
  if (sheets.every((sheet) => sheet.cells.length === 0 && sheet.drawings.length === 0)) {
    builder.warn('The spreadsheet has no cells with text or values and no charts; only its sheet names are indexed.');
  }
  return { format: options.format, title: options.fileName, items: builder.items, content: builder.toMarkdown(), warnings: [...builder.allWarnings(), ...drawings.pictures.warnings()] };
}

async function addSheet(builder: DocumentBuilder, sheet: SheetContents, drawings: DrawingWriter, abortSignal: AbortSignal | undefined): Promise<void> {
  builder.add({ label: 'section_header', text: sheet.name, headingLevel: 1, sourceRange: { sheet: sheet.name } });
  const blocks = sheet.chart ? [] : sheetBlocks(findTableRegions(sheet.cells, sheet.merges, { maxMergeSpan: MAX_TABLE_CELL_SPAN, maxMergedPositions: SPREADSHEET_MAX_CELLS }));
  // Charts and pictures go where they are drawn: before the first block that starts below their top row.
  const placed = [...sheet.drawings].sort((a, b) => (a.box?.firstRow ?? Number.POSITIVE_INFINITY) - (b.box?.firstRow ?? Number.POSITIVE_INFINITY));
  let next = 0;
  for (const block of blocks) {
    const top = block.kind === 'table' ? block.region.firstRow : block.box.firstRow;
    for (; next < placed.length && (placed[next].box?.firstRow ?? Number.POSITIVE_INFINITY) < top; next++) {
      await drawings.add(sheet.name, placed[next], abortSignal);
    }
    if (builder.full) {
      return;
    }
    if (block.kind === 'table') {
      const { region } = block;
      addTable(builder, sheet.name, region.rows, abortSignal, (from, to) => {
        // The first item starts at the header row, which is its own first row; later ones at their first data row.
        const firstRow = from === 0 ? region.firstRow : region.firstRow + 1 + from;
        return cellRangeText(firstRow, region.firstColumn, region.firstRow + to, region.lastColumn);
      });
      continue;
    }
    const { firstRow, firstColumn, lastRow, lastColumn } = block.box;
    builder.add({ label: block.kind === 'caption' ? 'caption' : 'paragraph', text: block.text, sourceRange: { sheet: sheet.name, cells: cellRangeText(firstRow, firstColumn, lastRow, lastColumn) } });
  }
  for (; next < placed.length; next++) {
    await drawings.add(sheet.name, placed[next], abortSignal);
  }
}

/** Writes charts and pictures, located at the cells they are drawn over (the sheet alone when they float). */
class DrawingWriter {
  readonly pictures = new PictureCollector();

  constructor(
    private readonly builder: DocumentBuilder,
    private readonly archive: ZipArchive,
    private readonly keepPictures: boolean,
  ) {}

  async add(sheetName: string, drawing: SheetDrawing, abortSignal: AbortSignal | undefined): Promise<void> {
    const cells = drawing.box ? cellRangeText(drawing.box.firstRow, drawing.box.firstColumn, drawing.box.lastRow, drawing.box.lastColumn) : undefined;
    const sourceRange = cells ? { sheet: sheetName, cells } : { sheet: sheetName };
    if (drawing.type === 'picture') {
      let picture;
      const bytes = this.keepPictures && drawing.part ? this.archive.bytes(drawing.part) : undefined;
      if (bytes) {
        try {
          picture = (await this.pictures.addEncodedScaled(bytes)).picture;
        } catch {
          this.pictures.addFailure('undecodable');
        }
      }
      this.builder.add({ label: 'picture', text: drawing.description, picture, sourceRange });
      return;
    }
    // As docling and the slide converter: the chart as a picture named by its kind, its title as the caption, its data as a table.
    this.builder.add({ label: 'picture', text: drawing.chartKind.charAt(0).toUpperCase() + drawing.chartKind.slice(1), sourceRange });
    if (drawing.title) {
      this.builder.add({ label: 'caption', text: drawing.title, sourceRange });
    }
    if (drawing.rows.length > 0) {
      addTable(this.builder, sheetName, [drawing.header, ...drawing.rows], abortSignal, () => cells);
    }
  }
}

/**
 * Rows (the first the header) as `table` items of whole rows under the chunk budget, each repeating the header;
 * `cellsOf(from, to)` names the cells of data rows [from, to).
 */
function addTable(builder: DocumentBuilder, sheetName: string, tableRows: readonly string[][], abortSignal: AbortSignal | undefined, cellsOf: (from: number, to: number) => string | undefined): void {
  const [header, ...rows] = tableRows;
  for (const [from, to] of tableRowRuns(header, rows.length, (index) => rows[index], abortSignal)) {
    const cells = cellsOf(from, to);
    builder.add({ label: 'table', text: markdownTable([header, ...rows.slice(from, to)]), sourceRange: cells ? { sheet: sheetName, cells } : { sheet: sheetName } });
  }
}

function warnAboutCuts(builder: DocumentBuilder, sheet: SheetContents, limits: SheetLimits): void {
  const count = (value: number) => value.toLocaleString('en-US');
  if (sheet.rowsCut) {
    builder.warn(`Sheet "${sheet.name}" has cells below row ${count(limits.maxRows)}; only the first ${count(limits.maxRows)} rows are indexed. Split the sheet to index all of it.`);
  }
  if (sheet.columnsCut) {
    builder.warn(`Sheet "${sheet.name}" has cells right of column ${count(limits.maxColumns)}; only the first ${count(limits.maxColumns)} columns are indexed. Split the sheet to index all of it.`);
  }
  if (sheet.cellsCut) {
    builder.warn(`The spreadsheet has more cells with content than are indexed per file; sheet "${sheet.name}" and the sheets after it are indexed only in part. Split the file to index all of it.`);
  }
}
