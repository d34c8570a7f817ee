import { createIsomorphicCanvasFactory, getResolvedPDFJS } from 'unpdf';
import type { PageBox } from '../../core/model/document';
import { ConversionError, errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import { VISUALIZE_DEFAULT_SCALE, VISUALIZE_MAX_PIXELS } from '../../core/limits';
import { mapRectangle } from '../convert/pdfMatrix';
import { ensureTransferToFixedLength } from '../convert/pdfJsShims';

/**
 * Renders one PDF page to PNG with highlight boxes drawn over it: the chunk's own items strongly, the context
 * swept in around them faintly (as haiku.rag's `visualize_chunk`). pdf.js draws into @napi-rs/canvas, a
 * prebuilt Skia binding installed per platform from the npm registry: the only maintained canvas pdf.js 5
 * supports in Node without a system toolchain; the CLI loads it lazily, and the VS Code viewer renders in the
 * webview's own canvas instead, so the extension never loads it.
 */
export interface HighlightPageOptions {
  /** 1-based page number. */
  page: number;
  /** Boxes of the chunk's own items (PDF user space); boxes of other pages are ignored. */
  strong: readonly PageBox[];
  /** Boxes of the surrounding context. */
  faint?: readonly PageBox[];
  /** Pixels per PDF point (default `VISUALIZE_DEFAULT_SCALE`). */
  scale?: number;
  fileName?: string;
  abortSignal?: AbortSignal;
}

/** A highlight as drawn, in image pixels (origin top-left). */
export interface PixelRectangle {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface HighlightedPage {
  png: Uint8Array;
  width: number;
  height: number;
  strong: PixelRectangle[];
  faint: PixelRectangle[];
}

interface NodeCanvas {
  width: number;
  height: number;
  toBuffer(mimeType: 'image/png'): Uint8Array;
}

interface NodeCanvasContext {
  fillStyle: string;
  strokeStyle: string;
  lineWidth: number;
  fillRect(x: number, y: number, width: number, height: number): void;
  strokeRect(x: number, y: number, width: number, height: number): void;
}

interface PdfJsViewport {
  width: number;
  height: number;
  transform: number[];
}

export async function renderHighlightedPage(pdfBytes: Uint8Array, options: HighlightPageOptions): Promise<HighlightedPage> {
  throwIfAborted(options.abortSignal, 'Rendering the page');
  const fileName = options.fileName ?? 'the PDF';
  const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(parameters: object): { promise: Promise<any>; destroy(): Promise<void> } };
  const CanvasFactory = await createIsomorphicCanvasFactory(loadCanvas);
  // Without these a page rendered in Node 20 showed no text and no pictures, only the boxes over its lines: pdf.js 5
  // ships fonts with `transferToFixedLength` (Node 21+), and Node has no FontFace (glyphs are drawn from outlines).
  ensureTransferToFixedLength();
  const task = pdfjs.getDocument({
    data: new Uint8Array(pdfBytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    CanvasFactory,
  });
  try {
    let document;
    try {
      document = await task.promise;
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      throw new ConversionError(name === 'PasswordException' ? 'encrypted_file' : 'corrupt_file', fileName, name === 'PasswordException' ? 'is password-protected; its pages cannot be rendered.' : 'could not be opened as a PDF for rendering.', { cause: error });
    }
    if (options.page < 1 || options.page > document.numPages) {
      throw new ConversionError('not_found', fileName, `has no page ${options.page} (it has ${document.numPages}).`);
    }
    const page = await document.getPage(options.page);
    const unscaled = page.getViewport({ scale: 1 }) as PdfJsViewport;
    // Huge pages (posters, maps) render at a smaller scale instead of allocating gigabytes.
    const requested = options.scale ?? VISUALIZE_DEFAULT_SCALE;
    const scale = Math.min(requested, Math.sqrt(VISUALIZE_MAX_PIXELS / Math.max(1, unscaled.width * unscaled.height)));
    const viewport = page.getViewport({ scale }) as PdfJsViewport;
    const factory = new CanvasFactory();
    // In Node the factory hands out @napi-rs/canvas objects (2D context always present, `toBuffer` for PNG).
    const { canvas, context } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height)) as unknown as { canvas: NodeCanvas; context: NodeCanvasContext };
    throwIfAborted(options.abortSignal, 'Rendering the page');
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    const faint = (options.faint ?? []).filter((box) => box.page === options.page).map((box) => toPixels(box, viewport));
    const strong = options.strong.filter((box) => box.page === options.page).map((box) => toPixels(box, viewport));
    context.fillStyle = 'rgba(66, 133, 244, 0.12)';
    for (const rectangle of faint) {
      context.fillRect(rectangle.left, rectangle.top, rectangle.width, rectangle.height);
    }
    context.fillStyle = 'rgba(255, 193, 7, 0.38)';
    context.strokeStyle = 'rgba(230, 120, 0, 0.9)';
    context.lineWidth = Math.max(1, scale);
    for (const rectangle of strong) {
      context.fillRect(rectangle.left, rectangle.top, rectangle.width, rectangle.height);
      context.strokeRect(rectangle.left, rectangle.top, rectangle.width, rectangle.height);
    }
    const png = new Uint8Array(canvas.toBuffer('image/png'));
    page.cleanup();
    return { png, width: canvas.width, height: canvas.height, strong, faint };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

/** @napi-rs/canvas, or an error saying how to get it (bundles leave the native binary out; see esbuild.mjs). */
async function loadCanvas(): Promise<typeof import('@napi-rs/canvas')> {
  try {
    return await import('@napi-rs/canvas');
  } catch (error) {
    throw new HaikuError('invalid_settings', `Rendering PDF pages needs the @napi-rs/canvas package, which could not be loaded (${errorMessage(error)}). Install it next to Haiku: \`npm install @napi-rs/canvas\`.`, { cause: error });
  }
}

/** A user-space box as pixels of the rendered page (the viewport applies /Rotate and the y flip), padded slightly. */
function toPixels(box: PageBox, viewport: PdfJsViewport): PixelRectangle {
  const mapped = mapRectangle(viewport.transform, box.x, box.y, box.x + box.width, box.y + box.height);
  const padding = 2;
  const left = Math.max(0, Math.floor(mapped.left - padding));
  const top = Math.max(0, Math.floor(mapped.top - padding));
  return { left, top, width: Math.ceil(mapped.right + padding) - left, height: Math.ceil(mapped.bottom + padding) - top };
}
