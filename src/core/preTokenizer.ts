/**
 * o200k's pre-tokenizer regex (gpt-tokenizer's `O200K_TOKEN_SPLIT_REGEX`), evaluated by hand for ASCII text:
 *
 *   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?
 *   |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:…))?
 *   |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
 *
 * The regex with Unicode property classes took about half of the chunker's token-counting time; this loop over
 * character codes finds the same piece in a fraction of it. It gives up (returns -1) as soon as the piece's end
 * depends on a character outside ASCII, and the caller then runs the regex from the same position, so the
 * pieces are always the regex's (`test/unit/core/preTokenizer.test.ts` compares them on random and real text).
 */

const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
/** JavaScript's `\s` within ASCII: tab, line feed, vertical tab, form feed, carriage return, space. */
const SPACE = 8;
const LINE_BREAK = 16;

const CLASSES = new Uint8Array(128);
for (let code = 65; code <= 90; code++) CLASSES[code] = UPPER;
for (let code = 97; code <= 122; code++) CLASSES[code] = LOWER;
for (let code = 48; code <= 57; code++) CLASSES[code] = DIGIT;
for (const code of [9, 11, 12, 32]) CLASSES[code] = SPACE;
CLASSES[10] = SPACE | LINE_BREAK;
CLASSES[13] = SPACE | LINE_BREAK;

const NOT_ASCII = -1;
const APOSTROPHE = 39;
const SPACE_CHARACTER = 32;
const SLASH = 47;

/**
 * The end of the pre-tokenizer piece that starts at `start` (< `text.length`), or -1 when a character outside ASCII
 * decides it.
 */
export function asciiPieceEnd(text: string, start: number): number {
  const length = text.length;
  const first = text.charCodeAt(start);
  if (first >= 128) {
    return NOT_ASCII;
  }
  const firstClass = CLASSES[first];

  // Alternatives 1 and 2: an optional non-letter, non-digit, non-line-break prefix, then upper case letters and
  // lower case letters (at least one of either), then an optional English contraction.
  const lettersStart = (firstClass & (UPPER | LOWER | DIGIT | LINE_BREAK)) === 0 ? start + 1 : start;
  let upperEnd = lettersStart;
  let code = 0;
  while (upperEnd < length && (code = text.charCodeAt(upperEnd)) < 128 && CLASSES[code] === UPPER) {
    upperEnd++;
  }
  // A character outside ASCII that ended the upper case run ends the lower case run too, and is caught there.
  let lowerEnd = upperEnd;
  while (lowerEnd < length && (code = text.charCodeAt(lowerEnd)) < 128 && CLASSES[code] === LOWER) {
    lowerEnd++;
  }
  if (lowerEnd < length && code >= 128) {
    return NOT_ASCII;
  }
  if (lowerEnd > lettersStart) {
    return contractionEnd(text, lowerEnd);
  }

  // Alternative 3: one to three digits.
  if (firstClass === DIGIT) {
    let end = start + 1;
    while (end < length && end < start + 3) {
      code = text.charCodeAt(end);
      if (code >= 128) {
        return NOT_ASCII;
      }
      if (CLASSES[code] !== DIGIT) {
        break;
      }
      end++;
    }
    return end;
  }

  // Alternative 4: an optional space, then punctuation (anything but whitespace, letters and digits), then line
  // breaks and slashes.
  const punctuationStart = first === SPACE_CHARACTER ? start + 1 : start;
  let punctuationEnd = punctuationStart;
  while (punctuationEnd < length && (code = text.charCodeAt(punctuationEnd)) < 128 && CLASSES[code] === 0) {
    punctuationEnd++;
  }
  if (punctuationEnd < length && code >= 128) {
    return NOT_ASCII;
  }
  if (punctuationEnd > punctuationStart) {
    while (punctuationEnd < length && ((code = text.charCodeAt(punctuationEnd)) === 10 || code === 13 || code === SLASH)) {
      punctuationEnd++;
    }
    return punctuationEnd;
  }

  // Alternatives 5 to 7: whitespace. Up to its last line break if it holds one; else all of it when it ends the
  // text; else all but its last character (which then prefixes the next piece); a single character alone.
  let spaceEnd = start;
  let lastLineBreak = -1;
  while (spaceEnd < length && (code = text.charCodeAt(spaceEnd)) < 128 && (CLASSES[code] & SPACE) !== 0) {
    if ((CLASSES[code] & LINE_BREAK) !== 0) {
      lastLineBreak = spaceEnd;
    }
    spaceEnd++;
  }
  if (spaceEnd < length && code >= 128) {
    return NOT_ASCII;
  }
  if (lastLineBreak >= 0) {
    return lastLineBreak + 1;
  }
  return spaceEnd === length || spaceEnd - start === 1 ? spaceEnd : spaceEnd - 1;
}

/** `end` extended over `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll` or `'d` (any case) if one follows. */
function contractionEnd(text: string, end: number): number {
  if (text.charCodeAt(end) !== APOSTROPHE) {
    return end;
  }
  // Lower-cased by setting bit 5; only ASCII letters can match, so other characters need no care.
  const next = text.charCodeAt(end + 1) | 32;
  if (next === 115 || next === 116 || next === 100 || next === 109) {
    return end + 2;
  }
  const after = text.charCodeAt(end + 2) | 32;
  if ((next === 108 && after === 108) || (next === 118 && after === 101) || (next === 114 && after === 101)) {
    return end + 3;
  }
  return end;
}
