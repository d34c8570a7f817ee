/**
 * Retrieval metrics exactly as BEIR computes them through pytrec_eval (trec_eval's `ndcg_cut` and `recall`),
 * for binary or graded judgments, plus readers for BEIR's file formats.
 */

/** query id → document id → relevance grade (BEIR qrels). */
export type Qrels = Map<string, Map<string, number>>;

/** nDCG@k of one ranked list: DCG over the top k (gain / log2(rank + 1)), IDCG from the judged grades. */
export function ndcgAtK(ranked: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const ideal = [...judged.values()].filter((grade) => grade > 0).sort((left, right) => right - left).slice(0, k);
  let idealGain = 0;
  ideal.forEach((grade, index) => (idealGain += grade / Math.log2(index + 2)));
  if (idealGain === 0) {
    return 0;
  }
  let gain = 0;
  ranked.slice(0, k).forEach((documentId, index) => {
    const grade = judged.get(documentId) ?? 0;
    if (grade > 0) {
      gain += grade / Math.log2(index + 2);
    }
  });
  return gain / idealGain;
}

/** Recall@k: share of the relevant documents (grade > 0) found in the top k. */
export function recallAtK(ranked: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...judged].filter(([, grade]) => grade > 0).map(([documentId]) => documentId);
  if (relevant.length === 0) {
    return 0;
  }
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((documentId) => top.has(documentId)).length / relevant.length;
}

/**
 * Means over every judged query; a query missing from `runs` (or with no results) counts 0.
 * Duplicate document ids in a run keep their first (best) position, as a document-level run must.
 */
export function evaluateRuns(runs: ReadonlyMap<string, readonly string[]>, qrels: Qrels): { ndcgAt10: number; recallAt100: number; queries: number; emptyRuns: number } {
  let ndcgSum = 0;
  let recallSum = 0;
  let emptyRuns = 0;
  for (const [queryId, judged] of qrels) {
    const ranked = dedupe(runs.get(queryId) ?? []);
    if (ranked.length === 0) {
      emptyRuns++;
    }
    ndcgSum += ndcgAtK(ranked, judged, 10);
    recallSum += recallAtK(ranked, judged, 100);
  }
  const queries = qrels.size;
  return { ndcgAt10: queries ? ndcgSum / queries : 0, recallAt100: queries ? recallSum / queries : 0, queries, emptyRuns };
}

function dedupe(ranked: readonly string[]): string[] {
  return [...new Set(ranked)];
}

/**
 * Two-sided paired randomisation test of a mean per-query difference (signs flipped at random, 10,000
 * rounds, seeded so reruns agree): how often chance alone gives a mean at least this far from zero.
 */
export function pairedRandomisationP(differences: readonly number[]): number {
  const observed = Math.abs(differences.reduce((sum, difference) => sum + difference, 0));
  let state = 0x9e3779b9;
  const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296);
  const rounds = 10_000;
  let extreme = 0;
  for (let round = 0; round < rounds; round++) {
    let sum = 0;
    for (const difference of differences) {
      sum += random() < 0.5 ? difference : -difference;
    }
    if (Math.abs(sum) >= observed - 1e-12) {
      extreme++;
    }
  }
  return (extreme + 1) / (rounds + 1);
}

/** BEIR qrels TSV (`query-id	corpus-id	score`, header line, CRLF in the release). */
export function parseQrels(text: string): Qrels {
  const qrels: Qrels = new Map();
  const lines = text.split(/\r?\n/).filter((line) => line.trim().length > 0);
  const start = /^query-id\t/i.test(lines[0] ?? '') ? 1 : 0;
  for (const line of lines.slice(start)) {
    const [queryId, documentId, grade] = line.split('\t');
    if (documentId === undefined || grade === undefined) {
      throw new Error(`Malformed qrels line: ${JSON.stringify(line)}`);
    }
    let judged = qrels.get(queryId);
    if (!judged) {
      judged = new Map();
      qrels.set(queryId, judged);
    }
    judged.set(documentId, Number(grade));
  }
  return qrels;
}

/** BEIR JSONL (one object per line). */
export function parseJsonLines<T>(text: string): T[] {
  return text.split(/\r?\n/).filter((line) => line.trim().length > 0).map((line) => JSON.parse(line) as T);
}

export interface BeirDocument {
  _id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  _id: string;
  text: string;
}
