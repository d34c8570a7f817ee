/**
 * SciFact ingest alone: our `indexPaths` against raw LanceDB `add` + FTS build of the same rows (and MiniSearch 7's
 * `addAll`), in one run, with the indexer's phase durations. Not part of the tests; for profiling the ingest path:
 *   npx tsx bench/scifactIngest.ts [--documents 5183] [--repeat 1] [--keep]
 *   node --cpu-prof --cpu-prof-dir /tmp/prof -r tsx/cjs bench/scifactIngest.ts   # main thread and workers
 */
import './benchSupport';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import MiniSearch from 'minisearch';
import type { BeirDocument } from '../scripts/retrievalMetrics';
import { loadScifactCorpus, writeScifactFiles } from '../scripts/scifactCorpus';
import { indexPaths } from '../src/node/index/indexer';
import { createConversionPool } from '../src/node/convert/conversionPool';
import type { WorkerScript } from '../src/node/workerResolution';
import { openStore, type LanceStore } from '../src/node/store/lanceStore';
import { bundledConversionWorker, formatMs, median, rawTableWithFullText, readChunkRows } from './benchSupport';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { documents: { type: 'string' }, repeat: { type: 'string', default: '1' }, keep: { type: 'boolean', default: false }, 'source-worker': { type: 'boolean', default: false } } });
  const corpus = loadScifactCorpus(values.documents ? Number(values.documents) : undefined);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-scifact-ingest-'));
  try {
    const documentsFolder = path.join(work, 'documents');
    writeScifactFiles(documentsFolder, corpus);
    for (let round = 1; round <= Number(values.repeat); round++) {
      await oneRound(work, round, documentsFolder, corpus, values['source-worker']);
    }
  } finally {
    if (!values.keep) {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

let bundled: Promise<WorkerScript> | undefined;
/** Built once per run, before the first timed round starts its clock. */
function bundledWorkerOnce(): Promise<WorkerScript> {
  bundled ??= bundledConversionWorker();
  return bundled;
}

async function oneRound(work: string, round: number, documentsFolder: string, corpus: readonly BeirDocument[], sourceWorker: boolean): Promise<void> {
  const ourFolder = path.join(work, `ours-${round}`);
  const loadBefore = os.loadavg()[0];
  const store = await openStore({ uri: ourFolder });
  // `--source-worker`: conversion workers from TypeScript under tsx instead of the shipped bundle.
  const workerScript = sourceWorker ? undefined : await bundledWorkerOnce();
  const oursStarted = performance.now();
  const cpuStarted = process.cpuUsage();
  const pool = createConversionPool({ workerScript });
  const summary = await indexPaths({ roots: [documentsFolder], baseFolder: documentsFolder, store, conversionPool: pool }).finally(() => pool.dispose());
  const oursMs = performance.now() - oursStarted;
  const cpu = process.cpuUsage(cpuStarted);
  const stats = await store.stats();
  const single = await singleFileReindexMs(store, documentsFolder);
  await store.close();
  const durations = Object.entries(summary.durations).map(([name, ms]) => `${name.replace(/Ms$/, '')} ${formatMs(ms)}`).join(', ');

  const rows = await readChunkRows(ourFolder);
  const rawStarted = performance.now();
  await rawTableWithFullText(path.join(work, `raw-${round}`), rows, undefined);
  const rawMs = performance.now() - rawStarted;

  const minisearchStarted = performance.now();
  new MiniSearch<BeirDocument>({ idField: '_id', fields: ['title', 'text'] }).addAll(corpus as BeirDocument[]);
  const minisearchMs = performance.now() - minisearchStarted;

  const lines = [
    `round ${round}: ${stats.documents} documents, ${stats.chunks} chunks, ${summary.failed.length} failed; load ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`,
    `  ours ${formatMs(oursMs)} (process CPU ${formatMs((cpu.user + cpu.system) / 1000)}): ${durations}`,
    `  raw LanceDB add + FTS ${formatMs(rawMs)} → ${(oursMs / rawMs).toFixed(2)}×;  MiniSearch addAll ${formatMs(minisearchMs)} → ${(oursMs / minisearchMs).toFixed(2)}×`,
    `  single-file re-index median ${formatMs(single)} → 1/${(oursMs / single).toFixed(0)} of the full ingest`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** One file edited and re-indexed 8 times as the VS Code watcher does (long-lived pool, optimize left to the debounce); the median of the last 7. */
async function singleFileReindexMs(store: LanceStore, documentsFolder: string): Promise<number> {
  const changed = path.join(documentsFolder, fs.readdirSync(documentsFolder)[42]);
  const pool = createConversionPool();
  try {
    const times: number[] = [];
    for (let edit = 0; edit < 8; edit++) {
      fs.appendFileSync(changed, `\nAn added sentence about benchmark token${edit}.\n`);
      const started = performance.now();
      const summary = await indexPaths({ roots: [changed], baseFolder: documentsFolder, store, optimize: false, conversionPool: pool });
      times.push(performance.now() - started);
      if (summary.updated.length !== 1) {
        throw new Error(`The re-index did not update the file (updated: ${summary.updated.length}).`);
      }
    }
    return median(times.slice(1));
  } finally {
    await pool.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
