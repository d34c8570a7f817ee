import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Embedder } from '../../src/core/embeddings/embedder';
import type { Reranker } from '../../src/core/search/reranker';
import { stableHash } from '../../src/core/hash';

/** A fresh folder under the OS temp dir; `cleanup` removes it. */
export function temporaryFolder(prefix = 'haiku-test-'): { path: string; cleanup: () => void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { path: folder, cleanup: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/** Writes files (relative path → content) below `folder`, creating subfolders. */
export function writeFiles(folder: string, files: Record<string, string | Uint8Array>): void {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(folder, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
  }
}

/**
 * A real, deterministic embedder: a hashed bag of lower-cased words, unit length.
 * Texts sharing words are close; texts sharing none are orthogonal (up to hash collisions).
 */
export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  calls = 0;
  textsEmbedded = 0;

  constructor(dimensions = 256, id = `test:hashing-${dimensions}`) {
    this.dimensions = dimensions;
    this.id = id;
  }

  async embed(texts: readonly string[], options: { kind: 'query' | 'document'; abortSignal?: AbortSignal }): Promise<Float32Array[]> {
    options.abortSignal?.throwIfAborted();
    this.calls++;
    this.textsEmbedded += texts.length;
    return texts.map((text) => this.vector(text));
  }

  vector(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      vector[parseInt(stableHash(word).slice(0, 8), 16) % this.dimensions] += 1;
    }
    const norm = Math.hypot(...vector) || 1;
    return vector.map((value) => value / norm);
  }
}

/** Scores documents by how often the query's words occur in them, and records every call. */
export class CountingReranker implements Reranker {
  readonly id = 'test:counting';
  readonly calls: Array<{ query: string; documents: readonly string[]; topN: number }> = [];

  async rerank(query: string, documents: readonly string[], options: { topN: number; abortSignal?: AbortSignal }): Promise<Array<{ index: number; score: number }>> {
    this.calls.push({ query, documents, topN: options.topN });
    const words = query.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    return documents
      .map((document, index) => {
        const text = document.toLowerCase();
        const score = words.reduce((sum, word) => sum + text.split(word).length - 1, 0);
        return { index, score };
      })
      .sort((left, right) => right.score - left.score || left.index - right.index)
      .slice(0, options.topN);
  }
}
