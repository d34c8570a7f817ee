import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import JSZip from 'jszip';
import { chunkDocument } from '../../../src/core/chunker';
import { findChunkInRendering, findHeadingLine, headingTrailLine } from '../../../src/core/renderingLocate';
import { loadDocument } from '../../../src/node/convert/convertFile';
import { temporaryFolder } from '../../support/indexFixtures';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const REPEATED = 'The committee reviewed the figures again and approved the budget without any changes at all.';

/** A DOCX of Word paragraphs, each `[style, text]` (style '' for body text). */
async function docxOf(paragraphs: Array<[string, string]>): Promise<Buffer> {
  const body = paragraphs
    .map(([style, text]) => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`)
    .join('');
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/_rels/document.xml.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>');
  zip.file('word/styles.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>`);
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`);
  return zip.generateAsync({ type: 'nodebuffer' });
}

describe('locating a chunk in a rendering by its own position', () => {
  it('sends the Part B chunk of a DOCX whose sentence repeats in Part A to Part B’s lines (by items, and by headings alone)', async () => {
    const folder = temporaryFolder('haiku-rendering-');
    try {
      // Both sections open with the same sentence, under the same sub-heading title.
      fs.writeFileSync(path.join(folder.path, 'parts.docx'), await docxOf([
        ['Title', 'Board report'],
        ['Heading1', 'Part A'], ['Heading2', 'Decision'], ['', REPEATED], ['', 'Alpha closing remark about the first part.'],
        ['Heading1', 'Part B'], ['Heading2', 'Decision'], ['', REPEATED], ['', 'Beta closing remark about the second part.'],
      ]));
      const document = await loadDocument({ rootPath: folder.path, filePath: 'parts.docx' });
      const chunks = chunkDocument(document);
      const partB = chunks.find((chunk) => chunk.headings.includes('Part B'));
      assert.ok(partB && partB.content.startsWith(REPEATED), JSON.stringify(chunks.map((chunk) => chunk.content)));
      const lines = document.content.split('\n');
      const partBHeading = lines.findIndex((line) => /^#+ Part B$/.test(line));
      const expectedStart = lines.findIndex((line, index) => index > partBHeading && line.includes(REPEATED));
      const expectedEnd = lines.findIndex((line) => line.includes('Beta closing remark'));
      assert.ok(partBHeading > 0 && expectedStart > partBHeading);

      const byItems = findChunkInRendering(document.content, partB.content, partB.headings, { docItemRefs: partB.docItemRefs, items: document.items });
      assert.deepStrictEqual(byItems, { startLine: expectedStart, endLine: expectedEnd });
      // The chat anchor knows the chunk's headings but not the items: the trail "Board report > Part B > Decision" places it.
      assert.deepStrictEqual(findChunkInRendering(document.content, partB.content, partB.headings), { startLine: expectedStart, endLine: expectedEnd });
      const partA = chunks.find((chunk) => chunk.headings.includes('Part A'))!;
      assert.strictEqual(findChunkInRendering(document.content, partA.content, partA.headings, { docItemRefs: partA.docItemRefs, items: document.items })?.startLine, expectedStart - (partBHeading - lines.findIndex((line) => /^#+ Part A$/.test(line))));
      // A repeated heading title is found under its own parent.
      const decisionB = headingTrailLine(lines, ['Board report', 'Part B', 'Decision']);
      assert.strictEqual(lines[decisionB!], lines[findHeadingLine(document.content, 'Decision')!]);
      assert.ok(decisionB! > partBHeading);
    } finally {
      folder.cleanup();
    }
  });

  it('picks the chunk’s own occurrence of a sentence repeated inside one section by the items before it', () => {
    const texts = ['Notes', 'Opening line of the notes.', REPEATED, 'Middle paragraph between the two.', REPEATED, 'Closing line.'];
    const items = texts.map((text, position) => ({ selfRef: `#/texts/${position}`, position, text }));
    const markdown = ['## Notes', '', ...texts.slice(1).flatMap((text) => [text, ''])].join('\n');
    const content = `${REPEATED}\n\nClosing line.`;
    const span = findChunkInRendering(markdown, content, ['Notes'], { docItemRefs: ['#/texts/4', '#/texts/5'], items });
    assert.deepStrictEqual(span, { startLine: 8, endLine: 10 });
    // The first occurrence is still the first chunk's.
    assert.deepStrictEqual(findChunkInRendering(markdown, `${REPEATED}\n\nMiddle paragraph`, ['Notes'], { docItemRefs: ['#/texts/2', '#/texts/3'], items }), { startLine: 4, endLine: 6 });
  });

  it('falls back to the innermost heading of the trail, and finds nothing for text and headings that are not there', () => {
    const markdown = '# Guide\n\n## Setup\n\nInstall it.\n\n## Usage\n\nRun it.';
    assert.deepStrictEqual(findChunkInRendering(markdown, 'text that appears nowhere', ['Guide', 'Usage']), { startLine: 6, endLine: 6 });
    assert.strictEqual(findChunkInRendering(markdown, 'text that appears nowhere', ['Missing']), undefined);
  });
});
