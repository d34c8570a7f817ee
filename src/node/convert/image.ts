import type { ConvertedDocument, PageBox, PictureData } from '../../core/model/document';
import { ConversionError, HaikuError, throwIfAborted } from '../../core/errors';
import { sniffImage } from '../../core/pictures/imageInfo';
import { DEFAULT_OCR_OPTIONS, encodedImageFormat, encodedImageToPng, recognizeImage, tiffSize, type OcrBox } from '../ocr/ocrEngine';
import { DocumentBuilder } from './documentBuilder';
import type { OcrOptions, PictureProcessing } from './convertFile';
import { PictureCollector } from './pictures/pictureCollector';

export interface ImageConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  ocr?: OcrOptions;
}

/**
 * Converts an image file (PNG, JPEG, TIFF, WebP): one picture item with the image (TIFF re-encoded as PNG, which
 * vision models and the webview take), then the text OCR finds, one paragraph per OCR paragraph. Each paragraph
 * carries its lines' boxes on "page 1", in image pixels with the origin at the bottom-left (the PDF convention of
 * `PageBox`), so a citation can mark the words on the image.
 */
export async function convertImage(bytes: Uint8Array, options: ImageConvertOptions): Promise<ConvertedDocument> {
  const { filePath, abortSignal } = options;
  const ocr = options.ocr ?? DEFAULT_OCR_OPTIONS;
  throwIfAborted(abortSignal, `Converting ${options.fileName}`);
  if (bytes.length === 0) {
    throw new ConversionError('empty_file', filePath, 'is empty (0 bytes); there is no image to read.');
  }
  const format = encodedImageFormat(bytes);
  if (format === undefined || format === 'bmp' || format === 'pnm') {
    throw new ConversionError('corrupt_file', filePath, 'is not a readable PNG, JPEG, TIFF or WebP image (its bytes do not start like one). Check the file, or exclude it from indexing.');
  }
  const builder = new DocumentBuilder();
  const picture = options.pictures === 'none' ? undefined : await pictureOf(bytes, format, ocr, options, builder);
  builder.add({ label: 'picture', text: '', pageNumbers: [1], picture });
  if (!ocr.enabled) {
    builder.warn('OCR is off (processing.ocr.enabled: false), so no text was read from this image; only the picture is indexed.');
  } else {
    const result = await recognize(bytes, ocr, options);
    const height = result.height;
    for (const paragraph of result.paragraphs) {
      builder.add({ label: 'paragraph', text: paragraph.text, pageNumbers: [1], boxes: paragraph.lines.map((line) => pageBox(line.box, height)) });
    }
    if (result.paragraphs.length === 0) {
      builder.warn('OCR found no text in this image; only the picture is indexed.');
    }
    if (result.rotation !== 0) {
      builder.warn(`The image's text runs sideways or upside down: it reads upright turned ${result.rotation}° clockwise.`);
    }
  }
  return { format: 'image', title: options.fileName, items: builder.items, content: builder.toMarkdown(), warnings: builder.allWarnings() };
}

async function recognize(bytes: Uint8Array, ocr: OcrOptions, options: ImageConvertOptions) {
  try {
    const result = await recognizeImage(bytes, { languages: ocr.languages, abortSignal: options.abortSignal });
    return { ...result, height: imageHeight(bytes, result.lines.map((line) => line.box)) };
  } catch (error) {
    throw asConversionError(error, options.filePath);
  }
}

/** The image's height for flipping boxes: from the header where it is readable, else the lowest box edge. */
function imageHeight(bytes: Uint8Array, boxes: OcrBox[]): number {
  const info = sniffImage(bytes);
  if (info) {
    return info.height;
  }
  const tiff = tiffSize(bytes);
  return tiff?.height ?? Math.max(0, ...boxes.map((box) => box.y + box.height));
}

function pageBox(box: OcrBox, height: number): PageBox {
  return { page: 1, x: box.x, y: height - (box.y + box.height), width: box.width, height: box.height };
}

/** The picture item's image: PNG, JPEG and WebP kept (scaled down when huge); TIFF re-encoded as PNG where OCR can decode it. */
type ImageFormat = NonNullable<ReturnType<typeof encodedImageFormat>>;

async function pictureOf(bytes: Uint8Array, format: ImageFormat, ocr: OcrOptions, options: ImageConvertOptions, builder: DocumentBuilder): Promise<PictureData | undefined> {
  const collector = new PictureCollector({ minSide: 1 });
  let encoded = bytes;
  if (format === 'tiff') {
    if (!ocr.enabled) {
      builder.warn('The TIFF image is indexed without its picture: TIFF is converted to PNG by the OCR engine, which is off (processing.ocr.enabled: false).');
      return undefined;
    }
    try {
      encoded = (await encodedImageToPng(bytes, { languages: ocr.languages, abortSignal: options.abortSignal })).png;
    } catch (error) {
      throw asConversionError(error, options.filePath);
    }
  }
  const collected = await collector.addEncodedScaled(encoded);
  for (const warning of collector.warnings()) {
    builder.warn(warning);
  }
  return collected.picture;
}

/** OCR's errors name no file: each becomes this file's error (a missing language fails the image files, not the whole run). */
function asConversionError(error: unknown, filePath: string): unknown {
  if (error instanceof HaikuError && !(error instanceof ConversionError) && error.code !== 'cancelled') {
    return new ConversionError(error.code, filePath, error.message.replace(/^The image/, 'the image'), { cause: error });
  }
  return error;
}
