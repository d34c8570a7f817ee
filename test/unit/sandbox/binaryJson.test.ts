import * as assert from 'node:assert';
import { GuestSession } from '../../../src/node/sandbox/guestSession';
import { packTexts } from '../../../src/node/sandbox/packedText';

/**
 * File contents reach the guest in QuickJS's binary format (`binaryJson.ts`): exact strings, lines split on the
 * host, JSON parsed on the host. Each case runs with the binary handover and with the JSON-text fallback, each with
 * the file given as a string (a session on the host thread) and packed among other texts (what the worker gets
 * from the host thread), and all must give what the old text handover gave.
 */
const files: Record<string, string> = {
  '/plain': 'first line\nsecond line\n',
  '/crlf': 'one\r\ntwo\r\n\r\nfour',
  '/empty': '',
  '/wide': 'Grüße, 東京, emoji 🙂\nlone \ud800 surrogate\n\u0000nul\u0001mark',
  '/json': JSON.stringify({
    text: 'é — \u0000', numbers: [0, -1, 2147483647, -2147483648, 2147483648, 1.5, 'minus zero', 1e300, 5e-324], flags: [true, false, null],
    nested: { deeper: { list: [[], {}, ''] } }, '0': 'index key', '10': 'another', '01': 'not an index', ['__proto__']: 'own', 'ключ': 1,
  }).replace('"minus zero"', '-0'),
  '/not-json': '{"a": 1,,}',
  // ASCII text whose escapes make characters beyond Latin-1; a JSON file whose value is a string.
  '/json-escapes': '{"city": "\\u6771\\u4eac", "accent": "\\u00e9", "pair": "\\ud83d\\ude42"}',
  '/json-string': '"a string, not JSON text to parse again"',
  // Deeper than the host encoder's recursion reaches (it falls back to text), within what QuickJS's JSON.parse takes.
  '/deep': '['.repeat(5_000) + ']'.repeat(5_000),
  '/cr-edge': 'a\n\r\n\nb\r',
  '/long': 'x'.repeat(300_000) + '\n' + 'ü'.repeat(100_000),
  // Lines with and without characters above U+00FF in one file: each line's width is its own.
  '/mixed-crlf': 'ascii\r\n東\r\nmore ascii ü\r\n\r\nends wide 京\r\nplain\n😀\n\nlast',
};

/** The file packed after texts of odd length and of both widths, so that it starts at an offset into the buffer. */
function packedAmongOthers(text: string): ReturnType<typeof packTexts>['packed'][number] {
  return packTexts(['odd', '東京 wide', text, 'after']).packed[2];
}

for (const [binaryJson, packed] of [[true, false], [true, true], [false, false], [false, true]]) {
  describe(`sandbox file handover (${binaryJson ? 'QuickJS binary format' : 'JSON text fallback'}, files ${packed ? 'packed' : 'as strings'})`, () => {
    let session: GuestSession;
    const run = async (code: string): Promise<string> => {
      const outcome = await session.execute(code, Date.now() + 60_000, 60);
      assert.strictEqual(outcome.success, true, outcome.stderr);
      return outcome.stdout;
    };

    before(async () => {
      session = await GuestSession.create({
        memoryLimitBytes: 32 * 1024 * 1024,
        stackLimitBytes: 256 * 1024,
        maxOutputChars: 100_000,
        binaryJson,
        callHost: async (method, args) => {
          if (method === 'search') {
            return '[{"chunk_id": "c\\u0000x", "score": -0, "rank": 1, "headings": ["é — 東京"], "merged_chunk_ids": []}]';
          }
          assert.strictEqual(method, 'readFile', `unexpected host method ${method}`);
          const text = files[String(args[0])];
          if (text === undefined) {
            throw new Error(`ENOENT: no such file or directory, '${String(args[0])}'`);
          }
          return packed ? packedAmongOthers(text) : text;
        },
      });
    });
    after(() => session.dispose());

    it(binaryJson ? 'uses the binary format with this QuickJS build' : 'uses JSON text when asked to', () => {
      assert.strictEqual(session.handsOverBinaryJson, binaryJson);
    });

    it('readFile returns the text exactly (NUL, the bridge marker, lone surrogates, non-Latin-1)', async () => {
      for (const path of ['/plain', '/wide', '/empty', '/long', '/mixed-crlf']) {
        const printed = await run(`const text = await readFile('${path}'); JSON.stringify([text.length, Array.from(text, (c) => c.charCodeAt(0)).reduce((a, b) => (a * 31 + b) % 1000000007, 7)])`);
        const text = files[path];
        const hash = Array.from(text, (character) => character.charCodeAt(0)).reduce((total, code) => (total * 31 + code) % 1000000007, 7);
        assert.strictEqual(printed, `${JSON.stringify([text.length, hash])}\n`, path);
      }
    });

    it('readLines splits like the old guest-side split (LF, CRLF, final empty line dropped, empty file)', async () => {
      const expected = (text: string): string[] => {
        if (text === '') {
          return [];
        }
        const lines = text.split('\n');
        if (lines[lines.length - 1] === '') {
          lines.pop();
        }
        return text.includes('\r') ? lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)) : lines;
      };
      for (const path of ['/plain', '/crlf', '/empty', '/wide', '/long', '/cr-edge', '/not-json', '/mixed-crlf']) {
        // Lengths and a hash of each line: the long file would pass the output cap as JSON.
        const printed = await run(`JSON.stringify((await readLines('${path}')).map((line) => [line.length, Array.from(line, (c) => c.charCodeAt(0)).reduce((a, b) => (a * 31 + b) % 1000000007, 7)]))`);
        const lines = expected(files[path]).map((line) => [line.length, Array.from(line, (character) => character.charCodeAt(0)).reduce((total, code) => (total * 31 + code) % 1000000007, 7)]);
        assert.deepStrictEqual(JSON.parse(printed), lines, path);
      }
      assert.strictEqual(await run(`const lines = await readLines('/plain'); lines.push('more'); lines.length`), '3\n', 'a plain, mutable array');
    });

    it('readJson gives what JSON.parse gives: numbers, -0, index keys, __proto__ as an own key, key order', async () => {
      const printed = await run(`
        const value = await readJson('/json');
        const viaParse = JSON.parse(await readFile('/json'));
        [JSON.stringify(value) === JSON.stringify(viaParse), Object.keys(value).join(','), Object.is(value.numbers[6], -0),
         Object.getPrototypeOf(value) === Object.prototype, Object.hasOwn(value, '__proto__'), value.numbers[4] + 1, typeof value.numbers[0]].join(' ')`);
      assert.strictEqual(printed, 'true 0,10,text,numbers,flags,nested,01,__proto__,ключ true true true 2147483649 number\n');
    });

    it('readJson of ASCII text with \\u escapes beyond Latin-1, and of a file holding one string', async () => {
      const printed = await run(`const value = await readJson('/json-escapes'); [value.city, value.city.length, value.accent, value.pair.codePointAt(0), await readJson('/json-string')].join(' ')`);
      assert.strictEqual(printed, '東京 2 é 128578 a string, not JSON text to parse again\n');
    });

    it('readJson of JSON nested too deep for the host encoder still reads it (the guest parses the text)', async () => {
      const outcome = await session.execute(`let value = await readJson('/deep'), depth = 0; while (Array.isArray(value)) { depth++; value = value[0]; } depth`, Date.now() + 60_000, 60);
      assert.strictEqual(outcome.stdout, '5000\n', outcome.stderr);
    });

    it('search() results arrive as the values JSON.parse makes of the host text', async () => {
      const printed = await run(`const hits = await search('q'); [JSON.stringify(hits), Object.is(hits[0].score, -0), hits[0].chunk_id.length, Array.isArray(hits)].join(' ')`);
      assert.strictEqual(printed, `${JSON.stringify([{ chunk_id: 'c\u0000x', score: 0, rank: 1, headings: ['é — 東京'], merged_chunk_ids: [] }])} true 3 true\n`);
    });

    it('readJson of text that is not JSON fails with the guest JSON.parse error; a missing file with ENOENT', async () => {
      const outcome = await session.execute(`
        let message;
        try { await readJson('/not-json'); } catch (error) { message = error.name; }
        try { await readLines('/missing'); } catch (error) { message += ' ' + error.code; }
        message`, Date.now() + 60_000, 60);
      assert.strictEqual(outcome.stdout, 'SyntaxError ENOENT\n', outcome.stderr);
    });
  });
}
