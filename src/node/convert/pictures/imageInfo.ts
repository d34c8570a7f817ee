/**
 * Recognises encoded images by their bytes (never by file name) and reads their pixel size from the header,
 * without decoding. SVG and anything unrecognised return undefined: they are never rendered or executed.
 */
export type PictureMimeType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface ImageInfo {
  mimeType: PictureMimeType;
  width: number;
  height: number;
}

export function sniffImage(bytes: Uint8Array): ImageInfo | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47 && view.getUint32(4) === 0x0d0a1a0a && ascii(bytes, 12, 4) === 'IHDR') {
    return { mimeType: 'image/png', width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length >= 10 && (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')) {
    return { mimeType: 'image/gif', width: view.getUint16(6, true), height: view.getUint16(8, true) };
  }
  if (bytes.length >= 30 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') {
    return webpInfo(bytes, view);
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    return jpegInfo(bytes, view);
  }
  return undefined;
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

/** Walks JPEG segments to the first start-of-frame marker (SOF0–SOF15 except DHT, JPG and DAC). */
function jpegInfo(bytes: Uint8Array, view: DataView): ImageInfo | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) {
      return undefined;
    }
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset++;
      continue;
    }
    const length = view.getUint16(offset + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { mimeType: 'image/jpeg', width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) };
    }
    if (length < 2) {
      return undefined;
    }
    offset += 2 + length;
  }
  return undefined;
}

function webpInfo(bytes: Uint8Array, view: DataView): ImageInfo | undefined {
  const format = ascii(bytes, 12, 4);
  if (format === 'VP8 ' && bytes.length >= 30) {
    return { mimeType: 'image/webp', width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (format === 'VP8L' && bytes.length >= 25) {
    const bits = view.getUint32(21, true);
    return { mimeType: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (format === 'VP8X' && bytes.length >= 30) {
    const width = 1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16));
    const height = 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16));
    return { mimeType: 'image/webp', width, height };
  }
  return undefined;
}
