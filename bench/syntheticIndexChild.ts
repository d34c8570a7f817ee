/**
 * Child process of `bench/run.ts`: indexes the synthetic Markdown folder through our indexer with a 384-d
 * embedder and prints one JSON line with the process's peak RSS. A separate process so that the peak
 * belongs to indexing alone.
 *   node -r tsx/cjs bench/syntheticIndexChild.ts <documents folder> <index folder>
 */
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { HashedRandomEmbedder, ownPeakRssBytes } from './benchSupport';

async function main(): Promise<void> {
  const [documentsFolder, indexFolder, dimensions] = process.argv.slice(2);
  const embedder = new HashedRandomEmbedder(Number(dimensions ?? 384));
  const store = await openStore({ uri: indexFolder, embedder });
  const started = performance.now();
  const summary = await indexPaths({ roots: [documentsFolder], baseFolder: documentsFolder, store, embedder });
  const totalMs = performance.now() - started;
  const stats = await store.stats();
  await store.close();
  process.stdout.write(`${JSON.stringify({
    maxRssBytes: ownPeakRssBytes(),
    documents: stats.documents,
    chunks: stats.chunks,
    failed: summary.failed.length,
    totalMs,
    durations: summary.durations,
  })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
