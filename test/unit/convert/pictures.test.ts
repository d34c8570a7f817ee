import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deflateSync } from 'node:zlib';
import { getResolvedPDFJS } from 'unpdf';
import { encodePng, downscale } from '../../../src/node/convert/pictures/pngEncoder';
import { sniffImage } from '../../../src/core/pictures/imageInfo';
import { readLocalImage } from '../../../src/node/convert/pictures/localImages';
import { convertDocx } from '../../../src/node/convert/docx';
import { convertPdf } from '../../../src/node/convert/pdf';
import { FIGURE_CAPTION_START } from '../../../src/node/convert/pictures/captions';
import { PDF_FIGURE_MIN_SIDE_POINTS, PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS } from '../../../src/core/limits';
import type { PageBox } from '../../../src/core/model/document';
import { PictureCollector } from '../../../src/node/convert/pictures/pictureCollector';
import { extractPagePictures, type PdfJsOperators, type PdfPagePicture } from '../../../src/node/convert/pictures/pdfPictures';
import { assemblePdf } from '../../fixtures/pdf/makePdfFixtures';
import { corpusRoot, skipUnlessCorpusHas, corpusFile } from '../../support/paths';
import { decodePng } from '../../support/png';

function gradient(width: number, height: number, channels: 1 | 3 | 4): Uint8Array {
  const data = new Uint8Array(width * height * channels);
  for (let index = 0; index < data.length; index++) {
    data[index] = (index * 7) & 0xff;
  }
  return data;
}

/** One page painting the given image XObjects, each `[name, dictionary, stream bytes, cm matrix]`. */
function imagePdf(images: Array<{ dictionary: string; stream: Buffer; matrix: string }>, extraContent = ''): Buffer {
  const objects: Buffer[] = [];
  const content = images.map((image, index) => `q ${image.matrix} cm /Im${index} Do Q`).join('\n') + extraContent;
  const firstImage = 5;
  const xobjects = images.map((_, index) => `/Im${index} ${firstImage + index} 0 R`).join(' ');
  objects.push(Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'));
  objects.push(Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', 'latin1'));
  objects.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << ${xobjects} >> >> >>`, 'latin1'));
  objects.push(Buffer.concat([Buffer.from(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n`, 'latin1'), Buffer.from(content, 'latin1'), Buffer.from('\nendstream', 'latin1')]));
  for (const image of images) {
    objects.push(Buffer.concat([Buffer.from(`<< /Type /XObject /Subtype /Image ${image.dictionary} /Length ${image.stream.length} >>\nstream\n`, 'latin1'), image.stream, Buffer.from('\nendstream', 'latin1')]));
  }
  return assemblePdf(objects, '/Root 1 0 R');
}

function rgbImage(width: number, height: number): { dictionary: string; stream: Buffer } {
  return { dictionary: `/Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode`, stream: deflateSync(gradient(width, height, 3)) };
}

async function picturesOf(bytes: Uint8Array, collector = new PictureCollector()): Promise<{ pictures: PdfPagePicture[]; collector: PictureCollector }> {
  const prototype = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: unknown };
  if (typeof prototype.transferToFixedLength !== 'function') {
    // The PDF converter installs this polyfill for pdf.js on Node 20; the extractor runs on pages it opened.
    Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
      configurable: true,
      writable: true,
      value(this: ArrayBuffer, length?: number) {
        const copy = new ArrayBuffer(length ?? this.byteLength);
        new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(copy.byteLength, this.byteLength)));
        return copy;
      },
    });
  }
  const pdfjs = (await getResolvedPDFJS()) as unknown as { OPS: PdfJsOperators; getDocument(parameters: object): { promise: Promise<any>; destroy(): Promise<void> } };
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false, isOffscreenCanvasSupported: false, maxImageSize: 25_000_000 });
  try {
    const document = await task.promise;
    const pictures: PdfPagePicture[] = [];
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
      pictures.push(...(await extractPagePictures(await document.getPage(pageNumber), pageNumber, pdfjs.OPS, collector)));
    }
    return { pictures, collector };
  } finally {
    await task.destroy();
  }
}

describe('pictures', () => {
  describe('PNG encoder', () => {
    for (const channels of [1, 3, 4] as const) {
      it(`round-trips ${channels}-channel pixels through a PNG decoder`, async () => {
        const data = gradient(70, 33, channels);
        const decoded = await decodePng(encodePng({ width: 70, height: 33, channels, data }));
        assert.equal(decoded.width, 70);
        assert.equal(decoded.height, 33);
        assert.equal(decoded.channels, channels);
        assert.deepEqual(Array.from(decoded.data), Array.from(data));
      });
    }

    it('scales the longer side down to the limit, keeping the aspect ratio and the mean colour', () => {
      const data = new Uint8Array(400 * 100 * 3).fill(120);
      const scaled = downscale({ width: 400, height: 100, channels: 3, data }, 100);
      assert.deepEqual([scaled.width, scaled.height], [100, 25]);
      assert.ok(scaled.data.every((value) => value === 120));
      const small = { width: 50, height: 20, channels: 3 as const, data: new Uint8Array(3000) };
      assert.equal(downscale(small, 100), small);
    });
  });

  describe('image sniffing', () => {
    it('reads the pixel size of PNG, JPEG, GIF and WebP from their headers, and refuses SVG', () => {
      assert.deepEqual(sniffImage(encodePng({ width: 300, height: 120, channels: 3, data: new Uint8Array(300 * 120 * 3) })), { mimeType: 'image/png', width: 300, height: 120 });
      const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffc0001108007801e003012200021101031101', 'hex');
      assert.deepEqual(sniffImage(jpeg), { mimeType: 'image/jpeg', width: 480, height: 120 });
      const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0x2c, 0x01, 0x64, 0x00])]);
      assert.deepEqual(sniffImage(gif), { mimeType: 'image/gif', width: 300, height: 100 });
      const webp = Buffer.alloc(30);
      webp.write('RIFF', 0, 'latin1');
      webp.write('WEBPVP8X', 8, 'latin1');
      webp.writeUIntLE(299, 24, 3);
      webp.writeUIntLE(99, 27, 3);
      assert.deepEqual(sniffImage(webp), { mimeType: 'image/webp', width: 300, height: 100 });
      assert.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')), undefined);
      assert.equal(sniffImage(Buffer.from([0xff, 0xd8, 0x00])), undefined);
    });
  });

  describe('the per-document collector', () => {
    it('skips pictures under the minimum side, stores identical bytes once, and stops at the budget', () => {
      const collector = new PictureCollector({ maxPictures: 2 });
      assert.equal(collector.addRaw({ width: 500, height: 40, channels: 3, data: new Uint8Array(500 * 40 * 3) }).reason, 'too_small');
      const first = collector.addRaw({ width: 100, height: 100, channels: 3, data: gradient(100, 100, 3) });
      const again = collector.addRaw({ width: 100, height: 100, channels: 3, data: gradient(100, 100, 3) });
      assert.ok(first.picture?.bytes);
      assert.equal(again.picture?.bytes, undefined, 'the duplicate points at the first by digest');
      assert.equal(again.picture?.digest, first.picture?.digest);
      assert.ok(collector.addRaw({ width: 100, height: 90, channels: 3, data: gradient(100, 90, 3) }).picture?.bytes);
      assert.equal(collector.addRaw({ width: 100, height: 80, channels: 3, data: gradient(100, 80, 3) }).reason, 'too_many');
      assert.equal(collector.addEncoded(Buffer.from('<svg/>')).reason, 'unsupported');
      assert.equal(collector.warnings().length, 2, collector.warnings().join('\n'));
    });
  });

  describe('PDF raster images', () => {
    it('extracts the figures of picture_classification.pdf with their page, box and decodable bytes', async function () {
      const { pictures } = await picturesOf(fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/picture_classification.pdf')));
      assert.deepEqual(pictures.map((picture) => picture.box.page), [1, 2]);
      for (const picture of pictures) {
        const decoded = await decodePng(picture.picture!.bytes!);
        assert.equal(decoded.width, picture.picture!.width);
        assert.ok(picture.box.x >= 0 && picture.box.x + picture.box.width <= 612 && picture.box.y >= 0 && picture.box.y + picture.box.height <= 792, JSON.stringify(picture.box));
      }
      assert.deepEqual([pictures[0].picture!.width, pictures[0].picture!.height], [768, 474]);
    });

    it('places an image where the page transform paints it (nested save/restore, scale and translation)', async () => {
      const image = rgbImage(120, 80);
      const pdf = imagePdf([{ ...image, matrix: '200 0 0 100 50 600' }, { ...image, matrix: '0.5 0 0 0.5 100 100 cm 240 0 0 160 0 0' }]);
      const { pictures } = await picturesOf(pdf);
      assert.equal(pictures.length, 2);
      assert.deepEqual(pictures[0].box, { page: 1, x: 50, y: 600, width: 200, height: 100 });
      assert.deepEqual(pictures[1].box, { page: 1, x: 100, y: 100, width: 120, height: 80 });
      assert.ok(pictures[0].picture?.bytes);
      assert.equal(pictures[1].picture?.bytes, undefined, 'the same image painted twice is stored once');
    });

    it('turns damaged, oversized and unsupported images into warnings, never a failure', async function () {
      this.timeout(60_000);
      const pdf = imagePdf([
        { dictionary: '/Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', stream: Buffer.from('this is not zlib data at all'), matrix: '100 0 0 100 0 0' },
        { dictionary: '/Width 20000 /Height 20000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', stream: deflateSync(Buffer.alloc(1000)), matrix: '100 0 0 100 100 0' },
        { dictionary: '/Width 100 /Height 100 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode', stream: Buffer.from('garbage jbig2'), matrix: '100 0 0 100 200 0' },
        { dictionary: '/Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 16', stream: Buffer.alloc(100 * 100 * 6, 0x80), matrix: '100 0 0 100 300 0' },
        { ...rgbImage(90, 90), matrix: '90 0 0 90 400 0' },
      ]);
      const started = Date.now();
      const { pictures, collector } = await picturesOf(pdf);
      // pdf.js removes an image over `maxImageSize` (the 20000x20000 one at x=100) before painting it.
      assert.deepEqual(pictures.map((picture) => `${picture.box.x}: ${picture.reason ?? 'kept'}`), ['0: undecodable', '200: undecodable', '300: kept', '400: kept']);
      assert.ok(Date.now() - started < 30_000);
      assert.deepEqual(collector.warnings(), ['2 pictures were not decodable (damaged or unsupported image data); their captions are kept.']);
    });

    it('stops after a bounded number of images on a page that paints thousands', async function () {
      this.timeout(60_000);
      const tiny = '\nq 2 0 0 2 10 10 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x10\x20\x30\x40 EI Q';
      const pdf = imagePdf([], tiny.repeat(3000));
      const started = Date.now();
      const { pictures } = await picturesOf(pdf);
      assert.ok(pictures.length <= 200, `${pictures.length} pictures`);
      assert.ok(pictures.every((picture) => picture.reason === 'too_small'));
      assert.ok(Date.now() - started < 30_000);
    });
  });
});

describe('local images of Markdown and HTML', () => {
  let root: string;
  let outside: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-images-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-outside-'));
    fs.mkdirSync(path.join(root, 'docs', 'img'), { recursive: true });
    fs.writeFileSync(path.join(root, 'docs', 'img', 'chart one.png'), encodePng({ width: 80, height: 80, channels: 3, data: new Uint8Array(80 * 80 * 3) }));
    fs.writeFileSync(path.join(outside, 'secret.png'), encodePng({ width: 80, height: 80, channels: 3, data: new Uint8Array(80 * 80 * 3) }));
    fs.symlinkSync(path.join(outside, 'secret.png'), path.join(root, 'docs', 'img', 'link.png'));
  });

  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const options = () => ({ documentPath: path.join(root, 'docs', 'page.md'), allowedRoots: [root] });

  it('reads a relative, percent-encoded path inside the indexed folder', async () => {
    const result = await readLocalImage('img/chart%20one.png?raw=1#top', options());
    assert.equal(sniffImage(result.bytes!)?.mimeType, 'image/png');
  });

  it('never fetches remote URLs and refuses paths and links that lead outside', async () => {
    for (const remote of ['https://example.com/a.png', '//cdn.example.com/a.png', 'mailto:a@b.c']) {
      assert.equal((await readLocalImage(remote, options())).refusal, 'remote', remote);
    }
    assert.equal((await readLocalImage('../../' + path.basename(outside) + '/secret.png', options())).refusal, 'outside');
    assert.equal((await readLocalImage(path.join(outside, 'secret.png'), options())).refusal, 'outside');
    assert.equal((await readLocalImage('img/link.png', options())).refusal, 'outside', 'a link inside pointing outside');
    assert.equal((await readLocalImage('img/missing.png', options())).refusal, 'missing');
    assert.equal((await readLocalImage('img/chart%20one.png', { ...options(), maxBytes: 10 })).refusal, 'too_large');
  });

  it('decodes data: URIs of raster images only', async () => {
    const png = encodePng({ width: 70, height: 70, channels: 1, data: new Uint8Array(70 * 70) });
    const result = await readLocalImage(`data:image/png;base64,${Buffer.from(png).toString('base64')}`, options());
    assert.deepEqual(sniffImage(result.bytes!), { mimeType: 'image/png', width: 70, height: 70 });
    assert.equal((await readLocalImage('data:image/svg+xml;base64,PHN2Zy8+', options())).refusal, 'remote');
  });
});

function overlaps(first: PageBox, second: PageBox): boolean {
  // Half a point of slack: a line box and the band it bounds may share an edge.
  return first.page === second.page && first.x + 0.5 < second.x + second.width && second.x + 0.5 < first.x + first.width
    && first.y + 0.5 < second.y + second.height && second.y + 0.5 < first.y + first.height;
}

function within(inner: PageBox, outer: PageBox): boolean {
  return inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5;
}

describe('PDF vector figures', () => {
  it('records a rendered picture before each caption of a drawn figure, boxed beside it (GeoTopo)', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/py-pdf-sample-files/GeoTopo-komprimiert.pdf');
    this.timeout(120_000);
    const bytes = fs.readFileSync(corpusFile('pdf-docx/py-pdf-sample-files/GeoTopo-komprimiert.pdf'));
    const document = await convertPdf(bytes, { fileName: 'GeoTopo-komprimiert.pdf' });
    // Drawn figures are rendered from the page (pdfFigures.test.ts checks the pixels): every picture has some.
    assert.ok(document.items.every((item) => item.label !== 'picture' || item.picture), 'a picture without pixels');
    const drawn = document.items.filter((item) => item.label === 'picture' && document.items[item.position + 1].label === 'caption');
    assert.ok(drawn.length >= 40, `found ${drawn.length}`);
    for (const picture of drawn) {
      const caption = document.items[picture.position + 1];
      assert.equal(caption.label, 'caption');
      assert.match(caption.text, FIGURE_CAPTION_START);
      assert.equal(picture.text, '');
      assert.deepEqual(picture.pageNumbers, caption.pageNumbers);
      assert.equal(picture.boxes?.length, 1);
      const box = picture.boxes[0];
      assert.equal(box.page, caption.pageNumbers[0]);
      assert.ok(box.height >= PDF_FIGURE_MIN_SIDE_POINTS - 0.5, `${caption.text}: ${box.height} pt high`);
      const captionTop = Math.max(...caption.boxes!.map((line) => line.y + line.height));
      const captionBottom = Math.min(...caption.boxes!.map((line) => line.y));
      assert.ok(box.y >= captionTop - 0.5 || box.y + box.height <= captionBottom + 0.5, `${caption.text}: the band covers its caption`);
      // Tables are left out: a drawing's labels can come out as a small grid, which belongs inside the band.
      const text = document.items.filter((item) => item.label !== 'picture' && item.label !== 'table' && item.pageNumbers.includes(box.page) && item.text.length > PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS);
      for (const item of text) {
        // A label drawn inside the figure lies wholly in its box; running text beside it is not cut by it.
        assert.ok(!(item.boxes ?? []).some((line) => overlaps(line, box) && !within(line, box)), `${caption.text}: the box cuts "${item.text.slice(0, 40)}"`);
      }
    }
    // The raster figures (knot photographs) keep their own items: none got a second one.
    // "Abbildung 1.6" (page 16) sits under its drawing: caption at p, picture at p − 1, the band above the caption.
    const caption = document.items.find((item) => item.label === 'caption' && item.text.startsWith('Abbildung 1.6:'))!;
    const picture = document.items[caption.position - 1];
    assert.equal(picture.label, 'picture');
    assert.deepEqual(picture.pageNumbers, [16]);
    assert.ok(picture.boxes![0].y >= caption.boxes![0].y + caption.boxes![0].height - 0.5);
  });

  it('adds nothing beside raster figures, and nothing at all with pictures off (picture_classification.pdf)', async () => {
    const bytes = fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/picture_classification.pdf'));
    const document = await convertPdf(bytes, { fileName: 'picture_classification.pdf' });
    const pictures = document.items.filter((item) => item.label === 'picture');
    assert.equal(pictures.length, 2);
    assert.ok(pictures.every((picture) => picture.picture && document.items[picture.position + 1].label === 'caption'));
    const without = await convertPdf(bytes, { fileName: 'picture_classification.pdf', pictures: 'none' });
    assert.equal(without.items.filter((item) => item.label === 'picture').length, 0);
  });
});

describe('DOCX pictures', () => {
  it('keeps an embedded image with its alt text, followed by its caption (word_sample.docx)', async () => {
    const bytes = fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/word_sample.docx'));
    const document = await convertDocx(bytes, { fileName: 'word_sample.docx' });
    const pictures = document.items.filter((item) => item.label === 'picture');
    assert.equal(pictures.length, 1);
    const [picture] = pictures;
    assert.match(picture.text, /cartoon duck/);
    assert.equal(picture.picture?.mimeType, 'image/png');
    const decoded = await decodePng(picture.picture!.bytes!);
    assert.deepEqual([decoded.width, decoded.height], [picture.picture!.width, picture.picture!.height]);
    assert.equal(document.items[picture.position + 1].label, 'caption');
    assert.equal(document.items[picture.position + 1].text, 'Figure 1: This is a cute duckling');
    const without = await convertDocx(bytes, { fileName: 'word_sample.docx', pictures: 'none' });
    assert.equal(without.items.find((item) => item.label === 'picture')?.picture, undefined);
  });
});
