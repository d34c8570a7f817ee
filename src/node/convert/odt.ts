import type { ConvertedDocument } from '../../core/model/document';
import { ConversionError } from '../../core/errors';
import type { PictureProcessing } from './convertFile';

export interface OdtConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
}

/** Converts ODT text documents. (Scaffold: the converter is being written; until then the file is refused with a clear message.) */
export async function convertOdt(_bytes: Uint8Array, options: OdtConvertOptions): Promise<ConvertedDocument> {
  throw new ConversionError('unsupported_format', options.filePath, 'is not converted yet (ODT text documents). Exclude it from indexing for now.');
}
