import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens as libraryCountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countChunkTokens } from '../../../src/core/chunker';
import { PieceCountTable } from '../../../src/core/pieceCountTable';
import { asciiPieceEnd } from '../../../src/core/preTokenizer';
import { scifactRoot, skipUnlessScifact } from '../../support/paths';

/**
 * The chunker finds o200k's pre-tokenizer pieces with a hand-written ASCII scanner, the regex taking over where a
 * character outside ASCII decides a piece's end. Its token counts are only right if those pieces are exactly the
 * regex's, so they are compared on random text built to hit every alternative and boundary of the regex, and on
 * real text.
 */
const regex = () => new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);

/** The regex's pieces, as the library's own splitter finds them. */
function regexPieces(text: string): string[] {
  return Array.from(text.matchAll(regex()), (match) => match[0]);
}

/** The scanner's pieces with the regex as fallback (the chunker's walk), and how many the scanner decided. */
function scannedPieces(text: string): { pieces: string[]; byScanner: number } {
  const fallback = regex();
  const pieces: string[] = [];
  let byScanner = 0;
  let start = 0;
  while (start < text.length) {
    let end = asciiPieceEnd(text, start);
    if (end >= 0) {
      byScanner++;
    } else {
      fallback.lastIndex = start;
      const match = fallback.exec(text);
      assert.ok(match, `the regex matches at ${start} of ${JSON.stringify(text)}`);
      assert.strictEqual(match.index, start, `the regex's piece starts where the previous one ended in ${JSON.stringify(text)}`);
      end = match.index + match[0].length;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return { pieces, byScanner };
}

/** Seeded, so a failure can be replayed. */
function randomSource(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/**
 * Fragments weighted toward what decides the regex's alternatives: case changes, contractions (any case), digit
 * runs, punctuation runs with line breaks and slashes, every ASCII whitespace, control characters, and characters
 * outside ASCII of each kind the regex treats differently (letters of every case class, combining marks, numbers,
 * Unicode whitespace, surrogate pairs and lone surrogates).
 */
const FRAGMENTS = [
  'a', 'z', 'A', 'Z', 'the', 'The', 'THE', 'tHe', 'iPhone', 'XMLHttp', "'s", "'S", "'t", "'re", "'RE", "'ve", "'Ve", "'m", "'ll", "'LL", "'d", "'x", "'", "''",
  '0', '7', '12', '345', '6789', '.', ',', '!?', '...', '/', '//', '(', ')', '-', '_', '"', '#', '<|endoftext|>', '\\', '@', '`', '~',
  ' ', ' ', ' ', '  ', '\t', '\n', '\r', '\r\n', '\n\n', '\v', '\f', '\x00', '\x1f', '\x7f',
  'é', 'É', 'ß', 'ǅ', 'ʰ', '中文', 'ー', '\u0301', '\u0e48', '²', '½', '٣', '\u00a0', '\u2028', '\u3000', '\ufeff', '😀', '\ud800', '\udc00', '—', '“', '€',
];

function randomText(random: () => number): string {
  const parts: string[] = [];
  const count = Math.floor(random() * 24);
  for (let index = 0; index < count; index++) {
    parts.push(FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]);
  }
  return parts.join('');
}

describe('the ASCII pre-tokenizer scanner', function () {
  this.timeout(120_000);

  it('finds exactly the regex pieces on random text of every kind the regex distinguishes', () => {
    const random = randomSource(11);
    const differing: string[] = [];
    let byScanner = 0;
    let total = 0;
    for (let index = 0; index < 60_000; index++) {
      const text = randomText(random);
      const scanned = scannedPieces(text);
      const expected = regexPieces(text);
      if (JSON.stringify(scanned.pieces) !== JSON.stringify(expected)) {
        differing.push(`${JSON.stringify(text)}: ${JSON.stringify(scanned.pieces)} vs ${JSON.stringify(expected)}`);
      }
      byScanner += scanned.byScanner;
      total += scanned.pieces.length;
    }
    assert.deepStrictEqual(differing.slice(0, 5), []);
    // Both ways of finding a piece were exercised.
    assert.ok(byScanner > total / 3 && byScanner < total, `${byScanner} of ${total} pieces by the scanner`);
  });

  it('finds exactly the regex pieces on SciFact, most of them without the regex', function () {
    skipUnlessScifact(this);
    const lines = fs.readFileSync(path.join(scifactRoot, 'corpus.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
    let byScanner = 0;
    let total = 0;
    const differing: string[] = [];
    for (const line of lines.slice(0, 3000)) {
      const record = JSON.parse(line) as { title: string; text: string };
      const text = `${record.title}\n${record.text}`;
      const scanned = scannedPieces(text);
      if (JSON.stringify(scanned.pieces) !== JSON.stringify(regexPieces(text))) {
        differing.push(record.title);
      }
      byScanner += scanned.byScanner;
      total += scanned.pieces.length;
    }
    assert.deepStrictEqual(differing.slice(0, 5), []);
    assert.ok(byScanner > total * 0.99, `${byScanner} of ${total} pieces by the scanner`);
  });

  it('leaves a piece to the regex when a character outside ASCII decides its end', () => {
    assert.strictEqual(asciiPieceEnd('cafe', 0), 4);
    assert.strictEqual(asciiPieceEnd('café', 0), -1, 'a lower case letter outside ASCII continues the word');
    assert.strictEqual(asciiPieceEnd('12²', 0), -1, 'a number outside ASCII continues the digits');
    assert.strictEqual(asciiPieceEnd('  \u00a0x', 0), -1, 'a no-break space continues the whitespace');
    assert.strictEqual(asciiPieceEnd('1234', 0), 3, 'at most three digits, the fourth never examined');
    assert.strictEqual(asciiPieceEnd("we'LL go", 0), 5);
    assert.strictEqual(asciiPieceEnd('  x', 0), 1, 'the last space of a run prefixes the next word');
  });

  it('gives the library token counts on random text of every kind', () => {
    const random = randomSource(5);
    const differing: string[] = [];
    for (let index = 0; index < 5_000; index++) {
      const text = randomText(random).replaceAll('<|endoftext|>', '<|end|>');
      const library = libraryCountTokens(text);
      if (countChunkTokens(text) !== library) {
        differing.push(`${JSON.stringify(text)}: ${countChunkTokens(text)} vs ${library}`);
      }
    }
    assert.deepStrictEqual(differing.slice(0, 5), []);
  });
});

describe('PieceCountTable', () => {
  it('counts a piece once wherever it stands, and counts without keeping past its limits', () => {
    const counted: string[] = [];
    const count = (piece: string): number => {
      counted.push(piece);
      return piece.length;
    };
    const table = new PieceCountTable({ maxEntries: 3, maxPieceLength: 5 });
    assert.strictEqual(table.countOf('a word here', 2, 6, count), 4);
    assert.strictEqual(table.countOf('word', 0, 4, count), 4);
    assert.strictEqual(table.countOf('sword', 1, 5, count), 4);
    assert.deepStrictEqual(counted, ['word'], 'the same characters at other places are found');
    assert.strictEqual(table.countOf('toolong', 0, 7, count), 7);
    assert.strictEqual(table.countOf('toolong', 0, 7, count), 7);
    assert.deepStrictEqual(counted, ['word', 'toolong', 'toolong'], 'a piece over the length limit is not kept');
    table.countOf('b', 0, 1, count);
    table.countOf('c', 0, 1, count);
    table.countOf('d', 0, 1, count);
    table.countOf('d', 0, 1, count);
    assert.strictEqual(table.size, 3);
    assert.deepStrictEqual(counted.slice(3), ['b', 'c', 'd', 'd'], 'past the entry limit pieces are counted, not kept');
    table.countOf('c', 0, 1, count);
    assert.strictEqual(counted.length, 7, 'kept pieces are still found when the table is full');
  });

  it('tells apart pieces whose hashes share a slot', () => {
    const table = new PieceCountTable({ maxEntries: 50_000, maxPieceLength: 64 });
    const random = randomSource(3);
    const expected = new Map<string, number>();
    for (let index = 0; index < 40_000; index++) {
      const piece = Array.from({ length: 1 + Math.floor(random() * 6) }, () => String.fromCharCode(97 + Math.floor(random() * 4))).join('');
      const value = expected.get(piece) ?? index;
      expected.set(piece, value);
      assert.strictEqual(table.countOf(`x${piece}y`, 1, piece.length + 1, () => value), value);
    }
    for (const [piece, value] of expected) {
      assert.strictEqual(table.countOf(piece, 0, piece.length, () => -1), value, piece);
    }
  });
});
