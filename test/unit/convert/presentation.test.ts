import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConversionError } from '../../../src/core/errors';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { namedLocation } from '../../../src/core/sourceRanges';
import { convertFile } from '../../../src/node/convert/convertFile';
import { convertPresentation } from '../../../src/node/convert/presentation';
import { filesWithGroundTruth, formatsRoot, groundTruthHeadings, headingTexts, tableRows, wordRecall } from '../../support/formatRecall';
import { readZip, writeZip } from '../../support/zipWriter';

function fixture(folder: string, name: string): Buffer {
  return fs.readFileSync(path.join(formatsRoot, folder, name));
}

async function convert(bytes: Uint8Array, name: string, options: { pictures?: 'none' | 'image' } = {}): Promise<ConvertedDocument> {
  return convertPresentation(bytes, { fileName: name, filePath: `/deck/${name}`, format: name.endsWith('.odp') ? 'odp' : 'pptx', ...options });
}



async function refusal(bytes: Uint8Array, name: string): Promise<ConversionError> {
  try {
    await convert(bytes, name);
  } catch (error) {
    assert.ok(error instanceof ConversionError, String(error));
    return error;
  }
  assert.fail(`${name} was converted`);
}

describe('convertPresentation (PPTX, ODP)', function () {
  this.timeout(60_000);

  describe('real decks against docling ground truth', () => {
    const decks = [...filesWithGroundTruth('pptx').map((name) => ['pptx', name]), ['odf', 'odf_presentation_01.odp']];
    it('carries the five decks', () => {
      assert.equal(decks.length, 5);
    });
    for (const [folder, name] of decks) {
      it(`${name}: word recall ≥ 0.85, the headings, the tables as table items, every item on its slide`, async () => {
        const started = performance.now();
        const document = await convert(fixture(folder, name), name);
        const elapsed = performance.now() - started;
        const expected = fixture(folder, `${name}.groundtruth.md`).toString('utf8');
        const recall = wordRecall(expected, document.items);
        console.log(`      ${name}: recall ${recall.toFixed(3)}, ${document.items.length} items, ${elapsed.toFixed(0)} ms`);
        assert.ok(recall >= 0.85, `word recall ${recall}`);
        const headings = headingTexts(document).map((text) => text.toLowerCase());
        for (const heading of groundTruthHeadings(expected).filter((text) => !/^slide\d+$/i.test(text))) {
          assert.ok(headings.includes(heading.toLowerCase()), `heading ${heading} in ${JSON.stringify(headings)}`);
        }
        const expectedTables = expected.split('\n\n').filter((block) => block.startsWith('|'));
        const tables = document.items.filter((item) => item.label === 'table');
        assert.ok(tables.length >= expectedTables.length, `${tables.length} tables, ${expectedTables.length} expected`);
        for (const table of expectedTables) {
          const firstDataRow = tableRows(table)[1].map((cell) => cell.replace(/^- /, ''));
          // docling's ODP rendering leaves merged positions empty where ours repeats the text: blanks match anything.
          const matches = (row: string[]) => row.length === firstDataRow.length && firstDataRow.every((cell, index) => cell === '' || cell === row[index]);
          assert.ok(
            tables.some((item) => tableRows(item.text).some(matches)),
            `row ${JSON.stringify(firstDataRow)} in ${tables.map((item) => item.text).join('\n')}`,
          );
        }
        for (const item of document.items) {
          assert.ok(item.sourceRange?.slide !== undefined && item.sourceRange.slide >= 1, JSON.stringify(item));
          assert.deepEqual(item.pageNumbers, [item.sourceRange.slide]);
        }
      });
    }
  });

  it('puts every item on its slide: one section per slide, headed by its title or "Slide n", named "slide n"', async () => {
    const document = await convert(fixture('pptx', 'powerpoint_sample.pptx'), 'powerpoint_sample.pptx');
    const sections = document.items.filter((item) => item.label === 'section_header' && item.headingLevel === 1);
    assert.deepEqual(
      sections.map((item) => [item.sourceRange?.slide, item.text]),
      [
        [1, 'Test Table Slide'],
        [2, 'Second slide title'],
        [3, 'Slide 3'],
      ],
    );
    assert.equal(document.title, 'Test Table Slide');
    const rectangle = document.items.find((item) => item.text === 'A rectangle shape with this text inside.')!;
    assert.equal(namedLocation(rectangle.sourceRange), 'slide 2');
    assert.deepEqual(rectangle.pageNumbers, [2]);
    // Each slide's items follow its heading: slide numbers never decrease in reading order.
    const slides = document.items.map((item) => item.sourceRange!.slide!);
    assert.deepEqual(slides, [...slides].sort((a, b) => a - b));
    const table = document.items.find((item) => item.label === 'table')!;
    assert.equal(table.sourceRange?.slide, 1);
    assert.ok(table.text.includes('| Class1 | Class1 | Class1 | Class2 | Class2 | Class2 |'), table.text);
    assert.ok(tableRows(table.text).filter((row) => row[0] === 'R4').length === 3, 'a cell merged down three rows repeats its text');
  });

  it('reads lists: bullets from the master, numbered lists, a paragraph whose bullet is turned off', async () => {
    const document = await convert(fixture('pptx', 'powerpoint_sample.pptx'), 'powerpoint_sample.pptx');
    const label = (text: string) => document.items.find((item) => item.text === text)?.label;
    assert.equal(label('Let’s introduce a list'), 'paragraph');
    assert.equal(label('With foo'), 'list_item');
    assert.equal(label('List item4'), 'list_item');
    assert.equal(label('Some info:'), 'paragraph');
    assert.ok(document.content.includes('1. List item4'));
    assert.ok(document.content.includes('- Item A'));
  });

  it('labels speaker notes (PPTX and ODP) and keeps them on their slide', async () => {
    for (const [folder, name] of [
      ['pptx', 'powerpoint_sample.pptx'],
      ['odf', 'odf_presentation_01.odp'],
    ]) {
      const document = await convert(fixture(folder, name), name);
      const notes = document.items.filter((item) => item.text.startsWith('Speaker notes: '));
      assert.deepEqual(
        notes.map((item) => [item.sourceRange?.slide, item.label, item.text]),
        [
          [2, 'paragraph', 'Speaker notes: Some notes on the second slide.'],
          [3, 'paragraph', 'Speaker notes: Final notes on the third slide.\nSecond line of notes.'],
        ],
        name,
      );
    }
  });

  it('labels comments with their authors and dates, on their slides (docling\'s commented deck)', async () => {
    const document = await convert(fixture('pptx', 'powerpoint_comments.pptx'), 'powerpoint_comments.pptx');
    const comments = document.items.filter((item) => item.text.startsWith('Comment')).map((item) => [item.sourceRange?.slide, item.label, item.text]);
    assert.deepEqual(comments, [
      [1, 'paragraph', 'Comment by John Reviewer (2026-01-01): This is a sample reviewer comment'],
      [1, 'paragraph', 'Comment by Jane Smith (2026-06-18): This is a sample response'],
      [3, 'paragraph', 'Comment by Jane Smith (2026-06-18): This is a cool feature'],
      [3, 'paragraph', 'Comment by Jane Smith (2026-06-18): I need to try this out!'],
    ]);
  });

  it('labels comments with their authors (legacy PPTX comments added to a deck)', async () => {
    const entries = readZip(fixture('pptx', 'powerpoint_sample.pptx'));
    const relsName = 'ppt/slides/_rels/slide1.xml.rels';
    entries.set(
      relsName,
      Buffer.from(
        entries
          .get(relsName)!
          .toString('utf8')
          .replace(
            '</Relationships>',
            '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="../comments/comment1.xml"/></Relationships>',
          ),
      ),
    );
    entries.set(
      'ppt/comments/comment1.xml',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8"?><p:cmLst xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cm authorId="0" dt="2024-01-01T10:00:00" idx="1"><p:pos x="10" y="10"/><p:text>Check the R4 totals &amp; merge.</p:text></p:cm></p:cmLst>',
      ),
    );
    entries.set(
      'ppt/commentAuthors.xml',
      Buffer.from('<?xml version="1.0" encoding="UTF-8"?><p:cmAuthorLst xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cmAuthor id="0" name="Ada Lovelace" initials="AL" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>'),
    );
    const presentationRels = 'ppt/_rels/presentation.xml.rels';
    entries.set(
      presentationRels,
      Buffer.from(
        entries
          .get(presentationRels)!
          .toString('utf8')
          .replace('</Relationships>', '<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/commentAuthors" Target="commentAuthors.xml"/></Relationships>'),
      ),
    );
    const document = await convert(writeZip(entries), 'commented.pptx');
    const comment = document.items.find((item) => item.text.startsWith('Comment'));
    assert.equal(comment?.text, 'Comment by Ada Lovelace (2024-01-01): Check the R4 totals & merge.');
    assert.equal(comment?.sourceRange?.slide, 1);
  });

  it('reads an ODP picture with its bytes and alt text, a custom shape\'s text and a comment with its author', async () => {
    const png = readZip(fixture('pptx', 'powerpoint_malformed_pictures.pptx')).get('ppt/media/image1.png')!;
    const entries = readZip(fixture('odf', 'odf_presentation_01.odp'));
    const content = entries.get('content.xml')!.toString('utf8');
    const added =
      '<draw:frame draw:name="Photo" svg:width="5cm" svg:height="5cm" svg:x="20cm" svg:y="14cm"><draw:image xlink:href="Pictures/photo.png"/><svg:title>A test pattern</svg:title></draw:frame>' +
      '<draw:custom-shape svg:width="5cm" svg:height="2cm" svg:x="2cm" svg:y="16cm"><text:p>Shape text <text:span>in a span</text:span></text:p></draw:custom-shape>' +
      '<officeooo:annotation svg:x="1cm" svg:y="1cm"><dc:creator>Grace Hopper</dc:creator><dc:date>2024-01-01T10:00:00</dc:date><text:p>Is this chart current?</text:p></officeooo:annotation>';
    const pageTwo = content.indexOf('<draw:page draw:name="Slide2"');
    const insertAt = content.indexOf('>', pageTwo) + 1;
    entries.set('content.xml', Buffer.from(content.slice(0, insertAt) + added + content.slice(insertAt)));
    entries.set('Pictures/photo.png', png);
    const document = await convert(writeZip(entries), 'extended.odp');
    const picture = document.items.find((item) => item.label === 'picture')!;
    assert.equal(picture.text, 'A test pattern');
    assert.equal(picture.sourceRange?.slide, 2);
    assert.equal(picture.picture?.mimeType, 'image/png');
    assert.ok(picture.picture?.bytes && picture.picture.bytes.length === png.length);
    assert.equal(document.items.find((item) => item.text === 'Shape text in a span')?.sourceRange?.slide, 2);
    const comment = document.items.find((item) => item.text.startsWith('Comment'));
    assert.equal(comment?.text, 'Comment by Grace Hopper (2024-01-01): Is this chart current?');
    assert.equal(comment?.sourceRange?.slide, 2);
    // Reading order: the picture (14 cm down) before the custom shape (16 cm down).
    const slideTwo = document.items.filter((item) => item.sourceRange?.slide === 2).map((item) => item.text);
    assert.ok(slideTwo.indexOf('A test pattern') < slideTwo.indexOf('Shape text in a span'), JSON.stringify(slideTwo));
  });

  it('reads grouped shapes in their place and SmartArt node text as list items', async () => {
    const entries = readZip(fixture('pptx', 'powerpoint_sample.pptx'));
    const slideName = 'ppt/slides/slide3.xml';
    const textShape = (text: string, x: number, y: number) =>
      `<p:sp><p:nvSpPr><p:cNvPr id="90" name="t"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="${x}" y="${y}"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
    const group = `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="80" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="100"/><a:ext cx="1" cy="1"/></a:xfrm></p:grpSpPr>${textShape('Grouped second', 500, 100)}${textShape('Grouped first', 100, 100)}</p:grpSp>`;
    const smartArt =
      '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="81" name="d"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="6000000"/><a:ext cx="1" cy="1"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">' +
      '<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rId70" r:lo="rId71" r:qs="rId72" r:cs="rId73"/></a:graphicData></a:graphic></p:graphicFrame>';
    const slide = entries.get(slideName)!.toString('utf8');
    entries.set(slideName, Buffer.from(slide.replace('</p:spTree>', `${group}${smartArt}</p:spTree>`)));
    const relsName = 'ppt/slides/_rels/slide3.xml.rels';
    entries.set(
      relsName,
      Buffer.from(
        entries
          .get(relsName)!
          .toString('utf8')
          .replace('</Relationships>', '<Relationship Id="rId70" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData" Target="../diagrams/data1.xml"/></Relationships>'),
      ),
    );
    entries.set(
      'ppt/diagrams/data1.xml',
      Buffer.from(
        '<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>' +
          '<dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:r><a:t>document node</a:t></a:r></a:p></dgm:t></dgm:pt>' +
          '<dgm:pt modelId="1"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Plan</a:t></a:r></a:p></dgm:t></dgm:pt>' +
          '<dgm:pt modelId="2" type="parTrans"/><dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Build</a:t></a:r></a:p></dgm:t></dgm:pt>' +
          '</dgm:ptLst></dgm:dataModel>',
      ),
    );
    const document = await convert(writeZip(entries), 'shapes.pptx');
    const slideThree = document.items.filter((item) => item.sourceRange?.slide === 3).map((item) => `${item.label} ${item.text}`);
    // The group sits at the top (y = 100), its members left to right; the SmartArt at the bottom.
    assert.deepEqual(slideThree.slice(0, 3), ['section_header Slide 3', 'paragraph Grouped first', 'paragraph Grouped second']);
    const notesAt = slideThree.findIndex((line) => line.startsWith('paragraph Speaker notes'));
    assert.deepEqual(slideThree.slice(notesAt - 2, notesAt), ['list_item Plan', 'list_item Build']);
    assert.ok(!slideThree.some((line) => line.includes('document node')));
  });

  it('orders slides as the presentation lists them, not by part name', async () => {
    const entries = readZip(fixture('pptx', 'powerpoint_sample.pptx'));
    const presentation = entries.get('ppt/presentation.xml')!.toString('utf8');
    const list = /<p:sldIdLst>(.*?)<\/p:sldIdLst>/.exec(presentation)!;
    const reversed = list[1].match(/<p:sldId [^>]*\/>/g)!.reverse().join('');
    entries.set('ppt/presentation.xml', Buffer.from(presentation.replace(list[1], reversed)));
    const document = await convert(writeZip(entries), 'reordered.pptx');
    const sections = document.items.filter((item) => item.label === 'section_header' && item.headingLevel === 1).map((item) => `${item.sourceRange?.slide} ${item.text}`);
    assert.deepEqual(sections, ['1 Slide 1', '2 Second slide title', '3 Test Table Slide']);
    assert.equal(document.title, 'reordered.pptx');
  });

  it('keeps pictures with their bytes; malformed pictures cost a warning, not the file; pictures "none" keeps no bytes', async () => {
    const bytes = fixture('pptx', 'powerpoint_malformed_pictures.pptx');
    const document = await convert(bytes, 'powerpoint_malformed_pictures.pptx');
    const pictures = document.items.filter((item) => item.label === 'picture');
    assert.deepEqual(
      pictures.map((item) => [item.sourceRange?.slide, item.picture?.bytes !== undefined]),
      [
        [1, false],
        [2, false],
        [3, true],
      ],
    );
    const kept = pictures[2].picture!;
    assert.equal(kept.mimeType, 'image/png');
    assert.deepEqual([kept.width, kept.height], [64, 64]);
    assert.deepEqual([...kept.bytes!.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.ok(document.warnings.some((warning) => warning.startsWith('Slide 1: a picture has no image data')), JSON.stringify(document.warnings));
    assert.ok(document.warnings.some((warning) => warning.startsWith('Slide 2: a picture refers to an image that is not in the file')), JSON.stringify(document.warnings));
    const withoutPictures = await convert(bytes, 'powerpoint_malformed_pictures.pptx', { pictures: 'none' });
    assert.equal(withoutPictures.items.filter((item) => item.label === 'picture').length, 3);
    assert.ok(withoutPictures.items.every((item) => item.picture === undefined));
  });

  it('reads a chart as a picture, its title as the caption and its data as a table', async () => {
    const document = await convert(fixture('pptx', 'pptx_chart.pptx'), 'pptx_chart.pptx');
    const slideOne = document.items.filter((item) => item.sourceRange?.slide === 1).map((item) => [item.label, item.text.split('\n')[0]]);
    assert.deepEqual(slideOne, [
      ['section_header', 'Quarterly Duck Survey'],
      ['picture', 'Bar chart'],
      ['caption', 'Wild Duck Observations by Year'],
      ['table', '|  | Freshwater Ducks | Saltwater Ducks |'],
    ]);
    assert.ok(document.items.some((item) => item.label === 'table' && item.text.includes('| 2022 | 175 | 130 |')));
  });

  it('is what convertFile runs for .pptx and .odp files', async () => {
    const pptx = await convertFile(path.join(formatsRoot, 'pptx', 'pptx_chart.pptx'));
    assert.equal(pptx.format, 'pptx');
    assert.equal(pptx.title, 'Quarterly Duck Survey');
    const odp = await convertFile(path.join(formatsRoot, 'odf', 'odf_presentation_01.odp'));
    assert.equal(odp.format, 'odp');
    assert.equal(odp.items[0].text, 'Test Table Slide');
  });

  describe('bad input', () => {
    it('refuses a file that is not a zip (corrupt_file) and a truncated deck', async () => {
      const notZip = await refusal(Buffer.from('This is plain text, not a presentation.\n'.repeat(20)), 'notes.pptx');
      assert.equal(notZip.code, 'corrupt_file');
      assert.match(notZip.message, /not a zip archive/);
      const truncated = await refusal(fixture('pptx', 'powerpoint_sample.pptx').subarray(0, 20_000), 'cut.pptx');
      assert.equal(truncated.code, 'corrupt_file');
      const odp = await refusal(fixture('odf', 'odf_presentation_01.odp').subarray(0, 10_000), 'cut.odp');
      assert.equal(odp.code, 'corrupt_file');
    });

    it('refuses a zip that is not a presentation', async () => {
      const error = await refusal(writeZip(new Map([['word/document.xml', Buffer.from('<w:document/>')]])), 'renamed.pptx');
      assert.equal(error.code, 'corrupt_file');
      assert.match(error.message, /not a PPTX presentation/);
      const odp = await refusal(writeZip(new Map([['mimetype', Buffer.from('application/vnd.oasis.opendocument.text')]])), 'renamed.odp');
      assert.equal(odp.code, 'corrupt_file');
    });

    it('refuses a legacy .ppt and a password-protected deck (OLE containers) with what to do', async () => {
      const ole = Buffer.alloc(4096);
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(ole);
      const legacy = await refusal(ole, 'old.pptx');
      assert.equal(legacy.code, 'corrupt_file');
      assert.match(legacy.message, /legacy binary PowerPoint file \(\.ppt\).*Save it as \.pptx/);
      const encrypted = Buffer.from(ole);
      Buffer.from('EncryptedPackage', 'utf16le').copy(encrypted, 1024);
      const locked = await refusal(encrypted, 'locked.pptx');
      assert.equal(locked.code, 'encrypted_file');
      assert.match(locked.message, /password-protected/);
    });

    it('refuses a zip bomb before inflating it (file_too_large)', async () => {
      const entries = readZip(fixture('pptx', 'powerpoint_bad_text.pptx'));
      const error = await refusal(writeZip([...entries].map(([name, data]) => ({ name, data, declaredSize: name === 'ppt/slides/slide1.xml' ? 3_000_000_000 : undefined }))), 'bomb.pptx');
      assert.equal(error.code, 'file_too_large');
    });

    it('stops when aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(convertPresentation(fixture('pptx', 'powerpoint_sample.pptx'), { fileName: 'a.pptx', filePath: 'a.pptx', format: 'pptx', abortSignal: controller.signal }));
    });
  });
});
