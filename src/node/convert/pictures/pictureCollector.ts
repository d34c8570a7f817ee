import { createHash } from 'node:crypto';
import type { PictureData } from '../../../core/model/document';
import { PICTURE_MAX_SIDE_PX, PICTURE_MIN_SIDE_PX, PICTURE_SCALED_JPEG_QUALITY, PICTURES_MAX_BYTES_PER_DOCUMENT, PICTURES_MAX_PER_DOCUMENT } from '../../../core/limits';
import { sniffImage } from '../../../core/pictures/imageInfo';
import { downscale, encodePng, type RawImage } from './pngEncoder';
import { encodedImageProblem } from './encodedImages';
import { decodeCommonPng } from './pngDecoder';

/**
 * A JPEG, GIF or WebP scaled to `maxSide` with @napi-rs/canvas (JPEG stays JPEG, the others become PNG), or
 * undefined where that native package cannot load (the CLI and every platform VSIX carry it).
 */
async function scaledWithCanvas(bytes: Uint8Array, info: { mimeType: PictureData['mimeType']; width: number; height: number }, maxSide: number): Promise<{ bytes: Uint8Array; mimeType: PictureData['mimeType']; width: number; height: number } | undefined> {
  let canvasModule: typeof import('@napi-rs/canvas');
  try {
    canvasModule = await import('@napi-rs/canvas');
  } catch {
    return undefined;
  }
  const image = await canvasModule.loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const factor = Math.max(info.width, info.height) / maxSide;
  const width = Math.max(1, Math.round(info.width / factor));
  const height = Math.max(1, Math.round(info.height / factor));
  const canvas = canvasModule.createCanvas(width, height);
  canvas.getContext('2d').drawImage(image, 0, 0, width, height);
  return info.mimeType === 'image/jpeg'
    ? { bytes: new Uint8Array(await canvas.encode('jpeg', PICTURE_SCALED_JPEG_QUALITY)), mimeType: 'image/jpeg', width, height }
    : { bytes: new Uint8Array(await canvas.encode('png')), mimeType: 'image/png', width, height };
}

/**
 * A PNG's pixels as 8-bit channels (palettes expanded, 16-bit samples cut to their high byte), or undefined for the
 * few layouts `downscale` cannot take (grey below 8 bits). The common layouts decode natively (`decodeCommonPng`);
 * fast-png (ESM-only, loaded on demand) takes the rest, such as interlaced files.
 */
async function decodePngPixels(bytes: Uint8Array): Promise<RawImage | undefined> {
  const common = decodeCommonPng(bytes);
  if (common) {
    return common;
  }
  const { decode, convertIndexedToRgb } = await import('fast-png');
  const png = decode(bytes);
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = rgb.length / (png.width * png.height);
    return channels === 3 || channels === 4 ? { width: png.width, height: png.height, channels, data: rgb } : undefined;
  }
  if (png.depth < 8 || ![1, 2, 3, 4].includes(png.channels)) {
    return undefined;
  }
  const data = png.depth === 16 ? Uint8Array.from(png.data, (sample) => sample >> 8) : new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength);
  return { width: png.width, height: png.height, channels: png.channels as RawImage['channels'], data };
}

/** Why a picture has no bytes; each reason becomes at most one warning on the document. */
export type PictureSkipReason = 'too_small' | 'unsupported' | 'too_many' | 'too_large' | 'undecodable';

export interface CollectedPicture {
  /** Undefined when the picture is kept as a structure-only item (see `reason`). */
  picture?: PictureData;
  reason?: PictureSkipReason;
}

/**
 * The per-document gate every extracted image passes: the minimum size, identical bytes stored once, and the
 * count and byte budgets. Converters hand it raw pixels (PDF) or encoded files (DOCX, Markdown, HTML).
 */
export class PictureCollector {
  private readonly stored = new Map<string, PictureData>();
  private bytes = 0;
  private readonly skipped = new Map<PictureSkipReason, number>();

  constructor(private readonly options: { minSide?: number; maxSide?: number; maxPictures?: number; maxBytes?: number } = {}) {}

  /** Raw pixels (pdf.js output): scaled down, encoded as PNG. */
  addRaw(image: RawImage): CollectedPicture {
    const gate = this.sizeGate(image.width, image.height);
    if (gate) {
      return gate;
    }
    const scaled = downscale(image, this.options.maxSide ?? PICTURE_MAX_SIDE_PX);
    return this.keep(encodePng(scaled), 'image/png', scaled.width, scaled.height);
  }

  /** An encoded image file (PNG, JPEG, GIF, WebP), kept as it is. SVG and unknown formats keep no bytes. */
  addEncoded(bytes: Uint8Array): CollectedPicture {
    const info = sniffImage(bytes);
    if (!info) {
      return this.skip('unsupported');
    }
    const gate = this.sizeGate(info.width, info.height);
    if (gate) {
      return gate;
    }
    // Kept undecoded, so a vision model would be the first to choke on a truncated file or a 20000x20000 canvas.
    const problem = encodedImageProblem(bytes, info);
    if (problem) {
      return this.skip(problem);
    }
    return this.keep(bytes, info.mimeType, info.width, info.height);
  }

  /**
   * An encoded image file, as `addEncoded`, except that a PNG whose longer side passes the maximum is decoded,
   * scaled down to it and re-encoded (a 4000x4000 PNG was stored at full size). JPEG, GIF and WebP are scaled
   * with @napi-rs/canvas where it loads (the CLI, the VSIX), else kept as they are.
   */
  async addEncodedScaled(bytes: Uint8Array): Promise<CollectedPicture> {
    const info = sniffImage(bytes);
    const maxSide = this.options.maxSide ?? PICTURE_MAX_SIDE_PX;
    if (!info || Math.max(info.width, info.height) <= maxSide || this.sizeGate(info.width, info.height) !== undefined || encodedImageProblem(bytes, info)) {
      return this.addEncoded(bytes);
    }
    if (info.mimeType !== 'image/png') {
      const scaled = await scaledWithCanvas(bytes, info, maxSide).catch(() => undefined);
      return scaled ? this.keep(scaled.bytes, scaled.mimeType, scaled.width, scaled.height) : this.addEncoded(bytes);
    }
    let pixels: RawImage | undefined;
    try {
      pixels = await decodePngPixels(bytes);
    } catch {
      return this.skip('undecodable');
    }
    if (!pixels) {
      return this.addEncoded(bytes);
    }
    const scaled = downscale(pixels, maxSide);
    return this.keep(encodePng(scaled), 'image/png', scaled.width, scaled.height);
  }

  /** Counts a picture that could not be decoded, for the warning. */
  addFailure(reason: PictureSkipReason): CollectedPicture {
    return this.skip(reason);
  }

  /** One line per kind of skip, for the document's warnings (tiny pictures are expected, not warned). */
  warnings(): string[] {
    const lines: string[] = [];
    const describe: Partial<Record<PictureSkipReason, string>> = {
      unsupported: 'in a format that is not extracted (SVG, or an unknown encoding); their captions are kept',
      undecodable: 'not decodable (damaged or unsupported image data); their captions are kept',
      too_many: `over the limit of ${this.options.maxPictures ?? PICTURES_MAX_PER_DOCUMENT} pictures or ${Math.round((this.options.maxBytes ?? PICTURES_MAX_BYTES_PER_DOCUMENT) / (1024 * 1024))} MB per document; their captions are kept`,
      too_large: 'too large to decode; their captions are kept',
    };
    for (const [reason, count] of this.skipped) {
      if (describe[reason]) {
        lines.push(`${count} picture${count === 1 ? ' was' : 's were'} ${describe[reason]}.`);
      }
    }
    return lines;
  }

  private sizeGate(width: number, height: number): CollectedPicture | undefined {
    if (Math.min(width, height) < (this.options.minSide ?? PICTURE_MIN_SIDE_PX)) {
      return this.skip('too_small');
    }
    return undefined;
  }

  private keep(bytes: Uint8Array, mimeType: PictureData['mimeType'], width: number, height: number): CollectedPicture {
    const digest = createHash('sha256').update(bytes).digest('hex');
    const stored = this.stored.get(digest);
    if (stored) {
      // Identical bytes are stored once: this item points at the first one's bytes by digest.
      return { picture: { mimeType: stored.mimeType, width: stored.width, height: stored.height, digest } };
    }
    if (this.stored.size >= (this.options.maxPictures ?? PICTURES_MAX_PER_DOCUMENT) || this.bytes + bytes.length > (this.options.maxBytes ?? PICTURES_MAX_BYTES_PER_DOCUMENT)) {
      return this.skip('too_many');
    }
    const picture: PictureData = { bytes, mimeType, width, height, digest };
    this.stored.set(digest, picture);
    this.bytes += bytes.length;
    return { picture };
  }

  private skip(reason: PictureSkipReason): CollectedPicture {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
    return { reason };
  }
}
