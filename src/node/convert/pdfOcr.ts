import { PDF_OCR_RENDER_MAX_PIXELS, PDF_OCR_RENDER_SCALE } from '../../core/limits';
import { recognizeImage, type OcrBox, type OcrResult } from '../ocr/ocrEngine';
import type { PdfLine } from './pdfLayout';
import { invertMatrix, mapRectangle, multiplyMatrices, type PdfMatrix } from './pdfMatrix';
import type { PdfPageRenderer } from './pdfRender';
import type { PdfJsImage } from './pictures/pdfPictures';

/** A scanned page read by OCR: its lines in an upright frame, and that frame's way back to user space. */
export interface OcrPageLines {
  lines: PdfLine[];
  /** Frame size in points (the page as the text reads, turned upright when the scan was sideways). */
  width: number;
  height: number;
  /** Maps the frame back to PDF user space (for item boxes). */
  toUserSpace: number[];
  /** The clockwise turn (degrees) that made the scan upright. */
  rotation: OcrResult['rotation'];
}

/** What OCR is asked with. */
export interface PdfOcrOptions {
  languages: readonly string[];
  abortSignal?: AbortSignal;
  timeoutMilliseconds?: number;
}

/**
 * Renders one page (`PDF_OCR_RENDER_SCALE`, about 300 dpi, less for pages over `PDF_OCR_RENDER_MAX_PIXELS`) and
 * reads it with OCR. Undefined where pages cannot be rendered (no @napi-rs/canvas).
 */
export async function recognizeRenderedPage(renderer: PdfPageRenderer, pageNumber: number, options: PdfOcrOptions): Promise<OcrPageLines | undefined> {
  const size = await renderer.pageSize(pageNumber);
  if (!size) {
    return undefined;
  }
  const scale = Math.min(PDF_OCR_RENDER_SCALE, Math.sqrt(PDF_OCR_RENDER_MAX_PIXELS / Math.max(1, size.width * size.height)));
  const rendered = await renderer.renderPage(pageNumber, scale, options.abortSignal);
  if (!rendered) {
    return undefined;
  }
  const result = await recognizeImage(rendered.image, { languages: options.languages, abortSignal: options.abortSignal, timeoutMilliseconds: options.timeoutMilliseconds });
  return ocrPageLines(result, pageNumber, rendered.image, invertMatrix(rendered.transform));
}

/**
 * Reads a scan, the image a scanned page paints, with OCR straight from its decoded pixels: no rendering (so no
 * @napi-rs/canvas), and a 600 dpi scan is averaged down to about 300 dpi (`PDF_OCR_RENDER_SCALE`) by whole pixel
 * blocks first. `matrix` maps the image's unit square onto the page. Undefined for pixel layouts pdf.js left packed.
 */
export async function recognizeScanImage(image: PdfJsImage, matrix: PdfMatrix, pageNumber: number, options: PdfOcrOptions): Promise<OcrPageLines | undefined> {
  const { width, height, kind, data } = image;
  const channels = kind === 1 ? 1 : kind === 2 ? 3 : kind === 3 ? 4 : undefined;
  if (!width || !height || !data || !channels || data.length < (channels === 1 ? ((width + 7) >> 3) * height : width * height * channels)) {
    return undefined;
  }
  // Pixels per point of the scan as placed on the page, and the block size that brings it to the OCR resolution.
  const pointsWide = Math.hypot(matrix[0], matrix[1]);
  const pointsHigh = Math.hypot(matrix[2], matrix[3]);
  const density = Math.max(width / Math.max(1, pointsWide), height / Math.max(1, pointsHigh));
  const block = Math.max(1, Math.floor(density / PDF_OCR_RENDER_SCALE), Math.ceil(Math.sqrt((width * height) / PDF_OCR_RENDER_MAX_PIXELS)));
  const reduced = averageToRgba(data, width, height, channels, block);
  const result = await recognizeImage(reduced, { languages: options.languages, abortSignal: options.abortSignal, timeoutMilliseconds: options.timeoutMilliseconds });
  // Reduced pixels (origin top-left) → the image's unit square (origin bottom-left) → user space.
  const pixelToUnit = [block / width, 0, 0, -block / height, 0, 1];
  return ocrPageLines(result, pageNumber, reduced, multiplyMatrices(matrix, pixelToUnit));
}

/** pdf.js's pixels (1: 1-bit grey packed by row, set bits white; 3: RGB; 4: RGBA) averaged over `block` x `block` squares, as RGBA. */
function averageToRgba(data: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: 1 | 3 | 4, block: number): { data: Uint8Array; width: number; height: number } {
  const targetWidth = Math.floor(width / block) || 1;
  const targetHeight = Math.floor(height / block) || 1;
  const out = new Uint8Array(targetWidth * targetHeight * 4);
  const sums = new Float64Array(targetWidth * 3);
  for (let targetY = 0; targetY < targetHeight; targetY++) {
    sums.fill(0);
    const rows = Math.min(block, height - targetY * block);
    for (let row = 0; row < rows; row++) {
      const y = targetY * block + row;
      if (channels === 1) {
        const rowStart = y * ((width + 7) >> 3);
        for (let x = 0; x < targetWidth * block; x++) {
          const value = data[rowStart + (x >> 3)] & (0x80 >> (x & 7)) ? 255 : 0;
          const target = Math.floor(x / block) * 3;
          sums[target] += value;
          sums[target + 1] += value;
          sums[target + 2] += value;
        }
        continue;
      }
      let source = y * width * channels;
      for (let targetX = 0; targetX < targetWidth; targetX++) {
        for (let column = 0; column < block; column++, source += channels) {
          sums[targetX * 3] += data[source];
          sums[targetX * 3 + 1] += data[source + 1];
          sums[targetX * 3 + 2] += data[source + 2];
        }
      }
    }
    const count = rows * block;
    for (let targetX = 0; targetX < targetWidth; targetX++) {
      const target = (targetY * targetWidth + targetX) * 4;
      out[target] = sums[targetX * 3] / count;
      out[target + 1] = sums[targetX * 3 + 1] / count;
      out[target + 2] = sums[targetX * 3 + 2] / count;
      out[target + 3] = 255;
    }
  }
  return { data: out, width: targetWidth, height: targetHeight };
}

/**
 * OCR's lines in a frame of points where the text runs left to right (the image turned by the rotation OCR found),
 * each tagged with its OCR paragraph so the structure pass groups them as OCR did; `pixelToUser` maps the OCR'd
 * image's pixels onto the page.
 */
function ocrPageLines(result: OcrResult, pageNumber: number, image: { width: number; height: number }, pixelToUser: PdfMatrix): OcrPageLines {
  const { width, height } = image;
  const pointsPerPixel = Math.sqrt(Math.abs(pixelToUser[0] * pixelToUser[3] - pixelToUser[1] * pixelToUser[2])) || 1;
  const toFrame = multiplyMatrices([pointsPerPixel, 0, 0, pointsPerPixel, 0, 0], quarterTurn(result.rotation, width, height));
  const turned = result.rotation === 90 || result.rotation === 270;
  const lines: PdfLine[] = [];
  result.paragraphs.forEach((paragraph, paragraphIndex) => {
    for (const line of paragraph.lines) {
      const text = line.text.replace(/\s+/g, ' ').trim();
      if (text) {
        lines.push(ocrLine(pageNumber, text, line.box, toFrame, paragraphIndex));
      }
    }
  });
  return {
    lines,
    width: (turned ? height : width) * pointsPerPixel,
    height: (turned ? width : height) * pointsPerPixel,
    // Frame → pixels → user space.
    toUserSpace: multiplyMatrices(pixelToUser, invertMatrix(toFrame)),
    rotation: result.rotation,
  };
}

/** The turn of image pixels clockwise by `rotation` degrees, shifted back to positive coordinates. */
function quarterTurn(rotation: OcrResult['rotation'], width: number, height: number): PdfMatrix {
  switch (rotation) {
    case 90:
      return [0, 1, -1, 0, height, 0];
    case 180:
      return [-1, 0, 0, -1, width, height];
    case 270:
      return [0, -1, 1, 0, 0, width];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

function ocrLine(pageNumber: number, text: string, box: OcrBox, toFrame: PdfMatrix, paragraph: number): PdfLine {
  const { left, top, right, bottom } = mapRectangle(toFrame, box.x, box.y, box.x + box.width, box.y + box.height);
  // A text line's box runs from ascender to descender, about 1.2 font sizes (rounded to half points like the text layer's).
  const fontSize = Math.max(1, Math.round(((bottom - top) / 1.2) * 2) / 2);
  return {
    pageNumber, text, left, right, top, bottom, baseline: bottom - 0.2 * fontSize, fontSize,
    bold: false, italic: false, monospace: false, characterCount: text.replace(/\s+/g, '').length, runs: [], ocrParagraph: paragraph,
  };
}
