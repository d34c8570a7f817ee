import type { SearchResult } from '../model/search';

// TEMPORARY until src/core/search/renderResults.ts lands (another helper): same block format as §2.7.
function renderSearchResultForModel(result: SearchResult, rank: number, total: number): string {
  const source = [`"${result.title}"`, ...result.headings].join(' > ');
  return [`[${result.chunkId}] [rank ${rank} of ${total}]`, `Source: ${source}`, `Type: ${result.labels[0] ?? 'paragraph'}`, 'Content:', result.content].join('\n');
}

/** Separator between result blocks in a search tool's return (as the specification's capability renders them). */
export const RESULT_SEPARATOR = '\n---\n';

/** Evidence already shown in one model response: chunk id → the sibling query that showed it. */
export type ShownInResponse = Map<string, string>;

/** The short line that replaces a result a sibling search of the same response already returned. */
export function referenceLine(result: SearchResult, total: number, shownByQuery: string): string {
  return `[${result.chunkId}] [rank ${result.rank} of ${total}] Already shown above in the results for "${shownByQuery}"; not repeated.`;
}

/**
 * Renders one search's results for the model. Results whose chunks a sibling search of the same response
 * already showed collapse to a reference line, so rephrased queries do not repeat the same evidence.
 */
export function renderResultsDeduplicated(query: string, results: readonly SearchResult[], shown: ShownInResponse): string {
  if (results.length === 0) {
    return 'No results found.';
  }
  const blocks = results.map((result) => {
    const ids = [result.chunkId, ...(result.mergedChunkIds ?? [])];
    const earlier = ids.map((id) => shown.get(id)).find((value): value is string => value !== undefined);
    if (earlier !== undefined) {
      return referenceLine(result, results.length, earlier);
    }
    for (const id of ids) {
      shown.set(id, query);
    }
    return renderSearchResultForModel(result, result.rank, results.length);
  });
  return blocks.join(RESULT_SEPARATOR);
}
