/**
 * Second-stage levers on SciFact TRAIN: each re-scores the store's own first pass (the top 300 chunks of
 * LanceDB's BM25, exactly what `npm run eval:scifact` ranks) without touching the index:
 *   - how a document's chunks add up (the store ranks a document by its best chunk);
 *   - BM25 recomputed in JavaScript with other k1 / b (LanceDB 0.31.0's FTS fixes them);
 *   - a proximity bonus for adjacent query terms found close together (a sequential-dependence feature);
 *   - an idf-weighted coverage factor (the share of the query's weight a chunk matches).
 * The JavaScript side stems by folding plurals and cutting words at six letters, close to but not LanceDB's
 * Snowball stemmer, so its k1 / b rows are compared with its own k1 1.2 / b 0.75 row. Never run on test qrels.
 *
 *   npm run eval:scifact -- --qrels ../shared/eval/scifact/qrels/train.tsv --db /tmp/scifact-db
 *   npx tsx scripts/rerankLevers.ts --db /tmp/scifact-db
 */
import '../src/node/store/lanceEnvironment';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { evaluateRuns, ndcgAtK, pairedRandomisationP } from './retrievalMetrics';
import { foldPlural, INDEX_STOP_WORDS, tokenize } from './retrievalLeverText';
import { loadQrels, loadScifactQueries, scifactFolder } from './scifactCorpus';

interface ScoredChunk {
  chunk: string;
  score: number;
}

/** Chunks retrieved per query, as `npm run eval:scifact` does. */
const DEPTH = 300;
/** Query terms closer than this many words count as near each other (the proximity lever). */
const PROXIMITY_WINDOWS = [1, 3, 8];

/** The JavaScript side's stem: plural folded, cut at six letters. */
function stem(token: string): string {
  const folded = foldPlural(token);
  return folded.length > 6 ? folded.slice(0, 6) : folded;
}

function indexedTerms(text: string): string[] {
  return tokenize(text).filter((token) => !INDEX_STOP_WORDS.has(token)).map(stem);
}

/** Distinct query terms in query order. */
function queryTerms(query: string): string[] {
  return [...new Set(indexedTerms(query))];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string' }, qrels: { type: 'string', default: path.join(scifactFolder, 'qrels', 'train.tsv') } } });
  if (!values.db) {
    throw new Error('Pass --db <folder> of `npm run eval:scifact -- --qrels … --db <folder>`.');
  }
  const qrels = loadQrels(values.qrels!);
  const queries = loadScifactQueries();
  const connection = await lancedb.connect(path.join(values.db, 'index'));
  const documents = await (await connection.openTable('documents')).query().select(['id', 'generation', 'relative_path']).toArray();
  const liveDocument = new Map(documents.map((row) => [String(row.id), { scifactId: path.basename(String(row.relative_path), '.md'), generation: String(row.generation) }]));
  const chunks = await connection.openTable('chunks');
  const rows = (await chunks.query().select(['id', 'document_id', 'generation', 'search_text']).toArray()).filter((row) => liveDocument.get(String(row.document_id))?.generation === String(row.generation));

  // Corpus statistics of the JavaScript BM25, over the same chunk texts the FTS index holds.
  const documentOfChunk = new Map<string, string>();
  const termsOfChunk = new Map<string, string[]>();
  const chunkFrequency = new Map<string, number>();
  let totalTerms = 0;
  for (const row of rows) {
    documentOfChunk.set(String(row.id), liveDocument.get(String(row.document_id))!.scifactId);
    const terms = indexedTerms(String(row.search_text));
    termsOfChunk.set(String(row.id), terms);
    totalTerms += terms.length;
    for (const term of new Set(terms)) {
      chunkFrequency.set(term, (chunkFrequency.get(term) ?? 0) + 1);
    }
  }
  const averageLength = totalTerms / rows.length;
  const idf = (term: string) => {
    const frequency = chunkFrequency.get(term) ?? 0;
    return Math.log(1 + (rows.length - frequency + 0.5) / (frequency + 0.5));
  };

  const queryIds = [...qrels.keys()];
  const firstPass = new Map<string, ScoredChunk[]>();
  for (const id of queryIds) {
    const found = await chunks.query().fullTextSearch(queries.get(id)!, { columns: ['search_text'] }).select(['id', '_score']).limit(DEPTH).toArray();
    firstPass.set(id, found.map((row) => ({ chunk: String(row.id), score: Number(row._score) })));
  }
  connection.close();

  /** Documents by the best of their chunks' scores plus `others` × the rest of them. */
  const rankDocuments = (scored: readonly ScoredChunk[], others = 0): string[] => {
    const byDocument = new Map<string, { best: number; sum: number }>();
    for (const { chunk, score } of scored) {
      const document = documentOfChunk.get(chunk)!;
      const entry = byDocument.get(document) ?? { best: Number.NEGATIVE_INFINITY, sum: 0 };
      entry.best = Math.max(entry.best, score);
      entry.sum += score;
      byDocument.set(document, entry);
    }
    return [...byDocument].map(([document, { best, sum }]) => ({ document, score: best + others * (sum - best) })).sort((left, right) => right.score - left.score).map((entry) => entry.document);
  };
  const rescored = (rescore: (chunk: ScoredChunk, terms: string[], chunkTerms: string[]) => number) => (id: string): string[] => {
    const terms = queryTerms(queries.get(id)!);
    return rankDocuments(firstPass.get(id)!.map((entry) => ({ chunk: entry.chunk, score: rescore(entry, terms, termsOfChunk.get(entry.chunk)!) })));
  };
  const bm25 = (chunkTerms: readonly string[], terms: readonly string[], k1: number, b: number): number => {
    let score = 0;
    for (const term of terms) {
      const frequency = chunkTerms.filter((candidate) => candidate === term).length;
      if (frequency > 0) {
        score += (idf(term) * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * chunkTerms.length) / averageLength));
      }
    }
    return score;
  };
  /** Σ over adjacent query-term pairs found within `window` words: their mean idf × log(1 + such co-occurrences). */
  const proximity = (chunkTerms: readonly string[], terms: readonly string[], window: number): number => {
    const positions = new Map<string, number[]>(terms.map((term) => [term, []]));
    chunkTerms.forEach((term, position) => positions.get(term)?.push(position));
    let feature = 0;
    for (let index = 0; index + 1 < terms.length; index++) {
      const left = positions.get(terms[index]) ?? [];
      const right = positions.get(terms[index + 1]) ?? [];
      const near = left.reduce((count, first) => count + right.filter((second) => Math.abs(first - second) <= window).length, 0);
      if (near > 0) {
        feature += ((idf(terms[index]) + idf(terms[index + 1])) / 2) * Math.log(1 + near);
      }
    }
    return feature;
  };
  const coverage = (chunkTerms: readonly string[], terms: readonly string[]): number => {
    const present = new Set(chunkTerms);
    const total = terms.reduce((sum, term) => sum + idf(term), 0);
    return total > 0 ? terms.reduce((sum, term) => sum + (present.has(term) ? idf(term) : 0), 0) / total : 1;
  };

  const levers: Array<[string, (id: string) => string[]]> = [['baseline: best chunk (the store)', (id) => rankDocuments(firstPass.get(id)!)]];
  for (const others of [0.05, 0.1, 0.2, 0.5, 1]) {
    levers.push([`document = best chunk + ${others} × its other chunks`, (id) => rankDocuments(firstPass.get(id)!, others)]);
  }
  for (const [k1, b] of [[1.2, 0.75], [0.9, 0.4], [1.2, 0.5], [0.9, 0.6], [1.5, 0.75], [2, 0.75], [1.2, 0.9]]) {
    levers.push([`BM25 in JavaScript, k1 ${k1}, b ${b}`, rescored((_, terms, chunkTerms) => bm25(chunkTerms, terms, k1, b))]);
  }
  for (const window of PROXIMITY_WINDOWS) {
    for (const weight of [0.1, 0.2, 0.4, 0.8]) {
      levers.push([`BM25 + ${weight} × proximity (window ${window})`, rescored((entry, terms, chunkTerms) => entry.score + weight * proximity(chunkTerms, terms, window))]);
    }
  }
  for (const power of [0.25, 0.5, 1]) {
    levers.push([`BM25 × coverage^${power}`, rescored((entry, terms, chunkTerms) => entry.score * coverage(chunkTerms, terms) ** power)]);
  }

  process.stdout.write(`${rows.length} chunks, ${queryIds.length} queries (${path.basename(values.qrels!)})\n\n| lever | nDCG@10 | Recall@100 | better / worse | p |\n|---|---|---|---|---|\n`);
  let baseline: number[] | undefined;
  for (const [name, rank] of levers) {
    const runs = new Map(queryIds.map((id) => [id, rank(id)]));
    const metrics = evaluateRuns(runs, qrels);
    const perQuery = queryIds.map((id) => ndcgAtK(runs.get(id)!, qrels.get(id)!, 10));
    baseline ??= perQuery;
    const differences = perQuery.map((value, index) => value - baseline![index]);
    const better = differences.filter((difference) => difference > 1e-12).length;
    const worse = differences.filter((difference) => difference < -1e-12).length;
    const p = better + worse > 0 ? pairedRandomisationP(differences).toFixed(2) : '';
    process.stdout.write(`| ${name} | ${metrics.ndcgAt10.toFixed(4)} | ${metrics.recallAt100.toFixed(4)} | ${better} / ${worse} | ${p} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
