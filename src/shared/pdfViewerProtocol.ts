/**
 * The PDF viewer's message protocol between the extension host and its webview. The host names the file (as a
 * webview resource the webview fetches) and what to highlight; the webview reports what it
 * loaded and drew, so the host (and the in-host tests) know the page and the boxes the user sees.
 */

import type { PageBox } from '../core/model/document';

/** A rectangle on a PDF page in PDF user space (the stored items' boxes); re-exported for the webview's layer. */
export type PdfBox = PageBox;

/** What to draw for one jump: the chunk's own boxes strongly, the swept-in context faintly. */
export interface PdfHighlight {
  /** Increasing per viewer, so a report names the jump it answers. */
  jumpId: number;
  /** 1-based page to scroll to (the chunk's first page). */
  page: number;
  chunkBoxes: PageBox[];
  contextBoxes: PageBox[];
}

export type PdfHostToWebviewMessage =
  /** `url`: the file as a webview resource (the webview fetches it; buffers do not cross every host's message bridge). */
  | { type: 'open'; url: string; title: string; highlight?: PdfHighlight; page?: number }
  | { type: 'highlight'; highlight: PdfHighlight }
  | { type: 'goToPage'; page: number };

/** Why a document did not open. */
export type PdfLoadFailure = 'password' | 'invalid' | 'other';

/** One drawn rectangle, in CSS pixels of its page at the current zoom (origin top-left). */
export interface DrawnRectangle {
  page: number;
  strength: 'chunk' | 'context';
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface PdfHighlightReport {
  jumpId: number;
  /** The page the viewer scrolled to (the highlight's page). */
  page: number;
  /** Whether the chunk's first drawn box is inside the scrolled viewport (false also when nothing was drawn). */
  chunkInView: boolean;
  rectangles: DrawnRectangle[];
  /** Whether the highlighted page has a text layer with text (false for scanned pages). */
  textLayer: boolean;
  /** From the highlight message's arrival to the highlighted page painted (ms). */
  elapsedMs: number;
  /** `performance.memory.usedJSHeapSize` of the webview when the browser exposes it (bytes). */
  usedHeapBytes?: number;
}

export type PdfWebviewToHostMessage =
  | { type: 'ready' }
  | { type: 'loaded'; pageCount: number; hasText: boolean }
  | { type: 'loadFailed'; reason: PdfLoadFailure; message: string }
  | { type: 'highlighted'; report: PdfHighlightReport }
  | { type: 'pageChanged'; page: number }
  /** Something went wrong in the webview outside a load (the host logs it). */
  | { type: 'problem'; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 1e9;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The longest failure message the host keeps from the webview. */
const MESSAGE_MAX_CHARS = 500;

function parseRectangle(value: unknown): DrawnRectangle | undefined {
  if (!isObject(value) || !isCount(value.page) || (value.strength !== 'chunk' && value.strength !== 'context')) {
    return undefined;
  }
  const { left, top, width, height } = value;
  return isFiniteNumber(left) && isFiniteNumber(top) && isFiniteNumber(width) && isFiniteNumber(height)
    ? { page: value.page, strength: value.strength, left, top, width, height }
    : undefined;
}

/** Validates what the webview posted; anything malformed is dropped by the host. */
export function parsePdfWebviewMessage(value: unknown): PdfWebviewToHostMessage | undefined {
  if (!isObject(value)) {
    return undefined;
  }
  switch (value.type) {
    case 'ready':
      return { type: 'ready' };
    case 'loaded':
      return isCount(value.pageCount) && typeof value.hasText === 'boolean' ? { type: 'loaded', pageCount: value.pageCount, hasText: value.hasText } : undefined;
    case 'loadFailed':
      return (value.reason === 'password' || value.reason === 'invalid' || value.reason === 'other') && typeof value.message === 'string'
        ? { type: 'loadFailed', reason: value.reason, message: value.message.slice(0, MESSAGE_MAX_CHARS) }
        : undefined;
    case 'problem':
      return typeof value.message === 'string' ? { type: 'problem', message: value.message.slice(0, MESSAGE_MAX_CHARS) } : undefined;
    case 'pageChanged':
      return isCount(value.page) ? { type: 'pageChanged', page: value.page } : undefined;
    case 'highlighted': {
      const report = value.report;
      if (!isObject(report) || !isCount(report.jumpId) || !isCount(report.page) || !Array.isArray(report.rectangles) || typeof report.chunkInView !== 'boolean' || typeof report.textLayer !== 'boolean' || !isFiniteNumber(report.elapsedMs)) {
        return undefined;
      }
      const rectangles = report.rectangles.map(parseRectangle);
      if (rectangles.some((rectangle) => rectangle === undefined)) {
        return undefined;
      }
      return {
        type: 'highlighted',
        report: {
          jumpId: report.jumpId,
          page: report.page,
          chunkInView: report.chunkInView,
          rectangles: rectangles as DrawnRectangle[],
          textLayer: report.textLayer,
          elapsedMs: report.elapsedMs,
          ...(isCount(report.usedHeapBytes) ? { usedHeapBytes: report.usedHeapBytes } : {}),
        },
      };
    }
    default:
      return undefined;
  }
}
