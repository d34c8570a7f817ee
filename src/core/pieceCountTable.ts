import { contiguousCopy } from './contiguousString';

/**
 * Token counts of recurring pre-tokenizer pieces (words), looked up by their place in a text. A `Map` keyed by
 * the piece needs the piece as a string of its own, copied and hashed on every lookup; this table hashes and
 * compares the characters where they stand, so a piece already counted costs no allocation. Open addressing
 * with linear probing; entries are never removed, and once `maxEntries` are held new pieces are counted but
 * not kept (as the `Map` it replaces did).
 */
export class PieceCountTable {
  private readonly mask: number;
  /** Per slot: the piece's hash, then its count (side by side: one cache line per probe). */
  private readonly hashesAndCounts: Int32Array;
  private readonly pieces: Array<string | undefined>;
  private readonly maxEntries: number;
  private readonly maxPieceLength: number;
  private entries = 0;

  constructor(options: { maxEntries: number; maxPieceLength: number }) {
    this.maxEntries = options.maxEntries;
    this.maxPieceLength = options.maxPieceLength;
    // At most half full, so probes stay short.
    let slots = 1024;
    while (slots < options.maxEntries * 2) {
      slots *= 2;
    }
    this.mask = slots - 1;
    this.hashesAndCounts = new Int32Array(slots * 2);
    this.pieces = new Array<string | undefined>(slots).fill(undefined);
  }

  get size(): number {
    return this.entries;
  }

  /** The count of `text.slice(start, end)`, from the table or from `count` (then kept while there is room). */
  countOf(text: string, start: number, end: number, count: (piece: string) => number): number {
    const length = end - start;
    if (length > this.maxPieceLength) {
      // Never kept, so never found: no hashing and probing.
      return count(text.slice(start, end));
    }
    let hash = 0x811c9dc5 ^ length;
    for (let index = start; index < end; index++) {
      hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
    }
    hash ^= hash >>> 15;
    let slot = hash & this.mask;
    for (let piece = this.pieces[slot]; piece !== undefined; piece = this.pieces[slot]) {
      if (this.hashesAndCounts[slot * 2] === hash && piece.length === length && sameCharacters(piece, text, start)) {
        return this.hashesAndCounts[slot * 2 + 1];
      }
      slot = (slot + 1) & this.mask;
    }
    const piece = text.slice(start, end);
    const pieceCount = count(piece);
    if (this.entries < this.maxEntries) {
      // A copy: the slice would keep the whole text it was cut from alive for the process's lifetime.
      this.pieces[slot] = contiguousCopy(piece);
      this.hashesAndCounts[slot * 2] = hash;
      this.hashesAndCounts[slot * 2 + 1] = pieceCount;
      this.entries++;
    }
    return pieceCount;
  }
}

function sameCharacters(piece: string, text: string, start: number): boolean {
  for (let index = 0; index < piece.length; index++) {
    if (piece.charCodeAt(index) !== text.charCodeAt(start + index)) {
      return false;
    }
  }
  return true;
}
