/**
 * A tiny JavaScript highlighter for the sandbox code the runs panel shows: splits code into tokens with a class
 * each (`keyword`, `string`, `number`, `comment`, `function`, `plain`); the theme's CSS colours them.
 */
export type TokenKind = 'keyword' | 'string' | 'number' | 'comment' | 'function' | 'plain';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set([
  'await', 'async', 'break', 'case', 'catch', 'class', 'const', 'continue', 'default', 'delete', 'do', 'else',
  'export', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'let', 'new', 'null', 'of',
  'return', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'undefined', 'var', 'void', 'while', 'yield',
]);

const TOKEN_PATTERN = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:e[+-]?\d+)?)\b)|([A-Za-z_$][\w$]*)/g;

export function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  const push = (kind: TokenKind, text: string): void => {
    if (text === '') {
      return;
    }
    const previous = tokens[tokens.length - 1];
    if (previous && previous.kind === kind && kind === 'plain') {
      previous.text += text;
    } else {
      tokens.push({ kind, text });
    }
  };
  for (const match of code.matchAll(TOKEN_PATTERN)) {
    const index = match.index ?? 0;
    push('plain', code.slice(last, index));
    const [text, comment, string, number, word] = match;
    if (comment !== undefined) {
      push('comment', text);
    } else if (string !== undefined) {
      push('string', text);
    } else if (number !== undefined) {
      push('number', text);
    } else if (word !== undefined) {
      const isCall = /^\s*\(/.test(code.slice(index + text.length));
      push(KEYWORDS.has(word) ? 'keyword' : isCall ? 'function' : 'plain', text);
    }
    last = index + text.length;
  }
  push('plain', code.slice(last));
  return tokens;
}
