import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { ConversionError, isHaikuError } from '../../../src/core/errors';
import { countChunkTokens } from '../../../src/core/chunker';
import { CSV_TABLE_ITEM_MAX_TOKENS, MAX_TABLE_CELLS } from '../../../src/core/limits';
import { findTableRegions, sheetBlocks, type CellMerge, type SheetCell } from '../../../src/core/tableRegions';
import { convertFile } from '../../../src/node/convert/convertFile';
import { convertSpreadsheet, type SpreadsheetConvertOptions } from '../../../src/node/convert/spreadsheet';
import { excelSerialText, numberFormatKind } from '../../../src/node/convert/xlsx';
import { readXml } from '../../../src/node/convert/spreadsheetXml';
import { formatsRoot, groundTruthHeadings, headingTexts, tableRows, wordRecall } from '../../support/formatRecall';
import { rejection } from '../../support/rejection';
import { writeZip } from '../../support/zipWriter';


const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

interface TestSheet {
  name: string;
  /** The worksheet's `<sheetData>` content plus anything after it (mergeCells). */
  xml?: string;
  state?: 'hidden';
  chart?: boolean;
}

/** An XLSX with the given sheets, shared strings and extra styles; parts can be overridden or dropped (value undefined). */
function xlsx(sheets: readonly TestSheet[], options: { sharedStrings?: string[]; numFmts?: string; cellXfs?: string; date1904?: boolean; parts?: Record<string, string | undefined> } = {}): Buffer {
  const parts: Record<string, string | undefined> = {
    '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><workbookPr${options.date1904 ? ' date1904="1"' : ''}/><sheets>${sheets
      .map((sheet, index) => `<sheet name="${sheet.name}" sheetId="${index + 1}"${sheet.state ? ` state="${sheet.state}"` : ''} r:id="rId${index + 1}"/>`)
      .join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
      .map((sheet, index) =>
        sheet.chart
          ? `<Relationship Id="rId${index + 1}" Type="${RELATIONSHIPS}/chartsheet" Target="chartsheets/sheet${index + 1}.xml"/>`
          : `<Relationship Id="rId${index + 1}" Type="${RELATIONSHIPS}/worksheet" Target="/xl/worksheets/sheet${index + 1}.xml"/>`,
      )
      .join('')}<Relationship Id="rIdS" Type="${RELATIONSHIPS}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rIdT" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/></Relationships>`,
    'xl/sharedStrings.xml': `<?xml version="1.0"?><sst xmlns="${MAIN}">${(options.sharedStrings ?? []).map((text) => `<si>${text.startsWith('<') ? text : `<t>${text}</t>`}</si>`).join('')}</sst>`,
    'xl/styles.xml': `<?xml version="1.0"?><styleSheet xmlns="${MAIN}"><numFmts>${options.numFmts ?? ''}</numFmts><cellStyleXfs><xf numFmtId="14"/></cellStyleXfs><cellXfs><xf numFmtId="0"/>${options.cellXfs ?? ''}</cellXfs></styleSheet>`,
  };
  sheets.forEach((sheet, index) => {
    if (sheet.chart) {
      parts[`xl/chartsheets/sheet${index + 1}.xml`] = `<?xml version="1.0"?><chartsheet xmlns="${MAIN}"/>`;
    } else {
      parts[`xl/worksheets/sheet${index + 1}.xml`] = `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${sheet.xml ?? ''}</worksheet>`;
    }
  });
  Object.assign(parts, options.parts ?? {});
  return writeZip(Object.entries(parts).filter((entry): entry is [string, string] => entry[1] !== undefined).map(([name, text]) => ({ name, data: Buffer.from(text, 'utf8') })));
}

/** Worksheet XML for rows of cells (`[ref, xml attributes, value xml]`), closing `<sheetData>`, then `after`. */
function sheetXml(cells: ReadonlyArray<readonly [string, string, string]>, after = ''): string {
  const rows = new Map<number, string[]>();
  for (const [reference, attributes, value] of cells) {
    const row = Number(/\d+/.exec(reference)![0]);
    rows.set(row, [...(rows.get(row) ?? []), `<c r="${reference}" ${attributes}>${value}</c>`]);
  }
  return [...rows].sort((a, b) => a[0] - b[0]).map(([row, xml]) => `<row r="${row}">${xml.join('')}</row>`).join('') + '</sheetData>' + after;
}

/** String cells (inline) from a grid whose top-left cell is `origin`. */
function inlineGrid(origin: string, rows: ReadonlyArray<ReadonlyArray<string>>): Array<[string, string, string]> {
  const [, letters, digits] = /^([A-Z]+)(\d+)$/.exec(origin)!;
  const cells: Array<[string, string, string]> = [];
  rows.forEach((row, rowIndex) => {
    row.forEach((text, columnIndex) => {
      if (text !== '') {
        cells.push([`${String.fromCharCode(letters.charCodeAt(0) + columnIndex)}${Number(digits) + rowIndex}`, 't="inlineStr"', `<is><t>${text}</t></is>`]);
      }
    });
  });
  return cells;
}

function ods(tables: string, extra: { manifest?: string; styles?: string } = {}): Buffer {
  const content = `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"><office:automatic-styles>${extra.styles ?? ''}</office:automatic-styles><office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`;
  return writeZip([
    { name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') },
    { name: 'META-INF/manifest.xml', data: Buffer.from(extra.manifest ?? '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>') },
    { name: 'content.xml', data: Buffer.from(content) },
  ]);
}

async function convert(bytes: Uint8Array, name = 'book.xlsx', options: Partial<SpreadsheetConvertOptions> = {}): Promise<ConvertedDocument> {
  return convertSpreadsheet(bytes, { fileName: name, filePath: `/docs/${name}`, format: name.endsWith('.ods') ? 'ods' : 'xlsx', ...options });
}

async function refusal(bytes: Uint8Array, name = 'book.xlsx'): Promise<ConversionError> {
  const error = await rejection(convert(bytes, name));
  assert.ok(error instanceof ConversionError, String(error));
  return error;
}

function tables(document: ConvertedDocument): DocumentItem[] {
  return document.items.filter((item) => item.label === 'table');
}

const cell = (row: number, column: number, text: string): SheetCell => ({ row, column, text });

describe('spreadsheets (XLSX, XLSM, ODS)', () => {
  describe('real files against docling ground truth', () => {
    const files = ['xlsx/xlsx_01.xlsx', 'xlsx/xlsx_03_chartsheet.xlsx', 'xlsx/xlsx_06_edge_cases_.xlsx', 'xlsx/xlsx_07_gap_tolerance_.xlsx', 'odf/odf_table_with_title_01.ods'];
    for (const file of files) {
      it(`${file}: word recall ≥ 0.85, sheet headings, tables as table items, every item located on its sheet`, async () => {
        const filePath = path.join(formatsRoot, file);
        const expected = fs.readFileSync(`${filePath}.groundtruth.md`, 'utf8');
        const document = await convertFile(filePath);
        assert.equal(document.format, file.endsWith('.ods') ? 'ods' : 'xlsx');
        assert.ok(wordRecall(expected, document.items) >= 0.85, `recall ${wordRecall(expected, document.items)}`);
        const headings = headingTexts(document);
        for (const heading of groundTruthHeadings(expected)) {
          assert.ok(headings.includes(heading), `heading ${heading} in ${headings.join(', ')}`);
        }
        assert.ok(tables(document).length >= 1);
        for (const item of document.items) {
          assert.ok(item.sourceRange?.sheet, `item ${item.position} (${item.label}) names its sheet`);
          if (item.label === 'table' || item.label === 'caption' || item.label === 'paragraph') {
            assert.match(item.sourceRange.cells ?? '', /^[A-Z]+\d+(?::[A-Z]+\d+)?$/);
          }
        }
        assert.deepEqual(document.warnings, []);
      });
    }

    it('xlsx_01: merged cells repeat their text over the span; the hidden sheet is left out; charts are pictures with their title and data; pictures keep their image', async () => {
      const document = await convertFile(path.join(formatsRoot, 'xlsx', 'xlsx_01.xlsx'));
      assert.deepEqual(headingTexts(document), ['xlsx_01.xlsx', 'Sheet1', 'Sheet2', 'Sheet3']);
      const sheet3 = tables(document).filter((item) => item.sourceRange?.sheet === 'Sheet3');
      assert.deepEqual(sheet3.map((item) => item.sourceRange?.cells), ['A1:C7', 'E7:G13']);
      const rows = tableRows(sheet3[0].text);
      // A1:A2 "first" and B1:C1 "header" are merged; B6:C7 "9" too.
      assert.deepEqual(rows.slice(0, 2), [['first', 'header', 'header'], ['first', 'second', 'third']]);
      assert.deepEqual(rows.slice(5), [['8', '9', '9'], ['10', '9', '9']]);
      const pictures = document.items.filter((item) => item.label === 'picture');
      assert.deepEqual(pictures.map((item) => [item.text, item.sourceRange?.cells]), [['Line chart', 'J5:P19'], ['Scatter chart', 'E22:J36'], ['', 'I19:M36']]);
      assert.equal(pictures[2].picture?.mimeType, 'image/png');
      const captions = document.items.filter((item) => item.label === 'caption').map((item) => item.text);
      assert.deepEqual(captions, ["'col-3'", "'col-2', 'col-3', 'col-4' by 'col-1'"]);
      const lineChart = document.items[document.items.findIndex((item) => item.text === 'Line chart') + 2];
      assert.equal(lineChart.label, 'table');
      assert.deepEqual(tableRows(lineChart.text), [['', 'col-3'], ['1', '3'], ['2', '6'], ['3', '9'], ['4', '12']]);
      assert.equal(lineChart.sourceRange?.cells, 'J5:P19');
      const withoutPictures = await convertSpreadsheet(fs.readFileSync(path.join(formatsRoot, 'xlsx', 'xlsx_01.xlsx')), { fileName: 'x.xlsx', filePath: 'x.xlsx', format: 'xlsx', pictures: 'none' });
      assert.equal(withoutPictures.items.filter((item) => item.label === 'picture' && item.picture).length, 0);
    });

    it('xlsx_03: formulas by their cached value; a sheet holding only a chart gets its heading, the chart title and data', async () => {
      const document = await convertFile(path.join(formatsRoot, 'xlsx', 'xlsx_03_chartsheet.xlsx'));
      const [observations] = tables(document);
      assert.deepEqual(tableRows(observations.text)[1], ['2019', '120', '80', '200']);
      const chartSection = document.items.findIndex((item) => item.label === 'section_header' && item.text === 'Duck Chart');
      assert.deepEqual(document.items.slice(chartSection + 1, chartSection + 3).map((item) => [item.label, item.text]), [['picture', 'Bar chart'], ['caption', 'Wild Duck Observations by Year']]);
      assert.deepEqual(tableRows(document.items[chartSection + 3].text)[0], ['', 'Freshwater Ducks', 'Saltwater Ducks']);
    });

    it('odf_table_with_title_01.ods: the title row above the table is its caption', async () => {
      const document = await convertFile(path.join(formatsRoot, 'odf', 'odf_table_with_title_01.ods'));
      const labels = document.items.map((item) => `${item.label}:${item.sourceRange?.cells ?? ''}`);
      assert.deepEqual(labels, ['title:', 'section_header:', 'caption:B2', 'table:B4:C10']);
      assert.equal(document.items[2].text, 'Number of freshwater ducks per year');
      assert.deepEqual(tableRows(document.items[3].text)[0], ['Year', 'Freshwater Ducks']);
    });

    it('xlsx_07: a form splits into its regions; a label beside a value is not a caption', async () => {
      const document = await convertFile(path.join(formatsRoot, 'xlsx', 'xlsx_07_gap_tolerance_.xlsx'));
      assert.ok(tables(document).length >= 10);
      const arcTesting = document.items.find((item) => item.text === 'Arc testing');
      assert.equal(arcTesting?.label, 'paragraph');
      const merged = tables(document).find((item) => item.text.includes('Package no.'));
      assert.deepEqual(tableRows(merged!.text)[1].slice(0, 3), ['13156456', '13156456', '13156456']);
    });
  });

  describe('table regions', () => {
    it('splits regions at empty rows and columns, and keeps touching cells together', () => {
      const regions = findTableRegions([cell(1, 1, 'a'), cell(1, 2, 'b'), cell(2, 1, '1'), cell(2, 2, '2'), cell(4, 1, 'c'), cell(4, 2, 'd'), cell(5, 1, '3'), cell(1, 4, 'x'), cell(2, 4, '9')], []);
      assert.deepEqual(regions.map((region) => [region.firstRow, region.firstColumn, region.lastRow, region.lastColumn]), [[1, 1, 2, 2], [1, 4, 2, 4], [4, 1, 5, 2]]);
      assert.deepEqual(regions[2].rows, [['c', 'd'], ['3', '']]);
    });

    it('bridges gaps up to the gap tolerance', () => {
      const cells = [cell(1, 1, 'a'), cell(1, 3, 'b'), cell(3, 1, '1')];
      assert.equal(findTableRegions(cells, []).length, 3);
      assert.equal(findTableRegions(cells, [], { gapTolerance: 1 }).length, 1);
    });

    it('a merged range fills its span, joins what it touches and repeats its text; an empty merge is formatting', () => {
      const merges: CellMerge[] = [{ firstRow: 1, firstColumn: 1, lastRow: 1, lastColumn: 3 }, { firstRow: 10, firstColumn: 1, lastRow: 12, lastColumn: 5 }];
      const regions = findTableRegions([cell(1, 1, 'Quarter'), cell(2, 3, 'Q3'), cell(2, 1, 'Q1'), cell(1, 2, 'hidden under the merge')], merges);
      assert.equal(regions.length, 1);
      assert.deepEqual(regions[0].rows, [['Quarter', 'Quarter', 'Quarter'], ['Q1', '', 'Q3']]);
      assert.equal(regions[0].filledCells, 3);
    });

    it('clips a merge of a whole sheet to the span limit', () => {
      const started = performance.now();
      const regions = findTableRegions([cell(1, 1, 'all')], [{ firstRow: 1, firstColumn: 1, lastRow: 1_048_576, lastColumn: 16_384 }], { maxMergeSpan: 100 });
      assert.equal(regions[0].lastRow, 100);
      assert.equal(regions[0].lastColumn, 100);
      assert.ok(performance.now() - started < 5000);
    });

    it('lays out a sparse region (a comb of cells) row run by row run instead of as one huge grid', () => {
      const cells: SheetCell[] = [];
      for (let column = 1; column <= 1000; column++) {
        cells.push(cell(1, column, `h${column}`));
      }
      for (let row = 2; row <= 2000; row++) {
        cells.push(cell(row, 1, `a${row}`), cell(row, 1000, `b${row}`));
      }
      const started = performance.now();
      const regions = findTableRegions(cells, []);
      assert.ok(performance.now() - started < 5000);
      assert.equal(regions.length, 1 + 2 * 1999);
      assert.equal(regions[0].rows[0].length, 1000);
      assert.ok(regions.slice(1).every((region) => region.rows.length === 1 && region.rows[0].length === 1));
    });

    it('stops expanding merges past the merged-position budget', () => {
      const merges: CellMerge[] = Array.from({ length: 50 }, (_, index) => ({ firstRow: index * 2 + 1, firstColumn: 1, lastRow: index * 2 + 1, lastColumn: 100 }));
      const cells = merges.map((merge) => cell(merge.firstRow, 1, `m${merge.firstRow}`));
      const regions = findTableRegions(cells, merges, { maxMergedPositions: 1000 });
      assert.equal(regions.length, 50);
      assert.equal(regions.filter((region) => region.lastColumn === 100).length, 10);
    });

    it('a label just above a table is its caption; a lone cell elsewhere is text', () => {
      const regions = findTableRegions([cell(1, 2, 'Sales 2024'), cell(3, 1, 'Region'), cell(3, 2, 'Total'), cell(4, 1, 'North'), cell(4, 2, '10'), cell(8, 6, 'Note: unaudited')], []);
      const blocks = sheetBlocks(regions);
      assert.deepEqual(blocks.map((block) => block.kind), ['caption', 'table', 'text']);
      assert.equal(blocks[0].kind === 'caption' && blocks[0].text, 'Sales 2024');
    });

    it('a label more than two empty rows above, beside the table, or sharing its row with a value is not a caption', () => {
      const far = sheetBlocks(findTableRegions([cell(1, 1, 'Title'), cell(5, 1, 'a'), cell(5, 2, 'b'), cell(6, 1, '1'), cell(6, 2, '2')], []));
      assert.deepEqual(far.map((block) => block.kind), ['text', 'table']);
      const beside = sheetBlocks(findTableRegions([cell(1, 5, 'Title'), cell(2, 1, 'a'), cell(2, 2, 'b'), cell(3, 1, '1'), cell(3, 2, '2')], []));
      assert.deepEqual(beside.map((block) => block.kind), ['text', 'table']);
      const field = sheetBlocks(findTableRegions([cell(1, 1, 'Status'), cell(1, 3, 'open'), cell(1, 4, 'today'), cell(3, 1, 'a'), cell(3, 2, 'b'), cell(4, 1, '1'), cell(4, 2, '2')], []));
      assert.deepEqual(field.map((block) => block.kind), ['text', 'table', 'table']);
    });

    it('a title merged over the table header is split off as the caption (docling\'s rule)', () => {
      const regions = findTableRegions([cell(1, 1, 'Budget'), cell(2, 1, 'Item'), cell(2, 2, 'Cost'), cell(2, 3, 'Owner'), cell(3, 1, 'Desk'), cell(3, 2, '100'), cell(3, 3, 'Ann')], [{ firstRow: 1, firstColumn: 1, lastRow: 1, lastColumn: 3 }]);
      const blocks = sheetBlocks(regions);
      assert.deepEqual(blocks.map((block) => block.kind), ['caption', 'table']);
      const table = blocks[1];
      assert.ok(table.kind === 'table');
      assert.equal(table.region.firstRow, 2);
      assert.deepEqual(table.region.rows[0], ['Item', 'Cost', 'Owner']);
    });
  });

  describe('cell values (XLSX)', () => {
    it('reads shared strings (rich text, phonetic runs left out), inline strings, numbers, booleans, errors, dates, times, percentages and cached formula values', async () => {
      const book = xlsx(
        [
          {
            name: 'Values',
            xml: sheetXml([
              ['A1', 't="s"', '<v>0</v>'],
              ['B1', 't="s"', '<v>1</v>'],
              ['C1', 't="inlineStr"', '<is><t>inline &amp; more</t></is>'],
              ['D1', 't="b"', '<v>1</v>'],
              ['E1', 't="e"', '<v>#DIV/0!</v>'],
              ['F1', 't="str"', '<f>A1&amp;"!"</f><v>Name!</v>'],
              ['A2', 's="1"', '<v>45356</v>'],
              ['B2', 's="2"', '<v>45356.604166666664</v>'],
              ['C2', 's="3"', '<v>0.75</v>'],
              ['D2', 's="4"', '<v>0.125</v>'],
              ['E2', '', '<f>SUM(1,2)</f><v>3</v>'],
              ['F2', '', '<v>2.2999999999999998</v>'],
            ]),
          },
        ],
        {
          sharedStrings: ['Name', '<r><t>Ri</t></r><r><t>ch</t></r><rPh><t>ふりがな</t></rPh>'],
          numFmts: '<numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd\\ hh:mm"/>',
          cellXfs: '<xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="20"/><xf numFmtId="10"/>',
        },
      );
      const document = await convert(book);
      assert.deepEqual(tableRows(tables(document)[0].text), [
        ['Name', 'Rich', 'inline & more', 'TRUE', '#DIV/0!', 'Name!'],
        ['2024-03-05', '2024-03-05T14:30:00', '18:00:00', '12.5%', '3', '2.3'],
      ]);
    });

    it('names dates and number formats sensibly', () => {
      assert.equal(excelSerialText(1, false), '1900-01-01');
      assert.equal(excelSerialText(61, false), '1900-03-01');
      assert.equal(excelSerialText(45356, false), '2024-03-05');
      assert.equal(excelSerialText(0, true), '1904-01-01');
      assert.equal(excelSerialText(0.5, false, true), '12:00:00');
      assert.equal(excelSerialText(-1, false), undefined);
      assert.equal(numberFormatKind(164, 'dd/mm/yyyy'), 'date');
      assert.equal(numberFormatKind(164, '[h]:mm:ss'), 'time');
      assert.equal(numberFormatKind(164, '"Days: "0'), 'number');
      assert.equal(numberFormatKind(164, '#,##0.00 [$€-407];[Red]-#,##0.00'), 'number');
      assert.equal(numberFormatKind(164, '0.0%'), 'percent');
      assert.equal(numberFormatKind(0, undefined), 'number');
    });

    it('uses the 1904 date system when the workbook says so', async () => {
      const document = await convert(xlsx([{ name: 'S', xml: sheetXml([['A1', 't="inlineStr"', '<is><t>When</t></is>'], ['A2', 's="1"', '<v>1</v>']]) }], { date1904: true, cellXfs: '<xf numFmtId="14"/>' }));
      assert.deepEqual(tableRows(tables(document)[0].text), [['When'], ['1904-01-02']]);
    });

    it('leaves hidden sheets out, and gives a chart sheet without a chart its heading only, without error', async () => {
      const document = await convert(
        xlsx([
          { name: 'Visible', xml: sheetXml(inlineGrid('A1', [['a', 'b'], ['1', '2']])) },
          { name: 'Secret', state: 'hidden', xml: sheetXml(inlineGrid('A1', [['password']])) },
          { name: 'Chart1', chart: true },
        ]),
      );
      assert.deepEqual(headingTexts(document), ['book.xlsx', 'Visible', 'Chart1']);
      assert.ok(!document.content.includes('password'));
      assert.equal(document.items[document.items.length - 1].text, 'Chart1');
    });

    it('reads a chart sheet\'s chart through its drawing, bounding a chart whose caches claim a huge grid', async () => {
      const series = Array.from({ length: 1500 }, (_, index) => `<c:ser><c:tx><c:v>s${index}</c:v></c:tx><c:val><c:numRef><c:numCache><c:pt idx="${index === 0 ? 99_999 : 0}"><c:v>${index}</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>`);
      const chart = `<c:chartSpace xmlns:c="c" xmlns:a="a"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Huge</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:lineChart>${series.join('')}</c:lineChart></c:plotArea></c:chart></c:chartSpace>`;
      const rels = (type: string, target: string) => `<Relationships><Relationship Id="rId1" Type="${RELATIONSHIPS}/${type}" Target="${target}"/></Relationships>`;
      const book = xlsx([{ name: 'Trend', chart: true }], {
        parts: {
          'xl/chartsheets/_rels/sheet1.xml.rels': rels('drawing', '../drawings/drawing1.xml'),
          'xl/drawings/drawing1.xml': `<xdr:wsDr xmlns:xdr="x" xmlns:c="c" xmlns:r="r"><xdr:absoluteAnchor><xdr:graphicFrame><c:chart r:id="rId1"/></xdr:graphicFrame></xdr:absoluteAnchor></xdr:wsDr>`,
          'xl/drawings/_rels/drawing1.xml.rels': rels('chart', '../charts/chart1.xml'),
          'xl/charts/chart1.xml': chart,
        },
      });
      const started = performance.now();
      const document = await convert(book);
      assert.ok(performance.now() - started < 20_000);
      assert.deepEqual(document.items.slice(1, 4).map((item) => [item.label, item.text.slice(0, 10), item.sourceRange?.sheet]), [
        ['section_header', 'Trend', 'Trend'],
        ['picture', 'Line chart', 'Trend'],
        ['caption', 'Huge', 'Trend'],
      ]);
      const rows = tables(document).flatMap((item, index) => tableRows(item.text).slice(index === 0 ? 0 : 1));
      assert.equal(rows[0].length, 1001);
      assert.ok(rows.length * rows[0].length <= MAX_TABLE_CELLS + rows[0].length);
    });

    it('cuts tables into items of whole rows under the chunk budget, each repeating the header and naming its own rows', async () => {
      const rows = [['Name', 'Description'], ...Array.from({ length: 60 }, (_, index) => [`item ${index + 1}`, `a longer description of item number ${index + 1}`])];
      const document = await convert(xlsx([{ name: 'Long', xml: sheetXml(inlineGrid('B3', rows)) }]));
      const items = tables(document);
      assert.ok(items.length > 3);
      for (const item of items) {
        assert.deepEqual(tableRows(item.text)[0], ['Name', 'Description']);
        assert.ok(countChunkTokens(item.text) <= CSV_TABLE_ITEM_MAX_TOKENS, `${countChunkTokens(item.text)} tokens`);
      }
      assert.equal(items[0].sourceRange?.cells?.split(':')[0], 'B3');
      const second = tableRows(items[1].text)[1][0];
      assert.equal(items[1].sourceRange?.cells?.split(':')[0], `B${3 + Number(second.replace('item ', ''))}`);
      assert.equal(items[items.length - 1].sourceRange?.cells?.split(':')[1], 'C63');
      assert.equal(items.flatMap((item) => tableRows(item.text).slice(1)).length, 60);
    });
  });

  describe('bounds', () => {
    it('drops rows and columns past the limits with a warning', async () => {
      const grid = Array.from({ length: 8 }, (_, row) => Array.from({ length: 6 }, (_, column) => `r${row + 1}c${column + 1}`));
      const document = await convert(xlsx([{ name: 'Big', xml: sheetXml(inlineGrid('A1', grid)) }]), 'book.xlsx', { limits: { maxRows: 5, maxColumns: 3 } });
      const rows = tables(document).flatMap((item, index) => tableRows(item.text).slice(index === 0 ? 0 : 1));
      assert.equal(rows.length, 5);
      assert.ok(rows.every((row) => row.length === 3));
      assert.equal(document.warnings.length, 2);
      assert.match(document.warnings[0], /Sheet "Big" has cells below row 5; only the first 5 rows are indexed/);
      assert.match(document.warnings[1], /right of column 3/);
    });

    it('stops at the workbook cell budget with a warning', async () => {
      const document = await convert(
        xlsx([
          { name: 'One', xml: sheetXml(inlineGrid('A1', [['a', 'b'], ['1', '2']])) },
          { name: 'Two', xml: sheetXml(inlineGrid('A1', [['c', 'd'], ['3', '4']])) },
        ]),
        'book.xlsx',
        { limits: { maxCells: 6 } },
      );
      assert.ok(document.content.includes('| c | d |'));
      assert.ok(!document.content.includes('| 3 |'));
      assert.match(document.warnings.join('\n'), /sheet "Two" and the sheets after it are indexed only in part/);
    });

    it('ODS: a row repeated a million times, holding text, stops at the row limit quickly', async () => {
      const started = performance.now();
      const document = await convert(
        ods(
          '<table:table table:name="Huge"><table:table-row><table:table-cell office:value-type="string"><text:p>head</text:p></table:table-cell></table:table-row>' +
            '<table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row></table:table>',
        ),
        'huge.ods',
        { limits: { maxRows: 200, maxColumns: 20 } },
      );
      assert.ok(performance.now() - started < 10_000);
      const rows = tables(document).flatMap((item, index) => tableRows(item.text).slice(index === 0 ? 0 : 1));
      assert.equal(rows.length, 200);
      assert.equal(rows[1].length, 20);
      assert.equal(document.warnings.length, 2);
    });
  });

  describe('ODS', () => {
    it('reads values as displayed, dates as ISO, booleans, spans as merges, skips notes, empty padding and hidden sheets', async () => {
      const document = await convert(
        ods(
          '<table:table table:name="Data"><table:table-column table:number-columns-repeated="1024"/>' +
            '<table:table-row><table:table-cell table:number-columns-spanned="2" office:value-type="string"><text:p>Period</text:p><office:annotation><text:p>a note</text:p></office:annotation></table:table-cell><table:covered-table-cell/><table:table-cell office:value-type="string"><text:p>Amount</text:p></table:table-cell></table:table-row>' +
            '<table:table-row><table:table-cell office:value-type="date" office:date-value="2024-03-05"><text:p>05/03/24</text:p></table:table-cell><table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>WAHR</text:p></table:table-cell><table:table-cell office:value-type="currency" office:value="1234.5"><text:p>1.234,50 €</text:p></table:table-cell></table:table-row>' +
            '<table:table-row><table:table-cell office:value-type="string"><text:p>two<text:s text:c="2"/>spaces</text:p><text:p>second line</text:p></table:table-cell></table:table-row>' +
            '<table:table-row table:number-rows-repeated="1048573"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>' +
            '<table:table table:name="Hidden" table:style-name="ta2"><table:table-row><table:table-cell office:value-type="string"><text:p>secret</text:p></table:table-cell></table:table-row></table:table>',
          { styles: '<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>' },
        ),
        'data.ods',
      );
      assert.deepEqual(headingTexts(document), ['data.ods', 'Data']);
      assert.deepEqual(tableRows(tables(document)[0].text), [
        ['Period', 'Period', 'Amount'],
        ['2024-03-05', 'TRUE', '1.234,50 €'],
        ['two spaces second line', '', ''],
      ]);
      assert.ok(!document.content.includes('a note'));
      assert.equal(tables(document)[0].sourceRange?.cells, 'A1:C3');
    });
  });

  describe('bad inputs', () => {
    it('refuses a file that is not a zip', async () => {
      const error = await refusal(Buffer.from('name,value\n1,2\n'));
      assert.equal(error.code, 'corrupt_file');
      assert.match(error.message, /not an XLSX workbook: it is not a zip archive/);
    });

    it('refuses a password-protected workbook (OLE container with EncryptedPackage) as encrypted', async () => {
      const header = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
      const error = await refusal(Buffer.concat([header, Buffer.alloc(512), Buffer.from('EncryptedPackage', 'utf16le'), Buffer.alloc(512)]));
      assert.equal(error.code, 'encrypted_file');
      assert.match(error.message, /password-protected/);
      const legacy = await refusal(Buffer.concat([header, Buffer.alloc(1024)]));
      assert.equal(legacy.code, 'corrupt_file');
      assert.match(legacy.message, /legacy binary Excel file \(\.xls\)/);
    });

    it('refuses a password-protected ODS as encrypted', async () => {
      const manifest = '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry></manifest:manifest>';
      const error = await refusal(ods('', { manifest }), 'secret.ods');
      assert.equal(error.code, 'encrypted_file');
    });

    it('names the damaged part: a cut-off sheet, a mismatched tag, a damaged ODS content', async () => {
      const cut = xlsx([{ name: 'S' }], { parts: { 'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>trunc` } });
      const cutError = await refusal(cut);
      assert.equal(cutError.code, 'corrupt_file');
      assert.match(cutError.message, /its part xl\/worksheets\/sheet1\.xml is not well-formed XML/);
      assert.match(cutError.message, /Re-save it from Excel or LibreOffice Calc or exclude it from indexing/);
      const mismatched = xlsx([{ name: 'S' }], { parts: { 'xl/sharedStrings.xml': `<sst xmlns="${MAIN}"><si><t>a</si></sst>` } });
      assert.match((await refusal(mismatched)).message, /xl\/sharedStrings\.xml is not well-formed XML \(end tag <\/si> where <\/t> was expected/);
      const badOds = writeZip([{ name: 'content.xml', data: Buffer.from('<office:document-content><office:body>') }]);
      assert.match((await refusal(badOds, 'bad.ods')).message, /its part content\.xml is not well-formed XML/);
    });

    it('names a sheet part the workbook lists but the archive lacks', async () => {
      const error = await refusal(xlsx([{ name: 'S' }], { parts: { 'xl/worksheets/sheet1.xml': undefined } }));
      assert.equal(error.code, 'corrupt_file');
      assert.match(error.message, /its part xl\/worksheets\/sheet1\.xml is missing/);
    });

    it('refuses a zip bomb before inflating it', async () => {
      const bomb = writeZip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(1000, 32), declaredSize: 2_000_000_000 }]);
      const error = await refusal(bomb);
      assert.equal(error.code, 'file_too_large');
    });

    it('converts an empty workbook to its headings with a warning', async () => {
      const document = await convert(xlsx([{ name: 'Empty', xml: '</sheetData>' }]));
      assert.deepEqual(headingTexts(document), ['book.xlsx', 'Empty']);
      assert.match(document.warnings[0], /no cells with text or values/);
    });

    it('the XML reader refuses text outside the root and a second root, and never expands a DTD entity', () => {
      assert.throws(() => readXml('garbage<a/>', {}), /text outside the root element/);
      assert.throws(() => readXml('<a/><b/>', {}), /a second root element/);
      const texts: string[] = [];
      readXml('<!DOCTYPE a [<!ENTITY x "boom">]><a>&x;&lt;&#65;</a>', { text: (text) => texts.push(text) });
      assert.deepEqual(texts, ['&x;<A']);
    });
  });

  it('dispatches .xlsx, .xlsm and .ods through convertFile', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-sheets-'));
    try {
      const book = xlsx([{ name: 'S', xml: sheetXml(inlineGrid('A1', [['macro', 'book'], ['1', '2']])) }]);
      for (const name of ['a.xlsx', 'a.xlsm']) {
        fs.writeFileSync(path.join(folder, name), book);
        const document = await convertFile(path.join(folder, name));
        assert.equal(document.format, 'xlsx');
        assert.deepEqual(tableRows(tables(document)[0].text)[0], ['macro', 'book']);
      }
      fs.writeFileSync(path.join(folder, 'a.ods'), Buffer.from('not a zip'));
      const error = await rejection(convertFile(path.join(folder, 'a.ods')));
      assert.ok(isHaikuError(error, 'corrupt_file'));
      assert.match(error.message, /is not an ODS spreadsheet/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
