/**
 * Chinese, Japanese, Korean, Thai, Lao, Khmer and Myanmar text has no spaces between words, and LanceDB's `simple`
 * FTS tokenizer cuts only at characters that are not letters or digits: a sentence became one token, found only
 * by the whole sentence, and a run of 40 bytes or more (14 CJK or Thai characters) was dropped from the index
 * altogether. The text the index holds and the text queries search therefore carry each run of these scripts as
 * overlapping two-character words (Lucene's CJK bigrams): "全文検索" is indexed as "全文 文検 検索", and a query
 * for "検索" finds it. The index side adds the single characters too, so a one-character query ("本") still
 * matches; the query side keeps only the bigrams of a longer run, which are what make a match precise.
 *
 * The tokenizer also cuts at combining marks that are not letters to it (Thai and Lao tone marks, the Khmer
 * subscript sign, Myanmar's asat and medials), which sit inside words: they are dropped from a run before it is
 * cut into bigrams, on both sides alike, so "ค้นหา" is searched and indexed as the bigrams of "คนหา". A run's
 * punctuation (Thai "๚", Myanmar "။") separates its parts.
 */

/** A run of Han, Hiragana, Katakana (with its prolonged-sound mark), Hangul, Thai, Lao, Khmer or Myanmar characters. */
const UNSPACED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;
/**
 * Cheaper still, first: every character of these scripts is at U+0E00 or above and outside U+2000-U+2E7F (general
 * punctuation to supplemental punctuation), so text without such a code unit (English with its curly quotes and
 * dashes) skips the Unicode-property test, 0.6 s of a 44 MB file's rows.
 */
const MAYBE_UNSPACED = /[\u0E00-\u1FFF\u2E80-\uFFFF]/;
/** Cheap test first: most text holds no such character and is returned as it is. */
const HAS_UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** A combining mark the tokenizer does not keep in a word (it keeps alphabetic characters and numbers, Rust's `is_alphanumeric`). */
const CUT_MARK = /(?!\p{Alphabetic})\p{M}/gu;
/** What the tokenizer cuts at. */
const NOT_IN_WORD = /[^\p{Alphabetic}\p{N}]+/u;

/** What the full-text index holds for `text`: each run as its characters and its bigrams, the rest unchanged. */
export function fullTextIndexText(text: string): string {
  return hasUnspaced(text) ? text.replace(UNSPACED_RUN, (run) => ` ${runWords(run, true)} `) : text;
}

/** What a full-text query searches for `text`: each run as its bigrams (a one-character run as itself). */
export function fullTextQueryText(text: string): string {
  return hasUnspaced(text) ? text.replace(UNSPACED_RUN, (run) => ` ${runWords(run, false)} `) : text;
}

function hasUnspaced(text: string): boolean {
  return MAYBE_UNSPACED.test(text) && HAS_UNSPACED.test(text);
}

function runWords(run: string, withCharacters: boolean): string {
  return run
    .replace(CUT_MARK, '')
    .split(NOT_IN_WORD)
    .filter((part) => part.length > 0)
    .map((part) => bigrams(part, withCharacters))
    .join(' ');
}

function bigrams(part: string, withCharacters: boolean): string {
  const characters = [...part];
  if (characters.length === 1) {
    return part;
  }
  const words: string[] = [];
  for (let index = 0; index + 1 < characters.length; index++) {
    words.push(characters[index] + characters[index + 1]);
  }
  return withCharacters ? `${characters.join(' ')} ${words.join(' ')}` : words.join(' ');
}
