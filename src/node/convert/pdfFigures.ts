/**
 * Figure regions of a PDF page, found from what the page paints: raster images (XObjects, inline images, stencil
 * masks) and vector drawings (filled or stroked paths, shadings), each bounded in PDF user space and clipped by the
 * clip path and form bounding boxes in force. Marks that touch or overlap become one region, so a figure built from
 * tiles, soft masks and drawn arrows is one picture, not one per raw image. Pure geometry over pdf.js's operator list.
 */
import {
  PDF_FIGURE_BACKGROUND_PAGE_SHARE,
  PDF_FIGURE_MARKS_MAX_PER_PAGE,
  PDF_FIGURE_MERGE_GAP_POINTS,
  PDF_FIGURE_MIN_SIDE_POINTS,
  PDF_FIGURE_PROSE_MAX_CHARACTERS,
  PDF_FIGURE_RULE_MAX_THICKNESS_POINTS,
  PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS,
  PDF_VECTOR_FIGURE_MIN_SIDE_POINTS,
} from '../../core/limits';
import { IDENTITY_MATRIX, mapRectangle, multiplyMatrices, type PdfMatrix } from './pdfMatrix';
import type { PdfJsOperators } from './pictures/pdfPictures';

/** pdf.js's operator numbers (its `OPS` export) this scan follows: the picture scan's, and the masks, paths and clips. */
export interface PdfJsDrawingOperators extends PdfJsOperators {
  paintImageMaskXObject: number;
  paintImageXObjectRepeat: number;
  paintImageMaskXObjectRepeat: number;
  paintSolidColorImageMask: number;
  constructPath: number;
  clip: number;
  eoClip: number;
  shadingFill: number;
  stroke: number;
  closeStroke: number;
  fill: number;
  eoFill: number;
  fillStroke: number;
  eoFillStroke: number;
  closeFillStroke: number;
  closeEOFillStroke: number;
}

/** An axis-aligned rectangle in PDF user space (y grows upwards). */
export interface UserRectangle {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Something the page paints: a raster image or a vector drawing, with its bounds. */
export interface PaintedMark {
  kind: 'image' | 'drawing';
  box: UserRectangle;
  /** Image XObjects: pdf.js's object id and the matrix that maps the unit square onto the page (for OCR of a scan). */
  image?: { id: string; matrix: PdfMatrix };
}

/** A figure on the page: the union of marks that touch, clipped to the page. */
export interface FigureRegion {
  box: UserRectangle;
  /** Raster images painted in the region (0 for a drawing). */
  images: number;
}

/** A text line of the page in user space, to tell figures from text boxes, shaded code and tables. */
export interface PageTextBox {
  box: UserRectangle;
  characters: number;
  /** Monospaced: a line of code, which a framed or shaded listing holds (not a figure however short its lines). */
  monospace: boolean;
  table: boolean;
}

/**
 * Everything the page paints, as user-space rectangles. Text is left out (it is the text layer); paths that only
 * clip are not paint. Drawing marks stop at `PDF_FIGURE_MARKS_MAX_PER_PAGE` (a map of thousands of paths); images
 * are always listed.
 */
export function scanPaintedMarks(list: { fnArray: ArrayLike<number>; argsArray: ArrayLike<unknown> }, operators: PdfJsDrawingOperators): PaintedMark[] {
  const marks: PaintedMark[] = [];
  const paintOperations = new Set([
    operators.stroke, operators.closeStroke, operators.fill, operators.eoFill, operators.fillStroke, operators.eoFillStroke,
    operators.closeFillStroke, operators.closeEOFillStroke,
  ]);
  const imageOperations = new Set([
    operators.paintImageXObject, operators.paintInlineImageXObject, operators.paintImageMaskXObject, operators.paintImageXObjectRepeat,
    operators.paintImageMaskXObjectRepeat, operators.paintSolidColorImageMask,
  ]);
  interface State { matrix: PdfMatrix; clip?: UserRectangle }
  const stack: State[] = [];
  let state: State = { matrix: IDENTITY_MATRIX };
  let pendingClip = false;
  let drawings = 0;
  const add = (kind: PaintedMark['kind'], box: UserRectangle | undefined, image?: PaintedMark['image']) => {
    const clipped = box && state.clip ? intersect(box, state.clip) : box;
    if (clipped && clipped.x1 > clipped.x0 && clipped.y1 > clipped.y0) {
      marks.push(image ? { kind, box: clipped, image } : { kind, box: clipped });
    }
  };
  for (let index = 0; index < list.fnArray.length; index++) {
    const operation = list.fnArray[index];
    const args = list.argsArray[index] as unknown[] | null | undefined;
    if (operation === operators.save) {
      stack.push(state);
    } else if (operation === operators.restore) {
      state = stack.pop() ?? { matrix: IDENTITY_MATRIX };
    } else if (operation === operators.transform) {
      state = { ...state, matrix: multiplyMatrices(state.matrix, args as unknown as PdfMatrix) };
    } else if (operation === operators.paintFormXObjectBegin) {
      stack.push(state);
      const matrix = isMatrix(args?.[0]) ? multiplyMatrices(state.matrix, args[0]) : state.matrix;
      const bounds = isBox(args?.[1]) ? mapped(matrix, args[1]) : undefined;
      state = { matrix, clip: bounds && state.clip ? intersect(bounds, state.clip) ?? emptyAt(bounds) : bounds ?? state.clip };
    } else if (operation === operators.paintFormXObjectEnd) {
      state = stack.pop() ?? { matrix: IDENTITY_MATRIX };
    } else if (operation === operators.clip || operation === operators.eoClip) {
      pendingClip = true;
    } else if (operation === operators.constructPath) {
      const paint = args?.[0] as number;
      const bounds = isBox(args?.[2]) ? mapped(state.matrix, args[2]) : undefined;
      if (paintOperations.has(paint) && drawings < PDF_FIGURE_MARKS_MAX_PER_PAGE) {
        drawings++;
        add('drawing', bounds);
      }
      if (pendingClip) {
        pendingClip = false;
        if (bounds) {
          state = { ...state, clip: state.clip ? intersect(bounds, state.clip) ?? emptyAt(bounds) : bounds };
        }
      }
    } else if (operation === operators.shadingFill) {
      // `sh` paints the whole clip region; without a clip it floods the page (a background, not a figure).
      if (state.clip && drawings < PDF_FIGURE_MARKS_MAX_PER_PAGE) {
        drawings++;
        add('drawing', state.clip);
      }
    } else if (imageOperations.has(operation)) {
      // An image fills the unit square of its transform.
      const id = operation === operators.paintImageXObject && typeof args?.[0] === 'string' ? args[0] : undefined;
      add('image', mapped(state.matrix, [0, 0, 1, 1]), id ? { id, matrix: state.matrix } : undefined);
    }
  }
  return marks;
}

/**
 * The page's figure regions, top of the page first. Rules (lines thinner than `PDF_FIGURE_RULE_MAX_THICKNESS_POINTS`),
 * page-sized backgrounds, drawings behind text lines (text boxes, shaded code, highlighted words) and drawings over
 * tables are not figure content. Touching marks merge; a region keeps only if it is large enough
 * (`PDF_FIGURE_MIN_SIDE_POINTS`; a drawing without images `PDF_VECTOR_FIGURE_MIN_SIDE_POINTS`) and holds no more
 * running text than a figure's labels.
 */
export function figureRegions(marks: readonly PaintedMark[], page: UserRectangle, text: readonly PageTextBox[]): FigureRegion[] {
  const pageArea = area(page);
  const prose = text.filter((line) => !line.table && (line.monospace || line.characters > PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS));
  const tables = text.filter((line) => line.table);
  const kept = marks.filter((mark) => {
    const clipped = intersect(mark.box, page);
    if (!clipped || area(clipped) >= PDF_FIGURE_BACKGROUND_PAGE_SHARE * pageArea) {
      return false;
    }
    if (mark.kind === 'image') {
      return true;
    }
    const thickness = Math.min(clipped.x1 - clipped.x0, clipped.y1 - clipped.y0);
    return thickness >= PDF_FIGURE_RULE_MAX_THICKNESS_POINTS
      && !prose.some((line) => contains(clipped, centre(line.box)))
      && !tables.some((table) => intersect(clipped, table.box) !== undefined);
  }).map((mark) => ({ kind: mark.kind, box: intersect(mark.box, page) as UserRectangle }));
  const regions: FigureRegion[] = [];
  for (const cluster of clusters(kept)) {
    const images = cluster.filter((mark) => mark.kind === 'image').length;
    const drawn = cluster.map((mark) => mark.box).reduce(union);
    // Labels (axis ticks, callouts) set as text at the drawing's edge belong to the figure.
    const labels = text.filter((line) => !line.table && !line.monospace && line.characters <= PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS && touches(line.box, drawn));
    const box = intersect(labels.map((line) => line.box).reduce(union, drawn), page) ?? drawn;
    const minSide = images > 0 ? PDF_FIGURE_MIN_SIDE_POINTS : PDF_VECTOR_FIGURE_MIN_SIDE_POINTS;
    if (Math.min(box.x1 - box.x0, box.y1 - box.y0) < minSide) {
      continue;
    }
    const proseInside = prose.filter((line) => contains(box, centre(line.box))).reduce((sum, line) => sum + line.characters, 0);
    if (proseInside > PDF_FIGURE_PROSE_MAX_CHARACTERS) {
      continue;
    }
    regions.push({ box, images });
  }
  return regions.sort((first, second) => second.box.y1 - first.box.y1 || first.box.x0 - second.box.x0);
}

/** A page region at least this much covered by images is an image of the page (a scan). */
export function imageShareOfPage(marks: readonly PaintedMark[], page: UserRectangle): number {
  const largest = Math.max(0, ...marks.filter((mark) => mark.kind === 'image').map((mark) => area(intersect(mark.box, page) ?? emptyAt(page))));
  return largest / Math.max(1, area(page));
}

/** Groups marks whose boxes touch (within `PDF_FIGURE_MERGE_GAP_POINTS`), then merges groups whose bounds overlap. */
function clusters<T extends { box: UserRectangle }>(marks: readonly T[]): T[][] {
  const parent = marks.map((_, index) => index);
  const root = (index: number): number => {
    while (parent[index] !== index) {
      parent[index] = parent[parent[index]];
      index = parent[index];
    }
    return index;
  };
  // Sorted by left edge, so a pair is only compared while the second starts within reach of the first's right edge.
  const order = marks.map((_, index) => index).sort((first, second) => marks[first].box.x0 - marks[second].box.x0);
  for (let i = 0; i < order.length; i++) {
    const first = marks[order[i]].box;
    for (let j = i + 1; j < order.length && marks[order[j]].box.x0 <= first.x1 + PDF_FIGURE_MERGE_GAP_POINTS; j++) {
      if (touches(first, marks[order[j]].box)) {
        parent[root(order[j])] = root(order[i]);
      }
    }
  }
  const byRoot = new Map<number, T[]>();
  marks.forEach((mark, index) => {
    const key = root(index);
    byRoot.set(key, [...(byRoot.get(key) ?? []), mark]);
  });
  let groups = [...byRoot.values()];
  // Groups whose bounds overlap (an L-shaped figure around another's corner) are one figure.
  for (let merged = true; merged;) {
    merged = false;
    const bounds = groups.map((group) => group.map((mark) => mark.box).reduce(union));
    outer: for (let i = 0; i < groups.length; i++) {
      for (let j = i + 1; j < groups.length; j++) {
        if (touches(bounds[i], bounds[j])) {
          groups = [...groups.slice(0, i), [...groups[i], ...groups[j]], ...groups.slice(i + 1, j), ...groups.slice(j + 1)];
          merged = true;
          break outer;
        }
      }
    }
  }
  return groups;
}

function touches(first: UserRectangle, second: UserRectangle): boolean {
  const gap = PDF_FIGURE_MERGE_GAP_POINTS;
  return first.x0 <= second.x1 + gap && second.x0 <= first.x1 + gap && first.y0 <= second.y1 + gap && second.y0 <= first.y1 + gap;
}

export function intersect(first: UserRectangle, second: UserRectangle): UserRectangle | undefined {
  const box = { x0: Math.max(first.x0, second.x0), y0: Math.max(first.y0, second.y0), x1: Math.min(first.x1, second.x1), y1: Math.min(first.y1, second.y1) };
  return box.x1 > box.x0 && box.y1 > box.y0 ? box : undefined;
}

function union(first: UserRectangle, second: UserRectangle): UserRectangle {
  return { x0: Math.min(first.x0, second.x0), y0: Math.min(first.y0, second.y0), x1: Math.max(first.x1, second.x1), y1: Math.max(first.y1, second.y1) };
}

function area(box: UserRectangle): number {
  return Math.max(0, box.x1 - box.x0) * Math.max(0, box.y1 - box.y0);
}

function centre(box: UserRectangle): [number, number] {
  return [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2];
}

function contains(box: UserRectangle, [x, y]: [number, number]): boolean {
  return x >= box.x0 && x <= box.x1 && y >= box.y0 && y <= box.y1;
}

/** A clip that shrank to nothing: an empty rectangle, so nothing painted under it counts. */
function emptyAt(box: UserRectangle): UserRectangle {
  return { x0: box.x0, y0: box.y0, x1: box.x0, y1: box.y0 };
}

function mapped(matrix: PdfMatrix, box: ArrayLike<number>): UserRectangle {
  const { left, top, right, bottom } = mapRectangle(matrix, box[0], box[1], box[2], box[3]);
  return { x0: left, y0: top, x1: right, y1: bottom };
}

function isMatrix(value: unknown): value is PdfMatrix {
  return (Array.isArray(value) || ArrayBuffer.isView(value)) && (value as ArrayLike<number>).length === 6;
}

function isBox(value: unknown): value is ArrayLike<number> {
  return (Array.isArray(value) || ArrayBuffer.isView(value)) && (value as ArrayLike<number>).length === 4
    && Array.from(value as ArrayLike<number>).every((number) => Number.isFinite(number));
}
