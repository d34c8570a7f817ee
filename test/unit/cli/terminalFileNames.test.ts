import * as assert from 'node:assert/strict';
import { stripTerminalControls, terminalFileName, terminalSafeJson } from '../../../src/node/cli/terminalText';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { runInProcess } from './cliHarness';

const BIDI_CONTROLS = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];

describe('file names and bidirectional controls in terminal output', function () {
  this.timeout(120_000);

  it('escapes newlines, tabs and bidirectional controls of a file name visibly', () => {
    assert.equal(terminalFileName('report\u202Etxt.exe.md'), 'report\\u202etxt.exe.md');
    assert.equal(terminalFileName('two\nlines\tand\rtab.md'), 'two\\nlines\\tand\\rtab.md');
    assert.equal(terminalFileName('\u2066a\u2069\u200f\u2028.md'), '\\u2066a\\u2069\\u200f\\u2028.md');
    // Escape sequences are the output filter's: it drops them from names as from all text.
    assert.equal(stripTerminalControls(terminalFileName('red\u001b[31m\n.md')), 'red\\n.md');
    assert.equal(terminalFileName('guides/ünïcode 名前.md'), 'guides/ünïcode 名前.md');
  });

  it('drops bidirectional controls from other text, and escapes them in JSON', () => {
    for (const control of BIDI_CONTROLS) {
      assert.equal(stripTerminalControls(`a${control}b\n`), 'ab\n', `U+${control.charCodeAt(0).toString(16)}`);
      assert.equal(terminalSafeJson(`a${control}b`), `"a\\u${control.charCodeAt(0).toString(16)}b"`);
    }
  });

  it('`haiku docs` and `haiku toc` print such names escaped, one line per document', async () => {
    const folder = temporaryFolder('haiku-names-');
    try {
      writeFiles(folder.path, {
        'invoice\u202Efdp.md': '# Invoice\n\nAmount due.\n',
        'two\nlines.md': '# Two\n\nA file whose name holds a newline.\n',
        'tab\there.md': '# Tab\n\nA file whose name holds a tab.\n',
      });
      const indexed = await runInProcess(['index', '.', '--quiet'], { cwd: folder.path });
      assert.equal(indexed.code, 0, indexed.stderr);
      const docs = await runInProcess(['docs'], { cwd: folder.path });
      assert.equal(docs.code, 0, docs.stderr);
      for (const control of BIDI_CONTROLS) {
        assert.ok(!docs.stdout.includes(control), `raw U+${control.charCodeAt(0).toString(16)} in ${JSON.stringify(docs.stdout)}`);
      }
      const lines = docs.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 4, docs.stdout);
      assert.ok(lines.some((line) => line.startsWith('invoice\\u202efdp.md ')), docs.stdout);
      assert.ok(lines.some((line) => line.startsWith('two\\nlines.md ')), docs.stdout);
      assert.ok(lines.some((line) => line.startsWith('tab\\there.md ')), docs.stdout);
      assert.ok(!lines.some((line) => line.startsWith('tab\t')), 'no raw tab in a name');
      const json = await runInProcess(['docs', '--json'], { cwd: folder.path });
      assert.ok(json.stdout.includes('invoice\\u202efdp.md'), json.stdout);
      const toc = await runInProcess(['toc', 'two\nlines.md'], { cwd: folder.path });
      assert.equal(toc.code, 0, toc.stderr);
      assert.match(toc.stdout.split('\n')[0], /^Two \(two\\nlines\.md, /);
    } finally {
      folder.cleanup();
    }
  });
});
