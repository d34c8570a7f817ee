import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens as libraryCountTokens, encode as libraryEncode } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { asciiPieceTokenCount, longPieceTokenCount, longPieceTokens, PairRankCache } from '../../../src/core/asciiPieceTokens';
import { chunkDocument, countChunkTokens } from '../../../src/core/chunker';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { convertFile } from '../../../src/node/convert/convertFile';
import { corpusRoot, filesBelow, scifactRoot, skipUnlessScifact } from '../../support/paths';
import { seededRandom } from '../../support/seededRandom';

/**
 * The chunker counts tokens piece by piece with a cache of recurring pieces instead of calling the tokenizer's
 * `countTokens` on every text. Its decisions depend only on those counts, so the counts must equal the library's
 * on every text it sees: item texts and chunk texts of the whole shared corpus and of SciFact.
 */
function paragraph(text: string): DocumentItem {
  return { position: 0, selfRef: '#/texts/0', label: 'paragraph', text, headingLevel: 0, pageNumbers: [], treeDepth: 0 } as DocumentItem;
}

/** Texts whose counts differ from the library's, at most a few named. */
function mismatches(texts: Iterable<string>): string[] {
  const found: string[] = [];
  for (const text of texts) {
    const ours = countChunkTokens(text);
    const library = libraryCountTokens(text);
    if (ours !== library) {
      found.push(`${ours} vs ${library}: ${JSON.stringify(text.slice(0, 80))}`);
    }
  }
  return found;
}

function* textsOf(document: { id: string; items: readonly DocumentItem[] }): Generator<string> {
  for (const item of document.items) {
    yield item.text;
  }
  for (const chunk of chunkDocument(document)) {
    yield chunk.searchText;
    yield chunk.content;
  }
}

describe('chunk token counting equals the tokenizer on the corpora', function () {
  this.timeout(600_000);

  it('on every SciFact abstract and its chunks', function () {
    skipUnlessScifact(this);
    const lines = fs.readFileSync(path.join(scifactRoot, 'corpus.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
    assert.ok(lines.length > 5000, 'the SciFact corpus is there');
    const found: string[] = [];
    for (const line of lines) {
      const record = JSON.parse(line) as { _id: string; title: string; text: string };
      found.push(...mismatches(textsOf({ id: record._id, items: [paragraph(`${record.title}\n${record.text}`)] })));
    }
    assert.deepStrictEqual(found.slice(0, 10), []);
  });

  it('on every item and chunk of the shared corpus', async () => {
    const files = filesBelow(corpusRoot).filter((file) => /\.(md|html?|pdf|docx|txt)$/i.test(file) && !file.endsWith('.groundtruth.md'));
    const found: string[] = [];
    let converted = 0;
    for (const file of files) {
      let document: ConvertedDocument;
      try {
        document = await convertFile(path.join(corpusRoot, file));
      } catch {
        continue; // Files that fail to convert are the converter tests' concern; they give nothing to chunk.
      }
      converted++;
      found.push(...mismatches(textsOf({ id: file, items: document.items })).map((problem) => `${file}: ${problem}`));
    }
    assert.ok(converted >= 80, `most corpus files convert (${converted} of ${files.length})`);
    assert.deepStrictEqual(found.slice(0, 10), []);
  });

  it('counts special-token text in a document as plain text instead of throwing', () => {
    const text = 'A language model stops at <|endoftext|> and chat turns start with <|im_start|>.';
    assert.strictEqual(countChunkTokens(text), libraryCountTokens(text, { disallowedSpecial: new Set() }));
    const chunks = chunkDocument({ id: 'doc', items: [paragraph(text)] });
    assert.strictEqual(chunks.length, 1);
    assert.strictEqual(chunks[0].content, text);
  });

  it('splits an unbroken run holding special-token text between characters', () => {
    const text = `${'x'.repeat(3000)}<|endoftext|>${'y'.repeat(3000)}`;
    const chunks = chunkDocument({ id: 'doc', items: [paragraph(text)] });
    assert.strictEqual(chunks.map((chunk) => chunk.content).join(''), text);
  });

  it('counts ASCII pieces with its own byte-pair merge exactly as the library, and leaves other pieces to it', function () {
    skipUnlessScifact(this);
    assert.strictEqual(asciiPieceTokenCount('internationalization'), libraryCountTokens('internationalization'), 'the fast path is active');
    assert.strictEqual(asciiPieceTokenCount(' café'), undefined);
    assert.strictEqual(asciiPieceTokenCount(''), undefined);
    // Every distinct piece of SciFact (mostly words, numbers and punctuation runs) and the pieces of random ASCII text.
    const pieces = new Set<string>();
    const splitter = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);
    for (const line of fs.readFileSync(path.join(scifactRoot, 'corpus.jsonl'), 'utf8').split('\n').slice(0, 2000)) {
      for (const match of line.matchAll(splitter)) {
        pieces.add(match[0]);
      }
    }
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let index = 0; index < 20_000; index++) {
      const length = 1 + Math.floor(random() * 40);
      const text = Array.from({ length }, () => String.fromCharCode(random() < 0.8 ? 97 + Math.floor(random() * 26) : 32 + Math.floor(random() * 95))).join('');
      for (const match of text.matchAll(splitter)) {
        pieces.add(match[0]);
      }
    }
    const differing: string[] = [];
    let counted = 0;
    for (const piece of pieces) {
      const ours = asciiPieceTokenCount(piece);
      if (ours === undefined) {
        continue;
      }
      counted++;
      const library = libraryCountTokens(piece, { disallowedSpecial: new Set() });
      if (ours !== library) {
        differing.push(`${JSON.stringify(piece)}: ${ours} vs ${library}`);
      }
    }
    assert.ok(counted > 25_000, `${counted} ASCII pieces compared`);
    assert.deepStrictEqual(differing.slice(0, 10), []);
  });

  it('counts long ASCII pieces (merged by a heap, not a scan) exactly as the library', () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const words = ['the', 'token', 'ization', 'inter', 'national', 'ab', 'ba', 'a', 'zz', 'q', 'ing', 'tion', 'xyz', 'HTTP', 'Request'];
    const differing: string[] = [];
    for (let index = 0; index < 1_500; index++) {
      // Three letters (many equal ranks, so the leftmost-first order matters), glued words, and any lower case letter.
      const length = 50 + Math.floor(random() * 700);
      let piece = '';
      while (piece.length < length) {
        piece += index % 3 === 0 ? 'abc'[Math.floor(random() * 3)] : index % 3 === 1 ? words[Math.floor(random() * words.length)] : String.fromCharCode(97 + Math.floor(random() * 26));
      }
      const ours = asciiPieceTokenCount(piece);
      const library = libraryCountTokens(piece);
      if (ours !== library) {
        differing.push(`${JSON.stringify(piece.slice(0, 40))}… (${piece.length}): ${ours} vs ${library}`);
      }
    }
    assert.deepStrictEqual(differing.slice(0, 5), []);
  });

  it('counts long pieces outside ASCII (merged by a heap over their bytes) exactly as the library', () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabets = [
      [...'абвгдежзийклмнопрстуфхцчшщыэюя'],
      [...'的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年'],
      [...'กขคงจฉชซญดตถทนบปผพฟมยรลวสหอะาิีึืุู่้๊๋ั'],
      [...'😀😃😄😁🙂🙃😉😊🎉🚀'],
      [...'naïveéèçàüöß'],
    ];
    const differing: string[] = [];
    let counted = 0;
    for (let index = 0; index < 400; index++) {
      const alphabet = alphabets[index % alphabets.length];
      const piece = Array.from({ length: 20 + Math.floor(random() * 300) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      // Only what the pre-tokenizer keeps as one piece is a piece.
      if (piece.match(new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags))?.[0] !== piece) {
        continue;
      }
      const ours = longPieceTokenCount(piece);
      if (ours === undefined) {
        continue;
      }
      counted++;
      const library = libraryCountTokens(piece);
      if (ours !== library) {
        differing.push(`${JSON.stringify(piece.slice(0, 20))}… (${piece.length}): ${ours} vs ${library}`);
      }
    }
    assert.ok(counted > 250, `${counted} pieces compared`);
    assert.deepStrictEqual(differing.slice(0, 5), []);
  });

  it("gives the library's tokens of long pieces in any script (the chunker cuts unbroken runs at them)", () => {
    const random = seededRandom(11);
    // Han from the whole unified block: enough distinct pairs to fill the pair cache (131,072) and empty it again.
    const han = Array.from({ length: 20_000 }, (_, index) => String.fromCharCode(0x4e00 + index));
    const alphabets = [[...'abc'], [...'abcdefghijklmnopqrstuvwxyz'], [...'абвгдежзийклмнопрстуфхцчшщыэюя'], han, [...'กขคงจฉชซญดตถทนบปผพฟมยรลวสหอะาิีึืุู่้๊๋ั'], [...'😀😃😄😁🙂🙃😉😊🎉🚀'], [...'naïveéèçàüöß']];
    const piecePattern = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);
    const differing: string[] = [];
    const compared = new Map<number, number>();
    for (let index = 0; index < 280; index++) {
      const alphabet = alphabets[index % alphabets.length];
      const length = alphabet === han ? 1_500 : 30 + Math.floor(random() * 900);
      let piece = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      if (index % 2 === 1) {
        // A window's end can fall inside a surrogate pair (an emoji cut in half).
        piece = piece.slice(0, piece.length - 1);
      }
      if (piece.match(piecePattern)?.[0] !== piece) {
        continue;
      }
      const ours = longPieceTokens(piece);
      if (ours === undefined) {
        continue;
      }
      compared.set(index % alphabets.length, (compared.get(index % alphabets.length) ?? 0) + 1);
      const library = libraryEncode(piece);
      if (JSON.stringify(ours) !== JSON.stringify(library)) {
        differing.push(`${JSON.stringify(piece.slice(0, 20))}… (${piece.length}): ${ours.length} tokens vs ${library.length}`);
      }
    }
    assert.strictEqual(compared.size, alphabets.length, JSON.stringify([...compared]));
    assert.ok([...compared.values()].every((count) => count >= 20), JSON.stringify([...compared]));
    assert.deepStrictEqual(differing.slice(0, 5), []);
  });

  it('keeps pair ranks exact through its cache: remembered, looked up once, and looked up again after the cache empties', () => {
    const cache = new PairRankCache(4);
    const truth = (left: number, right: number) => ((left * 7 + right) % 5 === 0 ? undefined : left * 100 + right);
    let lookUps = 0;
    let seed = 3;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const distinct = new Set<string>();
    // Ten phases of 200 calls, each over five pairs of its own (a text's recurring pairs), 36 pairs in all.
    for (let phase = 0; phase < 10; phase++) {
      const pairs = Array.from({ length: 5 }, () => [Math.floor(random() * 6), Math.floor(random() * 6)]);
      for (let call = 0; call < 200; call++) {
        const [left, right] = pairs[Math.floor(random() * pairs.length)];
        distinct.add(`${left},${right}`);
        const rank = cache.rankOf(left, right, () => {
          lookUps++;
          return truth(left, right);
        });
        assert.strictEqual(rank, truth(left, right) ?? -1, `pair ${left}, ${right}`);
      }
    }
    // 16 slots, emptied at 7 pairs: more pairs than fit, so some are looked up again; but few per phase.
    assert.ok(lookUps > distinct.size, `${lookUps} look-ups of ${distinct.size} pairs`);
    assert.ok(lookUps <= 10 * 10, `${lookUps} look-ups`);
  });
});
