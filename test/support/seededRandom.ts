/**
 * A seeded xorshift32 generator of numbers in [0, 1): repeatable, and without the short cycle of a linear
 * congruential step computed in doubles (text that repeats lets the tokenizer's caches answer, so a speed test
 * would measure the cache).
 */
export function seededRandom(seed: number): () => number {
  let state = seed | 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}
