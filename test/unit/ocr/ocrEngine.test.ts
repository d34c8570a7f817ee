import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancelledError, HaikuError } from '../../../src/core/errors';
import { decodeCommonPng } from '../../../src/node/convert/pictures/pngDecoder';
import { recognizeImage, rotateClockwise, shutdownOcrEngine, unrotateBox, type OcrBox, type OcrResult } from '../../../src/node/ocr/ocrEngine';
import { formatsRoot, wordCounts } from '../../support/formatRecall';

/**
 * OCR on docling's scanned test page (`ocr/ocr_test.pdf`, rendered once to PNG at 144 dpi and committed beside it)
 * and its copy turned 90°: the text against docling's ground truth, the turn, and where the words are.
 */
const ocrFolder = path.join(formatsRoot, 'ocr');
const groundTruth = fs.readFileSync(path.join(ocrFolder, 'ocr_test.pdf.groundtruth.md'), 'utf8');

function recall(expected: string, text: string): number {
  const wanted = wordCounts(expected);
  const found = wordCounts(text);
  let total = 0;
  let matched = 0;
  for (const [word, count] of wanted) {
    total += count;
    matched += Math.min(count, found.get(word) ?? 0);
  }
  return matched / total;
}

function word(result: OcrResult, text: string): OcrBox {
  const found = result.lines.flatMap((line) => line.words).find((candidate) => candidate.text === text);
  assert.ok(found, `no word '${text}' in ${JSON.stringify(result.text)}`);
  return found.box;
}

function inside(box: OcrBox, width: number, height: number): boolean {
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height && box.width > 0 && box.height > 0;
}

describe('OCR engine (tesseract.js)', function () {
  this.timeout(180_000);
  after(() => shutdownOcrEngine());

  it('reads the upright scanned page with word recall >= 0.75 and boxes on the words', async () => {
    const result = await recognizeImage(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test.png'))), { languages: ['eng'] });
    assert.ok(recall(groundTruth, result.text) >= 0.75, `recall ${recall(groundTruth, result.text)}: ${result.text}`);
    assert.equal(result.rotation, 0);
    assert.ok(result.confidence > 70, `confidence ${result.confidence}`);
    assert.ok(result.paragraphs.length >= 1 && result.lines.length >= 3, `${result.paragraphs.length} paragraphs, ${result.lines.length} lines`);
    // 1191x1684 page: the text sits in the top left, "Docling" first on the first line, "package" alone below.
    const docling = word(result, 'Docling');
    const packageWord = word(result, 'package');
    assert.ok(inside(docling, 1191, 1684) && docling.width > docling.height, JSON.stringify(docling));
    assert.ok(docling.y < 400 && docling.x < 300, JSON.stringify(docling));
    assert.ok(packageWord.y > docling.y + docling.height, 'the last line lies below the first');
    for (const line of result.lines) {
      assert.ok(inside(line.box, 1191, 1684));
      for (const child of line.words) {
        assert.ok(child.box.x >= line.box.x - 1 && child.box.x + child.box.width <= line.box.x + line.box.width + 1, 'a word lies inside its line');
      }
    }
  });

  it('detects the page turned 90 degrees and gives boxes in the turned image as given', async () => {
    const result = await recognizeImage(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test_rotated_90.png'))), { languages: ['eng'] });
    assert.ok(result.rotation === 90 || result.rotation === 270, `rotation ${result.rotation}`);
    assert.ok(recall(groundTruth, result.text) >= 0.75, `recall ${recall(groundTruth, result.text)}: ${result.text}`);
    // 1684x1191 landscape image with the text running bottom to top along the left edge: words are tall boxes.
    const docling = word(result, 'Docling');
    assert.ok(inside(docling, 1684, 1191), JSON.stringify(docling));
    assert.ok(docling.height > docling.width, `a sideways word is taller than wide: ${JSON.stringify(docling)}`);
    assert.ok(docling.x < 300 && docling.y > 700, `"Docling" starts at the bottom left: ${JSON.stringify(docling)}`);
  });

  it('detects a page upside down and one turned clockwise (raw pixels), boxes back in the given image', async () => {
    const decoded = decodeCommonPng(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test.png'))))!;
    const grey = { width: decoded.width, height: decoded.height, data: new Uint8Array(decoded.width * decoded.height) };
    for (let pixel = 0; pixel < grey.data.length; pixel++) {
      grey.data[pixel] = decoded.data[pixel * 4];
    }
    // Turning the page clockwise by t needs a further 360 - t to stand upright again.
    for (const [turn, expected] of [[180, 180], [90, 270]] as const) {
      const turned = rotateClockwise(grey, turn);
      const rgba = new Uint8Array(turned.data.length * 4);
      for (let pixel = 0; pixel < turned.data.length; pixel++) {
        rgba.fill(turned.data[pixel], pixel * 4, pixel * 4 + 3);
        rgba[pixel * 4 + 3] = 255;
      }
      const result = await recognizeImage({ data: rgba, width: turned.width, height: turned.height }, { languages: ['eng'] });
      assert.equal(result.rotation, expected, `turned ${turn}`);
      assert.ok(recall(groundTruth, result.text) >= 0.75, `turned ${turn}: ${result.text}`);
      // Upright, "Docling" sits at the top left; turned, its box must sit where the turn carried it.
      const upright = { x: 148, y: 156, width: 140, height: 37 };
      const docling = word(result, 'Docling');
      const centre = (box: OcrBox) => [box.x + box.width / 2, box.y + box.height / 2];
      const [ux, uy] = centre(upright);
      const [expectedX, expectedY] = turn === 180 ? [grey.width - ux, grey.height - uy] : [grey.height - uy, ux];
      const [x, y] = centre(docling);
      assert.ok(Math.abs(x - expectedX) < 20 && Math.abs(y - expectedY) < 20, `turned ${turn}: "Docling" at ${JSON.stringify(docling)}, expected its centre near ${expectedX},${expectedY}`);
    }
  });

  it('reads raw RGBA pixels as well as encoded images', async () => {
    const decoded = decodeCommonPng(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test.png'))))!;
    assert.equal(decoded.channels, 4);
    const result = await recognizeImage({ data: decoded.data, width: decoded.width, height: decoded.height }, { languages: ['eng'] });
    assert.ok(recall(groundTruth, result.text) >= 0.75, result.text);
    assert.ok(inside(word(result, 'Docling'), decoded.width, decoded.height));
  });

  it('names a language whose data is not installed and says how to install it', async () => {
    await assert.rejects(recognizeImage(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test_text.jpg'))), { languages: ['eng', 'tlh'] }), (error: unknown) => {
      assert.ok(error instanceof HaikuError && error.code === 'invalid_settings', String(error));
      assert.match(error.message, /OCR language 'tlh' is not installed/);
      assert.match(error.message, /npm install @tesseract\.js-data\/tlh/);
      assert.match(error.message, /processing\.ocr\.languages/);
      return true;
    });
    await assert.rejects(recognizeImage(new Uint8Array(8), { languages: ['../etc/passwd'] }), /not a Tesseract language code/);
    await assert.rejects(recognizeImage(new Uint8Array(8), { languages: [] }), /No OCR language is set/);
  });

  it('refuses bytes that are no image, and a malformed pixel buffer', async () => {
    await assert.rejects(recognizeImage(new TextEncoder().encode('this is not an image at all'), { languages: ['eng'] }), (error: unknown) => error instanceof HaikuError && error.code === 'corrupt_file');
    await assert.rejects(recognizeImage({ data: new Uint8Array(10), width: 100, height: 100 }, { languages: ['eng'] }), (error: unknown) => error instanceof HaikuError && error.code === 'corrupt_file');
    // A PNG signature with garbage after it: Tesseract cannot read it, and says so as a typed error.
    const damaged = new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test.png')).subarray(0, 200));
    await assert.rejects(recognizeImage(damaged, { languages: ['eng'] }), (error: unknown) => error instanceof HaikuError && error.code === 'corrupt_file');
    // A header announcing 10000x10000 pixels is refused before anything is decoded.
    const huge = new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test.png')));
    new DataView(huge.buffer, huge.byteOffset).setUint32(16, 10_000);
    new DataView(huge.buffer, huge.byteOffset).setUint32(20, 10_000);
    await assert.rejects(recognizeImage(huge, { languages: ['eng'] }), (error: unknown) => error instanceof HaikuError && error.code === 'file_too_large' && /10000x10000/.test(error.message));
  });

  it('stops on abort, and the next call starts a fresh engine', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test_rotated_90.png')));
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(recognizeImage(bytes, { languages: ['eng'], abortSignal: aborted.signal }), CancelledError);
    const controller = new AbortController();
    const running = recognizeImage(bytes, { languages: ['eng'], abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(running, CancelledError);
    const after = await recognizeImage(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test_text.webp'))), { languages: ['eng'] });
    assert.ok(recall(groundTruth, after.text) >= 0.75, after.text);
  });

  it('stops a reading past its time limit with a typed time-out', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test_rotated_90.png')));
    await recognizeImage(new Uint8Array(fs.readFileSync(path.join(ocrFolder, 'ocr_test_text.jpg'))), { languages: ['eng'] });
    await assert.rejects(recognizeImage(bytes, { languages: ['eng'], timeoutMilliseconds: 300 }), (error: unknown) => error instanceof HaikuError && error.code === 'conversion_timeout');
    const again = await recognizeImage(bytes, { languages: ['eng'] });
    assert.equal(again.rotation, 90);
  });

  it('turns pixels and maps boxes back for every quarter turn', () => {
    // 3x2 image, pixels numbered 0..5 row by row.
    const image = { width: 3, height: 2, data: Uint8Array.of(0, 1, 2, 3, 4, 5) };
    assert.deepEqual([...rotateClockwise(image, 90).data], [3, 0, 4, 1, 5, 2]);
    assert.deepEqual([...rotateClockwise(image, 180).data], [5, 4, 3, 2, 1, 0]);
    assert.deepEqual([...rotateClockwise(image, 270).data], [2, 5, 1, 4, 0, 3]);
    assert.equal(rotateClockwise(image, 90).width, 2);
    // Pixel 1 (x 1, y 0) as a 1x1 box: wherever the turn puts it, the box maps back to (1, 0).
    for (const rotation of [0, 90, 180, 270] as const) {
      const turned = rotateClockwise(image, rotation);
      const at = turned.data.indexOf(1);
      const box = { x: at % turned.width, y: Math.floor(at / turned.width), width: 1, height: 1 };
      assert.deepEqual(unrotateBox(box, rotation, 3, 2), { x: 1, y: 0, width: 1, height: 1 }, `rotation ${rotation}`);
    }
  });
});
