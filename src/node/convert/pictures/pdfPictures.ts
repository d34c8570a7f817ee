import type { PageBox } from '../../../core/model/document';
import { PDF_IMAGE_DECODE_TIMEOUT_MS, PDF_IMAGE_OPERATIONS_MAX_PER_PAGE, PICTURE_MAX_SOURCE_PIXELS } from '../../../core/limits';
import type { CollectedPicture, PictureCollector } from './pictureCollector';
import type { RawImage } from './pngEncoder';
import { IDENTITY_MATRIX, mapToPageBox, multiplyMatrices, type PdfMatrix } from '../pdfMatrix';

/** The parts of a pdf.js page this module reads. */
export interface PdfJsImagePage {
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  objs: PdfJsObjects;
  commonObjs: PdfJsObjects;
}

interface PdfJsObjects {
  /** Calls back once the object is resolved (pdf.js decodes images asynchronously, after the operator list). */
  get(id: string, callback: (value: unknown) => void): unknown;
}

/** pdf.js's operator numbers (its `OPS` export) that move the transform or paint an image. */
export interface PdfJsOperators {
  save: number;
  restore: number;
  transform: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  paintImageXObject: number;
  paintInlineImageXObject: number;
}

/** A raster image a page paints, where it is painted, and what the collector made of it. */
export interface PdfPagePicture extends CollectedPicture {
  box: PageBox;
}

export interface PdfJsImage {
  width?: number;
  height?: number;
  /** 1: 1-bit grey packed by row, 2: RGB, 3: RGBA (pdf.js `ImageKind`). */
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/**
 * The raster images (image XObjects and inline images) a page paints, in painting order, each with its bounding
 * box in PDF user space: the unit square mapped through the current transformation matrix, tracked across
 * save/restore and form XObjects. Image masks (stencils) are not pictures. A page painting more than
 * `PDF_IMAGE_OPERATIONS_MAX_PER_PAGE` images stops there.
 */
export async function extractPagePictures(page: PdfJsImagePage, pageNumber: number, operators: PdfJsOperators, collector: PictureCollector): Promise<PdfPagePicture[]> {
  const list = await page.getOperatorList();
  const pictures: PdfPagePicture[] = [];
  const stack: PdfMatrix[] = [];
  let matrix: PdfMatrix = IDENTITY_MATRIX;
  let imageOperations = 0;
  for (let index = 0; index < list.fnArray.length; index++) {
    const operation = list.fnArray[index];
    const args = list.argsArray[index];
    switch (operation) {
      case operators.save:
        stack.push(matrix);
        break;
      case operators.restore:
        matrix = stack.pop() ?? IDENTITY_MATRIX;
        break;
      case operators.transform:
        matrix = multiplyMatrices(matrix, args as PdfMatrix);
        break;
      case operators.paintFormXObjectBegin:
        stack.push(matrix);
        if (Array.isArray(args?.[0]) && args[0].length === 6) {
          matrix = multiplyMatrices(matrix, args[0] as PdfMatrix);
        }
        break;
      case operators.paintFormXObjectEnd:
        matrix = stack.pop() ?? IDENTITY_MATRIX;
        break;
      case operators.paintImageXObject:
      case operators.paintInlineImageXObject: {
        if (++imageOperations > PDF_IMAGE_OPERATIONS_MAX_PER_PAGE) {
          return pictures;
        }
        const image = operation === operators.paintImageXObject ? await lookUp(page, args?.[0]) : (args?.[0] as PdfJsImage | undefined);
        // An image fills the unit square of its transform.
        pictures.push({ box: mapToPageBox(matrix, pageNumber, 0, 0, 1, 1), ...collect(image, collector) });
        break;
      }
      default:
        break;
    }
  }
  return pictures;
}

/** A decoded image object; undefined when pdf.js does not resolve it in time (its decoding failed). */
export async function lookUp(page: PdfJsImagePage, key: unknown): Promise<PdfJsImage | undefined> {
  if (typeof key !== 'string') {
    return undefined;
  }
  const objects = key.startsWith('g_') ? page.commonObjs : page.objs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      new Promise<PdfJsImage | undefined>((resolve) => {
        objects.get(key, (value) => resolve(value as PdfJsImage | undefined));
      }),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), PDF_IMAGE_DECODE_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

function collect(image: PdfJsImage | undefined, collector: PictureCollector): CollectedPicture {
  const raw = image ? rawImage(image) : undefined;
  if (!raw) {
    return collector.addFailure(image && (image.width ?? 0) * (image.height ?? 0) > PICTURE_MAX_SOURCE_PIXELS ? 'too_large' : 'undecodable');
  }
  return collector.addRaw(raw);
}

/** pdf.js's decoded pixels as 8-bit channels; undefined for shapes it did not decode (bitmaps, odd sizes). */
function rawImage(image: PdfJsImage): RawImage | undefined {
  const { width, height, kind, data } = image;
  if (!width || !height || !data || width * height > PICTURE_MAX_SOURCE_PIXELS) {
    return undefined;
  }
  if (kind === 2 && data.length >= width * height * 3) {
    return { width, height, channels: 3, data };
  }
  if (kind === 3 && data.length >= width * height * 4) {
    return { width, height, channels: 4, data };
  }
  if (kind === 1) {
    const rowBytes = (width + 7) >> 3;
    if (data.length < rowBytes * height) {
      return undefined;
    }
    const grey = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        grey[y * width + x] = data[y * rowBytes + (x >> 3)] & (0x80 >> (x & 7)) ? 255 : 0;
      }
    }
    return { width, height, channels: 1, data: grey };
  }
  return undefined;
}
