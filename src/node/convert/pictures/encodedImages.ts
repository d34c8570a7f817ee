import { PICTURE_MAX_SOURCE_PIXELS } from '../../../core/limits';

/**
 * Why an encoded image (kept undecoded, as it came) would fail whoever decodes it later: a canvas over
 * `PICTURE_MAX_SOURCE_PIXELS` (a 20000x20000 PNG of a few bytes), or a file cut short before its format's end marker
 * (PNG `IEND`, JPEG end-of-image, GIF trailer, the RIFF length of WebP). Undefined when it looks whole.
 */
export function encodedImageProblem(bytes: Uint8Array, info: { mimeType: string; width: number; height: number }): 'too_large' | 'undecodable' | undefined {
  if (info.width * info.height > PICTURE_MAX_SOURCE_PIXELS) {
    return 'too_large';
  }
  return endsComplete(bytes, info.mimeType) ? undefined : 'undecodable';
}

function endsComplete(bytes: Uint8Array, mimeType: string): boolean {
  const tail = bytes.subarray(Math.max(0, bytes.length - 64));
  switch (mimeType) {
    case 'image/png':
      return bytes.length >= 12 && Buffer.from(bytes.subarray(bytes.length - 8, bytes.length - 4)).toString('latin1') === 'IEND';
    case 'image/jpeg':
      // Some writers pad after the end-of-image marker.
      return tail.some((value, index) => value === 0xff && tail[index + 1] === 0xd9);
    case 'image/gif':
      return tail.includes(0x3b);
    case 'image/webp':
      return bytes.length >= 8 && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true) + 8 <= bytes.length;
    default:
      return true;
  }
}
