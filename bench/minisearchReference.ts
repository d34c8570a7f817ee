import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { evaluateRuns, type BeirDocument, type Qrels } from '../scripts/retrievalMetrics';
import { loadQrels, loadScifactCorpus, loadScifactQueries, scifactFolder, scifactRuns, writeScifactFiles } from '../scripts/scifactCorpus';

/**
 * MiniSearch 7, a pure-JS index a user could pick instead of ours, on the same 5,183 SciFact documents:
 * its index build time beside our ingest measured in the same run, and both rankings' nDCG@10 / Recall@100
 * on the TRAIN qrels. Run: `npx tsx bench/minisearchReference.ts` (options: --qrels <file>).
 *
 * MiniSearch runs with its defaults (BM25 k 1.2 / b 0.7 / d 0.5, lowercase, split on spaces and punctuation,
 * no stemming, no stop words, terms OR'd), over the fields title and text, as its README sets a corpus up.
 */

export interface MinisearchFigures {
  /** `addAll` of the documents already in memory. */
  buildMs: number;
  /** Reading the 5,183 Markdown files our indexer reads, then `addAll` (what a user's tool would do). */
  buildFromFilesMs: number;
  ndcgAt10: number;
  recallAt100: number;
  queryP50Ms: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

function newIndex(): MiniSearch<BeirDocument> {
  return new MiniSearch<BeirDocument>({ idField: '_id', fields: ['title', 'text'] });
}

/** Builds MiniSearch over `corpus` (and once more from `documentsFolder`'s files) and scores it on `qrels`. */
export function minisearchReference(corpus: readonly BeirDocument[], documentsFolder: string, queries: ReadonlyMap<string, string>, qrels: Qrels): MinisearchFigures {
  const buildStarted = performance.now();
  const index = newIndex();
  index.addAll(corpus as BeirDocument[]);
  const buildMs = performance.now() - buildStarted;

  // The same build from the files: the first line is the `# title` heading, the rest the abstract.
  const fromFilesStarted = performance.now();
  const fromFiles = newIndex();
  for (const name of fs.readdirSync(documentsFolder)) {
    const text = fs.readFileSync(path.join(documentsFolder, name), 'utf8');
    const newline = text.indexOf('\n');
    fromFiles.add({ _id: path.basename(name, '.md'), title: text.slice(2, newline), text: text.slice(newline + 1) });
  }
  const buildFromFilesMs = performance.now() - fromFilesStarted;
  if (fromFiles.documentCount !== index.documentCount) {
    throw new Error(`MiniSearch from files holds ${fromFiles.documentCount} documents, from memory ${index.documentCount}.`);
  }

  const runs = new Map<string, string[]>();
  const latencies: number[] = [];
  for (const queryId of qrels.keys()) {
    const started = performance.now();
    const results = index.search(queries.get(queryId) ?? '');
    latencies.push(performance.now() - started);
    runs.set(
      queryId,
      results.slice(0, 100).map((result) => String(result.id)),
    );
  }
  const metrics = evaluateRuns(runs, qrels);
  return { buildMs, buildFromFilesMs, ndcgAt10: metrics.ndcgAt10, recallAt100: metrics.recallAt100, queryP50Ms: median(latencies) };
}

async function main(): Promise<void> {
  const qrelsArgument = process.argv.indexOf('--qrels');
  const qrelsFile = qrelsArgument >= 0 ? process.argv[qrelsArgument + 1] : path.join(scifactFolder, 'qrels', 'train.tsv');
  const corpus = loadScifactCorpus();
  const queries = loadScifactQueries();
  const qrels = loadQrels(qrelsFile);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-minisearch-'));
  try {
    const documentsFolder = path.join(work, 'documents');
    writeScifactFiles(documentsFolder, corpus);

    // Ours first, as `npm run bench` measures it: files already on disk, full ingest including optimize.
    const store = await openStore({ uri: path.join(work, 'index') });
    let ours: { ingestMs: number; ndcgAt10: number; recallAt100: number; queryP50Ms: number };
    try {
      const started = performance.now();
      await indexPaths({ roots: [documentsFolder], baseFolder: documentsFolder, store });
      const ingestMs = performance.now() - started;
      const scifactIds = new Map((await store.listDocuments()).map((document) => [document.id, path.basename(document.relativePath, '.md')]));
      const { runs, latencies } = await scifactRuns(store, scifactIds, qrels, queries, { mode: 'fullText', depth: 300 });
      const metrics = evaluateRuns(runs, qrels);
      ours = { ingestMs, ndcgAt10: metrics.ndcgAt10, recallAt100: metrics.recallAt100, queryP50Ms: median(latencies) };
    } finally {
      await store.close();
    }
    const reference = minisearchReference(corpus, documentsFolder, queries, qrels);

    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`SciFact, ${corpus.length} documents, ${path.basename(qrelsFile)} (${qrels.size} queries); load average ${os.loadavg().map((load) => load.toFixed(1)).join(' / ')}`);
    out('| index | build / ingest | nDCG@10 | Recall@100 | query p50 |');
    out('|---|---|---|---|---|');
    out(`| Haiku (indexPaths: scan, convert, chunk, LanceDB write, FTS) | ${(ours.ingestMs / 1000).toFixed(2)} s | ${ours.ndcgAt10.toFixed(4)} | ${ours.recallAt100.toFixed(4)} | ${ours.queryP50Ms.toFixed(1)} ms |`);
    out(`| MiniSearch 7.2 addAll (documents in memory) | ${(reference.buildMs / 1000).toFixed(2)} s | ${reference.ndcgAt10.toFixed(4)} | ${reference.recallAt100.toFixed(4)} | ${reference.queryP50Ms.toFixed(1)} ms |`);
    out(`| MiniSearch 7.2, reading the same .md files + add | ${(reference.buildFromFilesMs / 1000).toFixed(2)} s | (same index) | | |`);
    out(`ratio ours / MiniSearch build: ${(ours.ingestMs / reference.buildMs).toFixed(2)}× (from files: ${(ours.ingestMs / reference.buildFromFilesMs).toFixed(2)}×)`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
