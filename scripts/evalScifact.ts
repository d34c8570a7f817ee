/**
 * SciFact (BEIR) retrieval evaluation of OUR pipeline: each document is written as `<id>.md`, then our indexer
 * (Markdown converter → chunker → embedder → LanceDB store) and search engine run on it. Prints nDCG@10 and Recall@100 as BEIR/pytrec_eval compute them.
 *
 *   npm run eval:scifact -- --qrels ../shared/eval/scifact/qrels/train.tsv
 *   npm run eval:scifact -- --qrels <file> --embeddings openai --base-url http://127.0.0.1:11434/v1 --model nomic-embed-text
 *   options: --limit-docs N  --mode fullText|vector|hybrid|all  --depth 300 (chunks retrieved per query)
 *            --db <folder> (keep the files and index there)  --json (one machine-readable line)
 *
 * Document-level ranking: a document ranks where its best chunk ranks; `--depth` chunks are retrieved so the
 * top 100 documents are filled.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfig } from '../src/core/config';
import type { Embedder } from '../src/core/embeddings/embedder';
import { createEmbedder, embedderDimensions } from '../src/node/embeddings/createEmbedder';
import type { SearchMode } from '../src/node/search/searchEngine';
import { openStore } from '../src/node/store/lanceStore';
import { evaluateRuns } from './retrievalMetrics';
import { indexScifact, loadQrels, loadScifactCorpus, loadScifactQueries, restrictToCorpus, scifactRuns } from './scifactCorpus';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      qrels: { type: 'string' },
      embeddings: { type: 'string', default: 'none' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      'limit-docs': { type: 'string' },
      mode: { type: 'string' },
      depth: { type: 'string', default: '300' },
      db: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.qrels) {
    throw new Error('Give the judgments: --qrels <file> (e.g. ../shared/eval/scifact/qrels/train.tsv).');
  }
  const limitDocuments = values['limit-docs'] ? Number(values['limit-docs']) : undefined;
  const depth = Number(values.depth);
  const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`);

  let embedder: Embedder | undefined;
  if (values.embeddings !== 'none') {
    if (values.embeddings !== 'openai') {
      throw new Error(`--embeddings ${values.embeddings}: only "none" and "openai" exist.`);
    }
    embedder = createEmbedder({ ...defaultConfig().embeddings, provider: 'openai', baseUrl: values['base-url'] ?? defaultConfig().embeddings.baseUrl, model: values.model ?? '', apiKey: values['api-key'] });
    log(`embedder ${embedder!.id}: ${await embedderDimensions(embedder!)} dimensions`);
  }
  const modes: SearchMode[] = values.mode === 'all' ? (embedder ? ['fullText', 'vector', 'hybrid'] : ['fullText']) : [(values.mode as SearchMode | undefined) ?? (embedder ? 'hybrid' : 'fullText')];

  const corpus = loadScifactCorpus(limitDocuments);
  const queries = loadScifactQueries();
  const qrels = restrictToCorpus(loadQrels(values.qrels), new Set(corpus.map((document) => document._id)));
  const folder = values.db ?? fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-scifact-'));
  const store = await openStore({ uri: path.join(folder, 'index'), embedder });
  try {
    const indexStarted = performance.now();
    const { scifactIdByDocumentId: scifactIds } = await indexScifact(store, corpus, { folder: path.join(folder, 'documents'), embedder });
    const stats = await store.stats();
    log(`index: ${stats.documents} documents, ${stats.chunks} chunks in ${((performance.now() - indexStarted) / 1000).toFixed(1)} s`);

    for (const mode of modes) {
      const { runs, latencies } = await scifactRuns(store, scifactIds, qrels, queries, { mode, depth });
      const metrics = evaluateRuns(runs, qrels);
      const short = [...runs.values()].filter((ranked) => ranked.length < 100).length;
      latencies.sort((left, right) => left - right);
      const summary = {
        qrels: path.basename(values.qrels),
        mode,
        embedder: embedder?.id ?? 'none',
        documents: stats.documents,
        chunks: stats.chunks,
        queries: metrics.queries,
        ndcgAt10: Number(metrics.ndcgAt10.toFixed(4)),
        recallAt100: Number(metrics.recallAt100.toFixed(4)),
        emptyRuns: metrics.emptyRuns,
        runsUnder100Documents: short,
        queryP50Ms: Number(latencies[Math.floor(latencies.length / 2)].toFixed(1)),
      };
      if (values.json) {
        process.stdout.write(`${JSON.stringify(summary)}\n`);
      } else {
        log(`${summary.qrels}, ${summary.queries} queries, mode ${mode}, embedder ${summary.embedder}`);
        log(`nDCG@10    ${summary.ndcgAt10.toFixed(4)}`);
        log(`Recall@100 ${summary.recallAt100.toFixed(4)}`);
        log(`(queries without results: ${summary.emptyRuns}; runs with fewer than 100 documents: ${short}; query p50 ${summary.queryP50Ms} ms)`);
      }
    }
  } finally {
    await store.close();
    if (!values.db) {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
