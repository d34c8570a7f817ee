import { RRF_K } from '../limits';

/**
 * Reciprocal rank fusion: each id scores Σ weight / (k + rank) over the rankings it appears in, with 1-based
 * ranks, so an id ranked first in two rankings of weight 1 scores exactly 2 / (k + 1) = 2/61. An id repeated
 * within one ranking counts at its best rank only. Sorted by score descending; ties go to the better single
 * rank, then to the smaller id, so the order never depends on input order.
 */
export function reciprocalRankFusion(rankings: ReadonlyArray<{ ids: readonly string[]; weight?: number }>, options?: { k?: number }): Array<{ id: string; score: number }> {
  const k = options?.k ?? RRF_K;
  const fused = new Map<string, { score: number; bestRank: number }>();
  for (const ranking of rankings) {
    const weight = ranking.weight ?? 1;
    const seen = new Set<string>();
    ranking.ids.forEach((id, index) => {
      if (seen.has(id)) {
        return;
      }
      seen.add(id);
      const rank = index + 1;
      const entry = fused.get(id);
      if (entry) {
        entry.score += weight / (k + rank);
        entry.bestRank = Math.min(entry.bestRank, rank);
      } else {
        fused.set(id, { score: weight / (k + rank), bestRank: rank });
      }
    });
  }
  return [...fused]
    .sort(([leftId, left], [rightId, right]) => right.score - left.score || left.bestRank - right.bestRank || (leftId < rightId ? -1 : leftId > rightId ? 1 : 0))
    .map(([id, { score }]) => ({ id, score }));
}
