/**
 * Rewrites top-level `const` and `let` declarations of guest code to `var` (padded to the same width, so line
 * and column numbers in error traces stay right).
 *
 * Why: the sandbox evaluates every call in one global scope so that variables persist, and there a second
 * `const hits = …` in a later call is a SyntaxError ("redeclaration of 'hits'"). Models re-run whole snippets
 * all the time; with `var` the second declaration simply assigns again, like in a REPL.
 *
 * Declarations of a name in `keepNames` are left as written. Only depth-0 declarations change (not those in blocks, functions or `for (…)` heads). The scanner knows
 * strings, template literals, comments and regular expression literals well enough for real code; the sandbox
 * falls back to the original code when the rewritten code does not parse.
 */
export function rewriteTopLevelDeclarations(code: string, keepNames: ReadonlySet<string> = new Set()): string {
  const output: string[] = [];
  let depth = 0;
  // Depths at which an open template literal's `${` started, innermost last.
  const templateDepths: number[] = [];
  let previousSignificant = '';
  let previousWord = '';
  let index = 0;
  let copiedUpTo = 0;

  const regexAllowedAfterWord = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

  function regexCanStart(): boolean {
    if (previousSignificant === '') {
      return true;
    }
    if (/[\w$]/.test(previousSignificant)) {
      return regexAllowedAfterWord.has(previousWord);
    }
    return !/[)\]}]/.test(previousSignificant);
  }

  function skipTemplateText(): void {
    // Inside a template literal: runs to the closing backtick or to a `${`.
    while (index < code.length) {
      const character = code[index];
      if (character === '\\') {
        index += 2;
      } else if (character === '`') {
        index++;
        previousSignificant = '`';
        previousWord = '';
        return;
      } else if (character === '$' && code[index + 1] === '{') {
        index += 2;
        templateDepths.push(depth);
        depth++;
        previousSignificant = '{';
        previousWord = '';
        return;
      } else {
        index++;
      }
    }
  }

  while (index < code.length) {
    const character = code[index];
    const next = code[index + 1];
    if (character === '/' && next === '/') {
      const end = code.indexOf('\n', index);
      index = end < 0 ? code.length : end;
    } else if (character === '/' && next === '*') {
      const end = code.indexOf('*/', index + 2);
      index = end < 0 ? code.length : end + 2;
    } else if (character === '"' || character === "'") {
      index++;
      while (index < code.length && code[index] !== character && code[index] !== '\n') {
        index += code[index] === '\\' ? 2 : 1;
      }
      index++;
      previousSignificant = character;
      previousWord = '';
    } else if (character === '`') {
      index++;
      skipTemplateText();
    } else if (character === '/' && regexCanStart()) {
      index++;
      let inClass = false;
      while (index < code.length && code[index] !== '\n') {
        const current = code[index];
        if (current === '\\') {
          index += 2;
          continue;
        }
        if (current === '[') {
          inClass = true;
        } else if (current === ']') {
          inClass = false;
        } else if (current === '/' && !inClass) {
          break;
        }
        index++;
      }
      index++;
      while (index < code.length && /[a-z]/i.test(code[index])) {
        index++;
      }
      previousSignificant = '/';
      previousWord = '';
    } else if (/[A-Za-z_$]/.test(character)) {
      const start = index;
      while (index < code.length && /[\w$]/.test(code[index])) {
        index++;
      }
      const word = code.slice(start, index);
      const isMemberName = previousSignificant === '.' && code[start - 1] === '.';
      const declared = /^\s*([A-Za-z_$][\w$]*)?/.exec(code.slice(index, index + 128))?.[1];
      const declares = depth === 0 && (word === 'const' || word === 'let') && !isMemberName && /^\s*[A-Za-z_$[{]/.test(code.slice(index, index + 64));
      // `keepNames` (the sandbox API) stay const/let, so that shadowing them fails loudly instead of silently.
      if (declares && !(declared !== undefined && keepNames.has(declared))) {
        output.push(code.slice(copiedUpTo, start), word === 'const' ? 'var  ' : 'var');
        copiedUpTo = index;
      }
      previousSignificant = word[word.length - 1];
      previousWord = word;
    } else if (/\s/.test(character)) {
      index++;
    } else {
      if (character === '{' || character === '(' || character === '[') {
        depth++;
      } else if (character === '}' && templateDepths.length > 0 && templateDepths[templateDepths.length - 1] === depth - 1) {
        templateDepths.pop();
        depth--;
        index++;
        skipTemplateText();
        continue;
      } else if (character === '}' || character === ')' || character === ']') {
        depth = Math.max(0, depth - 1);
      }
      previousSignificant = character;
      previousWord = '';
      index++;
    }
  }
  output.push(code.slice(copiedUpTo));
  return output.join('');
}
