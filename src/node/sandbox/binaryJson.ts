import { codeUnits, packedLength, type PackedText } from './packedText';

/**
 * Writes JSON values in QuickJS's binary object format (`JS_WriteObject` without bytecode; what
 * `context.decodeBinaryJSON` reads). Handing a value over this way skips the two slow steps of a text handover:
 * Emscripten's UTF-8 transcoding (strings are copied as Latin-1 or UTF-16 code units) and parsing JSON in the
 * interpreter (objects and arrays are rebuilt directly). A 3.5 MB `items.jsonl` as lines: ~5 ms instead of ~85 ms.
 * Files arrive packed (`packedText.ts`): their Latin-1 or UTF-16 bytes are copied into the encoding as they are.
 *
 * Only JSON values are written (null, booleans, numbers, strings, arrays, plain objects). `GuestSession` checks at
 * start-up that this writer and the QuickJS build agree (`BINARY_JSON_PROBE`) and falls back to JSON text if not.
 */

/** `BC_VERSION` of the QuickJS in quickjs-emscripten 0.32 (the first byte of every encoding). */
const FORMAT_VERSION = 5;
const TAG_NULL = 1;
const TAG_FALSE = 3;
const TAG_TRUE = 4;
const TAG_INT32 = 5;
const TAG_FLOAT64 = 6;
const TAG_STRING = 7;
const TAG_OBJECT = 8;
const TAG_ARRAY = 9;
/** Property keys QuickJS stores as tagged integers (canonical array indices up to `JS_ATOM_MAX_INT`). */
const MAX_INTEGER_ATOM = 2 ** 31 - 1;
const INTEGER_KEY = /^(?:0|[1-9]\d{0,9})$/;
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

class ByteWriter {
  bytes: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(capacity);
  }

  reserve(count: number): void {
    if (this.length + count > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + count));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
  }

  byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  /** Unsigned LEB128, for values below 2^32. */
  unsigned(value: number): void {
    this.reserve(5);
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }

  /** Bytes, or code units below 256 written one byte each (TypedArray set: Buffer#copy's wrapper costs more for short lines). */
  copy(units: Uint8Array | Uint16Array): void {
    this.reserve(units.length);
    this.bytes.set(units, this.length);
    this.length += units.length;
  }

  float64(value: number): void {
    this.reserve(8);
    this.bytes.writeDoubleLE(value, this.length);
    this.length += 8;
  }

  /** A string's body: length and width, then Latin-1 bytes or UTF-16 code units (lone surrogates kept). */
  stringBody(text: string): void {
    const wide = BEYOND_LATIN1.test(text);
    this.unsigned(text.length * 2 + (wide ? 1 : 0));
    const size = wide ? text.length * 2 : text.length;
    this.reserve(size);
    this.length += this.bytes.write(text, this.length, size, wide ? 'utf16le' : 'latin1');
  }
}

/** Room left at the start of the body for the header when there are no atoms (version and a zero count). */
const SHORT_HEADER_BYTES = 2;

class BinaryJsonEncoder {
  private readonly body: ByteWriter;
  private readonly atoms = new Map<string, number>();

  /** `capacity`: the expected size in bytes (a guess; the buffer grows). */
  constructor(capacity: number) {
    this.body = new ByteWriter(Math.max(64, capacity + SHORT_HEADER_BYTES));
    this.body.length = SHORT_HEADER_BYTES;
  }

  value(value: unknown): void {
    const body = this.body;
    if (value === null) {
      body.byte(TAG_NULL);
    } else if (typeof value === 'string') {
      body.byte(TAG_STRING);
      body.stringBody(value);
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 && !Object.is(value, -0)) {
        body.byte(TAG_INT32);
        // Signed LEB128 as QuickJS writes it: zigzag, then unsigned.
        body.unsigned(((value << 1) ^ (value >> 31)) >>> 0);
      } else {
        body.byte(TAG_FLOAT64);
        body.float64(value);
      }
    } else if (typeof value === 'boolean') {
      body.byte(value ? TAG_TRUE : TAG_FALSE);
    } else if (Array.isArray(value)) {
      body.byte(TAG_ARRAY);
      body.unsigned(value.length);
      for (const element of value) {
        this.value(element);
      }
    } else if (typeof value === 'object') {
      const keys = Object.keys(value);
      body.byte(TAG_OBJECT);
      body.unsigned(keys.length);
      for (const key of keys) {
        this.atom(key);
        this.value((value as Record<string, unknown>)[key]);
      }
    } else {
      throw new TypeError(`not a JSON value: ${typeof value}`);
    }
  }

  /** Header (version, atom table) then the body; without atoms (strings, arrays of them) the body is not copied. */
  finish(): Uint8Array {
    const body = this.body;
    if (this.atoms.size === 0) {
      body.bytes[0] = FORMAT_VERSION;
      body.bytes[1] = 0;
      return body.bytes.subarray(0, body.length);
    }
    const header = new ByteWriter(64);
    header.byte(FORMAT_VERSION);
    header.unsigned(this.atoms.size);
    for (const key of this.atoms.keys()) {
      header.stringBody(key);
    }
    const result = new Uint8Array(header.length + body.length - SHORT_HEADER_BYTES);
    result.set(header.bytes.subarray(0, header.length), 0);
    result.set(body.bytes.subarray(SHORT_HEADER_BYTES, body.length), header.length);
    return result;
  }

  private atom(key: string): void {
    if (INTEGER_KEY.test(key) && Number(key) <= MAX_INTEGER_ATOM) {
      this.body.unsigned(Number(key) * 2 + 1);
      return;
    }
    let index = this.atoms.get(key);
    if (index === undefined) {
      // Atom indexes start at 1 when no bytecode is written.
      index = this.atoms.size + 1;
      this.atoms.set(key, index);
    }
    this.body.unsigned(index * 2);
  }
}

/** The encoding of a JSON value (what `JSON.parse` returns); throws on anything else or on too deep nesting. */
export function encodeBinaryJson(value: unknown): Uint8Array {
  const encoder = new BinaryJsonEncoder(256);
  encoder.value(value);
  return encoder.finish();
}

/** The encoding of a packed text as one string: its bytes as they are, behind the string's header. */
export function encodeBinaryJsonText(packed: PackedText): Uint8Array {
  const writer = new ByteWriter(SHORT_HEADER_BYTES + 6 + packed.bytes.length);
  writer.byte(FORMAT_VERSION);
  writer.byte(0);
  writer.byte(TAG_STRING);
  writer.unsigned(packedLength(packed) * 2 + (packed.wideRuns.length > 0 ? 1 : 0));
  writer.copy(packed.bytes);
  return writer.bytes.subarray(0, writer.length);
}

/**
 * The lines `readLines` returns, as [start, end) offsets into `units` (a text's code units): split on LF, a final
 * empty line dropped (before CRs are stripped), a CR at the end of each line stripped. No line strings are made.
 */
export function lineRanges(units: Uint8Array | Uint16Array): number[] {
  const ranges: number[] = [];
  if (units.length === 0) {
    return ranges;
  }
  let start = 0;
  for (;;) {
    const newline = units.indexOf(10, start);
    const end = newline < 0 ? units.length : newline;
    if (newline < 0 && start === units.length && ranges.length > 0) {
      break;
    }
    ranges.push(start, end > start && units[end - 1] === 13 ? end - 1 : end);
    if (newline < 0) {
      break;
    }
    start = newline + 1;
  }
  return ranges;
}

/**
 * The encoding of the array of a packed text's lines (see `lineRanges`), with no per-line strings: each line's
 * bytes are copied from the packed bytes, as Latin-1 unless the line holds a character above U+00FF (the packed
 * text marks where those are), in which case its UTF-16 code units are copied as they are.
 */
export function encodeBinaryJsonLines(packed: PackedText): Uint8Array {
  const units = codeUnits(packed);
  const ranges = lineRanges(units);
  const runs = packed.wideRuns;
  const writer = new ByteWriter(SHORT_HEADER_BYTES + 6 + (ranges.length / 2) * 6 + packed.bytes.length);
  writer.byte(FORMAT_VERSION);
  writer.byte(0);
  writer.byte(TAG_ARRAY);
  writer.unsigned(ranges.length / 2);
  let run = 0;
  for (let index = 0; index < ranges.length; index += 2) {
    const start = ranges[index];
    const end = ranges[index + 1];
    while (run < runs.length && runs[run + 1] <= start) {
      run += 2;
    }
    writer.byte(TAG_STRING);
    if (run < runs.length && runs[run] < end) {
      writer.unsigned((end - start) * 2 + 1);
      writer.copy(packed.bytes.subarray(start * 2, end * 2));
    } else {
      writer.unsigned((end - start) * 2);
      // From UTF-16 code units below U+0100, a typed-array copy narrows each one to its Latin-1 byte.
      writer.copy(units.subarray(start, end));
    }
  }
  return writer.bytes.subarray(0, writer.length);
}

/** A value whose encoding `GuestSession` compares with QuickJS's own at start-up. */
export const BINARY_JSON_PROBE: unknown = { a: [1, -7, 2 ** 31, -0, 1.5, null, true, false], é: 'x\u2014\u0000y', 7: {} };
