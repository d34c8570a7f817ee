import { ConversionError } from '../../core/errors';
import { SheetCollector, type CellBudget, type SheetContents, type SheetLimits } from '../../core/tableRegions';
import { missingPartError, readXmlPart, type SpreadsheetPartContext } from './spreadsheetXml';
import type { ZipArchive } from './zipArchive';

/** The part of an OpenDocument spreadsheet holding its sheets. */
const CONTENT_PART = 'content.xml';

interface PendingCell {
  text: string[];
  paragraphs: number;
  valueType: string;
  dateValue?: string;
  booleanValue?: string;
  value?: string;
  repeat: number;
  rowSpan: number;
  columnSpan: number;
  covered: boolean;
}

/**
 * The sheets of an ODS spreadsheet (`content.xml`): each `table:table` a sheet, cells as displayed (the text the
 * application wrote, which is the formatted value), dates from `office:date-value` as ISO dates, booleans as
 * TRUE/FALSE, spans as merged ranges. Repeated rows and cells (`number-rows-repeated="1048576"` pads every sheet) are
 * expanded only when they hold text, and never past the limits. Hidden sheets (`table:display="false"`) are left
 * out, and so are notes, drawings and embedded charts.
 */
export function readOdsSheets(archive: ZipArchive, context: SpreadsheetPartContext, limits: SheetLimits, budget: CellBudget): SheetContents[] {
  const manifest = archive.text('META-INF/manifest.xml');
  if (manifest !== undefined && /<manifest:encryption-data\b/.test(manifest)) {
    throw new ConversionError('encrypted_file', context.filePath, 'is password-protected. Remove the password in LibreOffice (File > Properties > Security, or save without "Save with password") or exclude the file.');
  }
  const sheets: SheetContents[] = [];
  const hiddenTableStyles = new Set<string>();
  let styleName: string | undefined;
  let sheet: SheetCollector | undefined;
  let hidden = false;
  let tableDepth = 0;
  let row = 1;
  let column = 1;
  let rowRepeat = 1;
  let rowCells: Array<{ column: number; text: string; repeat: number; rowSpan: number; columnSpan: number }> = [];
  let cell: PendingCell | undefined;
  // Inside a cell: depth of text paragraphs, and of notes/drawings whose text is not the cell's.
  let paragraphDepth = 0;
  let skippedDepth = 0;
  const found = readXmlPart(archive, CONTENT_PART, context, {
    // The reader closes a self-closing tag at once, so every open has its close.
    open: (name, attributes) => {
      if (name === 'style:style') {
        styleName = attributes['style:family'] === 'table' ? attributes['style:name'] : undefined;
        return;
      }
      if (name === 'style:table-properties' && styleName !== undefined && attributes['table:display'] === 'false') {
        hiddenTableStyles.add(styleName);
        return;
      }
      if (name === 'table:table') {
        tableDepth++;
        if (tableDepth === 1) {
          hidden = attributes['table:style-name'] !== undefined && hiddenTableStyles.has(attributes['table:style-name']);
          sheet = new SheetCollector(attributes['table:name'] ?? `Sheet${sheets.length + 1}`, false, limits, budget);
          row = 1;
        }
        return;
      }
      if (tableDepth !== 1 || !sheet) {
        return;
      }
      if (cell) {
        if (skippedDepth > 0 || name === 'office:annotation' || name.startsWith('draw:')) {
          skippedDepth++;
          return;
        }
        if (name === 'text:p' || name === 'text:h') {
          if (cell.paragraphs++ > 0) {
            cell.text.push('\n');
          }
          paragraphDepth++;
        } else if (paragraphDepth > 0) {
          if (name === 'text:s') {
            cell.text.push(' '.repeat(Math.min(1000, Math.max(1, Number(attributes['text:c'] ?? 1) || 1))));
          } else if (name === 'text:tab') {
            cell.text.push('\t');
          } else if (name === 'text:line-break') {
            cell.text.push('\n');
          }
        }
        return;
      }
      if (name === 'table:table-row') {
        rowRepeat = positiveCount(attributes['table:number-rows-repeated']);
        rowCells = [];
        column = 1;
      } else if (name === 'table:table-cell' || name === 'table:covered-table-cell') {
        cell = {
          text: [],
          paragraphs: 0,
          valueType: attributes['office:value-type'] ?? '',
          dateValue: attributes['office:date-value'],
          booleanValue: attributes['office:boolean-value'],
          value: attributes['office:value'],
          repeat: positiveCount(attributes['table:number-columns-repeated']),
          rowSpan: positiveCount(attributes['table:number-rows-spanned']),
          columnSpan: positiveCount(attributes['table:number-columns-spanned']),
          covered: name === 'table:covered-table-cell',
        };
      }
    },
    text: (text) => {
      if (cell && paragraphDepth > 0 && skippedDepth === 0) {
        cell.text.push(text);
      }
    },
    close: (name) => {
      if (name === 'style:style') {
        styleName = undefined;
        return;
      }
      if (name === 'table:table') {
        tableDepth--;
        if (tableDepth === 0 && sheet) {
          if (!hidden) {
            sheets.push(sheet);
          }
          sheet = undefined;
        }
        return;
      }
      if (tableDepth !== 1 || !sheet) {
        return;
      }
      if (cell) {
        if (skippedDepth > 0) {
          skippedDepth--;
        } else if (name === 'text:p' || name === 'text:h') {
          paragraphDepth--;
        } else if (name === 'table:table-cell' || name === 'table:covered-table-cell') {
          finishCell();
        }
        return;
      }
      if (name === 'table:table-row') {
        finishRow();
      }
    },
  });
  if (!found) {
    throw missingPartError(context, CONTENT_PART);
  }
  return sheets;

  function finishCell(): void {
    const done = cell!;
    cell = undefined;
    paragraphDepth = 0;
    skippedDepth = 0;
    if (!done.covered) {
      const text = odsCellText(done);
      if (text.trim() !== '' && column <= limits.maxColumns) {
        rowCells.push({ column, text, repeat: done.repeat, rowSpan: done.rowSpan, columnSpan: done.columnSpan });
      } else if (text.trim() !== '') {
        sheet!.columnsCut = true;
      }
    }
    column += done.repeat;
  }

  function finishRow(): void {
    if (rowCells.length > 0) {
      // A repeated row holding text is written once per repeat (up to the row limit).
      const repeats = Math.min(rowRepeat, Math.max(1, limits.maxRows - row + 2));
      for (let repeat = 0; repeat < repeats; repeat++) {
        if (budget.cellsLeft <= 0) {
          sheet!.cellsCut = true;
          break;
        }
        for (const entry of rowCells) {
          const columns = Math.min(entry.repeat, limits.maxColumns - entry.column + 1);
          if (columns < entry.repeat) {
            sheet!.columnsCut = true;
          }
          for (let offset = 0; offset < columns; offset++) {
            sheet!.add(row + repeat, entry.column + offset, entry.text);
            if (entry.rowSpan > 1 || entry.columnSpan > 1) {
              sheet!.merge({ firstRow: row + repeat, firstColumn: entry.column + offset, lastRow: row + repeat + entry.rowSpan - 1, lastColumn: entry.column + offset + entry.columnSpan - 1 });
            }
          }
        }
      }
    }
    row += rowRepeat;
  }
}

/** `table:number-…-repeated` / `-spanned`: a positive count, 1 when absent or malformed. */
function positiveCount(value: string | undefined): number {
  const count = value === undefined ? 1 : Math.floor(Number(value));
  return Number.isFinite(count) && count >= 1 ? count : 1;
}

function odsCellText(cell: PendingCell): string {
  const shown = cell.text.join('');
  switch (cell.valueType) {
    case 'date':
      return cell.dateValue ? cell.dateValue.replace(/T00:00:00(?:\.0+)?$/, '') : shown;
    case 'boolean':
      return cell.booleanValue === undefined ? shown : cell.booleanValue === 'true' ? 'TRUE' : 'FALSE';
    case 'float':
    case 'percentage':
    case 'currency':
      return shown.trim() !== '' ? shown : (cell.value ?? '');
    default:
      return shown;
  }
}
