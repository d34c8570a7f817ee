/**
 * PDF transformation matrices `[a, b, c, d, e, f]` (x' = a·x + c·y + e, y' = b·x + d·y + f), as pdf.js hands
 * them out. One place for composing, inverting and mapping rectangles, shared by the converter, the picture
 * extractor and the page renderer.
 */
export type PdfMatrix = readonly number[];

export const IDENTITY_MATRIX: PdfMatrix = [1, 0, 0, 1, 0, 0];

/** `first ∘ second`: the matrix that applies `second`, then `first` (pdf.js's `Util.transform(first, second)`). */
export function multiplyMatrices(first: PdfMatrix, second: PdfMatrix): number[] {
  return [
    first[0] * second[0] + first[2] * second[1],
    first[1] * second[0] + first[3] * second[1],
    first[0] * second[2] + first[2] * second[3],
    first[1] * second[2] + first[3] * second[3],
    first[0] * second[4] + first[2] * second[5] + first[4],
    first[1] * second[4] + first[3] * second[5] + first[5],
  ];
}

export function applyMatrix(matrix: PdfMatrix, x: number, y: number): [number, number] {
  return [matrix[0] * x + matrix[2] * y + matrix[4], matrix[1] * x + matrix[3] * y + matrix[5]];
}

/** The inverse; a degenerate matrix (determinant 0) is treated as having determinant 1 rather than dividing by zero. */
export function invertMatrix(matrix: PdfMatrix): number[] {
  const [a, b, c, d, e, f] = matrix;
  const determinant = a * d - b * c || 1;
  return [d / determinant, -b / determinant, -c / determinant, a / determinant, (c * f - d * e) / determinant, (b * e - a * f) / determinant];
}

/** The axis-aligned bounds of the rectangle between two corners after mapping it (exact for quarter-turn rotations). */
export function mapRectangle(matrix: PdfMatrix, x0: number, y0: number, x1: number, y1: number): { left: number; top: number; right: number; bottom: number } {
  const corners = [applyMatrix(matrix, x0, y0), applyMatrix(matrix, x1, y0), applyMatrix(matrix, x0, y1), applyMatrix(matrix, x1, y1)];
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}

/** A mapped rectangle as a page box (points rounded to 1/100). */
export function mapToPageBox(matrix: PdfMatrix, page: number, x0: number, y0: number, x1: number, y1: number): { page: number; x: number; y: number; width: number; height: number } {
  const { left, top, right, bottom } = mapRectangle(matrix, x0, y0, x1, y1);
  const round = (value: number) => Math.round(value * 100) / 100;
  return { page, x: round(left), y: round(top), width: round(right - left), height: round(bottom - top) };
}
