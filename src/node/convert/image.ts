import type { ConvertedDocument } from '../../core/model/document';
import { ConversionError } from '../../core/errors';
import type { OcrOptions, PictureProcessing } from './convertFile';

export interface ImageConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  ocr?: OcrOptions;
}

/** Converts images (OCR). (Scaffold: the converter is being written; until then the file is refused with a clear message.) */
export async function convertImage(_bytes: Uint8Array, options: ImageConvertOptions): Promise<ConvertedDocument> {
  throw new ConversionError('unsupported_format', options.filePath, 'is not converted yet (images (OCR)). Exclude it from indexing for now.');
}
