import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { chunkDocument, countChunkTokens } from '../../../src/core/chunker';
import { CODE_ITEM_MAX_CHARS, CSV_MAX_COLUMNS, CSV_MAX_ROWS, CSV_TABLE_ITEM_MAX_TOKENS, NOTEBOOK_OUTPUT_MAX_CHARS } from '../../../src/core/limits';
import { isHaikuError } from '../../../src/core/errors';
import { convertAsciidoc } from '../../../src/node/convert/asciidoc';
import { convertCode } from '../../../src/node/convert/code';
import { convertFile, converterFor } from '../../../src/node/convert/convertFile';
import { convertCsv, detectDelimiter, parseCsv } from '../../../src/node/convert/csv';
import { convertNotebook } from '../../../src/node/convert/notebook';
import { encodePng } from '../../../src/node/convert/pictures/pngEncoder';
import { filesWithGroundTruth, formatsRoot, groundTruthHeadings, headingTexts, tableRows, wordRecall } from '../../support/formatRecall';

describe('text-based formats (CSV, notebooks, AsciiDoc, code)', () => {
  describe('real files against docling ground truth', () => {
    for (const name of filesWithGroundTruth('csv')) {
      it(`CSV ${name}: the table row for row, word recall ≥ 0.85`, async () => {
        const filePath = path.join(formatsRoot, 'csv', name);
        const expected = fs.readFileSync(`${filePath}.groundtruth.md`, 'utf8');
        const document = await convertFile(filePath);
        assert.equal(document.format, 'csv');
        assert.equal(document.title, name);
        assert.equal(document.items[0].label, 'title');
        const tables = document.items.filter((item) => item.label === 'table');
        assert.ok(tables.length >= 1);
        // Every table item repeats the header; their data rows together are docling's rows (ragged rows padded, extra cells kept).
        const header = tableRows(tables[0].text)[0];
        const rows = [header, ...tables.flatMap((table) => {
          const [itemHeader, ...data] = tableRows(table.text);
          assert.deepEqual(itemHeader, header);
          return data;
        })];
        assert.deepEqual(rows.map((row) => row.map((cell) => cell.replace(/\s+/g, ' '))), tableRows(expected).map((row) => row.map((cell) => cell.replace(/\s+/g, ' '))));
        assert.ok(wordRecall(expected, document.items) >= 0.85);
      });
    }

    for (const name of filesWithGroundTruth('asciidoc')) {
      it(`AsciiDoc ${name}: headings, tables, word recall ≥ 0.85`, async () => {
        const filePath = path.join(formatsRoot, 'asciidoc', name);
        const expected = fs.readFileSync(`${filePath}.groundtruth.md`, 'utf8');
        const document = await convertFile(filePath, { pictureRoots: [formatsRoot] });
        assert.equal(document.format, 'asciidoc');
        const recall = wordRecall(expected, document.items);
        assert.ok(recall >= 0.85, `recall ${recall.toFixed(3)}`);
        for (const heading of groundTruthHeadings(expected)) {
          assert.ok(headingTexts(document).includes(heading), `heading ${heading}`);
        }
        const expectedTables = expected.split('\n\n').filter((block) => block.startsWith('|'));
        const tables = document.items.filter((item) => item.label === 'table');
        assert.equal(tables.length, expectedTables.length);
        tables.forEach((table, index) => assert.deepEqual(tableRows(table.text), tableRows(expectedTables[index])));
        // Line provenance: every item points at the line holding its start.
        const lines = fs.readFileSync(filePath, 'utf8').split('\n');
        for (const item of document.items.filter((candidate) => candidate.label === 'section_header' || candidate.label === 'paragraph')) {
          assert.ok(lines[item.sourceRange!.startLine!].includes(item.text.split(' ').slice(0, 2).join(' ')), item.text);
        }
      });
    }

    for (const name of ['Running Code.ipynb', 'Typesetting Equations.ipynb', 'Working With Markdown Cells.ipynb']) {
      it(`notebook ${name}: every cell's headings, code in the kernel's language, outputs, word recall ≥ 0.85`, async () => {
        const filePath = path.join(formatsRoot, 'jupyter', name);
        const text = fs.readFileSync(filePath, 'utf8');
        const notebook = JSON.parse(text) as { cells: Array<{ cell_type: string; source: string[]; outputs?: Array<{ output_type: string; text?: string[] }> }> };
        const document = await convertFile(filePath);
        assert.equal(document.format, 'notebook');
        // The expected text, from the notebook itself (docling has no ground truth for notebooks): Markdown with its
        // link targets, HTML tags and math markup left out, code cells, stream outputs.
        const markdownText = notebook.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join('')).join('\n')
          .replace(/\]\([^)]*\)/g, ']').replace(/<[^>]+>/g, ' ').replace(/\\[a-zA-Z]+/g, ' ').replace(/https?:\/\/\S+/g, ' ');
        const codeText = notebook.cells.filter((cell) => cell.cell_type === 'code').map((cell) => cell.source.join('')).join('\n');
        const outputText = notebook.cells.flatMap((cell) => cell.outputs ?? []).filter((output) => output.output_type === 'stream').map((output) => (output.text ?? []).join('').slice(0, NOTEBOOK_OUTPUT_MAX_CHARS)).join('\n');
        const recall = wordRecall(`${markdownText}\n${codeText}\n${outputText}`, document.items);
        assert.ok(recall >= 0.85, `recall ${recall.toFixed(3)}`);
        // Heading lines outside fenced code, backslash escapes resolved as Markdown does.
        const headings = notebook.cells.filter((cell) => cell.cell_type === 'markdown').flatMap((cell) => cell.source.join('').replace(/```[\s\S]*?```/g, '').split('\n')).filter((line) => /^#{1,6} /.test(line)).map((line) => line.replace(/^#+\s+/, '').replace(/\\(.)/g, '$1').trim());
        assert.ok(headings.length > 0);
        for (const heading of headings) {
          assert.ok(headingTexts(document).some((found) => heading.includes(found) || found.includes(heading)), heading);
        }
        const codeCells = notebook.cells.filter((cell) => cell.cell_type === 'code' && cell.source.join('').trim());
        const codeItems = document.items.filter((item) => item.label === 'code' && item.language === 'python');
        for (const cell of codeCells) {
          assert.ok(codeItems.some((item) => item.text === cell.source.join('').trimEnd()), cell.source.join(''));
        }
        // Provenance: each Markdown paragraph's first line is on the JSON line its range starts at (the source array, one element per line).
        const jsonLines = text.split('\n');
        for (const item of document.items.filter((candidate) => candidate.label === 'section_header')) {
          assert.ok(jsonLines[item.sourceRange!.startLine!].includes(item.text.slice(0, 10)), `${item.text} at ${item.sourceRange!.startLine}`);
        }
      });
    }
  });

  describe('CSV', () => {
    it('detects comma, semicolon, tab and pipe; a quoted delimiter is not a split', () => {
      assert.equal(detectDelimiter('a,b,c\n1,2,3\n'), ',');
      assert.equal(detectDelimiter('name;price;note\nx;1,5;"a;b"\ny;2,5;c\n'), ';');
      assert.equal(detectDelimiter('a\tb\n1\t2\n'), '\t');
      assert.equal(detectDelimiter('a|b|c\n1|2|3\n'), '|');
      // "a, b" quoted: only one comma outside quotes per line, the semicolons are the real split.
      assert.equal(detectDelimiter('"x, y";z\n"a, b";c\n'), ';');
      assert.equal(detectDelimiter('one\ntwo\n'), ',');
    });

    it('keeps quoted commas, doubled quotes and quoted line ends in a cell, with each record\'s lines', () => {
      const { records } = parseCsv('id,text\n1,"a, ""quoted""\nsecond line"\r\n2,plain\n\n3,last', ',');
      assert.deepEqual(records.map((record) => record.cells), [['id', 'text'], ['1', 'a, "quoted"\nsecond line'], ['2', 'plain'], ['3', 'last']]);
      assert.deepEqual(records.map((record) => [record.startLine, record.endLine]), [[0, 0], [1, 2], [3, 3], [5, 5]]);
    });

    it('pads short rows and keeps long rows\' extra cells', () => {
      const document = convertCsv('a,b,c\n1,2\n1,2,3,4\n', { fileName: 'ragged.csv' });
      const table = document.items.find((item) => item.label === 'table')!;
      assert.deepEqual(tableRows(table.text), [['a', 'b', 'c', ''], ['1', '2', '', ''], ['1', '2', '3', '4']]);
      assert.deepEqual(table.sourceRange, { startLine: 0, startColumn: 0, endLine: 2, endColumn: 7 });
    });

    it('keeps a small table whole: rows are counted by their own line, not as one-row tables with a separator each', () => {
      const lines = ['first,second,third,fourth', ...Array.from({ length: 10 }, (_, index) => `${index},${index * 2},${index * 3},${index * 4}`)];
      const tables = convertCsv(lines.join('\n'), { fileName: 'small.csv' }).items.filter((item) => item.label === 'table');
      assert.equal(tables.length, 1, tables.map((table) => table.text).join('\n\n'));
      assert.ok(countChunkTokens(tables[0].text) <= CSV_TABLE_ITEM_MAX_TOKENS, String(countChunkTokens(tables[0].text)));
      assert.equal(tableRows(tables[0].text).length, 11);
    });

    it('cuts a large table into items of whole rows, each with the header and its own lines; chunks keep rows whole', () => {
      const lines = ['city,country,population'];
      for (let index = 0; index < 2000; index++) {
        lines.push(`City number ${index},Country ${index % 50},${1000 + index}`);
      }
      const document = convertCsv(lines.join('\n'), { fileName: 'cities.csv' });
      const tables = document.items.filter((item) => item.label === 'table');
      assert.ok(tables.length > 10);
      let nextLine = 1;
      for (const [index, table] of tables.entries()) {
        const rows = tableRows(table.text);
        assert.deepEqual(rows[0], ['city', 'country', 'population']);
        assert.ok(countChunkTokens(table.text) <= CSV_TABLE_ITEM_MAX_TOKENS);
        // Item ranges are the lines of their rows, in order, without gaps (the first includes the header line).
        assert.equal(table.sourceRange!.startLine, index === 0 ? 0 : nextLine);
        assert.equal(table.sourceRange!.endLine! - (index === 0 ? 1 : nextLine) + 1, rows.length - 1);
        assert.equal(rows[1][0], `City number ${nextLine - 1}`);
        nextLine = table.sourceRange!.endLine! + 1;
      }
      assert.equal(nextLine, 2001);
      const chunks = chunkDocument({ id: 'cities', items: document.items });
      for (const chunk of chunks.filter((candidate) => candidate.content.includes('City number'))) {
        assert.ok(chunk.content.includes('| city | country | population |'), 'every chunk carries the header row');
        for (const line of chunk.content.split('\n').filter((text) => text.includes('City number'))) {
          assert.match(line, /^\| City number \d+ \| Country \d+ \| \d+ \|$/);
        }
      }
    });

    it(`indexes the first ${CSV_MAX_ROWS.toLocaleString('en-US')} rows and ${CSV_MAX_COLUMNS} columns, with warnings`, () => {
      const rows = Array.from({ length: CSV_MAX_ROWS + 5 }, (_, index) => `${index},x`);
      const document = convertCsv(rows.join('\n'), { fileName: 'big.csv' });
      const lastTable = document.items.filter((item) => item.label === 'table').at(-1)!;
      // The first line is the header, then the limit's rows.
      assert.equal(lastTable.sourceRange!.endLine, CSV_MAX_ROWS);
      assert.match(document.warnings.join('\n'), /more than 100,000 rows; only the first 100,000 are indexed/);
      const wide = convertCsv(`${Array.from({ length: CSV_MAX_COLUMNS + 10 }, (_, index) => `c${index}`).join(',')}\n1,2\n`, { fileName: 'wide.csv' });
      assert.equal(tableRows(wide.items[1].text)[0].length, CSV_MAX_COLUMNS);
      assert.match(wide.warnings.join('\n'), /more than 1,000 cells/);
    });

    it('dispatches .csv, .tsv and .tab to the CSV converter (a .tsv prefers tabs)', async () => {
      assert.deepEqual(['a.csv', 'b.TSV', 'c.tab'].map(converterFor), ['csv', 'csv', 'csv']);
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-tsv-'));
      try {
        fs.writeFileSync(path.join(folder, 'data.tsv'), 'name\tnote\nx\ta,b\n');
        const document = await convertFile(path.join(folder, 'data.tsv'));
        assert.deepEqual(tableRows(document.items[1].text), [['name', 'note'], ['x', 'a,b']]);
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  });

  describe('Jupyter notebooks', () => {
    const png = encodePng({ width: 100, height: 80, channels: 3, data: new Uint8Array(100 * 80 * 3).fill(200) });

    function notebookJson(cells: unknown[], metadata: unknown = { kernelspec: { language: 'python' }, language_info: { name: 'python' } }): string {
      return JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata, cells }, null, 1);
    }

    it('converts Markdown cells, code cells in the kernel language, text outputs and image outputs with bytes', async () => {
      const text = notebookJson([
        { cell_type: 'markdown', metadata: {}, source: ['# Analysis\n', '\n', 'Some *text*.\n', '\n', '- one\n', '- two'] },
        { cell_type: 'code', execution_count: 1, metadata: {}, outputs: [
          { output_type: 'stream', name: 'stdout', text: ['hello\n'] },
          { output_type: 'execute_result', execution_count: 1, metadata: {}, data: { 'text/plain': ['42'] } },
          { output_type: 'display_data', metadata: {}, data: { 'image/png': Buffer.from(png).toString('base64'), 'text/plain': ['<Figure size 640x480>'] } },
          { output_type: 'error', ename: 'ValueError', evalue: 'bad \u001b[31mvalue\u001b[0m', traceback: [] },
        ], source: ['x = 41\n', 'print("hello")'] },
        { cell_type: 'raw', metadata: {}, source: 'raw text' },
      ], { kernelspec: { language: 'R' }, language_info: { name: 'R' } });
      const document = await convertNotebook(text, { fileName: 'analysis.ipynb' });
      assert.equal(document.title, 'Analysis');
      assert.deepEqual(document.items.map((item) => [item.label, item.language ?? '', item.text]), [
        ['section_header', '', 'Analysis'],
        ['paragraph', '', 'Some text.'],
        ['list_item', '', 'one'],
        ['list_item', '', 'two'],
        ['code', 'r', 'x = 41\nprint("hello")'],
        ['code', 'output', 'hello'],
        ['code', 'output', '42'],
        ['picture', '', '<Figure size 640x480>'],
        ['code', 'error', 'ValueError: bad value'],
        ['paragraph', '', 'raw text'],
      ]);
      const picture = document.items.find((item) => item.label === 'picture')!.picture!;
      assert.equal(picture.mimeType, 'image/png');
      assert.deepEqual([picture.width, picture.height], [100, 80]);
      assert.ok(Buffer.from(picture.bytes!).equals(Buffer.from(png)));
      // Provenance: JSON lines of the cell; Markdown items on their own source line.
      const lines = text.split('\n');
      assert.match(lines[document.items[0].sourceRange!.startLine!], /# Analysis/);
      assert.match(lines[document.items[2].sourceRange!.startLine!], /- one/);
      assert.match(lines[document.items[4].sourceRange!.startLine!], /x = 41/);
      assert.match(lines[document.items[4].sourceRange!.endLine!], /print/);
      // Each item names its cell (0-based index; labels say "cell 1", "cell 2", …).
      assert.deepEqual(document.items.map((item) => item.sourceRange?.cell), [0, 0, 0, 0, 1, 1, 1, 1, 1, 2]);
    });

    it('makes an HTML table output (a pandas DataFrame) a table item instead of its text repr', async () => {
      const html = '<div><style scoped>.dataframe td { color: red }</style><table class="dataframe"><thead><tr><th></th><th>city</th><th>people</th></tr></thead><tbody><tr><th>0</th><td>Oslo</td><td>700</td></tr></tbody></table></div>';
      const text = notebookJson([{ cell_type: 'code', metadata: {}, outputs: [{ output_type: 'execute_result', metadata: {}, data: { 'text/html': html, 'text/plain': '   city  people\n0  Oslo     700' } }], source: 'frame' }]);
      const document = await convertNotebook(text, { fileName: 'frame.ipynb' });
      assert.deepEqual(document.items.map((item) => item.label), ['code', 'table']);
      assert.deepEqual(tableRows(document.items[1].text), [['', 'city', 'people'], ['0', 'Oslo', '700']]);
    });

    it('without pictures, an image output keeps its text but no bytes', async () => {
      const text = notebookJson([{ cell_type: 'code', metadata: {}, outputs: [{ output_type: 'display_data', metadata: {}, data: { 'image/png': Buffer.from(png).toString('base64') } }], source: 'plot()' }]);
      const document = await convertNotebook(text, { fileName: 'plot.ipynb', pictures: 'none' });
      assert.equal(document.items[1].label, 'picture');
      assert.equal(document.items[1].picture, undefined);
    });

    it('cuts very long outputs with a warning', async () => {
      const text = notebookJson([{ cell_type: 'code', metadata: {}, outputs: [{ output_type: 'stream', name: 'stdout', text: 'x'.repeat(NOTEBOOK_OUTPUT_MAX_CHARS + 50) }], source: 'spam()' }]);
      const document = await convertNotebook(text, { fileName: 'log.ipynb' });
      assert.equal(document.items[1].text.length, NOTEBOOK_OUTPUT_MAX_CHARS);
      assert.match(document.warnings.join('\n'), /longer than 20,000 characters/);
    });

    it('reads nbformat 3 (worksheets, heading cells, input)', async () => {
      const text = JSON.stringify({ nbformat: 3, metadata: { language: 'python' }, worksheets: [{ cells: [{ cell_type: 'heading', level: 2, source: 'Old style' }, { cell_type: 'code', input: 'print(1)', outputs: [{ output_type: 'pyout', text: ['1'] }] }] }] });
      const document = await convertNotebook(text, { fileName: 'old.ipynb' });
      assert.deepEqual(document.items.map((item) => [item.label, item.text]), [['section_header', 'Old style'], ['code', 'print(1)'], ['code', '1']]);
    });

    it('refuses invalid JSON and JSON that is not a notebook with a clear error', async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-ipynb-'));
      try {
        fs.writeFileSync(path.join(folder, 'broken.ipynb'), '{"cells": [');
        fs.writeFileSync(path.join(folder, 'other.ipynb'), '{"hello": 1}');
        await assert.rejects(convertFile(path.join(folder, 'broken.ipynb')), (error: Error) => isHaikuError(error, 'corrupt_file') && /broken\.ipynb: is not a valid Jupyter notebook: its JSON does not parse/.test(error.message));
        await assert.rejects(convertFile(path.join(folder, 'other.ipynb')), (error: Error) => isHaikuError(error, 'corrupt_file') && /has no "cells" list/.test(error.message));
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  });

  describe('AsciiDoc', () => {
    it('substitutes attributes, keeps attribute entries out of the text, and reads source blocks, admonitions, lists and literal blocks', async () => {
      const source = [
        '= Guide', ':product: Haiku', ':toc:', '', 'Welcome to {product}.', '', 'NOTE: Back up first.', '', '[WARNING]', '====', 'Do not', 'unplug.', '====', '',
        '== Setup', '', '. Install', '. Run {product}', '.. Check the log', '', '[source,python]', '----', 'print("hi")', '----', '', '....', 'literal  text', '....', '', '// a comment', '',
        '[cols="1,1"]', '|===', '|Key |Value', '', '|a', '|b', '|===', '',
      ].join('\n');
      const document = await convertAsciidoc(source, { fileName: 'guide.adoc' });
      assert.deepEqual(document.items.map((item) => [item.label, item.text, item.language ?? '', item.treeDepth]), [
        ['title', 'Guide', '', 0],
        ['paragraph', 'Welcome to Haiku.', '', 0],
        ['paragraph', 'NOTE: Back up first.', '', 0],
        ['paragraph', 'WARNING: Do not unplug.', '', 0],
        ['section_header', 'Setup', '', 0],
        ['list_item', 'Install', '', 1],
        ['list_item', 'Run Haiku', '', 1],
        ['list_item', 'Check the log', '', 2],
        ['code', 'print("hi")', 'python', 0],
        ['code', 'literal  text', '', 0],
        ['table', '| Key | Value |\n| - | - |\n| a | b |', '', 0],
      ]);
      assert.equal(document.title, 'Guide');
      assert.deepEqual(document.items[8].sourceRange, { startLine: 22, startColumn: 0, endLine: 22, endColumn: 11 });
      assert.ok(!document.items.some((item) => item.text.includes(':toc:') || item.text.includes('comment')));
    });

    it('reads a local image inside the indexed folders as a picture with bytes, its block title as caption', async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-adoc-'));
      try {
        fs.mkdirSync(path.join(folder, 'img'));
        fs.writeFileSync(path.join(folder, 'img', 'chart.png'), encodePng({ width: 90, height: 70, channels: 3, data: new Uint8Array(90 * 70 * 3).fill(90) }));
        fs.writeFileSync(path.join(folder, 'doc.adoc'), ':imagesdir: img\n\n.Sales chart\nimage::chart.png[Quarterly sales, width=300]\n');
        const document = await convertFile(path.join(folder, 'doc.adoc'), { pictureRoots: [folder] });
        assert.deepEqual(document.items.map((item) => [item.label, item.text]), [['picture', 'Quarterly sales'], ['caption', 'Sales chart']]);
        assert.equal(document.items[0].picture?.width, 90);
        assert.ok(document.items[0].picture?.bytes);
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });

    it('leaves includes, conditionals, the table of contents and breaks out of the text; reads # headings', async () => {
      const source = ['# Manual', '', 'include::chapter.adoc[]', 'ifdef::backend-html5[]', 'Only in HTML.', 'endif::[]', 'toc::[]', '', "'''", '', '<<<', '', '## Part', 'Text.'].join('\n');
      const document = await convertAsciidoc(source, { fileName: 'manual.adoc' });
      assert.deepEqual(document.items.map((item) => [item.label, item.text]), [['title', 'Manual'], ['paragraph', 'Only in HTML.'], ['section_header', 'Part'], ['paragraph', 'Text.']]);
    });

    it('dispatches .adoc, .asciidoc and .asc', () => {
      assert.deepEqual(['a.adoc', 'b.asciidoc', 'c.ASC'].map(converterFor), ['asciidoc', 'asciidoc', 'asciidoc']);
    });
  });

  describe('hostile input converts in linear time', () => {
    const cases: Array<[string, () => Promise<ConvertedDocument>]> = [
      ['AsciiDoc: a 200 KB line of <', () => convertAsciidoc('<'.repeat(200_000), { fileName: 'a.adoc' })],
      ['AsciiDoc: image:a[ repeated 25,000 times', () => convertAsciidoc('image:a['.repeat(25_000), { fileName: 'a.adoc' })],
      ['AsciiDoc: a heading with 200 KB of spaces', () => convertAsciidoc(`= a${' '.repeat(200_000)}x`, { fileName: 'a.adoc' })],
      ['AsciiDoc: 200 KB of spaces inside a listing and a table cell', () => convertAsciidoc(`----\na${' '.repeat(200_000)}b\n----\n|===\n|a${' '.repeat(200_000)}b |c\n|===\n`, { fileName: 'a.adoc' })],
      ['AsciiDoc: 20,000 nested list markers', () => convertAsciidoc(Array.from({ length: 20_000 }, (_, index) => `${'*'.repeat((index % 5) + 1)} item ${index}`).join('\n'), { fileName: 'a.adoc' })],
      ['CSV: an unclosed quote of 900 KB', async () => convertCsv(`a,b\n1,"${'x,\n'.repeat(300_000)}`, { fileName: 'a.csv' })],
      ['CSV: 200 KB of delimiters on one line', async () => convertCsv(`${';'.repeat(200_000)}\n`, { fileName: 'a.csv' })],
      ['notebook: 5,000 cells without a source and 200 KB of spaces in a cell', () => convertNotebook(JSON.stringify({ cells: [...Array.from({ length: 5_000 }, () => ({ cell_type: 'code', outputs: [] })), { cell_type: 'code', source: `a${' '.repeat(200_000)}b` }] }, null, 1), { fileName: 'a.ipynb' })],
    ];
    for (const [name, convert] of cases) {
      it(name, async () => {
        const started = performance.now();
        const document = await convert();
        const seconds = (performance.now() - started) / 1000;
        assert.ok(seconds < 5, `${seconds.toFixed(1)} s`);
        assert.ok(document.items.length >= 1);
      });
    }
  });

  describe('code files', () => {
    it('dispatches code extensions (haiku.rag\'s list) to the code converter; unknown files stay text', () => {
      assert.deepEqual(['a.py', 'b.ts', 'c.go', 'd.rs', 'e.java', 'f.h', 'g.sh', 'Makefile', 'notes.log'].map(converterFor), ['code', 'code', 'code', 'code', 'code', 'code', 'code', 'text', 'text']);
    });

    it('makes a small file one code item in its language, fenced in the rendering', async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-code-'));
      try {
        fs.writeFileSync(path.join(folder, 'hello.py'), 'def hello():\n\n    return "hi"\n');
        const document = await convertFile(path.join(folder, 'hello.py'));
        assert.equal(document.format, 'code');
        assert.deepEqual(document.items.map((item) => [item.label, item.language, item.text, item.sourceRange]), [
          ['code', 'python', 'def hello():\n\n    return "hi"', { startLine: 0, startColumn: 0, endLine: 2, endColumn: 15 }],
        ]);
        assert.equal(document.content, '```python\ndef hello():\n\n    return "hi"\n```\n');
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });

    it('cuts a long file into code items of whole lines, each with its own lines, so chunks cite their lines', () => {
      const lines: string[] = [];
      for (let index = 0; index < 300; index++) {
        lines.push(`function f${index}(value) {`, `  return value * ${index};`, '}', '');
      }
      const text = lines.join('\n');
      const document = convertCode(text, { fileName: 'big.js', language: 'javascript' });
      assert.ok(document.items.length > 5);
      let covered = '';
      for (const item of document.items) {
        assert.equal(item.label, 'code');
        assert.ok(item.text.length <= CODE_ITEM_MAX_CHARS);
        const range = item.sourceRange!;
        assert.equal(item.text, lines.slice(range.startLine, range.endLine! + 1).join('\n'));
        // Cuts fall at the blank lines between functions.
        assert.match(item.text, /^function f\d+/);
        assert.match(item.text, /}$/);
        covered += item.text + '\n\n';
      }
      assert.equal(covered.trim(), text.trim());
      const chunks = chunkDocument({ id: 'big', items: document.items });
      assert.ok(chunks.every((chunk) => chunk.sourceRange!.endLine! - chunk.sourceRange!.startLine! < 200));
    });
  });
});
