import { fullTextQueryText } from '../../core/search/unspacedScripts';

/**
 * The text handed to LanceDB's full-text search for a user's query. A query wrapped in double quotes is a
 * phrase query to LanceDB, which needs token positions, and the FTS index is built without them (0.31.0's
 * `optimize()` breaks with positions, notes §1 bug 2): `"zebrafinch token"` failed with "position is not
 * found but required for phrase queries". Quotes are dropped, so a quoted query searches its words as terms.
 * Other query syntax (`+`, `-`, `:`, `*`, parentheses, AND) was checked to be taken as plain text. Text in
 * scripts written without spaces between words (CJK, Thai, Lao, Khmer, Myanmar) is searched as the bigrams the
 * index holds (`unspacedScripts.ts`).
 */
export function fullTextQueryTerms(query: string): string {
  return fullTextQueryText(query.replace(/"/g, ' ')).replace(/\s+/g, ' ').trim();
}
