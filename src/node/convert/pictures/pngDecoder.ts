import { inflateSync } from 'node:zlib';
import type { RawImage } from './pngEncoder';

/**
 * Decodes the common PNG layouts (8- or 16-bit grey, grey+alpha, RGB, RGBA; 8-bit palettes; not interlaced) into
 * 8-bit channels, on Node's native inflate: fast-png's JavaScript inflate took ~9 s for a 4000x4000 picture.
 * Undefined for other layouts (interlaced, below 8 bits), which the caller decodes another way.
 * Throws on damaged data.
 */
export function decodeCommonPng(bytes: Uint8Array): RawImage | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let depth = 0;
  let colorType = -1;
  let interlaced = false;
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const compressed: Uint8Array[] = [];
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      depth = body[8];
      colorType = body[9];
      interlaced = body[12] !== 0;
    } else if (type === 'PLTE') {
      palette = body;
    } else if (type === 'tRNS') {
      transparency = body;
    } else if (type === 'IDAT') {
      compressed.push(body);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length;
  }
  const samplesPerPixel: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
  const samples = samplesPerPixel[colorType];
  if (interlaced || samples === undefined || !(depth === 8 || (depth === 16 && colorType !== 3)) || width === 0 || height === 0) {
    return undefined;
  }
  const bytesPerPixel = (samples * depth) / 8;
  const rowBytes = width * bytesPerPixel;
  const filtered = inflateSync(Buffer.concat(compressed));
  if (filtered.length < (rowBytes + 1) * height) {
    throw new Error('PNG image data is cut short');
  }
  const raw = unfilter(filtered, rowBytes, height, bytesPerPixel);
  const pixels = width * height;
  if (colorType === 3) {
    if (!palette) {
      throw new Error('PNG palette is missing');
    }
    const channels = transparency ? 4 : 3;
    const data = new Uint8Array(pixels * channels);
    for (let pixel = 0; pixel < pixels; pixel++) {
      const index = raw[pixel];
      data[pixel * channels] = palette[index * 3];
      data[pixel * channels + 1] = palette[index * 3 + 1];
      data[pixel * channels + 2] = palette[index * 3 + 2];
      if (transparency) {
        data[pixel * channels + 3] = index < transparency.length ? transparency[index] : 255;
      }
    }
    return { width, height, channels, data };
  }
  // 16-bit samples keep their high byte.
  const data = depth === 16 ? Uint8Array.from({ length: pixels * samples }, (_, sample) => raw[sample * 2]) : raw.subarray(0, pixels * samples);
  return { width, height, channels: samples as RawImage['channels'], data };
}

/** Reverses the per-row filters (none, sub, up, average, Paeth) into a new buffer. */
function unfilter(filtered: Uint8Array, rowBytes: number, height: number, bytesPerPixel: number): Uint8Array {
  const out = new Uint8Array(rowBytes * height);
  const step = Math.max(1, Math.floor(bytesPerPixel));
  for (let row = 0; row < height; row++) {
    const filter = filtered[row * (rowBytes + 1)];
    const source = row * (rowBytes + 1) + 1;
    const target = row * rowBytes;
    const previous = target - rowBytes;
    for (let index = 0; index < rowBytes; index++) {
      const value = filtered[source + index];
      const left = index >= step ? out[target + index - step] : 0;
      const up = row > 0 ? out[previous + index] : 0;
      let predicted = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          predicted = left;
          break;
        case 2:
          predicted = up;
          break;
        case 3:
          predicted = (left + up) >> 1;
          break;
        case 4: {
          const upLeft = row > 0 && index >= step ? out[previous + index - step] : 0;
          const estimate = left + up - upLeft;
          const toLeft = Math.abs(estimate - left);
          const toUp = Math.abs(estimate - up);
          const toUpLeft = Math.abs(estimate - upLeft);
          predicted = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
          break;
        }
        default:
          throw new Error(`PNG row filter ${filter} is not defined`);
      }
      out[target + index] = (value + predicted) & 0xff;
    }
  }
  return out;
}
