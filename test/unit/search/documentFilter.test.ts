import * as assert from 'node:assert/strict';
import * as lancedb from '@lancedb/lancedb';
import { isHaikuError } from '../../../src/core/errors';
import { FILTER_MAX_CHARS, FILTER_MAX_CONDITIONS, FILTER_MAX_DEPTH } from '../../../src/core/limits';
import { compileDocumentFilter, escapeLikePattern, parseDocumentFilter, sqlString } from '../../../src/core/search/documentFilter';
import { DOCUMENTS_TABLE, documentsSchema } from '../../../src/node/store/schema';
import { temporaryFolder } from '../../support/indexFixtures';

/** Rows of a real documents table: folders whose names hold LIKE wildcards, a quote and a backslash. */
const DOCUMENTS: Array<{ id: string; relativePath: string; format: string; title: string; createdAt: string }> = [
  { id: 'good-a', relativePath: 'good/a.md', format: 'markdown', title: 'Alpha guide', createdAt: '2023-05-01T10:00:00.000Z' },
  { id: 'good-b', relativePath: 'good/b.docx', format: 'docx', title: 'Beta report', createdAt: '2024-02-01T10:00:00.000Z' },
  { id: 'bad-c', relativePath: 'bad/c.docx', format: 'docx', title: 'Gamma', createdAt: '2024-03-01T10:00:00.000Z' },
  { id: 'other-d', relativePath: 'other/d.docx', format: 'docx', title: 'Delta', createdAt: '2024-04-01T10:00:00.000Z' },
  { id: 'other-e', relativePath: 'other/e.docx', format: 'docx', title: 'Epsilon', createdAt: '2024-05-01T10:00:00.000Z' },
  { id: 'wild-x', relativePath: 'a_b%c/x.md', format: 'markdown', title: 'Wild X', createdAt: '2024-06-01T10:00:00.000Z' },
  { id: 'wild-z', relativePath: 'a_b%c/sub/z.pdf', format: 'pdf', title: 'Wild Z', createdAt: '2024-06-02T10:00:00.000Z' },
  { id: 'lookalike', relativePath: 'aXbYYc/x.md', format: 'markdown', title: 'Lookalike', createdAt: '2024-06-03T10:00:00.000Z' },
  { id: 'sibling', relativePath: 'a_b%c2/y.md', format: 'markdown', title: 'Sibling', createdAt: '2024-06-04T10:00:00.000Z' },
  { id: 'quote', relativePath: "it's/q.txt", format: 'text', title: "Owner's notes", createdAt: '2024-07-01T10:00:00.000Z' },
  { id: 'backslash', relativePath: 'back\\slash/r.html', format: 'html', title: 'Back slash', createdAt: '2024-08-01T10:00:00.000Z' },
];

describe('document filters', function () {
  this.timeout(120_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let table: lancedb.Table;

  before(async () => {
    folder = temporaryFolder('haiku-filter-');
    const connection = await lancedb.connect(folder.path);
    const rows = DOCUMENTS.map((document) => ({
      id: document.id,
      generation: 'g1',
      uri: `file:///workspace/${document.relativePath}`,
      relative_path: document.relativePath,
      title: document.title,
      format: document.format,
      content_hash: 'hash',
      content: `# ${document.title}`,
      metadata: JSON.stringify({ title: document.title }),
      mtime_ms: 1,
      size: 10,
      created_at: document.createdAt,
      updated_at: document.createdAt,
    }));
    table = await connection.createTable(DOCUMENTS_TABLE, rows, { schema: documentsSchema() });
    // As the store does: a btree on id, so IN lists run through a scalar index as they do in production.
    await table.createIndex('id', { config: lancedb.Index.btree() });
  });

  after(() => {
    table?.close();
    folder.cleanup();
  });

  async function idsMatching(sql: string): Promise<string[]> {
    const rows = await table.query().where(sql).select(['id']).toArray();
    return rows.map((row: { id: string }) => row.id).sort();
  }

  function rejection(sql: string): string {
    try {
      parseDocumentFilter(sql);
    } catch (error) {
      assert.ok(isHaikuError(error, 'invalid_filter'), `expected invalid_filter, got ${String(error)}`);
      return error.message;
    }
    assert.fail(`accepted: ${sql}`);
  }

  describe('parseDocumentFilter', () => {
    const accepted: Array<[string, string[]]> = [
      ["format = 'docx'", ['bad-c', 'good-b', 'other-d', 'other-e']],
      ["format = 'docx' AND relative_path LIKE 'good/%'", ['good-b']],
      ["(format = 'docx') AND (relative_path LIKE 'good/%')", ['good-b']],
      ["format = 'pdf' OR format = 'html' AND title = 'Back slash'", ['backslash', 'wild-z']],
      ["(format = 'pdf' OR format = 'html') AND title = 'Back slash'", ['backslash']],
      ["NOT format = 'docx' AND NOT format = 'markdown'", ['backslash', 'quote', 'wild-z']],
      ["NOT (format = 'docx' OR format = 'markdown')", ['backslash', 'quote', 'wild-z']],
      ["format <> 'docx' AND format != 'markdown'", ['backslash', 'quote', 'wild-z']],
      ["format IN ('pdf', 'html')", ['backslash', 'wild-z']],
      ["format NOT IN ('docx', 'markdown')", ['backslash', 'quote', 'wild-z']],
      ["relative_path LIKE 'a\\_b\\%c/%'", ['wild-x', 'wild-z']],
      ["relative_path LIKE 'a\\_b\\%c/%' ESCAPE '\\'", ['wild-x', 'wild-z']],
      ["relative_path LIKE 'a_b%c/%'", ['lookalike', 'wild-x', 'wild-z']],
      ["relative_path NOT LIKE '%.docx'", ['backslash', 'good-a', 'lookalike', 'quote', 'sibling', 'wild-x', 'wild-z']],
      ["relative_path ILIKE 'GOOD/%'", ['good-a', 'good-b']],
      ["relative_path NOT ILIKE 'GOOD/%' AND format = 'docx'", ['bad-c', 'other-d', 'other-e']],
      ["title = 'Owner''s notes'", ['quote']],
      ["relative_path = 'back\\slash/r.html'", ['backslash']],
      ["created_at BETWEEN '2024-01-01' AND '2024-04-30'", ['bad-c', 'good-b', 'other-d']],
      ["created_at NOT BETWEEN '2024-01-01' AND '2024-12-31'", ['good-a']],
      ["created_at >= '2024-07-01'", ['backslash', 'quote']],
      ["updated_at < '2024' OR id = 'quote'", ['good-a', 'quote']],
      ["title IS NOT NULL AND format = 'pdf'", ['wild-z']],
      ['title IS NULL', []],
      ["lower(title) = 'delta'", ['other-d']],
      ["upper(format) IN ('PDF')", ['wild-z']],
      ["metadata LIKE '%Epsilon%'", ['other-e']],
      ["uri LIKE 'file:///workspace/other/%'", ['other-d', 'other-e']],
      ["FORMAT = 'pdf'", ['wild-z']],
      ["`format` = 'pdf'", ['wild-z']],
      ["format='pdf'", ['wild-z']],
      ["  format = 'pdf'\n\tOR id = 'good-a'  ", ['good-a', 'wild-z']],
      ["1 = 1 AND format = 'pdf'", ['wild-z']],
      ["-1 < 0.5e1 AND format = 'pdf'", ['wild-z']],
      ["NOT NOT format = 'pdf'", ['wild-z']],
      ["title = 'ünïcödé ✓'", []],
      ["FALSE OR format = 'pdf'", ['wild-z']],
      ["TRUE AND NOT FALSE AND format = 'pdf'", ['wild-z']],
    ];
    for (const [sql, expected] of accepted) {
      it(`accepts ${JSON.stringify(sql)} and LanceDB selects ${expected.join(', ') || 'nothing'}`, async () => {
        assert.deepEqual(await idsMatching(parseDocumentFilter(sql)), expected);
      });
    }

    it('is idempotent: its canonical text parses to itself', () => {
      for (const [sql] of accepted) {
        const canonical = parseDocumentFilter(sql);
        assert.equal(parseDocumentFilter(canonical), canonical, sql);
      }
    });

    it('renders a canonical text: upper-case keywords, lower-case columns, quotes doubled, parentheses only where needed', () => {
      assert.equal(parseDocumentFilter("FORMAT='pdf' or ((Title like 'it''s%')) and not (id in ('a','b') or id is null)"), "format = 'pdf' OR title LIKE 'it''s%' AND NOT (id IN ('a', 'b') OR id IS NULL)");
      assert.equal(parseDocumentFilter("title <> 'x'"), "title != 'x'");
      assert.equal(parseDocumentFilter("((format = 'pdf'))"), "format = 'pdf'");
      assert.equal(parseDocumentFilter("id = 'a' OR (id = 'b' OR id = 'c')"), "id = 'a' OR id = 'b' OR id = 'c'");
    });

    const rejected: Array<[string, RegExp]> = [
      ["format = 'docx' ) AND (relative_path LIKE 'good/%'", /not parsed: `\) AND \(relative_path LIKE 'good\/%'`/],
      ['1=1; DROP TABLE documents', /not a list of statements.*not parsed: `; DROP TABLE documents`/],
      ["format = 'pdf' LIMIT 1", /not parsed: `LIMIT 1`/],
      ["format = 'pdf' UNION SELECT id FROM documents", /not parsed: `UNION SELECT id FROM documents`/],
      ['id IN (SELECT id FROM documents)', /IN list holds quoted strings.*not parsed: `SELECT id FROM documents\)`/],
      ['(SELECT 1) = 1', /not a query: SELECT/],
      ["content LIKE '%secret%'", /Unknown column content; the columns are id, uri, relative_path/],
      ["generation = 'g1'", /Unknown column generation/],
      ["format = 'pdf' -- and the rest", /Comments are not accepted.*not parsed: `-- and the rest`/],
      ["format = 'pdf' /* x */", /Comments are not accepted/],
      ['format = "pdf"', /Double quotes are not accepted/],
      ["format = 'pdf", /string is not closed/],
      ["format = 'pdf' AND", /ends where a column/],
      ["format = 'pdf' OR OR format = 'docx'", /not OR/],
      ["format 'pdf'", /Expected a comparison/],
      ['format = 1', /Text is compared with a number/],
      ["format IN ('pdf', 2)", /Text is compared with a number/],
      ['format IN ()', /IN list holds quoted strings/],
      ["format = NULL", /IS NULL/],
      ["format LIKE 'p%' ESCAPE '!'", /only accepts a backslash/],
      ['format LIKE title', /LIKE pattern must be a quoted string/],
      ["regexp_match(format, 'p.f') IS NOT NULL", /Unknown function regexp_match\(\)/],
      ["lower(1) = '1'", /lower\(\) takes text/],
      ["format NOT = 'pdf'", /NOT after a value must be followed by LIKE/],
      ["format = 'pdf' AND title = $1", /character "\$" is not accepted/],
      ["format == 'pdf'", /Expected a column/],
      ["format = 'pdf' AND 1", /Expected a comparison/],
      ["format BETWEEN 'a' 'b'", /AND between the two bounds/],
      ["format IS 'pdf'", /NULL after IS/],
      ['IS NULL', /not IS/],
      ["format = 'pdf' AND NULL", /IS NULL/],
    ];
    for (const [sql, expected] of rejected) {
      it(`rejects ${JSON.stringify(sql)} with invalid_filter`, () => {
        const message = rejection(sql);
        assert.match(message, expected);
        assert.match(message, /Write one condition over the document columns/);
      });
    }

    it('rejects an empty or whitespace-only filter, saying to leave it out', () => {
      assert.match(rejection(''), /The filter is empty.*leave the filter out/);
      assert.match(rejection(' \n\t '), /The filter is empty/);
    });

    it(`rejects 700 chained ORs before LanceDB (where they crash the process), and ${FILTER_MAX_CONDITIONS} of them run`, async () => {
      const chain = (count: number) => Array.from({ length: count }, (_, index) => `id='${index}'`).join(' OR ');
      assert.ok(chain(700).length < FILTER_MAX_CHARS, 'the condition limit, not the size limit, stops this one');
      assert.match(rejection(chain(700)), new RegExp(`more than ${FILTER_MAX_CONDITIONS} conditions; combine values with IN`));
      assert.match(rejection(chain(FILTER_MAX_CONDITIONS + 1)), /conditions/);
      assert.deepEqual(await idsMatching(parseDocumentFilter(`${chain(FILTER_MAX_CONDITIONS - 1)} OR id = 'quote'`)), ['quote']);
    });

    it(`rejects nesting deeper than ${FILTER_MAX_DEPTH} levels; every shape at the limit runs on LanceDB`, async () => {
      const notGroups = (levels: number) => `${'NOT (id = \'x\' OR '.repeat(levels)}format = 'pdf'${')'.repeat(levels)}`;
      const alternating = (levels: number) => {
        let text = "format = 'pdf'";
        for (let level = 0; level < levels; level++) {
          text = level % 2 === 0 ? `(id = 'x' OR ${text})` : `(id != 'x' AND ${text})`;
        }
        return text;
      };
      const calls = (levels: number) => `${'lower('.repeat(levels)}format${')'.repeat(levels)} = 'pdf'`;
      const nots = (levels: number) => `${'NOT '.repeat(levels)}format = 'pdf'`;
      // Each NOT ( is two levels; the innermost condition holds at even depth: `NOT` an even number of times.
      assert.deepEqual(await idsMatching(parseDocumentFilter(notGroups(FILTER_MAX_DEPTH / 2))), FILTER_MAX_DEPTH / 2 % 2 === 0 ? ['wild-z'] : DOCUMENTS.map((document) => document.id).filter((id) => id !== 'wild-z').sort());
      assert.deepEqual(await idsMatching(parseDocumentFilter(alternating(FILTER_MAX_DEPTH))), ['wild-z']);
      assert.deepEqual(await idsMatching(parseDocumentFilter(calls(FILTER_MAX_DEPTH))), ['wild-z']);
      assert.deepEqual(await idsMatching(parseDocumentFilter(nots(FILTER_MAX_DEPTH))), ['wild-z']);
      for (const tooDeep of [notGroups(FILTER_MAX_DEPTH / 2 + 1), alternating(FILTER_MAX_DEPTH + 1), calls(FILTER_MAX_DEPTH + 1), nots(FILTER_MAX_DEPTH + 1), `${'('.repeat(60)}format = 'pdf'${')'.repeat(60)}`]) {
        assert.match(rejection(tooDeep), new RegExp(`more than ${FILTER_MAX_DEPTH} levels deep`));
      }
    });

    it(`rejects a filter longer than ${FILTER_MAX_CHARS} characters without parsing it`, () => {
      const long = `title = '${'x'.repeat(FILTER_MAX_CHARS)}'`;
      assert.match(rejection(long), new RegExp(`${long.length} characters long; at most ${FILTER_MAX_CHARS}`));
    });

    it('names the position and shortens a long unparsed rest', () => {
      const message = rejection(`format = 'pdf' ${'x'.repeat(200)}`);
      assert.match(message, /at character 16:/);
      assert.match(message, /not parsed: `x{80}…`/);
    });
  });

  describe('compileDocumentFilter', () => {
    it('selects everything (undefined) when no field is set', () => {
      assert.equal(compileDocumentFilter({}), undefined);
      assert.equal(compileDocumentFilter({ pathPrefix: '' }), undefined);
      assert.equal(compileDocumentFilter({ pathPrefix: './' }), undefined);
    });

    it('matches a folder named a_b%c and only it (not aXbYYc, not a_b%c2), on LanceDB', async () => {
      const sql = compileDocumentFilter({ pathPrefix: 'a_b%c' })!;
      assert.equal(sql, "(relative_path = 'a_b%c' OR relative_path LIKE 'a\\_b\\%c/%' ESCAPE '\\')");
      assert.deepEqual(await idsMatching(sql), ['wild-x', 'wild-z']);
      for (const spelling of ['a_b%c/', './a_b%c', 'a_b%c\\', '/a_b%c']) {
        assert.deepEqual(await idsMatching(compileDocumentFilter({ pathPrefix: spelling })!), ['wild-x', 'wild-z'], spelling);
      }
      assert.deepEqual(await idsMatching(compileDocumentFilter({ pathPrefix: 'a_b%c/sub' })!), ['wild-z']);
      assert.deepEqual(await idsMatching(compileDocumentFilter({ pathPrefix: 'a_b%c/x.md' })!), ['wild-x']);
    });

    it('quotes a folder with a quote; a backslash in a prefix is a separator, and LIKE escaping keeps stored backslashes literal', async () => {
      assert.deepEqual(await idsMatching(compileDocumentFilter({ pathPrefix: "it's" })!), ['quote']);
      assert.deepEqual(await idsMatching(compileDocumentFilter({ pathPrefix: 'good\\' })!), ['good-a', 'good-b']);
      // Prefixes are '/'-separated; a Windows-style `back\slash` means the folder back/slash, which holds nothing here.
      assert.deepEqual(await idsMatching(compileDocumentFilter({ pathPrefix: 'back\\slash' })!), []);
      assert.equal(escapeLikePattern('back\\slash_%'), 'back\\\\slash\\_\\%');
      assert.deepEqual(await idsMatching(`relative_path LIKE ${sqlString(`${escapeLikePattern('back\\slash')}/%`)} ESCAPE '\\'`), ['backslash']);
      assert.deepEqual(await idsMatching(`relative_path LIKE ${sqlString(`${escapeLikePattern('back_slash')}/%`)} ESCAPE '\\'`), []);
    });

    it('builds id and format lists as IN (…), never OR chains; 2,000 ids run on LanceDB', async () => {
      const ids = [...Array.from({ length: 1999 }, (_, index) => `missing-${index}`), 'other-e'];
      const sql = compileDocumentFilter({ documentIds: ids, formats: ['docx', "we'ird"] })!;
      assert.doesNotMatch(sql, / OR /);
      assert.match(sql, /^id IN \('missing-0', .*'other-e'\) AND format IN \('docx', 'we''ird'\)$/);
      assert.deepEqual(await idsMatching(sql), ['other-e']);
    });

    it('selects nothing for an empty id or format list', async () => {
      assert.deepEqual(await idsMatching(compileDocumentFilter({ documentIds: [] })!), []);
      assert.deepEqual(await idsMatching(compileDocumentFilter({ formats: [] })!), []);
    });

    it('combines every field with AND, the user SQL validated and parenthesised', async () => {
      const sql = compileDocumentFilter({ documentIds: ['good-a', 'good-b', 'bad-c'], pathPrefix: 'good', formats: ['docx', 'markdown'], sql: "title LIKE 'B%' OR title LIKE 'G%'" })!;
      assert.equal(sql, "id IN ('good-a', 'good-b', 'bad-c') AND (relative_path = 'good' OR relative_path LIKE 'good/%' ESCAPE '\\') AND format IN ('docx', 'markdown') AND (title LIKE 'B%' OR title LIKE 'G%')");
      assert.deepEqual(await idsMatching(sql), ['good-b']);
    });

    it('compiles to text parseDocumentFilter accepts (the store re-validates every filter) selecting the same rows', async () => {
      const typed = [
        { pathPrefix: 'a_b%c' },
        { pathPrefix: "it's" },
        { pathPrefix: 'back\\slash' },
        { documentIds: [] },
        { formats: [] },
        { documentIds: ['good-a', "o'dd"], formats: ['markdown', 'docx'], pathPrefix: 'good/', sql: "title LIKE 'A%' OR format = 'pdf'" },
        { documentIds: Array.from({ length: 3000 }, (_, index) => `d${String(index).padStart(20, '0')}`).concat(['quote']) },
      ];
      for (const filter of typed) {
        const compiled = compileDocumentFilter(filter)!;
        assert.deepEqual(await idsMatching(parseDocumentFilter(compiled)), await idsMatching(compiled), compiled.slice(0, 200));
      }
    });

    it('rejects invalid or whitespace-only user SQL inside a typed filter', () => {
      assert.throws(() => compileDocumentFilter({ pathPrefix: 'good', sql: "format = 'pdf') OR (1=1" }), (error: unknown) => isHaikuError(error, 'invalid_filter'));
      assert.throws(() => compileDocumentFilter({ sql: '   ' }), (error: unknown) => isHaikuError(error, 'invalid_filter') && /empty/.test(error.message));
    });
  });
});
