/**
 * Cost of converting through the conversion pool (worker threads) instead of in-process, on the shared corpus.
 *
 * Reference measured in the same run: `loadDocument` in-process, warm. Reported:
 * - per-file overhead of the pool (one worker, one file at a time, warm): median and total vs in-process;
 * - throughput with `INDEX_CONCURRENCY` files in flight: pool workers vs interleaved in-process conversion (today's indexer);
 * - cold start (first file of a fresh pool);
 * - the longest event-loop stall of the caller while a pathological Markdown file converts, in-process vs pooled.
 * Run: `npx tsx bench/conversionPool.ts [passes]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { INDEX_CONCURRENCY } from '../src/core/limits';
import { createConversionPool, type ConversionPool } from '../src/node/convert/conversionPool';
import { loadDocument } from '../src/node/convert/convertFile';
import { corpusRoot, filesBelow } from '../test/support/paths';

const passes = Number(process.argv[2] ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

function milliseconds(value: number): string {
  return `${value.toFixed(1)} ms`;
}

const files = filesBelow(corpusRoot).filter((relative) => !relative.endsWith('LICENSE')).map((relative) => path.join(corpusRoot, relative));

async function settle<T>(promise: Promise<T>): Promise<void> {
  await promise.then(() => undefined, () => undefined);
}

/** Per-file times of one sequential pass (errors count as conversions: they are results too). */
async function sequentialPass(convert: (filePath: string) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const filePath of files) {
    const started = performance.now();
    await settle(convert(filePath));
    times.push(performance.now() - started);
  }
  return times;
}

/** Wall time of converting every file with `concurrency` in flight. */
async function concurrentPass(convert: (filePath: string) => Promise<unknown>, concurrency: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < files.length) {
      await settle(convert(files[next++]));
    }
  }));
  return performance.now() - started;
}

/** Longest gap between timer ticks (1 ms interval) while `work` runs: how long the caller's event loop was blocked. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await settle(work());
  clearInterval(ticker);
  return Math.max(longest, performance.now() - last);
}

async function main(): Promise<void> {
  console.log(`conversion pool vs in-process: ${files.length} corpus files, ${passes} warm passes, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  const inProcess = (filePath: string) => loadDocument({ rootPath: corpusRoot, filePath });

  const coldPool = createConversionPool({ size: 1 });
  const coldStarted = performance.now();
  await settle(coldPool.load(path.join(corpusRoot, 'vite-docs/README.md'), { rootPath: corpusRoot }));
  const coldStart = performance.now() - coldStarted;
  await coldPool.dispose();

  const single: ConversionPool = createConversionPool({ size: 1 });
  const pooled = (filePath: string) => single.load(filePath, { rootPath: corpusRoot });
  // The floor of the pool's overhead: a job that fails at `stat`, so only messaging and error rebuilding remain.
  const missing = path.join(os.tmpdir(), 'haiku-bench-missing.md');
  await settle(pooled(missing));
  const roundTrips: number[] = [];
  const inProcessMissing: number[] = [];
  for (let round = 0; round < 200; round++) {
    let started = performance.now();
    await settle(pooled(missing));
    roundTrips.push(performance.now() - started);
    started = performance.now();
    await settle(inProcess(missing));
    inProcessMissing.push(performance.now() - started);
  }
  // The other fixed cost: copying the document across threads (structured clone), for the largest corpus document.
  const largest = files.reduce((best, filePath) => (fs.statSync(filePath).size > fs.statSync(best).size && !filePath.endsWith('.pdf') ? filePath : best));
  const largestDocument = await loadDocument({ rootPath: corpusRoot, filePath: largest });
  const cloneStarted = performance.now();
  for (let round = 0; round < 20; round++) {
    v8.deserialize(v8.serialize(largestDocument));
  }
  const cloneTime = (performance.now() - cloneStarted) / 20;
  console.log(`Job round trip (file missing, fails at stat): pool ${milliseconds(median(roundTrips))}, in-process ${milliseconds(median(inProcessMissing))}`);
  console.log(`Structured clone of the largest non-PDF document (${path.relative(corpusRoot, largest)}, ${largestDocument.items.length} items, ${largestDocument.content.length} chars): ${milliseconds(cloneTime)}`);
  // Warm-up: JIT and every converter loaded on both sides.
  await sequentialPass(inProcess);
  await sequentialPass(pooled);

  const inProcessTimes: number[][] = [];
  const pooledTimes: number[][] = [];
  for (let pass = 0; pass < passes; pass++) {
    inProcessTimes.push(await sequentialPass(inProcess));
    pooledTimes.push(await sequentialPass(pooled));
  }
  await single.dispose();
  const perFileInProcess = files.map((_, index) => median(inProcessTimes.map((times) => times[index])));
  const perFilePooled = files.map((_, index) => median(pooledTimes.map((times) => times[index])));
  const overheads = files.map((_, index) => perFilePooled[index] - perFileInProcess[index]);
  const totalInProcess = perFileInProcess.reduce((sum, value) => sum + value, 0);
  const totalPooled = perFilePooled.reduce((sum, value) => sum + value, 0);

  console.log('\nOne file at a time (medians over passes):');
  console.log(`  in-process: median ${milliseconds(median(perFileInProcess))}/file, total ${milliseconds(totalInProcess)}`);
  console.log(`  pool (1 worker): median ${milliseconds(median(perFilePooled))}/file, total ${milliseconds(totalPooled)} (${(totalPooled / totalInProcess).toFixed(2)}× in-process)`);
  console.log(`  overhead per file: median ${milliseconds(median(overheads))}, mean ${milliseconds((totalPooled - totalInProcess) / files.length)}`);
  for (const extension of ['.md', '.html', '.pdf', '.docx']) {
    const indexes = files.map((filePath, index) => (path.extname(filePath) === extension ? index : -1)).filter((index) => index >= 0);
    if (indexes.length > 0) {
      console.log(`    ${extension.padEnd(5)} (${String(indexes.length).padStart(3)} files): in-process ${milliseconds(median(indexes.map((index) => perFileInProcess[index])))}, pool ${milliseconds(median(indexes.map((index) => perFilePooled[index])))}, overhead ${milliseconds(median(indexes.map((index) => overheads[index])))}`);
    }
  }

  const concurrent = createConversionPool({ size: INDEX_CONCURRENCY });
  await concurrentPass((filePath) => concurrent.load(filePath, { rootPath: corpusRoot }), INDEX_CONCURRENCY); // warm-up
  const concurrentTimes: number[] = [];
  const sequentialTimes: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    sequentialTimes.push(await concurrentPass(inProcess, INDEX_CONCURRENCY));
    concurrentTimes.push(await concurrentPass((filePath) => concurrent.load(filePath, { rootPath: corpusRoot }), INDEX_CONCURRENCY));
  }
  await concurrent.dispose();
  console.log(`\nWhole corpus, ${INDEX_CONCURRENCY} files in flight (as the indexer runs): in-process ${milliseconds(median(sequentialTimes))}; pool of ${INDEX_CONCURRENCY} workers ${milliseconds(median(concurrentTimes))} (in-process ÷ pool: ${(median(sequentialTimes) / median(concurrentTimes)).toFixed(2)}; above 1 the pool is faster)`);
  console.log(`Cold start (fresh pool, first small file): ${milliseconds(coldStart)}`);

  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-pool-'));
  try {
    const nested = path.join(folder, 'nested.md');
    fs.writeFileSync(nested, Array.from({ length: 400 }, (_, level) => `${'  '.repeat(level)}- item ${level}`).join('\n'));
    const stallPool = createConversionPool({ size: 1 });
    await settle(stallPool.load(path.join(corpusRoot, 'vite-docs/README.md'), { rootPath: corpusRoot }));
    let inProcessDuration = 0;
    const inProcessStall = await longestStall(async () => {
      const started = performance.now();
      await settle(loadDocument({ rootPath: folder, filePath: nested }));
      inProcessDuration = performance.now() - started;
    });
    const pooledStall = await longestStall(() => stallPool.load(nested, { rootPath: folder }));
    await stallPool.dispose();
    console.log(`\nPathological Markdown (400-level nested list, ${fs.statSync(nested).size} bytes): in-process ${milliseconds(inProcessDuration)}`);
    console.log(`  longest event-loop stall of the caller: in-process ${milliseconds(inProcessStall)}, pooled ${milliseconds(pooledStall)}`);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

void main();
