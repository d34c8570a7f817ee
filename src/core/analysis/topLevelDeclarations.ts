import { parse, type Pattern, type Program } from 'acorn';

/**
 * Rewrites top-level `const` and `let` declarations of guest code to `var` (padded to the same width, so line
 * and column numbers in error traces stay right).
 *
 * Why: the sandbox evaluates every call in one global scope so that variables persist, and there a second
 * `const hits = …` in a later call is a SyntaxError ("redeclaration of 'hits'"). Models re-run whole snippets
 * all the time; with `var` the second declaration simply assigns again, like in a REPL.
 *
 * The code is parsed with acorn as a script with top-level `await`; only statements of the program body change
 * (not declarations in blocks, functions or `for (…)` heads). A declaration binding any name in `keepNames` is
 * left as written, so that shadowing the sandbox API fails loudly. Code acorn cannot parse is returned unchanged:
 * QuickJS then reports its own syntax error.
 */
export function rewriteTopLevelDeclarations(code: string, keepNames: ReadonlySet<string> = new Set()): string {
  let program: Program;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true, allowHashBang: true });
  } catch {
    return code;
  }
  const output: string[] = [];
  let copiedUpTo = 0;
  for (const statement of program.body) {
    if (statement.type !== 'VariableDeclaration' || (statement.kind !== 'const' && statement.kind !== 'let')) {
      continue;
    }
    const names = statement.declarations.flatMap((declarator) => boundNames(declarator.id));
    if (names.some((name) => keepNames.has(name))) {
      continue;
    }
    output.push(code.slice(copiedUpTo, statement.start), statement.kind === 'const' ? 'var  ' : 'var');
    copiedUpTo = statement.start + statement.kind.length;
  }
  output.push(code.slice(copiedUpTo));
  return output.join('');
}

/** The identifiers a binding pattern declares (`a`, `{ b, c: d }`, `[e, ...f]`, `{ g = 1 }`). */
function boundNames(pattern: Pattern): string[] {
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name];
    case 'ObjectPattern':
      return pattern.properties.flatMap((property) => boundNames(property.type === 'RestElement' ? property.argument : property.value));
    case 'ArrayPattern':
      return pattern.elements.flatMap((element) => (element ? boundNames(element) : []));
    case 'AssignmentPattern':
      return boundNames(pattern.left);
    case 'RestElement':
      return boundNames(pattern.argument);
    default:
      return [];
  }
}
