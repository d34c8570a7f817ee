import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversionError } from '../../../src/core/errors';
import { sniffImage } from '../../../src/core/pictures/imageInfo';
import { convertImage } from '../../../src/node/convert/image';
import { createConversionPool } from '../../../src/node/convert/conversionPool';
import { loadDocument } from '../../../src/node/convert/convertFile';
import { decodeCommonPng } from '../../../src/node/convert/pictures/pngDecoder';
import { shutdownOcrEngine } from '../../../src/node/ocr/ocrEngine';
import { formatsRoot, wordRecall } from '../../support/formatRecall';

/** Image files: a picture item with the image, then the OCR text as paragraphs with boxes on "page 1". */
const ocrFolder = path.join(formatsRoot, 'ocr');
const groundTruth = fs.readFileSync(path.join(ocrFolder, 'ocr_test.pdf.groundtruth.md'), 'utf8');
const ocrOn = { enabled: true, languages: ['eng'] };

function fixture(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(ocrFolder, name)));
}

/** A minimal uncompressed 8-bit greyscale TIFF (little-endian, one strip) of a PNG's first channel. */
function greyTiff(png: Uint8Array): Uint8Array {
  const raw = decodeCommonPng(png)!;
  const { width, height } = raw;
  const grey = new Uint8Array(width * height);
  for (let pixel = 0; pixel < grey.length; pixel++) {
    grey[pixel] = raw.data[pixel * raw.channels];
  }
  const entries: Array<[tag: number, type: number, value: number]> = [
    [256, 3, width], [257, 3, height], [258, 3, 8], [259, 3, 1], [262, 3, 1], [273, 4, 8], [277, 3, 1], [278, 3, height], [279, 4, grey.length],
  ];
  const directory = 8 + grey.length;
  const bytes = Buffer.alloc(directory + 2 + entries.length * 12 + 4);
  bytes.write('II', 0, 'ascii');
  bytes.writeUInt16LE(42, 2);
  bytes.writeUInt32LE(directory, 4);
  bytes.set(grey, 8);
  bytes.writeUInt16LE(entries.length, directory);
  entries.forEach(([tag, type, value], index) => {
    const entry = directory + 2 + index * 12;
    bytes.writeUInt16LE(tag, entry);
    bytes.writeUInt16LE(type, entry + 2);
    bytes.writeUInt32LE(1, entry + 4);
    if (type === 3) {
      bytes.writeUInt16LE(value, entry + 8);
    } else {
      bytes.writeUInt32LE(value, entry + 8);
    }
  });
  return new Uint8Array(bytes);
}

describe('image files (convertImage)', function () {
  this.timeout(180_000);
  after(() => shutdownOcrEngine());

  it('converts a PNG to its picture and its OCR text, with boxes on page 1', async () => {
    const bytes = fixture('ocr_test.png');
    const document = await convertImage(bytes, { fileName: 'ocr_test.png', filePath: '/docs/ocr_test.png', ocr: ocrOn });
    assert.equal(document.format, 'image');
    assert.equal(document.title, 'ocr_test.png');
    const [picture, ...texts] = document.items;
    assert.equal(picture.label, 'picture');
    assert.equal(picture.picture?.mimeType, 'image/png');
    assert.deepEqual([picture.picture?.width, picture.picture?.height], [1191, 1684]);
    assert.ok(texts.length >= 1 && texts.every((item) => item.label === 'paragraph'));
    assert.ok(wordRecall(groundTruth, document.items) >= 0.75, document.content);
    // Boxes: one per line, inside the image, y measured from the bottom (PDF convention): the text is near the top.
    for (const item of texts) {
      assert.deepEqual(item.pageNumbers, [1]);
      assert.ok(item.boxes && item.boxes.length >= 1);
      for (const box of item.boxes!) {
        assert.equal(box.page, 1);
        assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1191 && box.y + box.height <= 1684, JSON.stringify(box));
        assert.ok(box.y > 1684 / 2, `text in the upper half has a large bottom-up y: ${JSON.stringify(box)}`);
      }
    }
    assert.match(document.content, /Docling bundles PDF document conversion/);
    assert.deepEqual(document.warnings, []);
  });

  it('reads JPEG and WebP, keeping their bytes as they are', async () => {
    for (const [name, mimeType] of [['ocr_test_text.jpg', 'image/jpeg'], ['ocr_test_text.webp', 'image/webp']] as const) {
      const bytes = fixture(name);
      const document = await convertImage(bytes, { fileName: name, filePath: `/docs/${name}`, ocr: ocrOn });
      const picture = document.items[0].picture;
      assert.equal(picture?.mimeType, mimeType, name);
      assert.deepEqual(picture?.bytes, bytes, `${name}: the bytes are kept`);
      assert.ok(wordRecall(groundTruth, document.items) >= 0.75, `${name}: ${document.content}`);
    }
  });

  it('converts a TIFF to a PNG picture and reads its text', async () => {
    const tiff = greyTiff(fixture('ocr_test.png'));
    const document = await convertImage(tiff, { fileName: 'scan.tiff', filePath: '/docs/scan.tiff', ocr: ocrOn });
    const picture = document.items[0].picture;
    assert.equal(picture?.mimeType, 'image/png');
    assert.deepEqual(sniffImage(picture!.bytes!), { mimeType: 'image/png', width: 1191, height: 1684 });
    assert.ok(wordRecall(groundTruth, document.items) >= 0.75, document.content);
    // Boxes flip with the TIFF's own height too.
    assert.ok(document.items[1].boxes!.every((box) => box.y > 1684 / 2));
  });

  it('detects a sideways scan and says it was turned', async () => {
    const document = await convertImage(fixture('ocr_test_rotated_90.png'), { fileName: 'turned.png', filePath: '/docs/turned.png', ocr: ocrOn });
    assert.ok(wordRecall(groundTruth, document.items) >= 0.75, document.content);
    assert.ok(document.warnings.some((warning) => /upright turned (90|270)° clockwise/.test(warning)), document.warnings.join('\n'));
  });

  it('with OCR off keeps only the picture and warns (a TIFF then has no bytes)', async () => {
    const off = { enabled: false, languages: ['eng'] };
    const document = await convertImage(fixture('ocr_test.png'), { fileName: 'ocr_test.png', filePath: '/docs/ocr_test.png', ocr: off });
    assert.deepEqual(document.items.map((item) => item.label), ['picture']);
    assert.ok(document.items[0].picture?.bytes);
    assert.ok(document.warnings.some((warning) => /OCR is off \(processing\.ocr\.enabled: false\)/.test(warning)), document.warnings.join('\n'));
    const tiff = await convertImage(greyTiff(fixture('ocr_test.png')), { fileName: 'scan.tif', filePath: '/docs/scan.tif', ocr: off });
    assert.deepEqual(tiff.items.map((item) => item.label), ['picture']);
    assert.equal(tiff.items[0].picture, undefined);
    assert.ok(tiff.warnings.some((warning) => /TIFF image is indexed without its picture/.test(warning)), tiff.warnings.join('\n'));
  });

  it('with pictures none keeps the text and a picture item without bytes', async () => {
    const document = await convertImage(fixture('ocr_test_text.jpg'), { fileName: 'a.jpg', filePath: '/docs/a.jpg', ocr: ocrOn, pictures: 'none' });
    assert.equal(document.items[0].label, 'picture');
    assert.equal(document.items[0].picture, undefined);
    assert.ok(wordRecall(groundTruth, document.items) >= 0.75);
  });

  it('refuses empty, non-image and damaged files with a ConversionError naming the file', async () => {
    const expectError = (code: string) => (error: unknown) => {
      assert.ok(error instanceof ConversionError, String(error));
      assert.equal(error.code, code);
      assert.equal(error.path, '/docs/bad.png');
      return true;
    };
    const options = { fileName: 'bad.png', filePath: '/docs/bad.png', ocr: ocrOn };
    await assert.rejects(convertImage(new Uint8Array(0), options), expectError('empty_file'));
    await assert.rejects(convertImage(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), options), expectError('corrupt_file'));
    await assert.rejects(convertImage(fixture('ocr_test.png').subarray(0, 300), options), expectError('corrupt_file'));
    // A TIFF whose header announces 20000x20000 pixels is refused before Tesseract decodes it.
    const huge = greyTiff(fixture('ocr_test.png'));
    const view = new DataView(huge.buffer, huge.byteOffset);
    const directory = view.getUint32(4, true);
    view.setUint16(directory + 2 + 8, 20_000, true);
    view.setUint16(directory + 2 + 12 + 8, 20_000, true);
    await assert.rejects(convertImage(huge, options), expectError('file_too_large'));
  });

  it('fails an image file clearly when an OCR language is not installed', async () => {
    await assert.rejects(convertImage(fixture('ocr_test_text.jpg'), { fileName: 'a.jpg', filePath: '/docs/a.jpg', ocr: { enabled: true, languages: ['tlh'] } }), (error: unknown) => {
      assert.ok(error instanceof ConversionError && error.code === 'invalid_settings', String(error));
      assert.match(error.message, /^\/docs\/a\.jpg: .*OCR language 'tlh' is not installed.*npm install @tesseract\.js-data\/tlh/);
      return true;
    });
  });

  it('converts in a conversion worker thread (Tesseract in a thread of its own), with the OCR options passed along', async () => {
    const pool = createConversionPool({ size: 1 });
    try {
      const on = await pool.prepare(path.join(ocrFolder, 'ocr_test_rotated_90.png'), { rootPath: ocrFolder, ocr: ocrOn });
      assert.equal(on.document.format, 'image');
      assert.ok(wordRecall(groundTruth, on.document.items) >= 0.75, on.document.content);
      assert.ok(on.chunks.some((chunk) => /Docling bundles/.test(chunk.content)));
      const off = await pool.load(path.join(ocrFolder, 'ocr_test.png'), { rootPath: ocrFolder, ocr: { enabled: false, languages: ['eng'] } });
      assert.deepEqual(off.items.map((item) => item.label), ['picture']);
      await assert.rejects(pool.load(path.join(ocrFolder, 'ocr_test.png'), { rootPath: ocrFolder, ocr: { enabled: true, languages: ['tlh'] } }), /OCR language 'tlh' is not installed/);
    } finally {
      await pool.dispose();
    }
  });

  it('reaches the image converter through loadDocument with the OCR options', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-image-'));
    try {
      fs.copyFileSync(path.join(ocrFolder, 'ocr_test_text.webp'), path.join(folder, 'scan.webp'));
      const off = await loadDocument({ rootPath: folder, filePath: 'scan.webp', ocr: { enabled: false, languages: ['eng'] } });
      assert.deepEqual(off.items.map((item) => item.label), ['picture']);
      const on = await loadDocument({ rootPath: folder, filePath: 'scan.webp' });
      assert.ok(wordRecall(groundTruth, on.items) >= 0.75, 'OCR is on by default');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
