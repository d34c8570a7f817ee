import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { getDocumentProxy } from 'unpdf';
import { convertPdf } from '../../../src/node/convert/pdf';
import { isHaikuError } from '../../../src/core/errors';
import { buildSectionTree } from '../../../src/core/toc';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { corpusFile, corpusRoot, repositoryRoot, skipUnlessCorpusHas } from '../../support/paths';
import { assemblePdf } from '../../fixtures/pdf/makePdfFixtures';
import { groundTruthHeadings, headingRecall, normalizeHeading } from '../../support/headingRecall';

const pdfFolder = path.join(corpusRoot, 'pdf-docx');
/** A PDF below `pdf-docx/`: carried, or in shared/corpus (GeoTopo, redp5110). */
const pdfFile = (relativePath: string): string => corpusFile(`pdf-docx/${relativePath}`);
const fixtureFolder = path.join(repositoryRoot, 'test', 'fixtures', 'pdf');

/** Page counts from the corpus README. */
const PAGE_COUNTS: Record<string, number> = {
  'docling/2305.03393v1-pg9.pdf': 1,
  'docling/amt_handbook_sample.pdf': 1,
  'docling/code_and_formula.pdf': 2,
  'docling/multi_page.pdf': 5,
  'docling/picture_classification.pdf': 2,
  'docling/redp5110_sampled.pdf': 18,
  'py-pdf-sample-files/002-trivial-libre-office-writer.pdf': 1,
  'py-pdf-sample-files/GeoTopo-komprimiert.pdf': 117,
  'py-pdf-sample-files/google-doc-document.pdf': 1,
  'py-pdf-sample-files/multicolumn.pdf': 3,
  'py-pdf-sample-files/pdflatex-4-pages.pdf': 4,
  'py-pdf-sample-files/pdflatex-outline.pdf': 4,
};

const converted = new Map<string, ConvertedDocument>();

async function convertCorpusPdf(relativePath: string): Promise<ConvertedDocument> {
  let document = converted.get(relativePath);
  if (!document) {
    document = await convertPdf(new Uint8Array(fs.readFileSync(pdfFile(relativePath))), { fileName: path.basename(relativePath) });
    converted.set(relativePath, document);
  }
  return document;
}

function headers(document: ConvertedDocument): DocumentItem[] {
  return document.items.filter((item) => item.label === 'section_header' || item.label === 'title');
}

async function expectConversionError(bytes: Uint8Array, fileName: string, code: string): Promise<void> {
  const started = performance.now();
  await assert.rejects(convertPdf(bytes, { fileName }), (error: unknown) => {
    assert.ok(isHaikuError(error, code as never), `expected ${code}, got ${String(error)}`);
    assert.ok((error as Error).message.includes(fileName), (error as Error).message);
    return true;
  });
  assert.ok(performance.now() - started < 5_000, `${fileName} took ${performance.now() - started} ms`);
}

describe('PDF converter', function () {
  this.timeout(120_000);

  it('converts all 12 corpus PDFs with the right page count, page numbers and no empty item', async () => {
    // Without shared/, the two PDFs that test/fixtures/corpus does not carry are left out.
    const files = Object.keys(PAGE_COUNTS).filter((relativePath) => fs.existsSync(pdfFile(relativePath)));
    const onDisk = ['docling', 'py-pdf-sample-files'].flatMap((folder) => fs.readdirSync(path.join(pdfFolder, folder)).filter((name) => name.endsWith('.pdf')).map((name) => `${folder}/${name}`));
    // Every carried PDF has its page count above.
    assert.deepEqual(onDisk.sort(), Object.keys(PAGE_COUNTS).filter((relativePath) => fs.existsSync(path.join(pdfFolder, relativePath))).sort());
    const started = performance.now();
    const timings: string[] = [];
    for (const relativePath of files) {
      const fileStarted = performance.now();
      const document = await convertCorpusPdf(relativePath);
      timings.push(`${path.basename(relativePath)} ${(performance.now() - fileStarted).toFixed(0)} ms`);
      assert.equal(document.format, 'pdf');
      assert.equal(document.pageCount, PAGE_COUNTS[relativePath], relativePath);
      assert.ok(document.title.trim(), `${relativePath}: title`);
      assert.ok(document.items.length > 0, `${relativePath}: no items`);
      for (const item of document.items) {
        // A picture's content is its image, or for a figure drawn with paths the caption right after it; every other item has text.
        assert.ok(item.label === 'picture' ? item.picture?.digest ?? document.items[item.position + 1]?.label === 'caption' : item.text.trim().length > 0, `${relativePath}: empty ${item.label} ${item.selfRef}`);
        for (const box of item.boxes ?? []) {
          assert.equal(box.page, item.pageNumbers[0], `${relativePath}: ${item.selfRef} box page`);
          assert.ok(box.width >= 0 && box.height >= 0, `${relativePath}: ${item.selfRef} box size`);
        }
        assert.equal(item.pageNumbers.length, 1, `${relativePath}: ${item.selfRef} pages`);
        assert.ok(item.pageNumbers[0] >= 1 && item.pageNumbers[0] <= PAGE_COUNTS[relativePath], `${relativePath}: ${item.selfRef} page ${item.pageNumbers[0]}`);
        assert.deepEqual(item.sourceRange, { page: item.pageNumbers[0] });
      }
      // Items come page by page.
      const pages = document.items.map((item) => item.pageNumbers[0]);
      assert.deepEqual(pages, [...pages].sort((left, right) => left - right), `${relativePath}: page order`);
      assert.ok(document.content.length > 0);
      buildSectionTree(document.items);
    }
    const total = performance.now() - started;
    console.log(`      ${files.length} PDFs converted in ${total.toFixed(0)} ms: ${timings.join(', ')}`);
  });

  it('recovers the headings of the docling PDFs (overall recall ≥ 0.9, in order)', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/docling/redp5110_sampled.pdf');
    const doclingPdfs = Object.keys(PAGE_COUNTS).filter((file) => file.startsWith('docling/'));
    assert.equal(doclingPdfs.length, 6);
    let found = 0;
    let expected = 0;
    for (const relativePath of doclingPdfs) {
      const document = await convertCorpusPdf(relativePath);
      const groundTruth = groundTruthHeadings(fs.readFileSync(pdfFile(`${relativePath}.groundtruth.md`), 'utf8'));
      const recall = headingRecall(groundTruth, document.items);
      found += recall.found;
      expected += recall.expected;
      console.log(`      ${path.basename(relativePath)}: ${recall.found}/${recall.expected} = ${recall.recall.toFixed(2)}${recall.missing.length ? ` (missing: ${recall.missing.join(' | ')})` : ''}`);
    }
    console.log(`      overall heading recall: ${found}/${expected} = ${(found / expected).toFixed(3)}`);
    assert.ok(found / expected >= 0.9, `overall recall ${found}/${expected}`);
  });

  it('gives heuristic headings levels from their numbering and their size tier', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/docling/redp5110_sampled.pdf');
    const document = await convertCorpusPdf('docling/redp5110_sampled.pdf');
    const level = (text: string) => document.items.find((item) => item.label === 'section_header' && item.text === text)?.headingLevel;
    assert.deepEqual(
      ['Securing and protecting IBM DB2 data', 'Preface', '1.1 Security fundamentals', 'Authors', '1.3.1 Existing row and column control', '3.2.2 Built-in global variables', 'Column mask'].map(level),
      [1, 1, 2, 2, 3, 3, 4],
    );
    const words = await convertCorpusPdf('docling/multi_page.pdf');
    assert.equal(words.items[0].label, 'title');
    assert.ok(words.items.filter((item) => item.label === 'section_header').every((item) => item.headingLevel === 1));
  });

  it('takes headings and levels from the outline (pdflatex-outline)', async () => {
    const document = await convertCorpusPdf('py-pdf-sample-files/pdflatex-outline.pdf');
    const sections = document.items.filter((item) => item.label === 'section_header' && !/^contents$/i.test(item.text));
    assert.deepEqual(sections.map((item) => item.text), ['1 Foo', '2 Bar', '3 Baz', '4 Foo', '5 Bar', '6 Baz', '7 Foo', '8 Bar', '9 Baz']);
    assert.deepEqual(sections.map((item) => item.pageNumbers[0]), [2, 2, 2, 2, 3, 3, 3, 4, 4]);
    assert.ok(sections.every((item) => item.headingLevel === 1));
    // The table of contents on page 1 is an index (a table of titles and pages), not nine more headings.
    const index = document.items.filter((item) => item.label === 'document_index');
    assert.equal(index.length, 1);
    assert.equal(index[0].pageNumbers[0], 1);
    assert.ok(index[0].text.startsWith('| 1 Foo | 2 |\n| - | - |\n| 2 Bar | 2 |'), index[0].text);
    assert.ok(index[0].text.endsWith('| 9 Baz | 4 |'), index[0].text);
  });

  it('takes headings and levels from the outline (GeoTopo, 117 pages)', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/py-pdf-sample-files/GeoTopo-komprimiert.pdf');
    const file = pdfFile('py-pdf-sample-files/GeoTopo-komprimiert.pdf');
    const proxy = await getDocumentProxy(new Uint8Array(fs.readFileSync(file)));
    const outline: Array<{ title: string; depth: number }> = [];
    const walk = (nodes: Array<{ title: string; items?: unknown[] }>, depth: number) => nodes.forEach((node) => {
      outline.push({ title: node.title, depth });
      walk((node.items ?? []) as Array<{ title: string; items?: unknown[] }>, depth + 1);
    });
    walk((await proxy.getOutline()) ?? [], 1);
    await proxy.loadingTask.destroy();
    assert.ok(outline.length >= 30, `outline has ${outline.length} entries`);

    const document = await convertCorpusPdf('py-pdf-sample-files/GeoTopo-komprimiert.pdf');
    const sections = document.items.filter((item) => item.label === 'section_header');
    // Every bookmark is a heading with the bookmark's depth as level, in outline order.
    let cursor = 0;
    for (const entry of outline) {
      const index = sections.findIndex((item, position) => position >= cursor && normalizeHeading(item.text).endsWith(normalizeHeading(entry.title)) && item.headingLevel === entry.depth);
      assert.ok(index >= 0, `outline entry "${entry.title}" (depth ${entry.depth}) not found after heading ${cursor}`);
      cursor = index + 1;
    }
    const flaechen = sections.find((item) => item.text === '4.2.1 Flächeninhalt');
    assert.deepEqual([flaechen?.headingLevel, flaechen?.pageNumbers], [3, [78]]);
    // Bold run-in labels ("Definition 1") are not promoted to headings when the outline is trusted.
    assert.ok(!sections.some((item) => /^(Definition|Beispiel|Bemerkung|Satz) \d+/.test(item.text)));
    const tree = buildSectionTree(document.items);
    assert.ok(tree.some((node) => node.title === '1 Topologische Grundbegriffe' && node.children.some((child) => child.title === '1.1 Topologische Räume')));
    assert.equal(headers(document).find((item) => item.label === 'title')?.text, 'Einführung in die Geometrie und Topologie');
  });

  it('labels repeated page headers and footers (GeoTopo running heads, redp5110 footers)', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/py-pdf-sample-files/GeoTopo-komprimiert.pdf', 'pdf-docx/docling/redp5110_sampled.pdf');
    const geoTopo = await convertCorpusPdf('py-pdf-sample-files/GeoTopo-komprimiert.pdf');
    const pageHeaders = geoTopo.items.filter((item) => item.label === 'page_header');
    const pagesWithHeader = new Set(pageHeaders.map((item) => item.pageNumbers[0]));
    assert.ok(pagesWithHeader.size >= 90, `only ${pagesWithHeader.size} of 117 pages have a header`);
    assert.ok(pageHeaders.every((item) => /^(\d+ \S.*|\S.* \d+|[ivx]+)$/.test(item.text)), pageHeaders.map((item) => item.text).filter((text) => !/^(\d+ \S.*|\S.* \d+|[ivx]+)$/.test(text)).join(' | '));
    assert.ok(pageHeaders.some((item) => item.text === '4 1.1. TOPOLOGISCHE RÄUME' && item.pageNumbers[0] === 7));
    // Running heads never leak into the body text.
    assert.ok(!geoTopo.items.some((item) => item.label === 'paragraph' && /^\d+ \d+\.\d+\. [A-ZÄÖÜ ]+$/.test(item.text)));

    const redbook = await convertCorpusPdf('docling/redp5110_sampled.pdf');
    const footers = redbook.items.filter((item) => item.label === 'page_footer');
    assert.ok(new Set(footers.map((item) => item.pageNumbers[0])).size >= 13, 'footers on most pages');
    assert.ok(footers.some((item) => item.text === 'Row and Column Access Control Support in IBM DB2 for i' && item.pageNumbers[0] === 6));
    assert.ok(footers.some((item) => item.text === 'Chapter 3. Row and Column Access Control 15'));
    // The running footer repeats the book title; on body pages it must not turn into a heading.
    assert.ok(!redbook.items.some((item) => item.label === 'section_header' && item.pageNumbers[0] >= 2 && item.pageNumbers[0] <= 16 && item.text.startsWith('Row and Column Access Control Support')));
    // Page furniture stays out of the Markdown rendering.
    assert.ok(!redbook.content.includes('© Copyright IBM Corp. 2014'));
    // A bare page number at the bottom is a footer.
    const outlineDocument = await convertCorpusPdf('py-pdf-sample-files/pdflatex-outline.pdf');
    assert.deepEqual(outlineDocument.items.filter((item) => item.label === 'page_footer').map((item) => item.text), ['1', '2', '3', '4']);
  });

  it('reads two-column pages column by column and joins hyphenated words', async () => {
    const document = await convertCorpusPdf('py-pdf-sample-files/multicolumn.pdf');
    const text = document.items.filter((item) => item.pageNumbers[0] === 1).map((item) => item.text).join('\n');
    assert.ok(text.includes('Lorem ipsum dolor sit amet, consectetuer adipiscing elit.'), 'hyphenation "adip-/iscing" joined');
    const endOfFirstColumn = text.indexOf('Vivamus viverra fermentum felis. Donec nonummy');
    const startOfSecondColumn = text.indexOf('pellentesque ante. Phasellus adipiscing semper elit.');
    assert.ok(endOfFirstColumn > 0 && startOfSecondColumn > endOfFirstColumn, `columns out of order (${endOfFirstColumn}, ${startOfSecondColumn})`);
    assert.equal(document.items[0].label, 'title');
    assert.equal(document.items[0].text, 'Two-Column Document with Lorem Ipsum');
  });

  it('finds list items, code, captions and simple tables', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/docling/redp5110_sampled.pdf');
    const words = await convertCorpusPdf('docling/multi_page.pdf');
    const items = words.items.filter((item) => item.label === 'list_item');
    assert.ok(items.some((item) => item.text.startsWith('IBM MT/ST (Magnetic Tape/Selectric Typewriter): Introduced in 1964, this machine combined')), items.map((item) => item.text.slice(0, 40)).join(' | '));
    assert.ok(items.every((item) => !item.text.startsWith('•')));
    assert.ok(words.content.includes('\n- IBM MT/ST'));

    const code = await convertCorpusPdf('docling/code_and_formula.pdf');
    const listing = code.items.find((item) => item.label === 'code');
    assert.ok(listing?.text.startsWith('function add (a , b ) {\n'), listing?.text);
    assert.ok(code.content.includes('```\nfunction add'));

    const redbook = await convertCorpusPdf('docling/redp5110_sampled.pdf');
    const variables = redbook.items.find((item) => item.label === 'table' && item.text.startsWith('| Global variable | Type | Description |'));
    assert.ok(variables, 'table 3-2 of the redbook');
    assert.equal(variables.pageNumbers[0], 12);
    assert.ok(variables.text.includes('\n| CLIENT_HOST | VARCHAR(255) | Host name of the current client as returned by the system |'), variables.text);
    // A wrapped cell is joined back into its row.
    const usage = redbook.items.find((item) => item.label === 'table' && item.text.startsWith('| Column name | Data type | Description |'));
    assert.ok(usage?.text.includes('| USER_NAME | VARCHAR(10) | Name of the user profile that has a usage setting for this function. |'), usage?.text);
    // Two columns of running text are page columns, never a table.
    const columns = await convertCorpusPdf('py-pdf-sample-files/multicolumn.pdf');
    assert.ok(!columns.items.some((item) => item.label === 'table' && item.pageNumbers[0] < 3));
    // A LaTeX tabular: pdf.js bridges its cell gaps with wide spaces, which still separate the cells.
    const countries = columns.items.find((item) => item.label === 'table' && item.pageNumbers[0] === 3);
    assert.ok(countries?.text.startsWith('| Country |') && countries.text.includes('| Austria |') && countries.text.includes('| Vienna | German |'), countries?.text);

    const pictures = await convertCorpusPdf('docling/picture_classification.pdf');
    assert.deepEqual(pictures.items.filter((item) => item.label === 'caption').map((item) => item.text), ['Figure 1: This is an example image.', 'Figure 2: This is an example image.']);
  });

  it('reads pages whose text runs sideways (/Rotate 90 and 270)', async () => {
    const content = 'BT /F1 18 Tf 72 720 Td (A Rotated Heading) Tj ET BT /F1 10 Tf 72 690 Td (Body text line one of the rotated page.) Tj 0 -12 Td (Body text line two.) Tj ET';
    for (const rotation of [90, 270]) {
      const bytes = assemblePdf([
        Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
        Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
        Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate ${rotation} /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`),
        Buffer.from(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`),
        Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
      ], '/Root 1 0 R');
      const document = await convertPdf(new Uint8Array(bytes), { fileName: `rotated-${rotation}.pdf` });
      assert.deepEqual(document.items.map((item) => [item.label, item.text]), [
        ['title', 'A Rotated Heading'],
        ['paragraph', 'Body text line one of the rotated page. Body text line two.'],
      ], `rotation ${rotation}`);
    }
  });

  it('warns about pages without a text layer instead of failing', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/docling/redp5110_sampled.pdf');
    const document = await convertCorpusPdf('docling/redp5110_sampled.pdf');
    assert.ok(document.warnings.some((warning) => /No text layer on page 17\b/.test(warning)), document.warnings.join('\n'));
    assert.ok(!document.items.some((item) => item.pageNumbers[0] === 17));
  });

  it('refuses bad input with a typed error naming the file, quickly', async () => {
    const real = fs.readFileSync(path.join(pdfFolder, 'docling', 'multi_page.pdf'));
    await expectConversionError(new Uint8Array(real.subarray(0, Math.floor(real.length / 2))), 'truncated.pdf', 'corrupt_file');
    await expectConversionError(new Uint8Array(Buffer.from(`%PDF-1.7\n${'garbage '.repeat(200)}`)), 'garbage.pdf', 'corrupt_file');
    await expectConversionError(new Uint8Array(Buffer.from('This is a text file that someone named .pdf\n')), 'not-a-pdf.pdf', 'corrupt_file');
    await expectConversionError(new Uint8Array(fs.readFileSync(path.join(fixtureFolder, 'no-pages.pdf'))), 'no-pages.pdf', 'corrupt_file');
    await expectConversionError(new Uint8Array(fs.readFileSync(path.join(fixtureFolder, 'encrypted.pdf'))), 'encrypted.pdf', 'encrypted_file');
    await expectConversionError(new Uint8Array(0), 'empty.pdf', 'empty_file');
  });

  it('leaves the caller\'s bytes intact (a Buffer, as convertFile passes it)', async () => {
    const bytes = fs.readFileSync(path.join(pdfFolder, 'docling', 'code_and_formula.pdf'));
    const copy = Buffer.from(bytes);
    await convertPdf(bytes, { fileName: 'code_and_formula.pdf' });
    assert.ok(bytes.equals(copy));
  });

  it('the encrypted fixture is a real encrypted PDF (opens with its password)', async () => {
    const proxy = await getDocumentProxy(new Uint8Array(fs.readFileSync(path.join(fixtureFolder, 'encrypted.pdf'))), { password: 'secret' });
    const content = await (await proxy.getPage(1)).getTextContent();
    assert.equal(content.items.map((item) => ('str' in item ? item.str : '')).join(''), 'Secret text');
    await proxy.loadingTask.destroy();
  });

  it('honours the abort signal', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/py-pdf-sample-files/GeoTopo-komprimiert.pdf');
    const bytes = new Uint8Array(fs.readFileSync(pdfFile('py-pdf-sample-files/GeoTopo-komprimiert.pdf')));
    await assert.rejects(convertPdf(bytes, { fileName: 'GeoTopo.pdf', abortSignal: AbortSignal.abort() }), (error: unknown) => isHaikuError(error, 'cancelled'));
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(convertPdf(bytes, { fileName: 'GeoTopo.pdf', abortSignal: controller.signal }), (error: unknown) => isHaikuError(error, 'cancelled'));
    assert.ok(performance.now() - started < 1_500, `abort took ${performance.now() - started} ms`);
  });

  it('works from an esbuild bundle (pdf.js bundled, no node_modules)', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-pdf-bundle-'));
    try {
      const entry = path.join(folder, 'entry.ts');
      fs.writeFileSync(entry, `export { convertPdf } from ${JSON.stringify(path.join(repositoryRoot, 'src', 'node', 'convert', 'pdf'))};\n`);
      // The same options as esbuild.mjs uses for the CLI and the extension.
      await esbuild.build({
        entryPoints: [entry], outfile: path.join(folder, 'bundle.js'), bundle: true, platform: 'node', format: 'cjs', target: 'node20',
        define: { 'import.meta.url': '__importMetaUrl' }, banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
        logLevel: 'silent', nodePaths: [path.join(repositoryRoot, 'node_modules')], external: ['@napi-rs/canvas'],
      });
      const script = `require('./bundle.js').convertPdf(new Uint8Array(require('fs').readFileSync(process.argv[1])), { fileName: 'x.pdf' })
        .then((d) => console.log(JSON.stringify({ pages: d.pageCount, headings: d.items.filter((i) => i.label === 'section_header' || i.label === 'title').length })))`;
      const output = execFileSync(process.execPath, ['-e', script, path.join(pdfFolder, 'docling', 'multi_page.pdf')], { cwd: folder, encoding: 'utf8' });
      assert.deepEqual(JSON.parse(output.trim().split('\n').pop() ?? '{}'), { pages: 5, headings: 11 });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
