import '../src/node/store/lanceEnvironment';
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import * as esbuild from 'esbuild';
import { resolveConversionWorker } from '../src/node/convert/conversionPool';
import type { WorkerScript } from '../src/node/workerResolution';
import type { Embedder } from '../src/core/embeddings/embedder';
import { stableHash } from '../src/core/hash';
import { CHUNKS_TABLE, chunksSchema } from '../src/node/store/schema';

/** One row of the report's table: our figure against the reference measured in the same run. */
export interface BenchRow {
  measure: string;
  ours: string;
  reference: string;
  /** ours ÷ reference */
  ratio: number;
  goal: string;
  met: boolean;
}

/** Mulberry32: a small seeded generator, so every run benchmarks the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unit vector (Gaussian components, normalised). */
export function randomUnitVector(random: () => number, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let sumOfSquares = 0;
  for (let index = 0; index < dimensions; index += 2) {
    // Box–Muller: two Gaussians per pair of uniforms.
    const radius = Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    vector[index] = radius * Math.cos(angle);
    if (index + 1 < dimensions) {
      vector[index + 1] = radius * Math.sin(angle);
    }
  }
  for (let index = 0; index < dimensions; index++) {
    sumOfSquares += vector[index] * vector[index];
  }
  const scale = 1 / Math.sqrt(sumOfSquares);
  for (let index = 0; index < dimensions; index++) {
    vector[index] *= scale;
  }
  return vector;
}

/**
 * Deterministic stand-in for an embeddings server: each text maps to a pseudo-random unit vector seeded by
 * its hash. Costs microseconds, so the benchmarks measure our search, not a model.
 */
export class HashedRandomEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.id = `bench:hashed-random-${dimensions}`;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.vectorFor(text));
  }
  vectorFor(text: string): Float32Array {
    return randomUnitVector(seededRandom(parseInt(stableHash(text).slice(0, 8), 16)), this.dimensions);
  }
}

/** A Zipf-distributed vocabulary of pronounceable pseudo-words (the stemmer leaves most of them alone). */
export class SyntheticVocabulary {
  readonly words: string[];
  private readonly cumulative: Float64Array;
  constructor(size: number, random: () => number) {
    const syllables = ['ka', 'lo', 'mi', 'ra', 'ten', 'su', 'vor', 'el', 'din', 'pa', 'qua', 'zo', 'bri', 'nu', 'gal', 'tho', 'wi', 'fen', 'ju', 'hal'];
    const seen = new Set<string>();
    this.words = [];
    while (this.words.length < size) {
      let word = '';
      const count = 2 + Math.floor(random() * 3);
      for (let index = 0; index < count; index++) {
        word += syllables[Math.floor(random() * syllables.length)];
      }
      if (!seen.has(word)) {
        seen.add(word);
        this.words.push(word);
      }
    }
    this.cumulative = new Float64Array(size);
    let total = 0;
    for (let rank = 0; rank < size; rank++) {
      total += 1 / (rank + 1);
      this.cumulative[rank] = total;
    }
    for (let rank = 0; rank < size; rank++) {
      this.cumulative[rank] /= total;
    }
  }
  /** A word drawn with Zipf probabilities (binary search over the cumulative weights). */
  draw(random: () => number): string {
    const target = random();
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.cumulative[middle] < target) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return this.words[low];
  }
  sentence(random: () => number, wordCount: number): string {
    const words: string[] = [];
    for (let index = 0; index < wordCount; index++) {
      words.push(this.draw(random));
    }
    return words.join(' ');
  }
}

export function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 0.5);
}

/** Milliseconds of each call, after `warmup` untimed calls. */
export async function timeEach<T>(inputs: readonly T[], run: (input: T) => Promise<unknown>, warmup = 3): Promise<number[]> {
  for (const input of inputs.slice(0, warmup)) {
    await run(input);
  }
  const samples: number[] = [];
  for (const input of inputs) {
    const started = performance.now();
    await run(input);
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * Times two implementations on the same inputs, alternating per input so that load from other processes on
 * a shared machine hits both alike. Returns each one's milliseconds.
 */
export async function timePaired<T>(
  inputs: readonly T[],
  ours: (input: T) => Promise<unknown>,
  reference: (input: T) => Promise<unknown>,
  warmup = 3,
): Promise<{ ours: number[]; reference: number[] }> {
  for (const input of inputs.slice(0, warmup)) {
    await ours(input);
    await reference(input);
  }
  const result = { ours: [] as number[], reference: [] as number[] };
  for (const [index, input] of inputs.entries()) {
    // Alternate which goes first, so neither always runs on a cache warmed by the other.
    const order = index % 2 === 0 ? (['ours', 'reference'] as const) : (['reference', 'ours'] as const);
    for (const which of order) {
      const started = performance.now();
      await (which === 'ours' ? ours : reference)(input);
      result[which].push(performance.now() - started);
    }
  }
  return result;
}

/** Top `limit` rows by dot product over vectors packed in one Float32Array: the reference exact scan. */
export function dotProductTopK(vectors: Float32Array, dimensions: number, query: Float32Array, limit: number): Array<{ row: number; score: number }> {
  const rowCount = vectors.length / dimensions;
  const topScores = new Float64Array(limit).fill(-Infinity);
  const topRows = new Int32Array(limit).fill(-1);
  for (let row = 0; row < rowCount; row++) {
    let score = 0;
    const offset = row * dimensions;
    for (let index = 0; index < dimensions; index++) {
      score += vectors[offset + index] * query[index];
    }
    if (score > topScores[limit - 1]) {
      let position = limit - 1;
      while (position > 0 && topScores[position - 1] < score) {
        topScores[position] = topScores[position - 1];
        topRows[position] = topRows[position - 1];
        position--;
      }
      topScores[position] = score;
      topRows[position] = row;
    }
  }
  const result: Array<{ row: number; score: number }> = [];
  for (let position = 0; position < limit && topRows[position] >= 0; position++) {
    result.push({ row: topRows[position], score: topScores[position] });
  }
  return result;
}

/** The full-text index settings the store uses (kept equal so the raw reference does the same work). */
export function referenceFullTextIndex(): lancedb.Index {
  return lancedb.Index.fts({ withPosition: false, baseTokenizer: 'simple', language: 'English', stem: true, removeStopWords: true, asciiFolding: true, lowercase: true });
}

export function formatMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`;
}

/**
 * This process's own peak RSS (bytes). On Linux from `VmHWM` of /proc/self/status: `resourceUsage().maxRSS` (getrusage)
 * keeps the peak across `exec`, so a child spawned by the bench reported the bench's own RSS when that was larger
 * (a `node -e` child of a 1.2 GB parent: 1204 MiB, against a VmHWM of 40 MiB).
 */
export function ownPeakRssBytes(): number {
  try {
    const kilobytes = /^VmHWM:\s*(\d+)\s*kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kilobytes !== undefined) {
      return Number(kilobytes) * 1024;
    }
  } catch {
    // Not Linux: getrusage's figure, which is this process's own when it was not started by a larger one.
  }
  return process.resourceUsage().maxRSS * 1024;
}

export function formatBytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

export type PreparedRow = Record<string, unknown> & { id: string; vector?: Float32Array };

/** Every chunk row of one of our indexes, as plain objects (vectors as `Float32Array`). */
export async function readChunkRows(indexFolder: string, withVectors = false): Promise<PreparedRow[]> {
  const connection = await lancedb.connect(indexFolder);
  const table = await connection.openTable(CHUNKS_TABLE);
  const arrow = await table.query().toArrow();
  const names = arrow.schema.fields.map((field) => field.name).filter((name) => withVectors || name !== 'vector');
  const columns = names.map((name) => [name, arrow.getChild(name)!] as const);
  const result: PreparedRow[] = [];
  for (let row = 0; row < arrow.numRows; row++) {
    const plain: Record<string, unknown> = {};
    for (const [name, column] of columns) {
      const value = column.get(row);
      plain[name] = name === 'vector' ? (value as { toArray(): Float32Array }).toArray().slice() : value;
    }
    result.push(plain as PreparedRow);
  }
  connection.close();
  return result;
}

export async function rawTableWithFullText(folder: string, rows: readonly PreparedRow[], dimensions: number | undefined): Promise<lancedb.Table> {
  const connection = await lancedb.connect(folder);
  const table = await connection.createEmptyTable(CHUNKS_TABLE, chunksSchema(dimensions), { mode: 'overwrite' });
  const batch = 20_000;
  for (let start = 0; start < rows.length; start += batch) {
    await table.add(rows.slice(start, start + batch) as Array<Record<string, unknown>>);
  }
  await table.createIndex('search_text', { config: referenceFullTextIndex() });
  return table;
}

/**
 * LanceDB's floor of an atomic one-document switch: a raw `add` of one chunk row, then an `update` of one document row
 * by id (two commits in series), on `chunksTable` and a documents table of `documentCount` rows made here. Each
 * `round()` times one switch, so a caller can interleave rounds with its own re-indexes (same heap, same moment).
 */
export async function atomicSwitchFloor(folder: string, chunksTable: lancedb.Table, chunkRow: PreparedRow, documentCount: number): Promise<{ round(): Promise<number>; close(): void }> {
  const connection = await lancedb.connect(folder);
  const documents = await connection.createTable('documents', Array.from({ length: documentCount }, (_, index) => ({ id: `document-${index}`, generation: 'first', title: `Document ${index}` })), { mode: 'overwrite' });
  await documents.createIndex('id', { config: lancedb.Index.btree() });
  let rounds = 0;
  return {
    async round() {
      const round = rounds++;
      const started = performance.now();
      await chunksTable.add([{ ...chunkRow, id: `floor-${round}` }] as Array<Record<string, unknown>>);
      await documents.update({ where: `id = 'document-${(round * 7) % documentCount}'`, valuesSql: { generation: `'round-${round}'` } });
      return performance.now() - started;
    },
    close: () => connection.close(),
  };
}

/**
 * The conversion worker as shipped: an esbuild bundle like `dist/conversion-worker.js` (production options), built
 * into `dist-bench/` inside the checkout so its external packages resolve. From source under tsx each worker spends
 * about 0.9 s loading TypeScript modules, which the extension and the CLI never pay.
 */
export async function bundledConversionWorker(): Promise<WorkerScript> {
  const repositoryRoot = path.resolve(__dirname, '..');
  const folder = path.join(repositoryRoot, 'dist-bench');
  const { o200kRanksPlugin } = await import('../scripts/o200kRanksPlugin.mjs');
  const { pdfjsFilePlugin } = await import('../scripts/pdfjsFilePlugin.mjs');
  await bundleForBench(path.join(repositoryRoot, 'src/node/convert/conversionWorker.ts'), 'conversion-worker.js', {
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
    plugins: [pdfjsFilePlugin(folder), o200kRanksPlugin(folder)],
  });
  return resolveConversionWorker(folder);
}

/**
 * Bundles `entry` as shipped code is bundled (esbuild, production options) into `dist-bench/<name>` inside the
 * checkout, so its external packages resolve; returns the bundle's path. `extra`: further esbuild options.
 */
export async function bundleForBench(entry: string, name: string, extra: esbuild.BuildOptions = {}): Promise<string> {
  const outfile = path.join(path.resolve(__dirname, '..'), 'dist-bench', name);
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: true,
    external: ['vscode', '@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'],
    logLevel: 'silent',
    ...extra,
  });
  return outfile;
}

/**
 * Runs a bench script under tsx in a process of its own (peak and idle memory are per process) and returns the
 * JSON on the last line of its output.
 */
export function runBenchChild<T>(script: string, args: readonly string[], what: string): T {
  const child = childProcess.spawnSync(process.execPath, ['-r', 'tsx/cjs', script, ...args], { cwd: path.resolve(__dirname, '..'), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (child.status !== 0) {
    throw new Error(`The ${what} child failed (${child.status}): ${child.stderr}`);
  }
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as T;
}
