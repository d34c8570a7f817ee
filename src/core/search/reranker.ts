/** Re-scores candidate texts against a query (e.g. a cross-encoder behind a `/rerank` endpoint). */
export interface Reranker {
  readonly id: string;
  /** Scores of the best `topN` documents, best first; `index` points into `documents`. */
  rerank(query: string, documents: readonly string[], options: { topN: number; abortSignal?: AbortSignal }): Promise<Array<{ index: number; score: number }>>;
}
