import type { DrawnRectangle, PdfBox } from '../../shared/pdfViewerProtocol';

/** The part of a pdf.js page viewport the highlight needs (PDF user space → CSS pixels, rotation included). */
export interface ViewportTransform {
  convertToViewportPoint(x: number, y: number): number[];
}

/**
 * Where a box is drawn on its page: the viewport maps PDF user space (bottom-left origin, before rotation) to the
 * page's CSS pixels (top-left origin, after rotation and zoom); the corners may come back swapped on rotated pages.
 */
export function rectangleOnPage(box: PdfBox, viewport: ViewportTransform, strength: DrawnRectangle['strength']): DrawnRectangle {
  const [x1, y1] = viewport.convertToViewportPoint(box.x, box.y);
  const [x2, y2] = viewport.convertToViewportPoint(box.x + box.width, box.y + box.height);
  return { page: box.page, strength, left: Math.min(x1, x2), top: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

/** The pages a highlight touches, ascending. */
export function highlightedPages(chunkBoxes: readonly PdfBox[], contextBoxes: readonly PdfBox[]): number[] {
  return [...new Set([...chunkBoxes, ...contextBoxes].map((box) => box.page))].sort((left, right) => left - right);
}
