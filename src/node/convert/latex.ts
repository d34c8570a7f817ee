import type { ConvertedDocument } from '../../core/model/document';
import { ConversionError } from '../../core/errors';
import type { PictureProcessing } from './convertFile';

export interface LatexConvertOptions {
  fileName: string;
  /** Absolute path of the root `.tex` file: `\input` and `\include` resolve against its folder. */
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  pictureRoots?: readonly string[];
}

/** Converts a LaTeX document. (Scaffold: the converter is being written; until then the file is refused with a clear message.) */
export async function convertLatex(_text: string, options: LatexConvertOptions): Promise<ConvertedDocument> {
  throw new ConversionError('unsupported_format', options.filePath, 'is not converted yet (LaTeX). Exclude it from indexing for now.');
}
