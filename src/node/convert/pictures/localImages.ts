import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PICTURE_MAX_FILE_BYTES } from '../../../core/limits';
import type { PictureData } from '../../../core/model/document';
import { isPathInside } from '../../../core/pathContainment';
import { PictureCollector } from './pictureCollector';
import type { PictureProcessing } from '../convertFile';

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
  const real = await firstExisting([file, ...siteRootCandidates(source, file, options.allowedRoots)]);
  if (real === undefined) {
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

/**
 * Documentation sites write `/images/a.png` for a file at the site's root, not the disk's: such a path is also
 * looked up below each indexed folder (and its `public/` folder, where VitePress and Vite serve it from).
 */
function siteRootCandidates(source: string, file: string, allowedRoots: readonly string[]): string[] {
  if (!source.startsWith('/') || source.startsWith('//')) {
    return [];
  }
  const relative = path.relative(path.parse(file).root, file);
  return allowedRoots.flatMap((root) => [path.join(root, relative), path.join(root, 'public', relative)]);
}

/** The real path of the first candidate that exists. */
async function firstExisting(candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    try {
      return await fs.promises.realpath(candidate);
    } catch {
      // Try the next one.
    }
  }
  return undefined;
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/**
 * The images one Markdown or HTML document references, read once per reference through the document's picture
 * collector (minimum size, identical bytes once, budgets). Refusals become the document's warnings; remote URLs are
 * expected on the web and only keep their alt text, without a warning.
 */
export class LocalPictures {
  private readonly first = new Map<string, Promise<PictureData | undefined>>();
  private readonly refused = new Map<Exclude<LocalImageRefusal, 'remote'>, number>();

  constructor(
    private readonly options: LocalImageOptions,
    private readonly collector: PictureCollector,
  ) {}

  /** The picture a reference names; a reference seen before gets the first one's digest without the bytes again. */
  async read(reference: string): Promise<PictureData | undefined> {
    const known = this.first.get(reference);
    if (known) {
      const picture = await known;
      return picture && { ...picture, bytes: undefined };
    }
    const reading = this.readOnce(reference);
    this.first.set(reference, reading);
    return reading;
  }

  warnings(): string[] {
    const describe: Record<Exclude<LocalImageRefusal, 'remote'>, [string, string]> = {
      missing: ['points to a file that does not exist', 'point to files that do not exist'],
      outside: ['points outside the indexed folders and was not read', 'point outside the indexed folders and were not read'],
      too_large: [`is an image file over ${Math.round((this.options.maxBytes ?? PICTURE_MAX_FILE_BYTES) / (1024 * 1024))} MB and was not read`, `are image files over ${Math.round((this.options.maxBytes ?? PICTURE_MAX_FILE_BYTES) / (1024 * 1024))} MB and were not read`],
    };
    const lines = [...this.refused].map(([refusal, count]) => `${count} picture${count === 1 ? '' : 's'} ${describe[refusal][count === 1 ? 0 : 1]}; the alt text and captions are kept.`);
    return [...lines, ...this.collector.warnings()];
  }

  private async readOnce(reference: string): Promise<PictureData | undefined> {
    if (/^\s*data:image\/svg/i.test(reference)) {
      // SVG is never rendered or executed: the picture keeps its text.
      return this.collector.addFailure('unsupported').picture;
    }
    const result = await readLocalImage(reference, this.options);
    if (result.refusal) {
      if (result.refusal !== 'remote') {
        this.refused.set(result.refusal, (this.refused.get(result.refusal) ?? 0) + 1);
      }
      return undefined;
    }
    return result.bytes ? (await this.collector.addEncodedScaled(result.bytes)).picture : undefined;
  }
}

/**
 * The local-image reader of a Markdown or HTML document, or undefined when pictures are off or the document has no
 * file (converted from a string): then images keep their alt text only. Without indexed roots, images may come from
 * the document's own folder and below.
 */
export function localPicturesFor(options: { filePath?: string; pictureRoots?: readonly string[]; pictures?: PictureProcessing }): LocalPictures | undefined {
  if (options.pictures === 'none' || !options.filePath) {
    return undefined;
  }
  const allowedRoots = options.pictureRoots && options.pictureRoots.length > 0 ? options.pictureRoots : [path.dirname(options.filePath)];
  return new LocalPictures({ documentPath: options.filePath, allowedRoots }, new PictureCollector());
}
