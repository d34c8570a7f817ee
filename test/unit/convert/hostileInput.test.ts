import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import JSZip from 'jszip';
import { chunkDocumentWithinLimit } from '../../../src/core/chunker';
import { ConversionError } from '../../../src/core/errors';
import { CHUNK_MAX_TOKENS, CONVERSION_TIMEOUT_MS, MAX_DOCUMENT_CHUNKS, MAX_DOCUMENT_ITEMS, MAX_FILE_BYTES, MAX_TABLE_CELLS } from '../../../src/core/limits';
import { createConversionPool, type ConversionPool } from '../../../src/node/convert/conversionPool';
import { convertDocx } from '../../../src/node/convert/docx';
import { convertHtml } from '../../../src/node/convert/html';
import { convertMarkdown } from '../../../src/node/convert/markdown';
import { convertText } from '../../../src/node/convert/text';
import { seededRandom } from '../../support/seededRandom';

/** 12 KB of rows whose one cell spans 100,000 columns and rows: once 638,512 chunks and 6.3 GB. */
function spannedTableHtml(bytes = 12 * 1024): string {
  const row = '<tr><td colspan="100000" rowspan="100000">x</td></tr>\n';
  return `<html><body><h1>Spans</h1><table>\n${row.repeat(Math.ceil(bytes / row.length))}</table><p>After the table.</p></body></html>\n`;
}

/** A DOCX whose table rows each hold one cell spanning 1,000 grid columns and merged down every row below. */
async function spannedTableDocx(rows = 200): Promise<Buffer> {
  const cell = (first: boolean) => `<w:tc><w:tcPr><w:gridSpan w:val="1000"/><w:vMerge${first ? ' w:val="restart"' : ''}/></w:tcPr><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc>`;
  const body = Array.from({ length: rows }, (_, index) => `<w:tr>${cell(true)}${index > 0 ? cell(false) : ''}</w:tr>`).join('');
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Before the table.</w:t></w:r></w:p><w:tbl>${body}</w:tbl><w:p><w:r><w:t>After the table.</w:t></w:r></w:p></w:body></w:document>`;
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', document);
  return zip.generateAsync({ type: 'nodebuffer' });
}

/** Cells of a Markdown pipe table, header row included, delimiter row not. */
function tableCells(text: string): number {
  return text.split('\n').filter((_, index) => index !== 1).reduce((sum, line) => sum + line.split(' | ').length, 0);
}

/** Runs `work` while sampling this process's RSS; returns the result and the peak growth over the RSS before it. */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakGrowthMiB: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakGrowthMiB: (peak - before) / (1024 * 1024) };
  } finally {
    clearInterval(sampler);
  }
}

describe('hostile inputs stay bounded', function () {
  this.timeout(120_000);
  let folder: string;
  let pool: ConversionPool | undefined;

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-hostile-'));
  });

  after(async () => {
    await pool?.dispose();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  describe('table expansion', () => {
    it('cuts an HTML table whose spans would expand past the cell limit, with a warning, and keeps what follows', async () => {
      const document = await convertHtml(spannedTableHtml(), { fileName: 'spans.html' });
      const tables = document.items.filter((item) => item.label === 'table');
      assert.equal(tables.length, 1);
      assert.ok(tableCells(tables[0].text) <= MAX_TABLE_CELLS, `${tableCells(tables[0].text)} cells`);
      assert.ok(document.items.some((item) => item.text === 'After the table.'));
      assert.equal(document.warnings.length, 1);
      assert.match(document.warnings[0], /exceed 50,000 cells; only its first rows and columns within that limit are indexed/);
    });

    it('leaves ordinary spanned tables whole and without warnings', async () => {
      const document = await convertHtml('<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td colspan="2">wide</td><td rowspan="2">tall</td></tr><tr><td>x</td><td>y</td></tr></table>', { fileName: 'small.html' });
      assert.deepEqual(document.warnings, []);
      assert.equal(document.items[0].text, '| A | B | C |\n| - | - | - |\n| wide | wide | tall |\n| x | y | tall |');
    });

    it('bounds a wide table by rows × columns even when few cells span', async () => {
      // One header cell 1,000 columns wide, then 5,000 one-cell rows: 5 million rendered cells unbounded.
      const html = `<table><tr><th colspan="1000">wide</th></tr>${'<tr><td>a</td></tr>'.repeat(5_000)}</table>`;
      const document = await convertHtml(html, { fileName: 'wide.html' });
      const table = document.items.find((item) => item.label === 'table')!;
      const lines = table.text.split('\n');
      assert.ok((lines.length - 1) * 1000 <= MAX_TABLE_CELLS, `${lines.length - 1} rows of 1000`);
      assert.equal(document.warnings.length, 1);
    });

    it('applies the same bound to spanned HTML inside Markdown', async () => {
      const document = await convertMarkdown(`# Doc\n\n${spannedTableHtml()}\nTail paragraph.\n`, { fileName: 'spans.md' });
      const table = document.items.find((item) => item.label === 'table')!;
      assert.ok(tableCells(table.text) <= MAX_TABLE_CELLS);
      assert.equal(document.warnings.length, 1);
    });

    it('applies the same bound to DOCX tables (gridSpan and vMerge)', async () => {
      const document = await convertDocx(await spannedTableDocx(), { fileName: 'spans.docx' });
      const table = document.items.find((item) => item.label === 'table')!;
      assert.ok(tableCells(table.text) <= MAX_TABLE_CELLS, `${tableCells(table.text)} cells`);
      assert.ok(document.items.some((item) => item.text === 'After the table.'));
      assert.ok(document.warnings.some((warning) => /exceed 50,000 cells/.test(warning)), JSON.stringify(document.warnings));
    });

    it('indexes the 12 KB spanned HTML in a worker with bounded chunks and memory', async () => {
      const file = path.join(folder, 'spans.html');
      fs.writeFileSync(file, spannedTableHtml());
      pool = createConversionPool({ size: 1 });
      const started = performance.now();
      const { result: prepared, peakGrowthMiB } = await withPeakRss(() => pool!.prepare(file, { rootPath: folder }));
      const seconds = (performance.now() - started) / 1000;
      console.log(`      12 KB spanned HTML: ${prepared.chunks.length} chunks, ${prepared.document.items.length} items, ${seconds.toFixed(2)} s, process RSS +${peakGrowthMiB.toFixed(0)} MiB (worker included)`);
      assert.ok(prepared.chunks.length < 2_000, `${prepared.chunks.length} chunks`);
      assert.ok(peakGrowthMiB < 400, `RSS grew ${peakGrowthMiB.toFixed(0)} MiB`);
      assert.ok(prepared.document.warnings.length >= 1);
    });
  });

  describe('Markdown that was slow to parse', () => {
    // micromark took 65 s on the brackets and 121 s on the backticks; the conversion time limit is 120 s.
    const cases: Array<[string, () => string]> = [
      ['200 KB of nested brackets', () => '['.repeat(100_000) + ']'.repeat(100_000)],
      ['200 KB of nested image brackets', () => '!['.repeat(70_000) + ']'.repeat(70_000)],
      ['4.5 MB of backticks', () => '`'.repeat(4_500_000)],
      ['4.5 MB of growing backtick runs', () => Array.from({ length: 3_000 }, (_, index) => '`'.repeat(index + 1)).join(' ').slice(0, 4_500_000)],
      ['a list nested 5,000 levels deep', () => Array.from({ length: 5_000 }, (_, index) => `${'  '.repeat(index)}- item ${index}`).join('\n')],
    ];
    for (const [name, make] of cases) {
      it(`converts ${name} well within the time limit`, async () => {
        const text = make();
        const started = performance.now();
        const document = await convertMarkdown(text, { fileName: 'slow.md' });
        const seconds = (performance.now() - started) / 1000;
        console.log(`      ${name}: ${seconds.toFixed(2)} s, ${document.items.length} items`);
        assert.ok(seconds < 20, `${seconds.toFixed(1)} s`);
        assert.ok(document.items.length >= 1);
      });
    }
  });

  describe('huge files', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'sigma'];
    /** `bytes` of prose on one line (sentences of 15 words), or in sections of 120 words under `##` headings. */
    function writeProse(file: string, bytes: number, sections: boolean): void {
      const descriptor = fs.openSync(file, 'w');
      let written = 0;
      let index = 0;
      while (written < bytes) {
        let block = sections ? `## Section ${index}\n\n` : '';
        for (let word = 0; word < 120; word++) {
          block += words[(word * 7 + index) % 10] + (word % 15 === 14 ? '. ' : ' ');
        }
        block = (sections ? `${block}\n\n` : block).slice(0, bytes - written);
        fs.writeSync(descriptor, block);
        written += block.length;
        index++;
      }
      fs.closeSync(descriptor);
    }

    for (const [name, bytes, sections] of [['a Markdown file just over the 50 MiB file size limit', MAX_FILE_BYTES + 1, true]] as const) {
      it(`refuses ${name} within 10 s, naming the limit`, async () => {
        const file = path.join(folder, sections ? 'huge.md' : 'line.md');
        writeProse(file, bytes, sections);
        pool ??= createConversionPool({ size: 1 });
        const started = performance.now();
        const { result, peakGrowthMiB } = await withPeakRss(() => pool!.prepare(file, { rootPath: folder }).then(() => undefined, (error: unknown) => error));
        const seconds = (performance.now() - started) / 1000;
        console.log(`      ${name}: refused in ${seconds.toFixed(2)} s, process RSS +${peakGrowthMiB.toFixed(0)} MiB`);
        assert.ok(result instanceof ConversionError && result.code === 'file_too_large', String(result));
        assert.match(result.message, /over the 50\.0 MiB limit/);
        assert.ok(seconds < 10, `${seconds.toFixed(1)} s`);
        assert.ok(peakGrowthMiB < 1024);
        fs.rmSync(file);
      });
    }

    it('indexes a 10 MiB single-line Markdown file (one segment: no heading to cut before) well within the time limit and 1 GiB', async () => {
      const file = path.join(folder, 'line-under-limit.md');
      writeProse(file, 10 * 1024 * 1024, false);
      pool ??= createConversionPool({ size: 1 });
      const started = performance.now();
      const { result: prepared, peakGrowthMiB } = await withPeakRss(() => pool!.prepare(file, { rootPath: folder }));
      const seconds = (performance.now() - started) / 1000;
      console.log(`      10 MiB on one line: ${prepared.chunks.length} chunks in ${seconds.toFixed(1)} s, process RSS +${peakGrowthMiB.toFixed(0)} MiB`);
      assert.ok(prepared.chunks.length > 1_000);
      assert.ok(seconds < CONVERSION_TIMEOUT_MS / 2_000, `${seconds.toFixed(1)} s`);
      assert.ok(peakGrowthMiB < 1024, `${peakGrowthMiB.toFixed(0)} MiB`);
      fs.rmSync(file);
    });
  });

  describe('an unbroken run of letters', () => {
    const runs = [
      // The tokenizer's merge loop took 60 s for 160,000 letters.
      { name: '1,000,000 letters', file: 'unbroken.txt', length: 1_000_000, first: 97, alphabet: 26, minChunks: 100, limitSeconds: CONVERSION_TIMEOUT_MS / 4_000 },
      // 600 KB: the library's merge of each 1,024-character window the run is cut from took 31 s for these.
      { name: '200,000 Han characters', file: 'unbroken-han.txt', length: 200_000, first: 0x4e00, alphabet: 20_000, minChunks: 1_000, limitSeconds: CONVERSION_TIMEOUT_MS / 8_000 },
    ];
    for (const run of runs) {
      it(`chunks ${run.name} without a break in seconds, not minutes (byte-pair merging of one huge piece is not quadratic)`, async () => {
        const file = path.join(folder, run.file);
        const random = seededRandom(run.length);
        fs.writeFileSync(file, Array.from({ length: run.length }, () => String.fromCharCode(run.first + Math.floor(random() * run.alphabet))).join(''));
        pool ??= createConversionPool({ size: 1 });
        const started = performance.now();
        const prepared = await pool.prepare(file, { rootPath: folder });
        const seconds = (performance.now() - started) / 1000;
        console.log(`      ${run.name} without a break: ${prepared.chunks.length} chunks in ${seconds.toFixed(1)} s`);
        assert.ok(prepared.chunks.length > run.minChunks);
        assert.ok(prepared.chunks.every((chunk) => chunk.tokenCount <= CHUNK_MAX_TOKENS));
        assert.ok(seconds < run.limitSeconds, `${seconds.toFixed(1)} s`);
        fs.rmSync(file);
      });
    }
  });

  describe('items and chunks per document', () => {
    it(`keeps the first ${MAX_DOCUMENT_ITEMS.toLocaleString('en-US')} items of a document and warns about the rest`, () => {
      const extra = 1_234;
      const document = convertText('p\n\n'.repeat(MAX_DOCUMENT_ITEMS + extra), { fileName: 'many.txt' });
      assert.equal(document.items.length, MAX_DOCUMENT_ITEMS);
      assert.equal(document.items[document.items.length - 1].selfRef, `#/texts/${MAX_DOCUMENT_ITEMS - 1}`);
      assert.deepEqual(document.warnings, [`The document has more than 200,000 items; only the first 200,000 are indexed (1,234 dropped). Split the file to index all of it.`]);
    });

    it('keeps the first chunks up to the limit and says so', () => {
      const items = Array.from({ length: 10 }, (_, index) => ({ selfRef: `#/texts/${index}`, label: 'section_header' as const, text: `Heading ${index}`, headingLevel: 1, pageNumbers: [] }));
      const whole = chunkDocumentWithinLimit({ id: 'doc', items });
      assert.equal(whole.chunks.length, 10);
      assert.equal(whole.truncated, false);
      const cut = chunkDocumentWithinLimit({ id: 'doc', items }, { maxChunks: 4 });
      assert.equal(cut.truncated, true);
      assert.deepEqual(cut.chunks, whole.chunks.slice(0, 4));
      assert.equal(chunkDocumentWithinLimit({ id: 'doc', items }, { maxChunks: 10 }).truncated, false);
    });

    it(`warns on the document when the worker drops chunks past ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')}`, async () => {
      // Each reStructuredText title without a body is a chunk of its own: one more title than the limit.
      const rstFile = path.join(folder, 'headings.rst');
      fs.writeFileSync(rstFile, Array.from({ length: MAX_DOCUMENT_CHUNKS + 1 }, (_, index) => `Heading ${index}\n${'='.repeat(`Heading ${index}`.length)}\n`).join('\n'));
      pool ??= createConversionPool({ size: 1 });
      const restructured = await pool.prepare(rstFile, { rootPath: folder });
      assert.equal(restructured.chunks.length, MAX_DOCUMENT_CHUNKS);
      const limit = MAX_DOCUMENT_CHUNKS.toLocaleString('en-US');
      assert.ok(restructured.document.warnings.some((warning) => warning.includes(`more than ${limit} chunks; only the first ${limit} are indexed`)), JSON.stringify(restructured.document.warnings));
    });
  });
});
