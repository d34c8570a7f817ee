/**
 * A fast, dependency-free 104-bit string hash (two seeded cyrb53 lanes), for ids that must be stable
 * across runs and platforms. Not cryptographic: use `node:crypto` for content hashes of files.
 */
export function stableHash(text: string): string {
  // Both lanes in one pass over the text: the same values as two separate cyrb53 runs, in about half the time
  // (every chunk id hashes the chunk's whole text).
  let a1 = 0xdeadbeef ^ FIRST_SEED;
  let a2 = 0x41c6ce57 ^ FIRST_SEED;
  let b1 = 0xdeadbeef ^ SECOND_SEED;
  let b2 = 0x41c6ce57 ^ SECOND_SEED;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a1 = Math.imul(a1 ^ code, 2654435761);
    a2 = Math.imul(a2 ^ code, 1597334677);
    b1 = Math.imul(b1 ^ code, 2654435761);
    b2 = Math.imul(b2 ^ code, 1597334677);
  }
  return cyrb53Finish(a1, a2).toString(16).padStart(14, '0') + cyrb53Finish(b1, b2).toString(16).padStart(14, '0');
}

const FIRST_SEED = 0x9e3779b1;
const SECOND_SEED = 0x85ebca6b;

/** cyrb53's final mix of its two 32-bit states into a 53-bit number. */
function cyrb53Finish(h1: number, h2: number): number {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Document id for a root-relative path: stable, path-safe (used as a VFS folder name). */
export function documentIdForPath(relativePath: string): string {
  return 'd' + stableHash(relativePath.replace(/\\/g, '/')).slice(0, 20);
}
