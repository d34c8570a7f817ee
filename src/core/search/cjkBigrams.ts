/**
 * Chinese, Japanese and Korean text has no spaces between words, and LanceDB's `simple` FTS tokenizer cuts only at
 * characters that are not letters or digits: a CJK sentence became one token, found only by the whole sentence,
 * and a run of more than 13 characters (40 bytes) was dropped from the index altogether. The text the index holds
 * and the text queries search therefore carry each run of CJK characters as overlapping two-character words
 * (Lucene's CJK bigrams): "全文検索" is indexed as "全文 文検 検索", and a query for "検索" finds it. The index
 * side adds the single characters too, so a one-character query ("本") still matches; the query side keeps only
 * the bigrams of a longer run, which are what make a match precise.
 */

/** A run of Han, Hiragana, Katakana (with its prolonged-sound mark) or Hangul characters. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC\p{Script=Hangul}]+/gu;
/** Cheap test first: most text holds no CJK character and is returned as it is. */
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** What the full-text index holds for `text`: each CJK run as its characters and its bigrams, the rest unchanged. */
export function fullTextIndexText(text: string): string {
  return HAS_CJK.test(text) ? text.replace(CJK_RUN, (run) => ` ${cjkWords(run, true)} `) : text;
}

/** What a full-text query searches for `text`: each CJK run as its bigrams (a one-character run as itself). */
export function fullTextQueryText(text: string): string {
  return HAS_CJK.test(text) ? text.replace(CJK_RUN, (run) => ` ${cjkWords(run, false)} `) : text;
}

function cjkWords(run: string, withCharacters: boolean): string {
  const characters = [...run];
  if (characters.length === 1) {
    return run;
  }
  const words: string[] = [];
  for (let index = 0; index + 1 < characters.length; index++) {
    words.push(characters[index] + characters[index + 1]);
  }
  return withCharacters ? `${characters.join(' ')} ${words.join(' ')}` : words.join(' ');
}
