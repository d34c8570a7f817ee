import type { ConvertedDocument } from '../../core/model/document';
import { ConversionError } from '../../core/errors';
import type { PictureProcessing } from './convertFile';

export interface SpreadsheetConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  format: 'xlsx' | 'ods';
}

/** Converts XLSX and ODS spreadsheets. (Scaffold: the converter is being written; until then the file is refused with a clear message.) */
export async function convertSpreadsheet(_bytes: Uint8Array, options: SpreadsheetConvertOptions): Promise<ConvertedDocument> {
  throw new ConversionError('unsupported_format', options.filePath, 'is not converted yet (XLSX and ODS spreadsheets). Exclude it from indexing for now.');
}
