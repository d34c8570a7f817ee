import * as o200k from 'gpt-tokenizer/encoding/o200k_base';

/** The part of gpt-tokenizer 4.0's encoding object this module reads (private in its typings). */
interface EncodingInternals {
  bytePairEncodingCoreProcessor?: { bytePairStringRankEncoder?: unknown; getBpeRankFromBytes?: unknown };
}

const processor = (o200k.default as unknown as EncodingInternals).bytePairEncodingCoreProcessor;

/** o200k's ranks of the tokens that are valid UTF-8 text, by text; undefined if this gpt-tokenizer keeps them elsewhere. */
const stringRanks: ReadonlyMap<string, number> | undefined = (() => {
  const ranks = processor?.bytePairStringRankEncoder;
  return ranks instanceof Map && ranks.get('the') !== undefined ? (ranks as Map<string, number>) : undefined;
})();

/** The library's rank of any byte sequence (text or not), as its own merge looks it up. */
const bytesRank: ((bytes: Uint8Array) => number | undefined) | undefined = (() => {
  const lookup = processor?.getBpeRankFromBytes;
  return typeof lookup === 'function' ? (lookup.bind(processor) as (bytes: Uint8Array) => number | undefined) : undefined;
})();

const utf8 = new TextEncoder();

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The o200k token count of one pre-tokenizer piece made only of ASCII characters, or undefined for any other piece
 * (the caller then asks the library). It is the library's byte-pair merge (`BytePairEncodingCore.bytePairMerge`),
 * step for step, on string slices: for ASCII a byte range is a character range and every slice is valid UTF-8, so
 * the library's rank lookup is this map's. The library decodes each candidate pair's bytes to a string at every
 * merge step (about 16 µs per new word); this takes half the time, which matters because every conversion worker
 * meets each word of a corpus once (the chunker caches counts by piece). `test/unit/core/chunkTokenCounting.test.ts`
 * compares it with the library on SciFact's pieces and the pieces of random ASCII text.
 */
export function asciiPieceTokenCount(piece: string): number | undefined {
  if (!stringRanks || piece.length === 0 || !ASCII_ONLY.test(piece)) {
    return undefined;
  }
  if (piece.length === 1 || stringRanks.has(piece)) {
    return 1;
  }
  if (piece.length <= LINEAR_SCAN_MAX_CHARS) {
    return mergeCountByScan(piece, stringRanks);
  }
  return mergeLongPiece(piece)?.parts;
}

/**
 * The o200k token count of a long piece holding characters outside ASCII (a run of letters in any script, a run of
 * emoji), or undefined for a short one (the library's own loop then counts it). The library's merge over the
 * piece's UTF-8 bytes, on the same heap as long ASCII pieces.
 */
export function longPieceTokenCount(piece: string): number | undefined {
  // A UTF-16 unit is at most three UTF-8 bytes: a piece this short is short in bytes too.
  if (!stringRanks || !bytesRank || piece.length * 3 <= LINEAR_SCAN_MAX_CHARS) {
    return undefined;
  }
  if (stringRanks.has(piece)) {
    return 1;
  }
  return mergeLongPiece(piece)?.parts;
}

/**
 * The library's tokens (`encode`) of ONE long pre-tokenizer piece, in any script, or undefined for a short piece
 * (whose quadratic merge is cheap). The same merges as the library's, in the same order (see `mergeByHeap`), so the
 * same tokens: the chunker cuts an unbroken run of letters at token boundaries, and the library's merge made a
 * 50,000-character run of CJK letters take 6.7 s to chunk.
 */
export function longPieceTokens(piece: string): number[] | undefined {
  if (!stringRanks || !bytesRank || piece.length * 3 <= LINEAR_SCAN_MAX_CHARS) {
    return undefined;
  }
  const whole = stringRanks.get(piece);
  if (whole !== undefined) {
    return [whole];
  }
  const merge = mergeLongPiece(piece);
  if (!merge) {
    return undefined;
  }
  const tokens: number[] = [];
  for (let start = 0; start < merge.next.length - 1; start = merge.next[start]) {
    tokens.push(merge.partRanks[start]);
  }
  return tokens;
}

/** `mergeByHeap` over a piece's characters (ASCII) or UTF-8 bytes; undefined when the piece is short in units. */
function mergeLongPiece(piece: string): HeapMerge | undefined {
  const ranks = stringRanks!;
  if (ASCII_ONLY.test(piece)) {
    if (piece.length <= LINEAR_SCAN_MAX_CHARS) {
      return undefined;
    }
    const unitRanks = new Int32Array(piece.length);
    for (let index = 0; index < piece.length; index++) {
      unitRanks[index] = asciiCharacterRanks[piece.charCodeAt(index)];
    }
    return unitRanks.includes(-1) ? undefined : mergeByHeap(unitRanks, (start, end) => ranks.get(piece.slice(start, end)));
  }
  const bytes = utf8.encode(piece);
  if (bytes.length <= LINEAR_SCAN_MAX_CHARS) {
    return undefined;
  }
  const unitRanks = new Int32Array(bytes.length);
  for (let index = 0; index < bytes.length; index++) {
    unitRanks[index] = singleByteRanks[bytes[index]];
  }
  const rankOf = bytesRank!;
  return unitRanks.includes(-1) ? undefined : mergeByHeap(unitRanks, (start, end) => rankOf(bytes.subarray(start, end)));
}

/** The rank of every ASCII character and of every single byte: each is a token of its own in o200k. */
const asciiCharacterRanks = Int32Array.from({ length: 128 }, (_, code) => stringRanks?.get(String.fromCharCode(code)) ?? -1);
const singleByteRanks = Int32Array.from({ length: 256 }, (_, byte) => bytesRank?.(Uint8Array.of(byte)) ?? -1);

/**
 * Pieces up to this long (characters, or UTF-8 bytes outside ASCII) merge by the library's own loop (a scan for the
 * lowest rank per merge, quadratic, and fastest for words); longer ones (an unbroken run of letters: a
 * 160,000-character run took 60 s) by a heap.
 */
const LINEAR_SCAN_MAX_CHARS = 64;

/**
 * The library's merge loop over a short ASCII piece. A candidate pair's rank comes from `mergedPairRanks` by the
 * two parts' token ranks, and from the rank map by the pair's text the first time those two tokens meet: a corpus's
 * new words share most of their pairs, and the text lookup (a substring, then a hash of it in a 200,000-entry map)
 * was the largest cost of counting a word first met (SciFact in one cold worker: ~0.3 s of 1.9 s).
 */
function mergeCountByScan(piece: string, ranks: ReadonlyMap<string, number>): number {
  const pairCache = (mergedPairRanks ??= new PairRankCache());
  const starts: number[] = [];
  const partRanks: number[] = [];
  const pairRanks: number[] = [];
  const rankAt = (index: number): number => {
    const end = starts[index + 2];
    if (end === undefined) {
      return Number.POSITIVE_INFINITY;
    }
    const left = partRanks[index];
    const right = partRanks[index + 1];
    const rank = left >= 0 && right >= 0 ? pairCache.rankOf(left, right, () => ranks.get(piece.slice(starts[index], end))) : (ranks.get(piece.slice(starts[index], end)) ?? -1);
    return rank < 0 ? Number.POSITIVE_INFINITY : rank;
  };
  for (let index = 0; index <= piece.length; index++) {
    starts.push(index);
    partRanks.push(index < piece.length ? asciiCharacterRanks[piece.charCodeAt(index)] : -1);
  }
  for (let index = 0; index <= piece.length; index++) {
    pairRanks.push(rankAt(index));
  }
  while (starts.length > 1) {
    let lowestRank = Number.POSITIVE_INFINITY;
    let lowestIndex = -1;
    for (let index = 0; index < pairRanks.length - 1; index++) {
      if (pairRanks[index] < lowestRank) {
        lowestRank = pairRanks[index];
        lowestIndex = index;
      }
    }
    if (lowestIndex === -1) {
      break;
    }
    starts.splice(lowestIndex + 1, 1);
    partRanks.splice(lowestIndex + 1, 1);
    partRanks[lowestIndex] = lowestRank;
    pairRanks.splice(lowestIndex, 1);
    pairRanks[lowestIndex] = rankAt(lowestIndex);
    if (lowestIndex > 0) {
      pairRanks[lowestIndex - 1] = rankAt(lowestIndex - 1);
    }
  }
  return starts.length - 1;
}

interface HeapMerge {
  /** Parts left after every merge: the token count. */
  parts: number;
  /** From 0, `next[start]` is where the part starting at `start` ends (the last ends at the length). */
  next: Int32Array;
  /** The token rank of the part starting at each part's start. */
  partRanks: Int32Array;
}

/**
 * The same merges in the same order as `mergeCountByScan`, in O(n log n), over units (characters or bytes) whose own
 * token ranks are `unitRanks`: parts are a linked list of start offsets, and each part's pair with its successor
 * sits in a min-heap ordered by rank, then by start offset (the scan's leftmost-lowest choice). An entry whose pair
 * has changed since is skipped when it surfaces. A pair's rank comes from `mergedPairRanks` by its two tokens, and
 * from `spanRank` (the library's lookup of the span's text or bytes) the first time that pair of tokens is met.
 */
function mergeByHeap(unitRanks: Int32Array, spanRank: (start: number, end: number) => number | undefined): HeapMerge {
  const length = unitRanks.length;
  const next = new Int32Array(length + 1);
  const previous = new Int32Array(length + 1);
  const version = new Int32Array(length + 1);
  const merged = new Uint8Array(length + 1);
  const partRanks = Int32Array.from(unitRanks);
  for (let index = 0; index <= length; index++) {
    next[index] = index + 1;
    previous[index] = index - 1;
  }
  const heap = new PairHeap();
  // Made on the first long piece: most documents have none.
  const pairRanks = (mergedPairRanks ??= new PairRankCache());
  const offer = (start: number): void => {
    const middle = next[start];
    if (middle >= length) {
      return;
    }
    const rank = pairRanks.rankOf(partRanks[start], partRanks[middle], () => spanRank(start, next[middle]));
    if (rank >= 0) {
      heap.push(rank, start, version[start]);
    }
  };
  for (let start = 0; start < length - 1; start++) {
    offer(start);
  }
  let parts = length;
  while (heap.size > 0) {
    const start = heap.topStart();
    const rank = heap.topRank();
    const stale = merged[start] === 1 || version[start] !== heap.topVersion();
    heap.pop();
    if (stale) {
      continue;
    }
    // The part at `start` absorbs the next one and becomes the token of the pair.
    const middle = next[start];
    const end = next[middle];
    merged[middle] = 1;
    next[start] = end;
    partRanks[start] = rank;
    if (end <= length) {
      previous[end] = start;
    }
    parts--;
    version[start]++;
    offer(start);
    const before = previous[start];
    if (before >= 0) {
      version[before]++;
      offer(before);
    }
  }
  return { parts, next, partRanks };
}

/**
 * The rank of the token two tokens make together, or -1 when their bytes are no token, by the two tokens' ranks.
 * A long run of letters meets the same pairs again and again, and the library's lookup by bytes decodes them as
 * text first (and fails, for a pair that splits a character). Open addressing in typed arrays, emptied when half
 * full.
 */
export class PairRankCache {
  private readonly lefts: Int32Array;
  private readonly rights: Int32Array;
  private readonly ranks: Int32Array;
  private readonly bits: number;
  private size = 0;

  /** `bits`: the table holds 2^bits slots (default 2^18: 3 MiB). */
  constructor(bits = 18) {
    this.bits = bits;
    this.lefts = new Int32Array(1 << bits).fill(-1);
    this.rights = new Int32Array(1 << bits);
    this.ranks = new Int32Array(1 << bits);
  }

  /** The cached rank of the pair, or `lookUp()`'s (-1 for undefined), remembered. Ranks are ≥ 0. */
  rankOf(left: number, right: number, lookUp: () => number | undefined): number {
    const mask = (1 << this.bits) - 1;
    let slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 1, 0x85ebca6b)) >>> (32 - this.bits);
    while (this.lefts[slot] !== -1) {
      if (this.lefts[slot] === left && this.rights[slot] === right) {
        return this.ranks[slot];
      }
      slot = (slot + 1) & mask;
    }
    const rank = lookUp() ?? -1;
    if (this.size >= mask >> 1) {
      // Half full: start afresh, so the pairs of the text at hand (a run's few recurring byte pairs) get cached again.
      this.lefts.fill(-1);
      this.size = 0;
      return rank;
    }
    this.lefts[slot] = left;
    this.rights[slot] = right;
    this.ranks[slot] = rank;
    this.size++;
    return rank;
  }
}

let mergedPairRanks: PairRankCache | undefined;

/** A binary min-heap of (rank, start, version), ordered by rank, then start. */
class PairHeap {
  private readonly ranks: number[] = [];
  private readonly starts: number[] = [];
  private readonly versions: number[] = [];

  get size(): number {
    return this.ranks.length;
  }

  topRank(): number {
    return this.ranks[0];
  }

  topStart(): number {
    return this.starts[0];
  }

  topVersion(): number {
    return this.versions[0];
  }

  push(rank: number, start: number, version: number): void {
    let index = this.ranks.length;
    this.ranks.push(rank);
    this.starts.push(start);
    this.versions.push(version);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(index, parent)) {
        break;
      }
      this.swap(index, parent);
      index = parent;
    }
  }

  pop(): void {
    const last = this.ranks.length - 1;
    this.swap(0, last);
    this.ranks.pop();
    this.starts.pop();
    this.versions.pop();
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.ranks.length && this.before(left, smallest)) {
        smallest = left;
      }
      if (right < this.ranks.length && this.before(right, smallest)) {
        smallest = right;
      }
      if (smallest === index) {
        return;
      }
      this.swap(index, smallest);
      index = smallest;
    }
  }

  private before(left: number, right: number): boolean {
    return this.ranks[left] < this.ranks[right] || (this.ranks[left] === this.ranks[right] && this.starts[left] < this.starts[right]);
  }

  private swap(left: number, right: number): void {
    const rank = this.ranks[left];
    this.ranks[left] = this.ranks[right];
    this.ranks[right] = rank;
    const start = this.starts[left];
    this.starts[left] = this.starts[right];
    this.starts[right] = start;
    const version = this.versions[left];
    this.versions[left] = this.versions[right];
    this.versions[right] = version;
  }
}
