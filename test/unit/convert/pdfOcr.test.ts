import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertFile } from '../../../src/node/convert/convertFile';
import { shutdownOcrEngine } from '../../../src/node/ocr/ocrEngine';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { formatsRoot, wordRecall } from '../../support/formatRecall';

/** docling's scanned page (an image, no text layer) and the same page turned by /Rotate 90, with their ground truth. */
const SCANS = ['ocr/ocr_test.pdf', 'ocr/ocr_test_rotated_90.pdf'];
/** The page size of both scans (A4, points). */
const PAGE = { width: 595.2, height: 841.92 };

describe('OCR of scanned PDF pages', function () {
  this.timeout(240_000);
  after(() => shutdownOcrEngine());
  const converted = new Map<string, ConvertedDocument>();

  for (const relativePath of SCANS) {
    it(`reads ${path.basename(relativePath)} through convertFile: word recall >= 0.75, paragraphs with page numbers and boxes inside the page`, async () => {
      const file = path.join(formatsRoot, relativePath);
      const document = await convertFile(file);
      converted.set(relativePath, document);
      const expected = fs.readFileSync(`${file}.groundtruth.md`, 'utf8');
      const paragraphs = document.items.filter((item) => item.label === 'paragraph');
      const recall = wordRecall(expected, document.items);
      assert.ok(recall >= 0.75, `recall ${recall.toFixed(2)}: ${document.items.map((item) => item.text).join(' | ')}`);
      assert.ok(paragraphs.length >= 1);
      for (const paragraph of paragraphs) {
        assert.deepEqual(paragraph.pageNumbers, [1]);
        assert.ok(paragraph.boxes && paragraph.boxes.length >= 1);
        for (const box of paragraph.boxes) {
          assert.equal(box.page, 1);
          assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= PAGE.width && box.y + box.height <= PAGE.height, JSON.stringify(box));
          assert.ok(box.width > box.height, `a line of text lies across the unrotated page: ${JSON.stringify(box)}`);
        }
      }
      // The text sits in the upper part of the page (user space: y grows upwards).
      assert.ok(paragraphs[0].boxes![0].y > PAGE.height / 2, JSON.stringify(paragraphs[0].boxes));
      assert.ok(document.warnings.some((warning) => /read by OCR/.test(warning)), document.warnings.join('\n'));
      assert.ok(!document.items.some((item) => item.label === 'picture'), 'the scan itself is not a picture');
    });
  }

  it('turned by /Rotate 90, the page gives the same words in the same user-space boxes', async () => {
    const [upright, turned] = SCANS.map((relativePath) => converted.get(relativePath));
    assert.ok(upright && turned, 'the scans were converted above');
    const boxes = (document: ConvertedDocument) => document.items.flatMap((item) => item.boxes ?? []).map((box) => [box.x, box.y, box.width, box.height].map(Math.round));
    assert.deepEqual(boxes(turned), boxes(upright));
  });

  it('with OCR off, warns that the page has no text layer and OCR is off', async () => {
    const document = await convertFile(path.join(formatsRoot, SCANS[0]), { ocr: { enabled: false, languages: ['eng'] } });
    assert.equal(document.items.filter((item) => item.label !== 'picture').length, 0);
    assert.ok(document.warnings.some((warning) => /^Page 1 has no text layer .*OCR is off/.test(warning)), document.warnings.join('\n'));
  });
});
