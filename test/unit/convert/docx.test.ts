import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertDocx } from '../../../src/node/convert/docx';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { corpusRoot } from '../../support/paths';
import { groundTruthHeadings, headingRecall } from '../../support/headingRecall';

const doclingFolder = path.join(corpusRoot, 'pdf-docx', 'docling');
const docxFiles = fs.readdirSync(doclingFolder).filter((name) => name.endsWith('.docx')).sort();

async function convert(name: string): Promise<ConvertedDocument> {
  return convertDocx(fs.readFileSync(path.join(doclingFolder, name)), { fileName: name });
}

describe('convertDocx', function () {
  this.timeout(60_000);

  it('finds the ground-truth headings of every DOCX file in order (recall ≥ 0.9 overall)', async () => {
    assert.equal(docxFiles.length, 7);
    let found = 0;
    let expected = 0;
    for (const name of docxFiles) {
      const document = await convert(name);
      const truth = groundTruthHeadings(fs.readFileSync(path.join(doclingFolder, `${name}.groundtruth.md`), 'utf8'));
      const recall = headingRecall(truth, document.items);
      found += recall.found;
      expected += recall.expected;
      console.log(`      heading recall ${name}: ${recall.found}/${recall.expected} = ${recall.recall.toFixed(2)}${recall.missing.length > 0 ? ` missing ${JSON.stringify(recall.missing)}` : ''}`);
    }
    console.log(`      heading recall DOCX overall: ${found}/${expected} = ${(found / expected).toFixed(3)}`);
    assert.ok(expected >= 35);
    assert.ok(found / expected >= 0.9, `overall recall ${found}/${expected}`);
  });

  it('numbers headings of an outline-numbered document as Word shows them, skipped levels included', async () => {
    const document = await convert('unit_test_headers_numbered.docx');
    const headings = document.items.filter((item) => item.label === 'section_header').map((item) => [item.headingLevel, item.text]);
    assert.deepEqual(headings, [
      [1, '1 Section 1'],
      [2, '1.1 Section 1.1'],
      [2, '1.2 Section 1.2'],
      [3, '1.2.1 Section 1.2.3'],
      [1, '2 Section 2'],
      [3, '2.1.1 Section 2.1.1'],
      [2, '2.2 Section 2.1'],
      [2, 'REFERENCES'],
    ]);
    assert.equal(document.items[0].label, 'title');
    assert.equal(document.title, 'Test Document');
    assert.ok(document.items.every((item) => item.sourceRange === undefined));
  });

  it('keeps levels without numbers when the outline is not numbered, including a skipped level', async () => {
    const document = await convert('unit_test_headers.docx');
    const headings = document.items.filter((item) => item.label === 'section_header').map((item) => `${item.headingLevel} ${item.text}`);
    assert.deepEqual(headings, ['1 Section 1', '2 Section 1.1', '2 Section 1.2', '3 Section 1.2.3', '1 Section 2', '3 Section 2.1.1', '2 Section 2.1']);
  });

  it('turns code-styled and monospaced code paragraphs into code items, and leaves the traps as prose', async () => {
    const document = await convert('docx_code_blocks.docx');
    const code = document.items.filter((item) => item.label === 'code').map((item) => item.text);
    assert.deepEqual(code, [
      'import sys\nprint(sys.argv)',
      'SELECT * FROM users WHERE active = 1;',
      'def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a',
    ]);
    for (const prose of ['See the original source for details.', 'Listing 3.2', 'This memo is set in a typewriter face for a vintage look and feel throughout.', 'Call the printf function to print formatted output to standard out.']) {
      assert.equal(document.items.find((item) => item.text === prose)?.label, 'paragraph', prose);
    }
    assert.ok(document.content.includes('```\nimport sys\nprint(sys.argv)\n```'));
  });

  it('repeats the text of merged cells across the cells they span', async () => {
    const document = await convert('word_tables.docx');
    const tables = document.items.filter((item) => item.label === 'table');
    assert.ok(tables.length >= 5);
    assert.ok(tables.some((table) => table.text.includes('| Cell 1.0 | Merged Cell 1.1 1.2 | Merged Cell 1.1 1.2 |')));
    const vertical = tables.find((table) => table.text.includes('Merged Cell 1.1 2.1'))!;
    assert.ok(vertical.text.includes('| Cell 1.0 | Merged Cell 1.1 2.1 | Cell 1.2 |'));
    assert.ok(vertical.text.includes('| Cell 2.0 | Merged Cell 1.1 2.1 | Cell 2.2 |'));
    assert.deepEqual(tables.map((table) => table.selfRef), tables.map((_, index) => `#/tables/${index}`));
  });

  it('gives the Word title, pictures with alt text, captions, lists and a table (word_sample.docx)', async () => {
    const document = await convert('word_sample.docx');
    assert.equal(document.title, 'Swimming in the lake');
    const labels = document.items.map((item) => item.label);
    const picture = document.items.find((item) => item.label === 'picture')!;
    assert.equal(picture.selfRef, '#/pictures/0');
    assert.ok(picture.text.startsWith('A cartoon duck'));
    assert.equal(document.items[picture.position + 1].label, 'caption');
    assert.equal(document.items[picture.position + 1].text, 'Figure 1: This is a cute duckling');
    assert.equal(labels.filter((label) => label === 'list_item').length, 9);
    const table = document.items.find((item) => item.label === 'table')!;
    assert.equal(table.text.split('\n')[0], '|  | Food | Calories per portion |');
    assert.equal(table.text.split('\n').length, 5);
  });

  it('refuses a file that is not a DOCX package with corrupt_file', async () => {
    await assert.rejects(convertDocx(new TextEncoder().encode('this is not a zip file'), { fileName: 'broken.docx' }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'corrupt_file');
      assert.match(error.message, /broken\.docx/);
      return true;
    });
  });
});
