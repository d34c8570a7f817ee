/**
 * Idle memory after indexing the shared corpus the way the extension host does: one long-lived conversion pool
 * (workers exit after `CONVERSION_WORKER_IDLE_MS` without work), the store left open, the debounced upkeep done.
 * Reports the process RSS before indexing, at its peak, and once idle. Run: `npx tsx bench/idleMemory.ts` (in
 * `npm run bench` it runs in a child process of its own).
 */
import './benchSupport';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONVERSION_WORKER_IDLE_MS, OPTIMIZE_DEBOUNCE_MS } from '../src/core/limits';
import { createConversionPool } from '../src/node/convert/conversionPool';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { formatBytes, formatMs, runBenchChild, type BenchRow } from './benchSupport';

const corpusFolder = path.join(process.env.HAIKU_SHARED_DIR ?? path.resolve(__dirname, '..', '..', 'shared'), 'corpus');

export async function idleMemoryBenchmark(work: string, rows: BenchRow[], notes: string[]): Promise<void> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const store = await openStore({ uri: path.join(work, 'idle-memory-index') });
  const pool = createConversionPool();
  try {
    const started = performance.now();
    const summary = await indexPaths({ roots: [corpusFolder], baseFolder: corpusFolder, store, conversionPool: pool });
    const indexMs = performance.now() - started;
    await store.searchWith('configuration', { mode: 'fullText', limit: 10, rerank: false });
    // Idle: the workers' idle exit and the store's debounced upkeep have passed.
    await new Promise((resolve) => setTimeout(resolve, CONVERSION_WORKER_IDLE_MS + OPTIMIZE_DEBOUNCE_MS + 3_000));
    global.gc?.();
    const idle = process.memoryUsage();
    rows.push({ measure: `Idle RSS after indexing the shared corpus (${summary.added.length} files), store open, workers exited`, ours: formatBytes(idle.rss), reference: `${formatBytes(before)} before indexing`, ratio: idle.rss / before, goal: 'report', met: true });
    notes.push(`Idle memory: indexing the shared corpus (${summary.added.length} files, ${summary.failed.length} failed) took ${formatMs(indexMs)} with one long-lived conversion pool; process RSS ${formatBytes(before)} before, peak ${formatBytes(peak)} (workers are threads of this process), ${formatBytes(idle.rss)} idle (JS heap ${formatBytes(idle.heapUsed)}, external ${formatBytes(idle.external)}). The extension host adds VS Code's own share to these.`);
  } finally {
    clearInterval(sampler);
    await pool.dispose();
    await store.close();
  }
}

/**
 * Runs the measurement in a child process (`npm run bench` calls this): RSS of a process that has done nothing
 * else, as the extension host's share would be, not of the bench process that already holds earlier parts' data.
 */
export function idleMemoryInChild(work: string, rows: BenchRow[], notes: string[]): void {
  const result = runBenchChild<{ rows: BenchRow[]; notes: string[] }>(__filename, ['--json', work], 'idle-memory');
  rows.push(...result.rows);
  notes.push(...result.notes);
}

if (require.main === module) {
  const json = process.argv.includes('--json');
  const parent = process.argv.slice(2).find((argument) => !argument.startsWith('--'));
  const work = fs.mkdtempSync(path.join(parent ?? os.tmpdir(), 'haiku-idle-memory-'));
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  idleMemoryBenchmark(work, rows, notes)
    .then(() => process.stdout.write(json ? `${JSON.stringify({ rows, notes })}\n` : `${JSON.stringify(rows, undefined, 2)}\n${notes.join('\n')}\n`))
    .finally(() => fs.rmSync(work, { recursive: true, force: true }));
}
