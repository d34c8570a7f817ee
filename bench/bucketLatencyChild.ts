/**
 * Child process of `bench/bucketLatency.ts`: opens an index the way `haiku mcp --read-only` does and runs the process's
 * first full-text query (one tool call: version check, then search). Prints one JSON line with the times.
 *   node dist-bench/bucket-latency-child.js <database uri> <endpoint | -> <cache folder | off> <query>
 * (bundled by the bench, as shipped code is; keys in HAIKU_BENCH_ACCESS_KEY_ID and HAIKU_BENCH_SECRET_ACCESS_KEY).
 */
import { defaultConfig } from '../src/core/config';
import { REMOTE_VERSION_CHECK_INTERVAL_MS } from '../src/core/limits';
import { openIndex } from '../src/node/backend/openIndex';

async function main(): Promise<void> {
  const [databaseUri, endpoint, cacheFolder, query] = process.argv.slice(2);
  const started = performance.now();
  const storage = endpoint === '-' ? undefined : { endpoint, region: 'us-east-1', pathStyle: true, allowHttp: true, accessKeyId: process.env.HAIKU_BENCH_ACCESS_KEY_ID, secretAccessKey: process.env.HAIKU_BENCH_SECRET_ACCESS_KEY };
  const index = await openIndex({
    config: defaultConfig(),
    cwd: process.cwd(),
    databaseUri,
    mustExist: true,
    followOtherWriters: true,
    readOnly: true,
    models: {},
    storage,
    bucketCacheFolder: cacheFolder === 'off' ? false : cacheFolder,
    // As `haiku mcp` opens it (`openCommandIndex`); applies to object storage read through the mirror only.
    versionCheckIntervalMs: cacheFolder === 'off' ? 0 : REMOTE_VERSION_CHECK_INTERVAL_MS,
  });
  const openMs = performance.now() - started;
  await index.refreshIfChanged();
  const hits = await index.store.searchWith(query, { mode: 'fullText', limit: 10, rerank: false });
  const openAndQueryMs = performance.now() - started;
  await index.close();
  // `performance.now()` counts from the process's start: module loading included.
  process.stdout.write(`${JSON.stringify({ openMs, openAndQueryMs, processMs: performance.now(), hits: hits.map((hit) => hit.chunkId) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
