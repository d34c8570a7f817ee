import { createIsomorphicCanvasFactory, getResolvedPDFJS } from 'unpdf';
import { OCR_MAX_IMAGE_PIXELS } from '../../core/limits';
import type { RawImage } from './pictures/pngEncoder';
import { mapRectangle, type PdfMatrix } from './pdfMatrix';
import type { UserRectangle } from './pdfFigures';

/** Pixels of a rendered page or region, and how PDF user space maps onto them. */
export interface RenderedPixels {
  /** RGBA, 8 bits per channel, on white. */
  image: RawImage & { channels: 4 };
  /** User space → the image's pixels (origin top-left). */
  transform: PdfMatrix;
}

interface PdfJsRenderPage {
  rotate: number;
  view: number[];
  getViewport(parameters: { scale: number; offsetX?: number; offsetY?: number }): { width: number; height: number; transform: number[] };
  render(parameters: { canvas: unknown; canvasContext: unknown; viewport: unknown; background?: string }): { promise: Promise<void>; cancel(): void };
  cleanup(): void;
}

interface PdfJsRenderDocument {
  getPage(pageNumber: number): Promise<PdfJsRenderPage>;
}

interface NodeCanvasContext {
  getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray; width: number; height: number };
}

/**
 * Renders regions of a PDF's pages as a reader sees them (soft masks applied, tiles composited, vector drawings and
 * text on top) with pdf.js drawing into @napi-rs/canvas. The rendering document is opened on first use, apart from
 * the one text is read from: rendering needs glyph outlines (font faces off) and a canvas factory, text reading
 * neither. Where @napi-rs/canvas cannot load (a platform without its binary) `available()` is false.
 */
export class PdfPageRenderer {
  private opened?: Promise<{ document: PdfJsRenderDocument; destroy(): Promise<void> } | undefined>;

  constructor(private readonly bytes: Uint8Array) {}

  /** Whether pages can be rendered here (opens the rendering document once). */
  async available(): Promise<boolean> {
    return (await this.open()) !== undefined;
  }

  /**
   * The pixels of a user-space rectangle of a page at `scale` pixels per point (pdf.js applies the page's
   * /Rotate, so the picture is upright as a reader sees it). Undefined where rendering is not available.
   */
  async renderRegion(pageNumber: number, box: UserRectangle, scale: number, abortSignal?: AbortSignal): Promise<RenderedPixels | undefined> {
    const opened = await this.open();
    if (!opened) {
      return undefined;
    }
    const page = await opened.document.getPage(pageNumber);
    try {
      const full = page.getViewport({ scale });
      const rectangle = mapRectangle(full.transform, box.x0, box.y0, box.x1, box.y1);
      const left = Math.floor(rectangle.left);
      const top = Math.floor(rectangle.top);
      const width = Math.max(1, Math.ceil(rectangle.right) - left);
      const height = Math.max(1, Math.ceil(rectangle.bottom) - top);
      const viewport = page.getViewport({ scale, offsetX: -left, offsetY: -top });
      const canvasModule = await import('@napi-rs/canvas');
      const canvas = canvasModule.createCanvas(width, height);
      const context = canvas.getContext('2d');
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, width, height);
      const task = page.render({ canvas, canvasContext: context, viewport });
      const cancel = () => task.cancel();
      abortSignal?.addEventListener('abort', cancel, { once: true });
      try {
        await task.promise;
      } finally {
        abortSignal?.removeEventListener('abort', cancel);
      }
      const pixels = (context as unknown as NodeCanvasContext).getImageData(0, 0, width, height);
      return { image: { width, height, channels: 4, data: pixels.data }, transform: viewport.transform };
    } finally {
      page.cleanup();
    }
  }

  /** The whole page (its crop box), as `renderRegion`. */
  async renderPage(pageNumber: number, scale: number, abortSignal?: AbortSignal): Promise<RenderedPixels | undefined> {
    const opened = await this.open();
    if (!opened) {
      return undefined;
    }
    const page = await opened.document.getPage(pageNumber);
    const [x0, y0, x1, y1] = page.view;
    return this.renderRegion(pageNumber, { x0, y0, x1, y1 }, scale, abortSignal);
  }

  /** The page's size in points (its crop box); undefined where rendering is not available. */
  async pageSize(pageNumber: number): Promise<{ width: number; height: number } | undefined> {
    const opened = await this.open();
    if (!opened) {
      return undefined;
    }
    const [x0, y0, x1, y1] = (await opened.document.getPage(pageNumber)).view;
    return { width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
  }

  async dispose(): Promise<void> {
    const opened = await this.opened?.catch(() => undefined);
    this.opened = undefined;
    await opened?.destroy().catch(() => undefined);
  }

  private open(): Promise<{ document: PdfJsRenderDocument; destroy(): Promise<void> } | undefined> {
    this.opened ??= (async () => {
      try {
        await import('@napi-rs/canvas');
      } catch {
        return undefined;
      }
      const CanvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
      const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(parameters: Record<string, unknown>): { promise: Promise<PdfJsRenderDocument>; destroy(): Promise<void> } };
      const task = pdfjs.getDocument({
        data: new Uint8Array(this.bytes),
        verbosity: 0,
        isEvalSupported: false,
        // Node has no FontFace: glyphs are drawn from their outlines instead.
        disableFontFace: true,
        useSystemFonts: false,
        isOffscreenCanvasSupported: false,
        stopAtErrors: false,
        // A scan at 600 dpi passes the picture limit; rendering it for OCR needs it decoded (bounded by OCR's own limit).
        maxImageSize: OCR_MAX_IMAGE_PIXELS,
        CanvasFactory,
      });
      try {
        return { document: await task.promise, destroy: () => task.destroy() };
      } catch {
        await task.destroy().catch(() => undefined);
        return undefined;
      }
    })();
    return this.opened;
  }
}
