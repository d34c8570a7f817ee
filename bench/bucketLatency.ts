/**
 * A team index at a real bucket's latency (issue 29, "bucket"): the SciFact index on s3rver behind a proxy that adds
 * `REQUEST_LATENCY_MS` to every request (an in-region S3 first byte), read the way `haiku mcp --read-only` reads it,
 * against the same index on local disk, in one run:
 * - warm: one tool call (version check, then a full-text top-10 search) per query, local / bucket read directly
 *   (before: no mirror, a version check per call) / bucket through the local mirror (after), interleaved query by query;
 * - cold: a fresh process's open + first tool call, each variant alternately in child processes.
 * Requests per query are counted at the latency proxy. Part of `npm run bench`; alone: `npx tsx bench/bucketLatency.ts`.
 */
import './benchSupport';
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultConfig } from '../src/core/config';
import { REMOTE_VERSION_CHECK_INTERVAL_MS } from '../src/core/limits';
import { openIndex, type OpenedIndex } from '../src/node/backend/openIndex';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import type { ObjectStorageSettings } from '../src/node/store/objectStorage';
import { loadScifactCorpus, loadScifactQueries, writeScifactFiles } from '../scripts/scifactCorpus';
import { S3RVER_ACCESS_KEY_ID, S3RVER_SECRET_ACCESS_KEY, startObjectStorage } from '../test/unit/store/objectStorageServer';
import { bundleForBench, formatBytes, formatMs, median, percentile, type BenchRow } from './benchSupport';

/** What the proxy adds to every request (ms): an in-region S3 first byte. */
const REQUEST_LATENCY_MS = 25;
/** Warm tool calls timed per variant. */
const WARM_QUERIES = 100;
/** Fresh processes per cold variant. */
const COLD_ROUNDS = 5;

/** A proxy in front of s3rver that waits `latencyMs` before forwarding each request, and counts them. */
async function startLatencyProxy(upstreamEndpoint: string, latencyMs: number): Promise<{ endpoint: string; counters: { requests: number; bytes: number }; close(): Promise<void> }> {
  const upstream = new URL(upstreamEndpoint);
  const counters = { requests: 0, bytes: 0 };
  const server = http.createServer((request, response) => {
    counters.requests++;
    // The request body (none for reads) is held until the delay has passed.
    request.pause();
    setTimeout(() => {
      const forwarded = http.request({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => (counters.bytes += chunk.length));
        answer.pipe(response);
      });
      forwarded.on('error', () => response.destroy());
      request.pipe(forwarded);
      request.resume();
    }, latencyMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counters,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ChildTimes {
  openMs: number;
  openAndQueryMs: number;
  processMs: number;
  hits: string[];
}

/** Runs the cold child without blocking this process's event loop (the latency proxy lives here). */
function runChild(script: string, args: readonly string[]): Promise<ChildTimes> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HAIKU_BENCH_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID, HAIKU_BENCH_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY };
    const child = childProcess.spawn(process.execPath, [script, ...args], { cwd: path.resolve(__dirname, '..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`The bucket latency child failed (${code}): ${stderr.slice(-2000)}`));
        return;
      }
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as ChildTimes);
    });
  });
}

export async function bucketLatencyBenchmarks(work: string): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const corpus = loadScifactCorpus();
  const documents = path.join(work, 'scifact-documents-bucket');
  writeScifactFiles(documents, corpus);
  const storage = await startObjectStorage('latency');
  const proxy = await startLatencyProxy(storage.endpoint, REQUEST_LATENCY_MS);
  const consumers: OpenedIndex[] = [];
  try {
    const uri = `s3://${storage.bucket}/scifact`;
    const local = path.join(work, 'scifact-bucket-local');
    const direct = storage.settings();
    const slow: ObjectStorageSettings = { ...direct, endpoint: proxy.endpoint };
    const cacheFolder = path.join(work, 'bucket-cache');

    log(`Bucket latency: indexing ${corpus.length} SciFact documents to local disk and publishing them to s3rver…`);
    for (const [target, settings] of [[local, undefined], [uri, direct]] as const) {
      const store = await openStore({ uri: target, storage: settings });
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      await store.close();
    }

    log(`Bucket latency: opening the consumers (${REQUEST_LATENCY_MS} ms per request)…`);
    const open = async (databaseUri: string, options: { storage?: ObjectStorageSettings; cache: string | false; intervalMs: number }) => {
      const before = proxy.counters.requests;
      const started = performance.now();
      const index = await openIndex({
        config: defaultConfig(),
        cwd: work,
        databaseUri,
        mustExist: true,
        followOtherWriters: true,
        readOnly: true,
        models: {},
        storage: options.storage,
        bucketCacheFolder: options.cache,
        versionCheckIntervalMs: options.intervalMs,
      });
      consumers.push(index);
      return { index, ms: performance.now() - started, requests: proxy.counters.requests - before };
    };
    const localIndex = await open(local, { cache: false, intervalMs: 0 });
    const before = await open(uri, { storage: slow, cache: false, intervalMs: 0 });
    const firstSync = await open(uri, { storage: slow, cache: cacheFolder, intervalMs: REMOTE_VERSION_CHECK_INTERVAL_MS });
    const mirrorEveryCall = await open(uri, { storage: slow, cache: cacheFolder, intervalMs: 0 });
    const mirrorBytes = proxy.counters.bytes;

    const queries = [...loadScifactQueries().values()].slice(0, WARM_QUERIES + 1);
    const toolCall = async (index: OpenedIndex, query: string) => {
      const requests = proxy.counters.requests;
      const started = performance.now();
      await index.refreshIfChanged();
      const hits = await index.store.searchWith(query, { mode: 'fullText', limit: 10, rerank: false });
      return { ms: performance.now() - started, requests: proxy.counters.requests - requests, hits: hits.map((hit) => hit.chunkId).join() };
    };
    // The first query of each loads the FTS index into LanceDB's session cache: left out of the medians.
    for (const index of [localIndex, before, firstSync, mirrorEveryCall]) {
      await toolCall(index.index, queries[0]);
    }
    log(`Bucket latency: ${WARM_QUERIES} warm tool calls per variant, interleaved…`);
    const variants = { local: localIndex, before, after: firstSync, everyCall: mirrorEveryCall };
    const times: Record<keyof typeof variants, number[]> = { local: [], before: [], after: [], everyCall: [] };
    const requests: Record<keyof typeof variants, number> = { local: 0, before: 0, after: 0, everyCall: 0 };
    const names = Object.keys(variants) as Array<keyof typeof variants>;
    for (const [number, query] of queries.slice(1).entries()) {
      let reference: string | undefined;
      for (let step = 0; step < names.length; step++) {
        const name = names[(number + step) % names.length];
        const call = await toolCall(variants[name].index, query);
        times[name].push(call.ms);
        requests[name] += call.requests;
        // The bucket variants read one published index: a mirror that answered differently would be wrong, not fast.
        if (name !== 'local') {
          reference ??= call.hits;
          if (call.hits !== reference) {
            throw new Error(`The ${name} variant found other chunks than the other bucket variants for "${query}".`);
          }
        }
      }
    }
    const perQuery = (name: keyof typeof variants) => requests[name] / WARM_QUERIES;
    const localMedian = median(times.local);
    rows.push(ratio(`Bucket (${REQUEST_LATENCY_MS} ms/request) warm full-text tool call p50, mirrored ÷ local (${WARM_QUERIES} queries)`, median(times.after), localMedian, 'local disk', '≤ 2×'));
    rows.push(ratio('Bucket warm tool call p50 before: read directly, version check per call ÷ local', median(times.before), localMedian, 'local disk', 'report'));
    rows.push(ratio('Bucket warm tool call p50, mirrored but version check per call ÷ local', median(times.everyCall), localMedian, 'local disk', 'report'));
    rows.push(ratio('Bucket warm tool call p95, mirrored ÷ local', percentile(times.after, 0.95), percentile(times.local, 0.95), 'local disk', 'report'));
    notes.push(
      `Bucket latency (SciFact, ${corpus.length} documents, s3rver behind a ${REQUEST_LATENCY_MS} ms-per-request proxy): requests per warm tool call ` +
        `${perQuery('before').toFixed(1)} read directly (p50 ${formatMs(median(times.before))}), ${perQuery('everyCall').toFixed(2)} mirrored with a version check per call ` +
        `(p50 ${formatMs(median(times.everyCall))}), ${perQuery('after').toFixed(2)} mirrored with a check every ${REMOTE_VERSION_CHECK_INTERVAL_MS / 1000} s ` +
        `(p50 ${formatMs(median(times.after))}; local ${formatMs(localMedian)}). Opening: direct ${formatMs(before.ms)} (${before.requests} requests); ` +
        `mirrored, empty cache ${formatMs(firstSync.ms)} (${firstSync.requests} requests, ${formatBytes(mirrorBytes)} through the proxy so far), warm cache ${formatMs(mirrorEveryCall.ms)} (${mirrorEveryCall.requests} requests).`,
    );

    log(`Bucket latency: cold starts, ${COLD_ROUNDS} rounds of fresh processes…`);
    // Two mirrored variants on one cache from an earlier run: `listed` as if its last sync were older than the check
    // interval (its record is removed first: its manifests listed), `fresh` after another process synced within it (the
    // `listed` child of the same round, or the warm consumers: no listing).
    const syncRecord = path.join(cacheFolder, fs.readdirSync(cacheFolder).find((name) => /^[0-9a-f]{24}$/.test(name))!, '.haiku-mirror-synced.json');
    const coldVariants: Record<string, (round: number) => string[]> = {
      local: () => [local, '-', 'off'],
      before: () => [uri, proxy.endpoint, 'off'],
      listed: () => (fs.rmSync(syncRecord, { force: true }), [uri, proxy.endpoint, cacheFolder]),
      fresh: () => [uri, proxy.endpoint, cacheFolder],
      emptyCache: (round) => [uri, proxy.endpoint, path.join(work, `bucket-cache-empty-${round}`)],
    };
    // Bundled as shipped code is: under tsx the mirror's module alone cost ~20 ms of the mirrored variants' open.
    const childScript = await bundleForBench(path.join(__dirname, 'bucketLatencyChild.ts'), 'bucket-latency-child.js');
    const coldNames = Object.keys(coldVariants);
    const cold: Record<string, ChildTimes[]> = Object.fromEntries(coldNames.map((name) => [name, []]));
    const coldRequests: Record<string, number> = Object.fromEntries(coldNames.map((name) => [name, 0]));
    for (let round = 0; round < COLD_ROUNDS; round++) {
      for (let step = 0; step < coldNames.length; step++) {
        const name = coldNames[(round + step) % coldNames.length];
        const requestsBefore = proxy.counters.requests;
        cold[name].push(await runChild(childScript, [...coldVariants[name](round), queries[1 + round]]));
        coldRequests[name] += proxy.counters.requests - requestsBefore;
      }
    }
    const coldMedian = (name: string, field: keyof Omit<ChildTimes, 'hits'>) => median(cold[name].map((times) => times[field]));
    rows.push(ratio('Bucket cold: fresh process open + first tool call p50, mirrored, last sync older than the check interval (each table\'s manifests listed) ÷ local', coldMedian('listed', 'openAndQueryMs'), coldMedian('local', 'openAndQueryMs'), 'local disk', '≤ 1.5×'));
    rows.push(ratio(`Bucket cold, mirrored, synced by another process < ${REMOTE_VERSION_CHECK_INTERVAL_MS / 1000} s ago (no listing) ÷ local`, coldMedian('fresh', 'openAndQueryMs'), coldMedian('local', 'openAndQueryMs'), 'local disk', 'report'));
    rows.push(ratio('Bucket cold before: read directly ÷ local', coldMedian('before', 'openAndQueryMs'), coldMedian('local', 'openAndQueryMs'), 'local disk', 'report'));
    rows.push(ratio('Bucket cold, mirrored, first ever (empty cache: whole index fetched) ÷ local', coldMedian('emptyCache', 'openAndQueryMs'), coldMedian('local', 'openAndQueryMs'), 'local disk', 'report'));
    notes.push(
      `Bucket cold starts (medians of ${COLD_ROUNDS} fresh processes each, alternating; open + first tool call, then the whole process incl. module loading): ` +
        coldNames
          .map((name) => `${name} ${formatMs(coldMedian(name, 'openAndQueryMs'))} (open ${formatMs(coldMedian(name, 'openMs'))}; process ${formatMs(coldMedian(name, 'processMs'))}; ${(coldRequests[name] / COLD_ROUNDS).toFixed(0)} requests)`)
          .join(', ') +
        '.',
    );
  } finally {
    for (const index of consumers) {
      await index.close();
    }
    await proxy.close();
    await storage.close();
  }
  return { rows, notes };
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
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-bucket-'));
  bucketLatencyBenchmarks(work)
    .then(({ rows, notes }) => {
      for (const row of rows) {
        process.stdout.write(`| ${row.measure} | ${row.ours} | ${row.reference} | ${row.ratio.toFixed(2)}× | ${row.goal} | ${row.met ? 'yes' : '**no**'} |\n`);
      }
      process.stdout.write(notes.map((note) => `- ${note}`).join('\n') + '\n');
    })
    .finally(() => fs.rmSync(work, { recursive: true, force: true }));
}
