/**
 * Child process of `bench/coldStart.ts`: opens an index with the bench's 384-d embedder and times the process's first
 * search in one mode (wall and CPU), so each mode's first query starts cold. Prints one JSON line.
 *   node -r tsx/cjs bench/firstSearchChild.ts <index folder> <fullText|hybrid> <query> <dimensions>
 */
import { openStore } from '../src/node/store/lanceStore';
import { HashedRandomEmbedder } from './benchSupport';

async function main(): Promise<void> {
  const [indexFolder, mode, query, dimensions] = process.argv.slice(2);
  const store = await openStore({ uri: indexFolder, embedder: new HashedRandomEmbedder(Number(dimensions)) });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const hits = await store.searchWith(query, { mode: mode as 'fullText' | 'hybrid', limit: 10, rerank: false });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await store.close();
  process.stdout.write(`${JSON.stringify({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, hits: hits.map((hit) => hit.chunkId) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
