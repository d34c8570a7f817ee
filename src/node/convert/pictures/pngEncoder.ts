import { deflateSync } from 'node:zlib';

/**
 * A minimal PNG encoder on Node's native zlib: 8-bit grey, grey+alpha, RGB or RGBA, no filtering.
 * Chosen over pure-JS encoders (fast-png, pngjs: pako deflate) because native deflate is several times faster
 * inside the conversion worker and adds nothing to the VSIX; decoders in the tests check the output.
 */
export interface RawImage {
  width: number;
  height: number;
  /** 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA; 8 bits per channel, rows packed without padding. */
  channels: 1 | 2 | 3 | 4;
  data: Uint8Array | Uint8ClampedArray;
}

const COLOR_TYPE: Record<RawImage['channels'], number> = { 1: 0, 2: 4, 3: 2, 4: 6 };
const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

export function encodePng(image: RawImage): Uint8Array {
  const { width, height, channels, data } = image;
  const rowBytes = width * channels;
  if (data.length < rowBytes * height) {
    throw new Error(`image data holds ${data.length} bytes; ${width}x${height}x${channels} needs ${rowBytes * height}`);
  }
  // Each row is prefixed by its filter type (0: none).
  const filtered = Buffer.allocUnsafe((rowBytes + 1) * height);
  for (let row = 0; row < height; row++) {
    const target = row * (rowBytes + 1);
    filtered[target] = 0;
    filtered.set(data.subarray(row * rowBytes, (row + 1) * rowBytes), target + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = COLOR_TYPE[channels];
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(filtered, { level: 6 })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  out.set(body, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let index = 0; index < 256; index++) {
    let value = index;
    for (let bit = 0; bit < 8; bit++) {
      value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    }
    table[index] = value >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let index = 0; index < bytes.length; index++) {
    crc = CRC_TABLE[(crc ^ bytes[index]) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Shrinks an image so its longer side is at most `maxSide` (box average); smaller images return unchanged. */
export function downscale(image: RawImage, maxSide: number): RawImage {
  const { width, height, channels, data } = image;
  const factor = Math.max(width, height) / maxSide;
  if (factor <= 1) {
    return image;
  }
  const targetWidth = Math.max(1, Math.round(width / factor));
  const targetHeight = Math.max(1, Math.round(height / factor));
  const out = new Uint8Array(targetWidth * targetHeight * channels);
  const sums = new Float64Array(channels);
  for (let y = 0; y < targetHeight; y++) {
    const sourceTop = Math.floor((y * height) / targetHeight);
    const sourceBottom = Math.max(sourceTop + 1, Math.floor(((y + 1) * height) / targetHeight));
    for (let x = 0; x < targetWidth; x++) {
      const sourceLeft = Math.floor((x * width) / targetWidth);
      const sourceRight = Math.max(sourceLeft + 1, Math.floor(((x + 1) * width) / targetWidth));
      sums.fill(0);
      for (let sourceY = sourceTop; sourceY < sourceBottom; sourceY++) {
        let offset = (sourceY * width + sourceLeft) * channels;
        for (let sourceX = sourceLeft; sourceX < sourceRight; sourceX++) {
          for (let channel = 0; channel < channels; channel++) {
            sums[channel] += data[offset++];
          }
        }
      }
      const count = (sourceBottom - sourceTop) * (sourceRight - sourceLeft);
      const target = (y * targetWidth + x) * channels;
      for (let channel = 0; channel < channels; channel++) {
        out[target + channel] = Math.round(sums[channel] / count);
      }
    }
  }
  return { width: targetWidth, height: targetHeight, channels, data: out };
}
