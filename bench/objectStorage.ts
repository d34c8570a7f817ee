/**
 * A team index on object storage: the SciFact index served from a local S3 server (s3rver, behind a counting
 * proxy) against the same index on local disk, in one run. Prints search latency p50/p95 (ratio), cold open time,
 * and requests and bytes fetched per query. Part of `npm run bench`; alone: `npx tsx bench/objectStorage.ts`.
 */
import './benchSupport';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { indexPaths } from '../src/node/index/indexer';
import { openStore, type LanceStore } from '../src/node/store/lanceStore';
import * as lancedb from '@lancedb/lancedb';
import { type ObjectStorageSettings, storageOptionsFor } from '../src/node/store/objectStorage';
import { CHUNK_RESULT_COLUMNS } from '../src/node/store/schema';
import { loadScifactCorpus, loadScifactQueries, writeScifactFiles } from '../scripts/scifactCorpus';
import { startObjectStorage } from '../test/unit/store/objectStorageServer';
import { formatBytes, formatMs, median, percentile, type BenchRow } from './benchSupport';

/** Queries timed per side (SciFact has 1,109; a subset keeps the S3 side under a minute). */
const TIMED_QUERIES = 200;

export async function objectStorageBenchmarks(work: string): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const corpus = loadScifactCorpus();
  const documents = path.join(work, 'scifact-documents-s3');
  writeScifactFiles(documents, corpus);
  const storage = await startObjectStorage('bench');
  try {
    const uri = 's3://bench/scifact';
    const local = path.join(work, 'scifact-local');
    const direct = storage.settings();
    const viaProxy = storage.settings({ viaProxy: true });

    log(`Object storage: indexing ${corpus.length} SciFact documents to local disk and to s3rver…`);
    const localIngest = await timed(async () => {
      const store = await openStore({ uri: local });
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      await store.close();
    });
    const remoteIngest = await timed(async () => {
      const store = await openStore({ uri, storage: direct });
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      await store.close();
    });
    rows.push(ratio(`SciFact publish to s3rver ÷ local ingest (${corpus.length} docs)`, remoteIngest, localIngest, 'local disk', 'report'));

    log('Object storage: cold opens and searches…');
    let localStore: LanceStore | undefined;
    let remoteStore: LanceStore | undefined;
    const localOpenMs = await timed(async () => {
      localStore = await openStore({ uri: local, readOnly: true });
    });
    const before = { requests: storage.proxy.requests, bytes: storage.proxy.bytesDown };
    const remoteOpenMs = await timed(async () => {
      remoteStore = await openStore({ uri, storage: viaProxy, readOnly: true });
    });
    const openRequests = storage.proxy.requests - before.requests;
    const openBytes = storage.proxy.bytesDown - before.bytes;
    rows.push(ratio('Cold open (read-only), s3rver ÷ local', remoteOpenMs, localOpenMs, 'local disk', 'report'));
    try {
      const queries = [...loadScifactQueries().values()].slice(0, TIMED_QUERIES);
      // One warm-up query each: the first loads the FTS index into LanceDB's session cache.
      const firstRemote = await counted(storage.proxy, () => remoteStore!.searchWith(queries[0], { mode: 'fullText', limit: 10, rerank: false }));
      await localStore!.searchWith(queries[0], { mode: 'fullText', limit: 10, rerank: false });
      // The floor: raw LanceDB's FTS query of the same tables, with the columns our results read, through the same proxy.
      const rawTable = async (tableUri: string, settings?: ObjectStorageSettings) => (await lancedb.connect(tableUri, { storageOptions: storageOptionsFor(tableUri, settings) })).openTable('chunks');
      const [rawLocal, rawRemote] = await Promise.all([rawTable(local), rawTable(uri, viaProxy)]);
      const rawSearch = (table: lancedb.Table, query: string) => table.query().fullTextSearch(query, { columns: ['search_text'] }).select([...CHUNK_RESULT_COLUMNS, '_score']).limit(10).toArray();
      await Promise.all([rawSearch(rawLocal, queries[0]), rawSearch(rawRemote, queries[0])]);
      const localTimes: number[] = [];
      const remoteTimes: number[] = [];
      const rawLocalTimes: number[] = [];
      const rawRemoteTimes: number[] = [];
      const perQuery = { requests: 0, bytes: 0, rawRequests: 0 };
      for (const query of queries) {
        localTimes.push(await timed(() => localStore!.searchWith(query, { mode: 'fullText', limit: 10, rerank: false })));
        const remote = await counted(storage.proxy, () => remoteStore!.searchWith(query, { mode: 'fullText', limit: 10, rerank: false }));
        remoteTimes.push(remote.ms);
        perQuery.requests += remote.requests;
        perQuery.bytes += remote.bytes;
        rawLocalTimes.push(await timed(() => rawSearch(rawLocal, query)));
        const rawRemoteQuery = await counted(storage.proxy, () => rawSearch(rawRemote, query));
        rawRemoteTimes.push(rawRemoteQuery.ms);
        perQuery.rawRequests += rawRemoteQuery.requests;
      }
      rawLocal.close();
      rawRemote.close();
      const rawRatio = median(rawRemoteTimes) / median(rawLocalTimes);
      rows.push({
        ...ratio(`SciFact full-text search p50, s3rver ÷ local (${queries.length} queries, top 10)`, median(remoteTimes), median(localTimes), 'local disk', '≤ 5×'),
        reference: `${formatMs(median(localTimes))} (local disk; raw LanceDB's own ratio ${rawRatio.toFixed(2)}×)`,
      });
      rows.push(ratio('Raw LanceDB full-text query p50 (the same columns), s3rver ÷ local: the floor of the row above', median(rawRemoteTimes), median(rawLocalTimes), 'local disk', 'report'));
      rows.push(ratio('SciFact full-text search p95, s3rver ÷ local', percentile(remoteTimes, 0.95), percentile(localTimes, 0.95), 'local disk', 'report'));
      const requestsPerQuery = perQuery.requests / queries.length;
      const bytesPerQuery = perQuery.bytes / queries.length;
      notes.push(
        `Object storage (s3rver on 127.0.0.1 behind a counting proxy): cold open ${formatMs(remoteOpenMs)} with ${openRequests} requests and ${formatBytes(openBytes)}; ` +
          `the first query ${formatMs(firstRemote.ms)} with ${firstRemote.requests} requests and ${formatBytes(firstRemote.bytes)} (FTS index into the session cache); ` +
          `afterwards ${requestsPerQuery.toFixed(1)} requests and ${formatBytes(bytesPerQuery)} per query (p50 ${formatMs(median(remoteTimes))}, local ${formatMs(median(localTimes))}); ` +
          `raw LanceDB's query ${(perQuery.rawRequests / queries.length).toFixed(1)} requests (p50 ${formatMs(median(rawRemoteTimes))}, local ${formatMs(median(rawLocalTimes))}).`,
      );
      notes.push(
        `Extrapolated to a real bucket (S3 in-region first byte ≈ 20–30 ms, from a laptop ≈ 50–100 ms, requests of one query partly in parallel): ` +
          `≈ ${formatMs(requestsPerQuery * 25)}–${formatMs(requestsPerQuery * 100)} added per warm query if its requests ran one after another, ` +
          `and a cold open of ≈ ${formatMs(openRequests * 25)}–${formatMs(openRequests * 100)} plus the first query's ${firstRemote.requests} requests.`,
      );
    } finally {
      await localStore?.close();
      await remoteStore?.close();
    }
  } finally {
    await storage.close();
  }
  return { rows, notes };
}

async function counted<T>(proxy: { requests: number; bytesDown: number }, work: () => Promise<T>): Promise<{ ms: number; requests: number; bytes: number }> {
  const requests = proxy.requests;
  const bytes = proxy.bytesDown;
  const ms = await timed(work);
  return { ms, requests: proxy.requests - requests, bytes: proxy.bytesDown - bytes };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function ratio(measure: string, oursMs: number, referenceMs: number, referenceName: string, goal: string): BenchRow {
  const value = oursMs / referenceMs;
  const limit = /^≤ ([\d.]+)×$/.exec(goal);
  return { measure, ours: formatMs(oursMs), reference: `${formatMs(referenceMs)} (${referenceName})`, ratio: value, goal, met: limit ? value <= Number(limit[1]) : true };
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

if (require.main === module) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-s3-'));
  objectStorageBenchmarks(work)
    .then(({ rows, notes }) => {
      for (const row of rows) {
        process.stdout.write(`| ${row.measure} | ${row.ours} | ${row.reference} | ${row.ratio.toFixed(2)}× | ${row.goal} |\n`);
      }
      process.stdout.write(notes.map((note) => `- ${note}`).join('\n') + '\n');
    })
    .finally(() => fs.rmSync(work, { recursive: true, force: true }));
}
