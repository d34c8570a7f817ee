import { CITE_MAX_IDS, CITED_ID_MAX_CHARS, SEARCH_QUERY_MAX_CHARS } from '../limits';

/**
 * Size checks for what the model or guest code hands the host (queries, cited ids). They run before any work,
 * in constant time per value, so hostile input is refused at once instead of blocking the host thread.
 * Each returns the message for the model, or undefined when the input is acceptable.
 */

/** A short, printable stand-in for an id too long to echo back. */
export function previewOf(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 20).replace(/\s+/g, ' ')}… (${text.length} characters)`;
}

export function citedIdsProblem(ids: readonly string[]): string | undefined {
  if (ids.length > CITE_MAX_IDS) {
    return `${ids.length} chunk ids in one cite call; at most ${CITE_MAX_IDS} are accepted. Cite the chunks that support the answer, not whole documents.`;
  }
  const tooLong = ids.find((id) => id.length > CITED_ID_MAX_CHARS);
  if (tooLong !== undefined) {
    return `A chunk id of ${tooLong.length} characters was passed (${previewOf(tooLong)}); chunk ids are 28 characters. Copy ids verbatim from search results, items.jsonl or toc.json.`;
  }
  return undefined;
}

export function searchQueryProblem(query: string): string | undefined {
  if (query.length > SEARCH_QUERY_MAX_CHARS) {
    return `The query is ${query.length} characters long; at most ${SEARCH_QUERY_MAX_CHARS} are accepted. Search with a few keywords or a short phrase.`;
  }
  return undefined;
}
