import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getResolvedPDFJS } from 'unpdf';
import type { ConvertedDocument, PageBox } from '../../../src/core/model/document';
import { convertPdf } from '../../../src/node/convert/pdf';
import { assemblePdf } from '../../fixtures/pdf/makePdfFixtures';
import { corpusRoot } from '../../support/paths';

/** A text-layer run in PDF user space: where pdf.js says its baseline starts, and its font size. */
interface LayerRun {
  page: number;
  text: string;
  x: number;
  y: number;
  size: number;
}

async function textLayer(bytes: Uint8Array): Promise<LayerRun[]> {
  const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(parameters: object): { promise: Promise<any>; destroy(): Promise<void> } };
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false });
  try {
    const document = await task.promise;
    const runs: LayerRun[] = [];
    for (let page = 1; page <= document.numPages; page++) {
      const content = await (await document.getPage(page)).getTextContent();
      for (const item of content.items as Array<{ str?: string; transform?: number[] }>) {
        if (item.str && item.transform) {
          runs.push({ page, text: item.str.trim(), x: item.transform[4], y: item.transform[5], size: Math.hypot(item.transform[2], item.transform[3]) });
        }
      }
    }
    return runs;
  } finally {
    await task.destroy();
  }
}

function contains(box: PageBox, run: LayerRun): boolean {
  const slack = Math.max(2, 0.6 * run.size);
  return box.page === run.page && run.x >= box.x - slack && run.x <= box.x + box.width + slack && run.y >= box.y - slack && run.y <= box.y + box.height + slack;
}

/**
 * Every distinctive text run (at least 8 characters, found in exactly one item) starts inside one of that item's
 * boxes; returns how many runs were checked.
 */
function assertBoxesCoverRuns(document: ConvertedDocument, runs: readonly LayerRun[], name: string): number {
  let checked = 0;
  const misses: string[] = [];
  for (const run of runs) {
    if (run.text.length < 8) {
      continue;
    }
    const owners = document.items.filter((item) => item.pageNumbers[0] === run.page && item.text.includes(run.text));
    if (owners.length !== 1 || !owners[0].boxes) {
      continue;
    }
    checked++;
    if (!owners[0].boxes.some((box) => contains(box, run))) {
      misses.push(`${name} p${run.page} "${run.text}" at (${run.x.toFixed(1)}, ${run.y.toFixed(1)}) outside ${JSON.stringify(owners[0].boxes)}`);
    }
  }
  assert.deepEqual(misses.slice(0, 5), [], `${misses.length} of ${checked} runs outside their item's boxes`);
  return checked;
}

describe('PDF item boxes', function () {
  this.timeout(120_000);

  for (const relativePath of ['docling/multi_page.pdf', 'docling/2305.03393v1-pg9.pdf']) {
    it(`places the items of ${relativePath} where the text layer draws their words`, async () => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(corpusRoot, 'pdf-docx', relativePath)));
      const document = await convertPdf(bytes, { fileName: path.basename(relativePath) });
      const checked = assertBoxesCoverRuns(document, await textLayer(bytes), relativePath);
      assert.ok(checked >= 20, `only ${checked} runs checked`);
      const textItems = document.items.filter((item) => item.label !== 'page_header' && item.label !== 'page_footer');
      assert.ok(textItems.every((item) => (item.boxes?.length ?? 0) > 0), 'every body item has a box');
    });
  }

  for (const rotation of [90, 270]) {
    it(`keeps boxes in unrotated user space on a page with /Rotate ${rotation}`, async () => {
      const content = 'BT /F1 18 Tf 72 720 Td (A Rotated Heading) Tj ET BT /F1 10 Tf 72 690 Td (Body text line one of the rotated page.) Tj 0 -12 Td (Body text line two.) Tj ET';
      const bytes = new Uint8Array(assemblePdf([
        Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
        Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
        Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate ${rotation} /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`),
        Buffer.from(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`),
        Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
      ], '/Root 1 0 R'));
      const document = await convertPdf(bytes, { fileName: `rotated-${rotation}.pdf` });
      assert.equal(assertBoxesCoverRuns(document, await textLayer(bytes), `rotated ${rotation}`), 3);
      const heading = document.items[0].boxes![0];
      // 18 pt Helvetica set at (72, 720): the box spans the baseline, upright.
      assert.ok(heading.x >= 70 && heading.x <= 74 && heading.y <= 722 && heading.y + heading.height >= 730 && heading.width > heading.height, JSON.stringify(heading));
    });
  }

  it('puts a figure immediately before its caption, with its box and bytes (picture_classification.pdf)', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/picture_classification.pdf')));
    const document = await convertPdf(bytes, { fileName: 'picture_classification.pdf' });
    const pictures = document.items.filter((item) => item.label === 'picture');
    assert.equal(pictures.length, 2);
    for (const [index, picture] of pictures.entries()) {
      const caption = document.items[picture.position + 1];
      assert.equal(caption.label, 'caption');
      assert.equal(caption.text, `Figure ${index + 1}: This is an example image.`);
      assert.deepEqual(picture.pageNumbers, [index + 1]);
      assert.ok(picture.picture?.bytes && picture.picture.mimeType === 'image/png');
      // The caption sits just below the picture.
      assert.ok(caption.boxes![0].y < picture.boxes![0].y && picture.boxes![0].y - (caption.boxes![0].y + caption.boxes![0].height) < 30);
    }
    const without = await convertPdf(bytes, { fileName: 'picture_classification.pdf', pictures: 'none' });
    assert.equal(without.items.filter((item) => item.label === 'picture').length, 0);
  });
});
