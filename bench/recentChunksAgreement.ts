/**
 * Full-text rankings while edits sit in the recent-chunks table, against the same queries after the fold (the main
 * FTS index rebuilt with every row): how many top-10 lists are identical, their mean overlap, the largest relative
 * score gap of a hit found in both, and the query times on each path.
 * Run: `npx tsx bench/recentChunksAgreement.ts [documents] [edited] [queries]` (defaults 2000, 40, 300; SciFact).
 */
import './benchSupport';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadScifactCorpus, loadScifactQueries, writeScifactFiles } from '../scripts/scifactCorpus';
import { createConversionPool } from '../src/node/convert/conversionPool';
import { indexPaths } from '../src/node/index/indexer';
import { openStore, type LanceStore } from '../src/node/store/lanceStore';
import { formatMs, median } from './benchSupport';

async function rankings(store: LanceStore, queries: readonly string[]): Promise<{ lists: Array<Map<string, number>>; times: number[] }> {
  const lists: Array<Map<string, number>> = [];
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    const hits = await store.searchWith(query, { mode: 'fullText', limit: 10, rerank: false });
    times.push(performance.now() - started);
    lists.push(new Map(hits.map((hit) => [hit.chunkId, hit.score])));
  }
  return { lists, times };
}

async function main(): Promise<void> {
  const [documentCount, editedCount, queryCount] = process.argv.slice(2).map(Number);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-recent-agreement-'));
  const store = await openStore({ uri: path.join(work, 'index') });
  const pool = createConversionPool();
  try {
    const corpus = loadScifactCorpus(documentCount || 2000);
    const documents = path.join(work, 'documents');
    writeScifactFiles(documents, corpus);
    await indexPaths({ roots: [documents], baseFolder: documents, store, conversionPool: pool });
    const step = Math.max(1, Math.floor(corpus.length / (editedCount || 40)));
    const edited = corpus.filter((_, index) => index % step === 7).map((document) => path.join(documents, `${document._id}.md`));
    for (const file of edited) {
      fs.appendFileSync(file, '\nA note added while editing.\n');
      await indexPaths({ roots: [file], baseFolder: documents, store, optimize: false, conversionPool: pool });
    }
    const queries = [...loadScifactQueries().values()].slice(0, queryCount || 300);
    const recent = await rankings(store, queries);
    const foldStarted = performance.now();
    await store.optimize();
    const foldMs = performance.now() - foldStarted;
    const folded = await rankings(store, queries);
    let identical = 0;
    let overlap = 0;
    let largestGap = 0;
    folded.lists.forEach((after, index) => {
      const before = recent.lists[index];
      identical += [...after.keys()].join() === [...before.keys()].join() ? 1 : 0;
      overlap += [...after.keys()].filter((id) => before.has(id)).length / Math.max(1, after.size);
      for (const [id, score] of after) {
        if (before.has(id)) {
          largestGap = Math.max(largestGap, Math.abs(before.get(id)! - score) / score);
        }
      }
    });
    process.stdout.write(
      `${corpus.length} documents, ${edited.length} edited through the watcher's path, ${queries.length} queries (top 10):\n` +
        `  identical lists ${identical} of ${queries.length}, mean overlap ${(overlap / queries.length).toFixed(4)}, largest relative score gap ${(largestGap * 100).toFixed(1)}%\n` +
        `  query p50 with recent rows ${formatMs(median(recent.times))}, after the fold ${formatMs(median(folded.times))}; the fold took ${formatMs(foldMs)}\n`,
    );
  } finally {
    await pool.dispose();
    await store.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

void main();
