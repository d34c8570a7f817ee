import type { SearchResult } from '../model/search';
import { NO_RESULTS_TEXT, renderSearchResultForModel } from '../search/renderResults';

/** Separator between result blocks in a search tool's return (the specification's capability joins them with `---`). */
export const RESULT_SEPARATOR = '\n---\n';

/** Evidence already shown in one model response: chunk id → the sibling query that showed it. */
export type ShownInResponse = Map<string, string>;

/** The short line that replaces a result a sibling search of the same response already returned. */
export function referenceLine(chunkId: string, rank: number, total: number, shownByQuery: string): string {
  return `[${chunkId}] [rank ${rank} of ${total}] Already shown above in the results for "${shownByQuery}"; not repeated.`;
}

/**
 * Renders one search's results for the model. Results whose chunks a sibling search of the same response
 * already showed collapse to a reference line, so rephrased queries do not repeat the same evidence.
 */
export function renderResultsDeduplicated(query: string, results: readonly SearchResult[], shown: ShownInResponse): string {
  if (results.length === 0) {
    return NO_RESULTS_TEXT;
  }
  const blocks = results.map((result, position) => {
    const rank = position + 1;
    const ids = [result.chunkId, ...(result.mergedChunkIds ?? [])];
    const earlier = ids.map((id) => shown.get(id)).find((value): value is string => value !== undefined);
    if (earlier !== undefined) {
      return referenceLine(result.chunkId, rank, results.length, earlier);
    }
    for (const id of ids) {
      shown.set(id, query);
    }
    return renderSearchResultForModel(result, { rank, total: results.length });
  });
  return blocks.join(RESULT_SEPARATOR);
}
