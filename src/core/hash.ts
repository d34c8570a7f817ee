/**
 * A fast, dependency-free 104-bit string hash (two seeded cyrb53 lanes), for ids that must be stable
 * across runs and platforms. Not cryptographic: use `node:crypto` for content hashes of files.
 */
export function stableHash(text: string): string {
  return cyrb53(text, 0x9e3779b1).toString(16).padStart(14, '0') + cyrb53(text, 0x85ebca6b).toString(16).padStart(14, '0');
}

function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
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
