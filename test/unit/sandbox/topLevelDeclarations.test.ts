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

  it('does not touch let used as a name', () => {
    assert.strictEqual(rewriteTopLevelDeclarations('let = 5; let;'), 'let = 5; let;');
  });
});
