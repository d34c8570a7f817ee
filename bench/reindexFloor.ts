/**
 * Fast loop for the "re-index one changed file ÷ its LanceDB floor" row of `npm run bench` (issue 29): SciFact
 * indexed once, then our one-file re-index (as the watcher makes it) and the floor's two raw commits alternated,
 * round by round, in the same minutes. Not part of the test suite.
 *   npx tsx bench/reindexFloor.ts [--rounds 30] [--documents 5183] [--trace]
 * `--trace` prints each LanceDB call of one re-index with its start and duration (ms after the re-index began).
 */
import './benchSupport';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { indexPaths } from '../src/node/index/indexer';
import { createConversionPool } from '../src/node/convert/conversionPool';
import { openStore } from '../src/node/store/lanceStore';
import { loadScifactCorpus, writeScifactFiles } from '../scripts/scifactCorpus';
import { bundledConversionWorker, formatMs, median, rawTableWithFullText, readChunkRows } from './benchSupport';

interface TraceEvent {
  what: string;
  startMs: number;
  durationMs: number;
}

let tracing: { started: number; events: TraceEvent[] } | undefined;

/** Wraps the methods of LanceDB's table class (and query execution) to record their timings while tracing. */
function traceLanceCalls(table: lancedb.Table): void {
  const prototype = Object.getPrototypeOf(table) as Record<string, unknown>;
  if ((prototype as { traced?: boolean }).traced) {
    return;
  }
  (prototype as { traced?: boolean }).traced = true;
  const wrap = (target: Record<string, unknown>, name: string, label: string) => {
    const original = target[name];
    if (typeof original !== 'function') {
      return;
    }
    target[name] = function (this: unknown, ...args: unknown[]) {
      const result = (original as (...rest: unknown[]) => unknown).apply(this, args);
      if (!tracing || !(result instanceof Promise)) {
        return result;
      }
      const trace = tracing;
      const startMs = performance.now() - trace.started;
      const detail = name === 'update' ? ` ${String((args[0] as { where?: string })?.where ?? '')}` : '';
      return result.finally(() => trace.events.push({ what: `${label}${detail}`, startMs, durationMs: performance.now() - trace.started - startMs }));
    };
  };
  for (const name of ['add', 'update', 'delete', 'checkoutLatest', 'version', 'schema', 'countRows', 'toArrow', 'listIndices', 'optimize', 'createIndex']) {
    wrap(prototype, name, `table.${name}`);
  }
  const native = (table as unknown as { inner: Record<string, unknown> }).inner;
  const nativePrototype = Object.getPrototypeOf(native) as Record<string, unknown>;
  for (const name of ['add', 'update', 'checkoutLatest', 'version', 'schema', 'countRows', 'mergeInsert']) {
    wrap(nativePrototype, name, `native.${name}`);
  }
  const query = table.query() as unknown as Record<string, unknown>;
  let queryPrototype = Object.getPrototypeOf(query) as Record<string, unknown>;
  while (queryPrototype && !Object.prototype.hasOwnProperty.call(queryPrototype, 'toArrow')) {
    queryPrototype = Object.getPrototypeOf(queryPrototype) as Record<string, unknown>;
  }
  if (queryPrototype) {
    wrap(queryPrototype, 'toArrow', 'query.toArrow');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '30' }, documents: { type: 'string' }, trace: { type: 'boolean', default: false } } });
  const rounds = Number(values.rounds);
  const corpus = loadScifactCorpus(values.documents ? Number(values.documents) : undefined);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-reindex-floor-'));
  try {
    const documentsFolder = path.join(work, 'documents');
    writeScifactFiles(documentsFolder, corpus);
    const ourFolder = path.join(work, 'ours');
    const store = await openStore({ uri: ourFolder });
    const ingestPool = createConversionPool({ workerScript: await bundledConversionWorker() });
    await indexPaths({ roots: [documentsFolder], baseFolder: documentsFolder, store, conversionPool: ingestPool }).finally(() => ingestPool.dispose());
    const preparedRows = await readChunkRows(ourFolder);
    const referenceTable = await rawTableWithFullText(path.join(work, 'raw'), preparedRows, undefined);
    const floorConnection = await lancedb.connect(path.join(work, 'floor'));
    const documents = await floorConnection.createTable('documents', Array.from({ length: corpus.length }, (_, index) => ({ id: `document-${index}`, generation: 'first', title: `Document ${index}` })), { mode: 'overwrite' });
    await documents.createIndex('id', { config: lancedb.Index.btree() });
    process.stderr.write(`Indexed ${corpus.length} documents; ${rounds} rounds of re-index vs floor…\n`);

    const changed = path.join(documentsFolder, `${corpus[42]._id}.md`);
    const watcherPool = createConversionPool();
    const floorAdds: number[] = [];
    const ours: number[] = [];
    const floor: number[] = [];
    const reindex = async (round: number) => {
      fs.appendFileSync(changed, `\nAn added sentence about benchmark token${round}.\n`);
      const trace = values.trace && round >= 3 && round < 5 ? { started: performance.now(), events: [] as TraceEvent[] } : undefined;
      tracing = trace;
      const started = performance.now();
      const summary = await indexPaths({ roots: [changed], baseFolder: documentsFolder, store, optimize: false, conversionPool: watcherPool });
      const elapsed = performance.now() - started;
      tracing = undefined;
      if (summary.updated.length !== 1) {
        throw new Error(`The re-index did not update the file (updated: ${summary.updated.length}).`);
      }
      if (trace) {
        process.stderr.write(`re-index ${round}: ${elapsed.toFixed(2)} ms\n${trace.events.sort((left, right) => left.startMs - right.startMs).map((event) => `  ${event.startMs.toFixed(2).padStart(7)} +${event.durationMs.toFixed(2).padStart(6)}  ${event.what}`).join('\n')}\n`);
      }
      return elapsed;
    };
    const floorRound = async (round: number) => {
      const started = performance.now();
      await referenceTable.add([{ ...preparedRows[0], id: `floor-${round}` }] as Array<Record<string, unknown>>);
      floorAdds.push(performance.now() - started);
      await documents.update({ where: `id = 'document-${(round * 7) % corpus.length}'`, valuesSql: { generation: `'round-${round}'` } });
      return performance.now() - started;
    };
    if (values.trace) {
      traceLanceCalls(referenceTable);
    }
    for (let round = 0; round < rounds; round++) {
      // Alternating which goes first, so neither always follows the other's work.
      if (round % 2 === 0) {
        ours.push(await reindex(round));
        floor.push(await floorRound(round));
      } else {
        floor.push(await floorRound(round));
        ours.push(await reindex(round));
      }
    }
    await watcherPool.dispose();
    await store.close();
    floorConnection.close();
    const oursMedian = median(ours.slice(1));
    const floorMedian = median(floor.slice(1));
    process.stdout.write(`ours ${formatMs(oursMedian)}  floor ${formatMs(floorMedian)}  ratio ${(oursMedian / floorMedian).toFixed(2)}×  (floor's add ${formatMs(median(floorAdds.slice(1)))}; medians of ${rounds - 1}; load ${os.loadavg()[0].toFixed(1)})\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
