/**
 * VFS files as they cross from the host thread to the sandbox worker: bytes in one transferred buffer instead of
 * strings. `postMessage` copies a string at about 3 ns a character (Latin-1) or 6.5 ns (UTF-16) on each side, so a
 * 1.7 M-character read-ahead batch took ~18 ms in transit; writing the bytes takes ~0.1 ms and the buffer moves
 * without a copy (Node 20, flat strings: the VFS's cached files are flat after their first use). The worker hands
 * the bytes to QuickJS as they are (see `binaryJson.ts`) and makes no string of them.
 */

/** A text as bytes: Latin-1 when no character is above U+00FF, else UTF-16LE. */
export interface PackedText {
  /** One byte a character when `wideRuns` is empty, else two (little-endian code units, at an even offset). */
  readonly bytes: Uint8Array;
  /** [start, end) character ranges holding only characters above U+00FF, ascending; empty for Latin-1 text. */
  readonly wideRuns: Int32Array;
}

const WIDE_RUN = /[^\u0000-\u00ff]+/g;

/** The runs of characters above U+00FF in `text` (one regular-expression scan; none for a Latin-1 text). */
function wideRunsOf(text: string): Int32Array {
  const runs: number[] = [];
  WIDE_RUN.lastIndex = 0;
  for (let match = WIDE_RUN.exec(text); match !== null; match = WIDE_RUN.exec(text)) {
    runs.push(match.index, match.index + match[0].length);
  }
  return Int32Array.from(runs);
}

/** `texts` packed into one buffer (each text's bytes a view into it); `transferList` moves it to another thread. */
export function packTexts(texts: readonly string[]): { packed: PackedText[]; transferList: ArrayBuffer[] } {
  const runs = texts.map(wideRunsOf);
  const offsets: number[] = [];
  let size = 0;
  for (const [index, text] of texts.entries()) {
    // UTF-16 texts start at an even offset so that the worker can read them as a Uint16Array.
    size += size % 2;
    offsets.push(size);
    size += runs[index].length > 0 ? text.length * 2 : text.length;
  }
  const buffer = new ArrayBuffer(size);
  const writer = Buffer.from(buffer);
  const packed = texts.map((text, index): PackedText => {
    const wide = runs[index].length > 0;
    const length = wide ? text.length * 2 : text.length;
    writer.write(text, offsets[index], length, wide ? 'utf16le' : 'latin1');
    return { bytes: new Uint8Array(buffer, offsets[index], length), wideRuns: runs[index] };
  });
  return { packed, transferList: size > 0 ? [buffer] : [] };
}

/** One text, packed alone (a session on the host thread gets strings from its host). */
export function packText(text: string): PackedText {
  return packTexts([text]).packed[0];
}

/** Its length in characters (UTF-16 code units, as JavaScript counts). */
export function packedLength(packed: PackedText): number {
  return packed.wideRuns.length > 0 ? packed.bytes.length / 2 : packed.bytes.length;
}

/** The text back as a string (the JSON-text fallback needs one). */
export function unpackText(packed: PackedText): string {
  const { buffer, byteOffset, byteLength } = packed.bytes;
  return Buffer.from(buffer, byteOffset, byteLength).toString(packed.wideRuns.length > 0 ? 'utf16le' : 'latin1');
}

/** The text's code units, to scan for line breaks natively (`indexOf`) whichever width it has. */
export function codeUnits(packed: PackedText): Uint8Array | Uint16Array {
  const { buffer, byteOffset, byteLength } = packed.bytes;
  return packed.wideRuns.length > 0 ? new Uint16Array(buffer, byteOffset, byteLength / 2) : packed.bytes;
}
