import * as assert from 'node:assert';
import { rewriteTopLevelDeclarations } from '../../../src/core/analysis/topLevelDeclarations';

describe('rewriteTopLevelDeclarations', () => {
  it('turns top-level const and let into var of the same width', () => {
    assert.strictEqual(rewriteTopLevelDeclarations('const hits = await search("x");\nlet count = 0'), 'var   hits = await search("x");\nvar count = 0');
    assert.strictEqual(rewriteTopLevelDeclarations('const { a, b } = obj; let [c] = list'), 'var   { a, b } = obj; var [c] = list');
    assert.strictEqual(rewriteTopLevelDeclarations('foo()\nconst x = 1'), 'foo()\nvar   x = 1');
  });

  it('leaves declarations in blocks, functions, loop heads, arrow bodies and template expressions alone', () => {
    const code = 'for (const hit of hits) { const text = hit.content; let n = 1; }\nfunction f() { const inner = 1; return inner; }\nconst g = () => { let y = 2; };\nif (x) { const z = 3 }\nconsole.log(`${(() => { const t = 1; return t; })()}`)';
    const expected = 'for (const hit of hits) { const text = hit.content; let n = 1; }\nfunction f() { const inner = 1; return inner; }\nvar   g = () => { let y = 2; };\nif (x) { const z = 3 }\nconsole.log(`${(() => { const t = 1; return t; })()}`)';
    assert.strictEqual(rewriteTopLevelDeclarations(code), expected);
  });

  it('ignores the words in strings, templates, comments, regular expressions and member names', () => {
    const code = [
      "const a = 'const b = 1; let c'; // const d = 1",
      '/* let e = 2 */ const f = "let g = 3";',
      'const h = `const i = ${ "}" } let j = ${ `nested ${ 1 } const k` }`;',
      'const l = /let m = [/]const n/g.test(s) ? x / 2 : y / 3; const o = obj.let + obj.const;',
      'const constant = letter;',
    ].join('\n');
    const expected = [
      "var   a = 'const b = 1; let c'; // const d = 1",
      '/* let e = 2 */ var   f = "let g = 3";',
      'var   h = `const i = ${ "}" } let j = ${ `nested ${ 1 } const k` }`;',
      'var   l = /let m = [/]const n/g.test(s) ? x / 2 : y / 3; var   o = obj.let + obj.const;',
      'var   constant = letter;',
    ].join('\n');
    assert.strictEqual(rewriteTopLevelDeclarations(code), expected);
  });

  it('keeps declarations of reserved names as written', () => {
    assert.strictEqual(rewriteTopLevelDeclarations('const search = 1; const other = 2; let readFile', new Set(['search', 'readFile'])), 'const search = 1; var   other = 2; let readFile');
  });

  it('parses regular expressions where a hand-written lexer guesses wrong (after a parenthesised condition)', () => {
    // `/` after `)` is a regex here, not a division: its `{` must not count as a block.
    assert.strictEqual(rewriteTopLevelDeclarations('if (ok) /{/.test(s);\nconst after = 1;'), 'if (ok) /{/.test(s);\nvar   after = 1;');
    assert.strictEqual(rewriteTopLevelDeclarations('const re = /[/`{]const x = 1/u; let n = re.source.length / 2 / 1;'), 'var   re = /[/`{]const x = 1/u; var n = re.source.length / 2 / 1;');
  });

  it('handles template literals with ${} holding braces, strings, nested templates and declarations', () => {
    const code = 'const t = `a ${ { k: "}" }.k } ${ `in ${ (() => { const q = "`"; return q; })() }` } let z`;\nlet after = t;';
    assert.strictEqual(rewriteTopLevelDeclarations(code), code.replace('const t', 'var   t').replace('let after', 'var after'));
  });

  it('skips comments and hashbang lines, and keeps line and column positions', () => {
    const code = '#!/usr/bin/env node\n// const a = 1\n/* let b = 2\n const c */ const d = 3; /* } */ let e = 4';
    const rewritten = rewriteTopLevelDeclarations(code);
    assert.strictEqual(rewritten, '#!/usr/bin/env node\n// const a = 1\n/* let b = 2\n const c */ var   d = 3; /* } */ var e = 4');
    assert.strictEqual(rewritten.length, code.length);
  });

  it('reads every name of a destructuring pattern (nested, defaults, rest) against the kept names', () => {
    assert.strictEqual(rewriteTopLevelDeclarations('const { a: [b, { c = 1 }], ...rest } = x; let [d, , ...e] = y;'), 'var   { a: [b, { c = 1 }], ...rest } = x; var [d, , ...e] = y;');
    assert.strictEqual(rewriteTopLevelDeclarations('const { other, nested: [search] } = x; const ok = 1;', new Set(['search'])), 'const { other, nested: [search] } = x; var   ok = 1;');
  });

  it('leaves async functions, classes and their bodies alone and rewrites around them', () => {
    const code = [
      'async function load(id) { const toc = await readJson(id); let n = 0; return toc; }',
      'class Counter { static { let s = 1; } count = 0; inc() { const step = 1; this.count += step; } }',
      'const counter = new Counter(); let loaded = await load("x");',
      'for await (const item of stream()) { let seen = item; }',
    ].join('\n');
    const expected = code.replace('const counter', 'var   counter').replace('let loaded', 'var loaded');
    assert.strictEqual(rewriteTopLevelDeclarations(code), expected);
  });

  it('returns code it cannot parse unchanged (QuickJS reports the syntax error)', () => {
    assert.strictEqual(rewriteTopLevelDeclarations('const x = ;\nlet y = 2'), 'const x = ;\nlet y = 2');
  });

  it('does not touch let used as a name', () => {
    assert.strictEqual(rewriteTopLevelDeclarations('let = 5; let;'), 'let = 5; let;');
  });
});
