import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertPdf } from '../../../src/node/convert/pdf';
import { figureRegions, scanPaintedMarks, type PaintedMark, type PdfJsDrawingOperators, type UserRectangle } from '../../../src/node/convert/pdfFigures';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { corpusRoot } from '../../support/paths';
import { PDF_FIGURE_MARKS_MAX_PER_PAGE } from '../../../src/core/limits';
import { decodePng } from '../../support/png';

/** pdf.js's operator numbers (`OPS`), as the scan reads them. */
const OPS: PdfJsDrawingOperators = {
  save: 10, restore: 11, transform: 12, paintFormXObjectBegin: 74, paintFormXObjectEnd: 75, paintImageXObject: 85, paintInlineImageXObject: 86,
  paintImageMaskXObject: 83, paintImageXObjectRepeat: 88, paintImageMaskXObjectRepeat: 89, paintSolidColorImageMask: 90, constructPath: 91,
  clip: 29, eoClip: 30, shadingFill: 62, stroke: 20, closeStroke: 21, fill: 22, eoFill: 23, fillStroke: 24, eoFillStroke: 25, closeFillStroke: 26,
  closeEOFillStroke: 27,
};
const END_PATH = 28;
const PAGE: UserRectangle = { x0: 0, y0: 0, x1: 612, y1: 792 };

function rectangle(x0: number, y0: number, x1: number, y1: number): UserRectangle {
  return { x0, y0, x1, y1 };
}

/** Share of pixels that are neither near-white nor near-black, and the grey-level standard deviation. */
function pixelStatistics(image: { width: number; height: number; channels: number; data: ArrayLike<number> }): { inked: number; black: number; deviation: number } {
  let inked = 0;
  let black = 0;
  let sum = 0;
  let squares = 0;
  const count = image.width * image.height;
  for (let index = 0; index < count; index++) {
    const offset = index * image.channels;
    const grey = image.channels >= 3 ? (image.data[offset] + image.data[offset + 1] + image.data[offset + 2]) / 3 : image.data[offset];
    inked += grey < 235 && grey > 25 ? 1 : 0;
    black += grey <= 25 ? 1 : 0;
    sum += grey;
    squares += grey * grey;
  }
  const mean = sum / count;
  return { inked: inked / count, black: black / count, deviation: Math.sqrt(squares / count - mean * mean) };
}

function pictures(document: ConvertedDocument): DocumentItem[] {
  return document.items.filter((item) => item.label === 'picture');
}

async function convertCarried(relativePath: string): Promise<ConvertedDocument> {
  return convertPdf(new Uint8Array(fs.readFileSync(path.join(corpusRoot, relativePath))), { fileName: path.basename(relativePath) });
}

describe('PDF figures as a reader sees them', () => {
  describe('figureRegions', () => {
    it('merges image tiles and a drawn frame that touch into one figure, clipped to the page', () => {
      const marks: PaintedMark[] = [
        { kind: 'image', box: rectangle(100, 500, 200, 600) },
        { kind: 'image', box: rectangle(200, 500, 300, 600) },
        // The soft mask painted at the same place as its image.
        { kind: 'image', box: rectangle(200, 500, 300, 600) },
        { kind: 'drawing', box: rectangle(90, 490, 310, 610) },
        // A figure bleeding off the right edge.
        { kind: 'image', box: rectangle(500, 100, 700, 300) },
      ];
      const regions = figureRegions(marks, PAGE, []);
      assert.deepEqual(regions, [
        { box: rectangle(90, 490, 310, 610), images: 3 },
        { box: rectangle(500, 100, 612, 300), images: 1 },
      ]);
    });

    it('leaves out rules, page backgrounds, boxes around running text or code, drawings over tables and tiny icons', () => {
      const prose = { box: rectangle(72, 300, 540, 312), characters: 80, monospace: false, table: false };
      const code = { box: rectangle(80, 200, 200, 210), characters: 18, monospace: true, table: false };
      const table = { box: rectangle(72, 600, 540, 700), characters: 200, monospace: false, table: true };
      const marks: PaintedMark[] = [
        { kind: 'drawing', box: rectangle(72, 400, 540, 401) },
        { kind: 'image', box: rectangle(0, 0, 612, 792) },
        { kind: 'drawing', box: rectangle(70, 295, 545, 318) },
        { kind: 'drawing', box: rectangle(75, 190, 300, 215) },
        { kind: 'drawing', box: rectangle(72, 600, 540, 700) },
        { kind: 'image', box: rectangle(50, 50, 60, 60) },
      ];
      assert.deepEqual(figureRegions(marks, PAGE, [prose, code, table]), []);
    });

    it('keeps a chart drawn with paths whose labels are short, but not a drawing under 48 points', () => {
      const label = { box: rectangle(110, 410, 150, 420), characters: 6, monospace: false, table: false };
      const marks: PaintedMark[] = [
        { kind: 'drawing', box: rectangle(100, 400, 300, 550) },
        { kind: 'drawing', box: rectangle(150, 450, 250, 500) },
        { kind: 'drawing', box: rectangle(400, 100, 430, 130) },
      ];
      assert.deepEqual(figureRegions(marks, PAGE, [label]), [{ box: rectangle(100, 400, 300, 550), images: 0 }]);
    });
  });

  describe('scanPaintedMarks', () => {
    it('bounds images through the transform, paths through their clip, and ignores clipping paths', () => {
      const fnArray = [
        OPS.save, OPS.transform, OPS.paintImageXObject, OPS.restore,
        OPS.save, OPS.clip, OPS.constructPath, OPS.constructPath, OPS.restore,
        OPS.constructPath,
      ];
      const argsArray: unknown[] = [
        null, [200, 0, 0, 100, 50, 600], ['img_1', 10, 10], null,
        null, null, [END_PATH, [], new Float32Array([0, 0, 100, 100])], [OPS.fill, [], new Float32Array([50, 50, 300, 300])], null,
        [OPS.stroke, [], new Float32Array([10, 10, 20, 20])],
      ];
      assert.deepEqual(scanPaintedMarks({ fnArray, argsArray }, OPS), [
        { kind: 'image', box: rectangle(50, 600, 250, 700), image: { id: 'img_1', matrix: [200, 0, 0, 100, 50, 600] } },
        { kind: 'drawing', box: rectangle(50, 50, 100, 100) },
        { kind: 'drawing', box: rectangle(10, 10, 20, 20) },
      ]);
    });
  });

  it('stops listing drawings at PDF_FIGURE_MARKS_MAX_PER_PAGE (a map of countless paths), but keeps every image', () => {
    const paths = PDF_FIGURE_MARKS_MAX_PER_PAGE + 1000;
    const fnArray = [...Array.from({ length: paths }, () => OPS.constructPath), OPS.paintImageXObject];
    const argsArray: unknown[] = [...Array.from({ length: paths }, (_, index) => [OPS.fill, [], [index % 600, 10, (index % 600) + 5, 15]]), ['img_1', 1, 1]];
    const marks = scanPaintedMarks({ fnArray, argsArray }, OPS);
    assert.equal(marks.filter((mark) => mark.kind === 'drawing').length, PDF_FIGURE_MARKS_MAX_PER_PAGE);
    assert.equal(marks.filter((mark) => mark.kind === 'image').length, 1);
  });

  describe('convertPdf', function () {
    this.timeout(120_000);

    it('gives amt_handbook_sample.pdf exactly its 2 figures, each rendered with its pixels, before its caption, boxed on the page', async () => {
      const document = await convertCarried('pdf-docx/docling/amt_handbook_sample.pdf');
      const figures = pictures(document);
      assert.equal(figures.length, 2, figures.map((figure) => JSON.stringify(figure.boxes)).join('\n'));
      const captions = figures.map((figure) => document.items[figure.position + 1]);
      assert.deepEqual(captions.map((caption) => [caption.label, caption.text]), [
        ['caption', 'Figure 7-26. Self-locking nuts.'],
        ['caption', 'Figure 7-27. Stainless steel self-locking nut.'],
      ]);
      for (const figure of figures) {
        const [box] = figure.boxes!;
        assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 594 && box.y + box.height <= 774, JSON.stringify(box));
        assert.ok(box.width > 200 && box.height > 150, `a whole figure, not a tile: ${JSON.stringify(box)}`);
        const image = await decodePng(figure.picture!.bytes!);
        assert.deepEqual([image.width, image.height], [figure.picture!.width, figure.picture!.height]);
        const statistics = pixelStatistics(image);
        assert.ok(statistics.inked > 0.2, `drawn, not blank: ${JSON.stringify(statistics)}`);
        assert.ok(statistics.black < 0.3, `not a black blob: ${JSON.stringify(statistics)}`);
        assert.ok(statistics.deviation > 30, `varied pixels: ${JSON.stringify(statistics)}`);
      }
    });

    it('gives every picture of the carried corpus PDFs its pixels', async () => {
      const files = ['docling', 'py-pdf-sample-files'].flatMap((folder) => fs.readdirSync(path.join(corpusRoot, 'pdf-docx', folder))
        .filter((name) => name.endsWith('.pdf')).map((name) => `pdf-docx/${folder}/${name}`));
      let count = 0;
      for (const file of files) {
        const document = await convertCarried(file);
        for (const figure of pictures(document)) {
          count++;
          assert.ok(figure.picture?.bytes || figure.picture?.digest, `${file}: a picture on page ${figure.pageNumbers.join(',')} has no pixels`);
          const bytes = figure.picture.bytes ?? pictures(document).find((other) => other.picture?.digest === figure.picture!.digest && other.picture.bytes)!.picture!.bytes!;
          const statistics = pixelStatistics(await decodePng(bytes));
          assert.ok(statistics.deviation > 10, `${file}: a flat picture on page ${figure.pageNumbers.join(',')}`);
        }
      }
      assert.ok(count >= 5, `${count} pictures`);
    });

    it('extracts no picture items with pictures off', async () => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/amt_handbook_sample.pdf')));
      const document = await convertPdf(bytes, { fileName: 'amt_handbook_sample.pdf', pictures: 'none' });
      assert.equal(pictures(document).length, 0);
      assert.ok(document.items.some((item) => item.label === 'caption' && item.text.startsWith('Figure 7-26')));
    });
  });
});
