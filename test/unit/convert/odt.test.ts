import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversionError } from '../../../src/core/errors';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { convertFile } from '../../../src/node/convert/convertFile';
import { convertOdt } from '../../../src/node/convert/odt';
import { encodePng } from '../../../src/node/convert/pictures/pngEncoder';
import { formatsRoot, groundTruthHeadings, headingTexts, tableRows, wordRecall } from '../../support/formatRecall';
import { writeZip } from '../../support/zipWriter';


const NAMESPACES = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
].join(' ');

function odt(body: string, extra: Record<string, string | Uint8Array> = {}): Buffer {
  const styles = `<office:automatic-styles>
    <style:style style:name="P1" style:family="paragraph" style:parent-style-name="Caption"/>
    <text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/><text:list-level-style-bullet text:level="2" text:bullet-char="•"/></text:list-style>
  </office:automatic-styles>`;
  return writeZip({
    mimetype: 'application/vnd.oasis.opendocument.text',
    'content.xml': `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NAMESPACES}>${styles}<office:body><office:text>${body}</office:text></office:body></office:document-content>`,
    'meta.xml': `<?xml version="1.0"?><office:document-meta ${NAMESPACES} xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>Quarterly report</dc:title></office:meta></office:document-meta>`,
    ...extra,
  });
}

async function convert(bytes: Uint8Array, options: { pictures?: 'none' | 'image' } = {}): Promise<ConvertedDocument> {
  return convertOdt(bytes, { fileName: 'report.odt', filePath: '/documents/report.odt', ...options });
}

async function refusal(bytes: Uint8Array): Promise<ConversionError> {
  try {
    await convert(bytes);
  } catch (error) {
    assert.ok(error instanceof ConversionError, String(error));
    assert.match(error.message, /report\.odt/);
    return error;
  }
  assert.fail('the file was converted');
}

describe('ODT converter', () => {
  it('converts docling\'s text_document_01.odt: word recall ≥ 0.85, its headings, nested lists', async () => {
    const filePath = path.join(formatsRoot, 'odf', 'text_document_01.odt');
    const expected = fs.readFileSync(`${filePath}.groundtruth.md`, 'utf8');
    const started = performance.now();
    const document = await convertFile(filePath);
    const milliseconds = performance.now() - started;
    const recall = wordRecall(expected, document.items);
    assert.ok(recall >= 0.85, `recall ${recall.toFixed(3)} (${Math.round(milliseconds)} ms)`);
    assert.equal(document.format, 'odt');
    assert.equal(document.title, 'Title');
    assert.equal(document.items[0].label, 'title');
    const headings = headingTexts(document);
    for (const heading of groundTruthHeadings(expected)) {
      assert.ok(headings.includes(heading), `heading "${heading}" missing from ${JSON.stringify(headings)}`);
    }
    assert.equal(document.items.find((item) => item.text === 'Heading level 2: A')?.headingLevel, 2);
    const items = document.items.filter((item) => item.label === 'list_item').map((item) => [item.text, item.treeDepth]);
    assert.deepEqual(items.slice(0, 5), [['numbered list 1', 1], ['numbered list 2', 1], ['bullet list 2.1', 2], ['bullet list 2.2', 2], ['bullet list 2.2.1', 3]]);
    assert.match(document.content, /^1\. numbered list 1$/m);
    assert.match(document.content, /^ {4}- bullet list 2\.1$/m);
    assert.ok(document.items.some((item) => item.text.startsWith('Contrary to popular belief, Lorem Ipsum is not simply random text. Richard McClintock')), 'styled spans read through');
  });

  it('converts tables with merged cells (repeated over the span) and pictures with their bytes, each followed by its caption', async () => {
    const png = encodePng({ width: 100, height: 80, channels: 3, data: new Uint8Array(100 * 80 * 3).fill(90) });
    const body = `
      <text:h text:outline-level="1">Results</text:h>
      <table:table table:name="T1">
        <table:table-column table:number-columns-repeated="3"/>
        <table:table-header-rows><table:table-row>
          <table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Q1</text:p></table:table-cell><table:table-cell><text:p>Q2</text:p></table:table-cell>
        </table:table-row></table:table-header-rows>
        <table:table-row>
          <table:table-cell table:number-rows-spanned="2"><text:p>North</text:p></table:table-cell>
          <table:table-cell table:number-columns-spanned="2"><text:p>closed <text:span>all year</text:span></text:p></table:table-cell><table:covered-table-cell/>
        </table:table-row>
        <table:table-row><table:covered-table-cell/><table:table-cell><text:p>4</text:p></table:table-cell><table:table-cell><text:p>5</text:p></table:table-cell></table:table-row>
      </table:table>
      <text:p><draw:frame draw:name="Image1"><draw:image xlink:href="Pictures/chart.png"/><svg:title>Sales chart</svg:title></draw:frame></text:p>
      <text:p text:style-name="P1">Figure 1: Sales by quarter</text:p>
      <text:list text:style-name="L1"><text:list-item><text:p>First<text:s text:c="2"/>step</text:p><text:list><text:list-item><text:p>Detail</text:p></text:list-item></text:list></text:list-item></text:list>`;
    const document = await convert(odt(body, { 'Pictures/chart.png': png }));
    assert.deepEqual(document.items.map((item) => item.label), ['section_header', 'table', 'picture', 'caption', 'list_item', 'list_item']);
    assert.deepEqual(tableRows(document.items[1].text), [
      ['Name', 'Q1', 'Q2'],
      ['North', 'closed all year', 'closed all year'],
      ['North', '4', '5'],
    ]);
    const picture = document.items[2];
    assert.equal(picture.text, 'Sales chart');
    assert.equal(picture.picture?.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(picture.picture!.bytes!), png);
    assert.equal(document.items[3].text, 'Figure 1: Sales by quarter');
    assert.deepEqual(document.items.slice(4).map((item) => [item.text, item.treeDepth]), [['First step', 1], ['Detail', 2]]);
    assert.equal(document.title, 'Results');

    const withoutPictures = await convert(odt(body, { 'Pictures/chart.png': png }), { pictures: 'none' });
    assert.equal(withoutPictures.items[2].picture, undefined);
  });

  it('takes the title from dc:title when the document has no heading, else from the file name', async () => {
    assert.equal((await convert(odt('<text:p>Just text.</text:p>'))).title, 'Quarterly report');
    const noMeta = writeZip({ mimetype: 'application/vnd.oasis.opendocument.text', 'content.xml': `<office:document-content ${NAMESPACES}><office:body><office:text><text:p>Just text.</text:p></office:text></office:body></office:document-content>` });
    assert.equal((await convert(noMeta)).title, 'report');
  });

  it('refuses a file that is not a zip, a zip of another format, a damaged ODT and a password-protected one, each with a ConversionError', async () => {
    const notZip = await refusal(Buffer.from('This is plain text saved as .odt, not an OpenDocument file.'));
    assert.equal(notZip.code, 'corrupt_file');
    assert.match(notZip.message, /not a zip archive/);

    const spreadsheet = await refusal(writeZip({ mimetype: 'application/vnd.oasis.opendocument.spreadsheet', 'content.xml': '<x/>' }));
    assert.equal(spreadsheet.code, 'corrupt_file');
    assert.match(spreadsheet.message, /not an ODT text document/);

    const noContent = await refusal(writeZip({ mimetype: 'application/vnd.oasis.opendocument.text', 'styles.xml': '<x/>' }));
    assert.equal(noContent.code, 'corrupt_file');
    assert.match(noContent.message, /no text body/);

    const truncated = odt('<text:p>Some text.</text:p>');
    const damaged = await refusal(truncated.subarray(0, Math.floor(truncated.length / 2)));
    assert.equal(damaged.code, 'corrupt_file');

    const encrypted = await refusal(writeZip({
      mimetype: 'application/vnd.oasis.opendocument.text',
      'META-INF/manifest.xml': '<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>',
      'content.xml': 'binary',
    }));
    assert.equal(encrypted.code, 'encrypted_file');
  });

  it('is what convertFile runs for .odt files', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-odt-'));
    try {
      const filePath = path.join(folder, 'notes.odt');
      fs.writeFileSync(filePath, odt('<text:h text:outline-level="2">Notes</text:h><text:p>Body text.</text:p>'));
      const document = await convertFile(filePath);
      assert.deepEqual(document.items.map((item) => [item.label, item.text, item.headingLevel]), [['section_header', 'Notes', 2], ['paragraph', 'Body text.', 0]]);
      fs.writeFileSync(filePath, 'not a zip');
      await assert.rejects(convertFile(filePath), (error: unknown) => error instanceof ConversionError && error.code === 'corrupt_file');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
