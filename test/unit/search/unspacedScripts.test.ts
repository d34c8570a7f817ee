import * as assert from 'node:assert/strict';
import { fullTextIndexText, fullTextQueryText } from '../../../src/core/search/unspacedScripts';

describe('bigrams of text written without spaces, for full-text search', () => {
  it('indexes each CJK run as its characters and its overlapping bigrams, and leaves other text as it is', () => {
    assert.equal(fullTextIndexText('全文検索'), ' 全 文 検 索 全文 文検 検索 ');
    assert.equal(fullTextIndexText('使用LanceDB数据库'), ' 使 用 使用 LanceDB 数 据 库 数据 据库 ');
    assert.equal(fullTextIndexText('本'), ' 本 ');
    const english = 'Plain English, with digits 42 and accents: café.';
    assert.equal(fullTextIndexText(english), english);
  });

  it('queries a CJK run by its bigrams only, and a one-character run by that character', () => {
    assert.equal(fullTextQueryText('検索'), ' 検索 ');
    assert.equal(fullTextQueryText('数据库 search'), ' 数据 据库  search');
    assert.equal(fullTextQueryText('库'), ' 库 ');
    assert.equal(fullTextQueryText('engine'), 'engine');
  });

  it('covers Hiragana, Katakana with its prolonged-sound mark, and Hangul', () => {
    assert.equal(fullTextQueryText('すばやく'), ' すば ばや やく ');
    assert.equal(fullTextQueryText('サーバー'), ' サー ーバ バー ');
    assert.equal(fullTextQueryText('검색엔진'), ' 검색 색엔 엔진 ');
  });

  it('keeps characters outside the Basic Multilingual Plane whole', () => {
    // U+20B9F, a Han character written as a surrogate pair.
    assert.equal(fullTextQueryText('𠮟る'), ' 𠮟る ');
  });

  it('covers Thai, Lao, Khmer and Myanmar, dropping the marks the tokenizer would cut at', () => {
    // Thai: the tone mark (U+0E49) goes, the vowel sign above (U+0E31, a letter to the tokenizer) stays.
    assert.equal(fullTextQueryText('ค้นหา'), ' คน นห หา ');
    assert.equal(fullTextQueryText('สวัสดี'), ' สว วั ัส สด ดี ');
    assert.equal(fullTextQueryText('ເອກະສານ'), ' ເອ ອກ ກະ ະສ ສາ ານ ');
    assert.equal(fullTextQueryText('ឯកសារ'), ' ឯក កស សា ារ ');
    assert.equal(fullTextIndexText('ค้น'), ' ค น คน ');
  });

  it('separates the parts of a run at its punctuation', () => {
    // Thai ANGKHANKHU (U+0E5A) and Myanmar's full stop (U+104B) are punctuation inside their scripts' runs.
    assert.equal(fullTextQueryText('กขค๚งจ'), ' กข ขค งจ ');
    assert.equal(fullTextQueryText('စာ။ဘာ'), ' စာ ဘာ ');
  });

  it('treats every character of these scripts as such (none is skipped by the cheap first test)', () => {
    const script = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
    const letter = /\p{Alphabetic}/u;
    const missed: string[] = [];
    let checked = 0;
    for (let codePoint = 0; codePoint < 0x110000; codePoint++) {
      const character = codePoint >= 0xd800 && codePoint < 0xe000 ? '' : String.fromCodePoint(codePoint);
      if (character && script.test(character) && letter.test(character)) {
        checked++;
        // A run of two becomes its bigram: the text changes.
        if (fullTextQueryText(`${character}${character}`) === `${character}${character}`) {
          missed.push(codePoint.toString(16));
        }
      }
    }
    assert.ok(checked > 90_000, `${checked} characters`);
    assert.deepEqual(missed, []);
    // Curly quotes and dashes (U+2000-U+2E7F) leave English text as it is.
    assert.equal(fullTextIndexText('It’s a “test” — really'), 'It’s a “test” — really');
  });
});
