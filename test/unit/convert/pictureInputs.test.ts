import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import JSZip from 'jszip';
import { chunkDocument, countChunkTokens } from '../../../src/core/chunker';
import { CHUNK_MAX_TOKENS } from '../../../src/core/limits';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { convertFile } from '../../../src/node/convert/convertFile';
import { convertDocx } from '../../../src/node/convert/docx';
import { encodePng } from '../../../src/node/convert/pictures/pngEncoder';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { corpusRoot, repositoryRoot, skipUnlessCorpusHas, corpusFile } from '../../support/paths';
import { decodePng } from '../../support/png';

const docling = path.join(corpusRoot, 'pdf-docx/docling');

function pictures(document: ConvertedDocument): DocumentItem[] {
  return document.items.filter((item) => item.label === 'picture');
}

/** The caption item right after a picture (a caption at p describes the picture at p − 1). */
function captionOf(document: ConvertedDocument, picture: DocumentItem): string | undefined {
  const next = document.items[picture.position + 1];
  return next?.label === 'caption' ? next.text : undefined;
}

function png(width: number, height: number, shade: number): Buffer {
  return Buffer.from(encodePng({ width, height, channels: 3, data: new Uint8Array(width * height * 3).fill(shade) }));
}

async function assertDecodable(picture: DocumentItem): Promise<void> {
  const bytes = picture.picture!.bytes!;
  if (picture.picture!.mimeType === 'image/jpeg') {
    assert.deepEqual([bytes[0], bytes[1], bytes[2]], [0xff, 0xd8, 0xff], 'a JPEG starts with SOI and a marker');
    return;
  }
  const decoded = await decodePng(bytes);
  assert.deepEqual([decoded.width, decoded.height], [picture.picture!.width, picture.picture!.height]);
}

type DocxBlock = { text: string } | { image: string; alt: string } | { tableImage: string; alt: string };

/** A minimal DOCX: paragraphs, inline pictures (`word/media/<name>`) and one-cell tables holding a picture. */
async function pictureDocx(blocks: readonly DocxBlock[], media: Record<string, { bytes: Uint8Array; contentType: string }>): Promise<Buffer> {
  const ids = Object.keys(media);
  const drawing = (name: string, alt: string, index: number) =>
    `<w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="${index + 1}" name="Picture ${index + 1}" descr="${alt}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="${index + 1}" name="${name}" descr="${alt}"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImage${ids.indexOf(name)}"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
  const body = blocks.map((block, index) => {
    if ('text' in block) {
      return `<w:p><w:r><w:t xml:space="preserve">${block.text}</w:t></w:r></w:p>`;
    }
    if ('image' in block) {
      return `<w:p>${drawing(block.image, block.alt, index)}</w:p>`;
    }
    return `<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Cell text</w:t></w:r></w:p></w:tc><w:tc><w:p>${drawing(block.tableImage, block.alt, index)}</w:p></w:tc></w:tr></w:tbl>`;
  }).join('');
  const namespaces = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';
  const zip = new JSZip();
  const defaults = [...new Set(ids.map((name) => `<Default Extension="${path.extname(name).slice(1)}" ContentType="${media[name].contentType}"/>`))].join('');
  zip.file('[Content_Types].xml', `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${defaults}<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`);
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/_rels/document.xml.rels', `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${ids.map((name, index) => `<Relationship Id="rIdImage${index}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/${name}"/>`).join('')}</Relationships>`);
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${namespaces}><w:body>${body}</w:body></w:document>`);
  for (const name of ids) {
    zip.file(`word/media/${name}`, media[name].bytes);
  }
  return zip.generateAsync({ type: 'nodebuffer' });
}

describe('pictures of the shared corpus', function () {
  this.timeout(180_000);

  it('picture_classification.pdf: both figures on their pages, captioned, as PNG', async () => {
    const document = await convertFile(path.join(docling, 'picture_classification.pdf'));
    const found = pictures(document);
    assert.deepEqual(found.map((picture) => picture.pageNumbers), [[1], [2]]);
    assert.deepEqual(found.map((picture) => captionOf(document, picture)), ['Figure 1: This is an example image.', 'Figure 2: This is an example image.']);
    for (const picture of found) {
      await assertDecodable(picture);
    }
  });

  it('amt_handbook_sample.pdf: its two figures of page 1, each one rendered picture before its caption', async () => {
    const document = await convertFile(path.join(docling, 'amt_handbook_sample.pdf'));
    const found = pictures(document);
    assert.equal(found.length, 2, `${found.length} pictures`);
    assert.ok(found.every((picture) => picture.pageNumbers[0] === 1 && picture.boxes?.[0]?.page === 1));
    const captions = found.map((picture) => captionOf(document, picture)).filter((caption) => caption !== undefined);
    assert.deepEqual(captions, ['Figure 7-26. Self-locking nuts.', 'Figure 7-27. Stainless steel self-locking nut.']);
    for (const picture of found.filter((item) => item.picture?.bytes)) {
      await assertDecodable(picture);
    }
  });

  it('redp5110_sampled.pdf: screenshots and diagrams with their page and caption', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/docling/redp5110_sampled.pdf');
    const document = await convertFile(corpusFile('pdf-docx/docling/redp5110_sampled.pdf'));
    const captioned = new Map(pictures(document).map((picture) => [captionOf(document, picture), picture]));
    for (const [caption, page] of [['Figure 1-2 Existing row and column controls', 7], ['Figure 3-10 Column masks shown in System i Navigator', 14], ['Figure 3-11 Selecting the EMPLOYEES table from System i Navigator', 14]] as const) {
      const picture = captioned.get(caption);
      assert.ok(picture, caption);
      assert.deepEqual(picture.pageNumbers, [page]);
      await assertDecodable(picture);
    }
  });

  it('word_sample.docx: the duck with its alt text, caption and bytes', async () => {
    const document = await convertFile(path.join(docling, 'word_sample.docx'));
    const [duck] = pictures(document);
    assert.match(duck.text, /cartoon duck/);
    assert.equal(captionOf(document, duck), 'Figure 1: This is a cute duckling');
    await assertDecodable(duck);
  });

  it('docx_rich_cells.docx: the pictures inside table cells become picture items after the table', async () => {
    const document = await convertFile(path.join(docling, 'docx_rich_cells.docx'));
    const found = pictures(document);
    assert.deepEqual(found.map((picture) => picture.text), ['Owner avatar', 'Owner avatar']);
    const table = document.items[found[0].position - 1];
    assert.equal(table.label, 'table');
    assert.match(table.text, /Text and picture/);
    // The avatar is 48x48 px: under the 64 px minimum, so the items keep their alt text without bytes.
    assert.ok(found.every((picture) => picture.picture === undefined));
  });

  it('the Markdown fixture page: its local image with bytes and caption', async () => {
    const root = path.join(repositoryRoot, 'test/fixtures/pictures/docs');
    const document = await convertFile(path.join(root, 'page.md'), { pictureRoots: [root] });
    const [pump] = pictures(document);
    await assertDecodable(pump);
    assert.equal(captionOf(document, pump), 'Figure 3: Impeller with backward-curved vanes inside the volute casing.');
  });
});

describe('DOCX pictures: captions and bad images', function () {
  this.timeout(120_000);

  it('puts a caption set above its picture after it, and a picture in a table cell after the table', async () => {
    const docx = await pictureDocx(
      [{ text: 'Before.' }, { text: 'Figure 1: Pressure gauge at rest.' }, { image: 'gauge.png', alt: 'Gauge' }, { text: 'Between.' }, { tableImage: 'valve.png', alt: 'Valve' }, { text: 'Figure 2: Valve in its housing.' }, { text: 'After.' }],
      { 'gauge.png': { bytes: png(100, 80, 40), contentType: 'image/png' }, 'valve.png': { bytes: png(90, 90, 200), contentType: 'image/png' } },
    );
    const document = await convertDocx(docx, { fileName: 'captions.docx' });
    assert.deepEqual(document.items.map((item) => `${item.label}: ${item.text.split('\n')[0]}`), [
      'paragraph: Before.',
      'picture: Gauge',
      'caption: Figure 1: Pressure gauge at rest.',
      'paragraph: Between.',
      'table: | Cell text |  |',
      'picture: Valve',
      'caption: Figure 2: Valve in its housing.',
      'paragraph: After.',
    ]);
    for (const picture of pictures(document)) {
      await assertDecodable(picture);
    }
  });

  it('warns about truncated, corrupt, huge and SVG images and keeps everything else', async () => {
    const good = png(100, 100, 90);
    const huge = Buffer.from(good);
    huge.writeUInt32BE(20_000, 16);
    huge.writeUInt32BE(20_000, 20);
    const docx = await pictureDocx(
      [
        { text: 'Start.' },
        { image: 'truncated.png', alt: 'Truncated' },
        { image: 'corrupt.jpg', alt: 'Corrupt' },
        { image: 'huge.png', alt: 'Huge' },
        { image: 'drawing.svg', alt: 'Vector drawing' },
        { image: 'good.png', alt: 'Good' },
        { text: 'End.' },
      ],
      {
        'truncated.png': { bytes: good.subarray(0, good.length - 30), contentType: 'image/png' },
        'corrupt.jpg': { bytes: Buffer.from('ffd8ffe000104a46494600010100000100010000ffc0001108007801e0030122000211010311010000deadbeef', 'hex'), contentType: 'image/jpeg' },
        'huge.png': { bytes: huge, contentType: 'image/png' },
        'drawing.svg': { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>throw 1</script></svg>'), contentType: 'image/svg+xml' },
        'good.png': { bytes: good, contentType: 'image/png' },
      },
    );
    const document = await convertDocx(docx, { fileName: 'bad.docx' });
    assert.deepEqual(pictures(document).map((picture) => `${picture.text}: ${picture.picture?.bytes ? 'bytes' : 'text only'}`), ['Truncated: text only', 'Corrupt: text only', 'Huge: text only', 'Vector drawing: text only', 'Good: bytes']);
    assert.deepEqual(document.items.filter((item) => item.label === 'paragraph').map((item) => item.text), ['Start.', 'End.']);
    assert.deepEqual(document.warnings.slice().sort(), [
      '1 picture was in a format that is not extracted (SVG, or an unknown encoding); their captions are kept.',
      '1 picture was too large to decode; their captions are kept.',
      '2 pictures were not decodable (damaged or unsupported image data); their captions are kept.',
    ]);
  });

  it('handles thousands of tiny images in one document quickly, without warnings', async () => {
    const media: Record<string, { bytes: Uint8Array; contentType: string }> = {};
    const blocks: DocxBlock[] = [{ text: 'Icons follow.' }];
    for (let index = 0; index < 2000; index++) {
      media[`icon${index}.png`] = { bytes: png(8, 8, index % 256), contentType: 'image/png' };
      blocks.push({ image: `icon${index}.png`, alt: `icon ${index}` });
    }
    blocks.push({ text: 'Icons done.' });
    const started = Date.now();
    const document = await convertDocx(await pictureDocx(blocks, media), { fileName: 'icons.docx' });
    assert.ok(Date.now() - started < 60_000);
    assert.equal(pictures(document).length, 2000);
    assert.ok(pictures(document).every((picture) => picture.picture === undefined));
    assert.deepEqual(document.warnings, []);
    assert.equal(document.items.at(-1)?.text, 'Icons done.');
  });
});

describe("a figure's chunk", function () {
  this.timeout(120_000);

  /** Long enough that a short alt text still fits after it, but not the caption too. */
  function fillerParagraph(budget: number, room: number): string {
    const sentence = 'The cooling loop carries water past the bearings. ';
    let text = sentence;
    while (countChunkTokens(text + sentence) <= budget - room) {
      text += sentence;
    }
    return text.trim();
  }

  it('holds the picture and its caption together, so full-text search for the caption finds the picture ref', async () => {
    const folder = temporaryFolder('haiku-figure-chunk-');
    try {
      const heading = 'Gauges';
      const budget = CHUNK_MAX_TOKENS - countChunkTokens(heading) - 1;
      const markdown = `# ${heading}\n\n${fillerParagraph(budget, 6)}\n\n![Gauge](gauge.png)\n\nFigure 9: Manometer reading at full load on the test bench.\n\nClosing remarks.\n`;
      writeFiles(folder.path, { 'docs/gauges.md': markdown, 'docs/gauge.png': png(100, 80, 60) });
      const converted = await convertFile(path.join(folder.path, 'docs/gauges.md'));
      const chunks = chunkDocument({ id: 'gauges', items: converted.items });
      const holding = chunks.find((chunk) => chunk.docItemRefs.includes('#/pictures/0'))!;
      assert.match(holding.content, /^Gauge\n\nFigure 9: Manometer reading/);

      const store = await openStore({ uri: path.join(folder.path, 'index') });
      try {
        await indexPaths({ roots: [path.join(folder.path, 'docs')], store });
        const [hit] = await store.fullTextCandidates('manometer reading', 3, undefined, { withRows: true });
        assert.ok((JSON.parse(hit.row!.doc_item_refs) as string[]).includes('#/pictures/0'), hit.row!.doc_item_refs);
      } finally {
        await store.close();
      }
    } finally {
      folder.cleanup();
    }
  });
});
