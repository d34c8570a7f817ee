import * as o200k from 'gpt-tokenizer/encoding/o200k_base';

/** The part of gpt-tokenizer 4.0's encoding object this module reads (private in its typings). */
interface EncodingInternals {
  bytePairEncodingCoreProcessor?: { bytePairStringRankEncoder?: unknown };
}

/** o200k's ranks of the tokens that are valid UTF-8 text, by text; undefined if this gpt-tokenizer keeps them elsewhere. */
const stringRanks: ReadonlyMap<string, number> | undefined = (() => {
  const ranks = (o200k.default as unknown as EncodingInternals).bytePairEncodingCoreProcessor?.bytePairStringRankEncoder;
  return ranks instanceof Map && ranks.get('the') !== undefined ? (ranks as Map<string, number>) : undefined;
})();

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
  const ranks = stringRanks;
  const starts: number[] = [];
  const pairRanks: number[] = [];
  const rankAt = (index: number): number => {
    const end = starts[index + 2];
    return end === undefined ? Number.POSITIVE_INFINITY : (ranks.get(piece.slice(starts[index], end)) ?? Number.POSITIVE_INFINITY);
  };
  for (let index = 0; index <= piece.length; index++) {
    starts.push(index);
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
    pairRanks.splice(lowestIndex, 1);
    pairRanks[lowestIndex] = rankAt(lowestIndex);
    if (lowestIndex > 0) {
      pairRanks[lowestIndex - 1] = rankAt(lowestIndex - 1);
    }
  }
  return starts.length - 1;
}
