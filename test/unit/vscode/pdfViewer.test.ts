import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { getResolvedPDFJS } from 'unpdf';
import { parsePdfWebviewMessage } from '../../../src/shared/pdfViewerProtocol';
import { planPdfHighlight } from '../../../src/vscode/pdfViewer/pdfHighlightPlan';
import { highlightedPages, rectangleOnPage, type ViewportTransform } from '../../../src/webview/pdfViewer/highlightGeometry';
import { repositoryRoot } from '../../support/paths';

/** A real pdf.js viewport of page 1 of a sample, at a zoom and an extra rotation (what the viewer's page views use). */
type Viewport = ViewportTransform & { width: number; height: number };
type PdfJsPage = { getViewport(options: { scale: number; rotation: number }): Viewport };
type PdfJsForViewports = { getDocument(parameters: Record<string, unknown>): { promise: Promise<{ getPage(page: number): Promise<PdfJsPage> }> } };

async function viewportOf(rotation: number, scale: number): Promise<Viewport> {
  const pdfjs = (await getResolvedPDFJS()) as unknown as PdfJsForViewports;
  const bytes = new Uint8Array(fs.readFileSync(path.join(repositoryRoot, 'samples', 'papers', 'multi_page.pdf')));
  const document = await pdfjs.getDocument({ data: bytes, isEvalSupported: false, verbosity: 0 }).promise;
  return (await document.getPage(1)).getViewport({ scale, rotation });
}

describe('PDF viewer', () => {
  describe('highlight plan from stored items', () => {
    const items = [
      { selfRef: '#/texts/0', pageNumbers: [1], boxes: [{ page: 1, x: 72, y: 700, width: 400, height: 12 }] },
      { selfRef: '#/texts/1', pageNumbers: [1, 2], boxes: [{ page: 1, x: 72, y: 60, width: 400, height: 12 }, { page: 2, x: 72, y: 740, width: 200, height: 12 }] },
      { selfRef: '#/texts/2', pageNumbers: [2], boxes: [{ page: 2, x: 72, y: 700, width: 400, height: 24 }] },
      { selfRef: '#/texts/3', pageNumbers: [3] },
    ];

    it('draws the chunk\'s own boxes (both pages of a chunk spanning two), the context without them, from the first page', () => {
      const plan = planPdfHighlight(items, { docItemRefs: ['#/texts/1'], pageNumbers: [1, 2] }, ['#/texts/0', '#/texts/1', '#/texts/2']);
      assert.deepStrictEqual(plan.chunkBoxes.map((box) => box.page), [1, 2]);
      assert.deepStrictEqual(plan.contextBoxes.map((box) => [box.page, box.y]), [[1, 700], [2, 700]]);
      assert.strictEqual(plan.page, 1);
      assert.strictEqual(plan.missingBoxes, false);
      assert.deepStrictEqual(highlightedPages(plan.chunkBoxes, plan.contextBoxes), [1, 2]);
    });

    it('falls back to the chunk\'s page when its items have no boxes', () => {
      const plan = planPdfHighlight(items, { docItemRefs: ['#/texts/3'], pageNumbers: [] });
      assert.deepStrictEqual(plan, { page: 3, chunkBoxes: [], contextBoxes: [], missingBoxes: true });
      assert.strictEqual(planPdfHighlight([], { docItemRefs: ['#/gone'], pageNumbers: [] }).page, 1, 'nothing known: page 1');
    });
  });

  describe('boxes on the page (PDF user space → CSS pixels)', () => {
    it('maps a box on an upright page: bottom-left origin becomes top-left, scaled', async () => {
      const viewport = await viewportOf(0, 2);
      const height = viewport.height / 2;
      const box = { page: 1, x: 72, y: 700, width: 100, height: 20 };
      const rectangle = rectangleOnPage(box, viewport, 'chunk');
      assert.deepStrictEqual([rectangle.left, rectangle.top, rectangle.width, rectangle.height].map((value) => Math.round(value)), [144, Math.round(2 * (height - 720)), 200, 40]);
    });

    it('maps boxes of rotated pages (90°, 180°, 270°) onto the rotated page', async () => {
      const box = { page: 1, x: 72, y: 700, width: 100, height: 20 };
      const upright = await viewportOf(0, 1);
      const [width, height] = [Math.round(upright.width), Math.round(upright.height)];
      const rotated90 = rectangleOnPage(box, await viewportOf(90, 1), 'context');
      // Clockwise: the page's top edge becomes the right edge (the box near the top lands near the right), and
      // the box's height runs along x now.
      assert.deepStrictEqual([rotated90.left, rotated90.top, rotated90.width, rotated90.height].map((value) => Math.round(value)), [700, 72, 20, 100]);
      assert.ok(rotated90.left + rotated90.width > height - 150, 'near the right edge of the rotated page');
      const rotated180 = rectangleOnPage(box, await viewportOf(180, 1), 'context');
      assert.deepStrictEqual([rotated180.left, rotated180.top, rotated180.width, rotated180.height].map((value) => Math.round(value)), [width - 172, 700, 100, 20]);
      const rotated270 = rectangleOnPage(box, await viewportOf(270, 1), 'context');
      assert.deepStrictEqual([rotated270.left, rotated270.top, rotated270.width, rotated270.height].map((value) => Math.round(value)), [height - 720, width - 172, 20, 100]);
    });
  });

  describe('webview messages', () => {
    it('accepts well-formed reports and drops malformed ones', () => {
      const report = { jumpId: 3, page: 2, chunkInView: true, rectangles: [{ page: 2, strength: 'chunk', left: 1, top: 2, width: 3, height: 4 }], textLayer: true, elapsedMs: 12.5, usedHeapBytes: 1000 };
      assert.deepStrictEqual(parsePdfWebviewMessage({ type: 'highlighted', report }), { type: 'highlighted', report });
      assert.strictEqual(parsePdfWebviewMessage({ type: 'highlighted', report: { ...report, rectangles: [{ page: 2, strength: 'loud', left: 1, top: 2, width: 3, height: 4 }] } }), undefined);
      assert.strictEqual(parsePdfWebviewMessage({ type: 'highlighted', report: { ...report, page: -1 } }), undefined);
      assert.deepStrictEqual(parsePdfWebviewMessage({ type: 'loadFailed', reason: 'password', message: 'x'.repeat(2000) }), { type: 'loadFailed', reason: 'password', message: 'x'.repeat(500) });
      assert.strictEqual(parsePdfWebviewMessage({ type: 'loadFailed', reason: 'other' }), undefined);
      assert.strictEqual(parsePdfWebviewMessage({ type: 'openFile', path: '/etc/passwd' }), undefined);
      assert.deepStrictEqual(parsePdfWebviewMessage({ type: 'ready' }), { type: 'ready' });
    });
  });
});
