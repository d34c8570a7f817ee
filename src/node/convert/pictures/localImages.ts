import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PICTURE_MAX_FILE_BYTES } from '../../../core/limits';
import { isPathInside } from '../../../core/pathContainment';

/** Why a referenced image was not read; the picture item keeps its alt text and caption either way. */
export type LocalImageRefusal = 'remote' | 'outside' | 'missing' | 'too_large';

export interface LocalImageResult {
  bytes?: Uint8Array;
  refusal?: LocalImageRefusal;
  /** The resolved file, when the reference named one. */
  file?: string;
}

export interface LocalImageOptions {
  /** The Markdown or HTML file holding the reference (relative references resolve against its folder). */
  documentPath: string;
  /** Folders images may come from (the indexed roots); the real path must lie inside one of them. */
  allowedRoots: readonly string[];
  maxBytes?: number;
}

/**
 * Reads the bytes of an image a document references (`![alt](src)`, `<img src>`), only when it is a local file
 * inside the indexed folders: remote URLs are never fetched, and paths or links leading outside are refused.
 * `data:` URIs of raster images are decoded in place.
 */
export async function readLocalImage(reference: string, options: LocalImageOptions): Promise<LocalImageResult> {
  const source = reference.trim();
  const dataUri = /^data:image\/(png|jpeg|gif|webp);base64,([a-z0-9+/=\s]*)$/i.exec(source);
  if (dataUri) {
    const maxBytes = options.maxBytes ?? PICTURE_MAX_FILE_BYTES;
    return dataUri[2].length * 0.75 > maxBytes ? { refusal: 'too_large' } : { bytes: Buffer.from(dataUri[2], 'base64') };
  }
  const file = localFile(source, options.documentPath);
  if (!file) {
    return { refusal: 'remote' };
  }
  let real: string;
  try {
    real = await fs.promises.realpath(file);
  } catch {
    return { refusal: 'missing', file };
  }
  if (!options.allowedRoots.some((root) => isPathInside(real, path.resolve(root)) || isPathInside(real, realRoot(root)))) {
    return { refusal: 'outside', file };
  }
  try {
    const stat = await fs.promises.stat(real);
    if (!stat.isFile()) {
      return { refusal: 'missing', file };
    }
    if (stat.size > (options.maxBytes ?? PICTURE_MAX_FILE_BYTES)) {
      return { refusal: 'too_large', file };
    }
    return { bytes: await fs.promises.readFile(real), file };
  } catch {
    return { refusal: 'missing', file };
  }
}

/** The file a reference names, or undefined for anything that is not a local path (http:, mailto:, //host…). */
function localFile(source: string, documentPath: string): string | undefined {
  if (source === '' || source.startsWith('//')) {
    return undefined;
  }
  if (/^file:/i.test(source)) {
    try {
      return fileURLToPath(source);
    } catch {
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(source) && !/^[a-z]:[\\/]/i.test(source)) {
    return undefined;
  }
  const withoutSuffix = source.replace(/[?#].*$/, '');
  let decoded = withoutSuffix;
  try {
    decoded = decodeURIComponent(withoutSuffix);
  } catch {
    // A stray '%' is part of the name.
  }
  return path.resolve(path.dirname(documentPath), decoded);
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}
