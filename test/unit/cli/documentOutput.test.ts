import * as assert from 'node:assert/strict';
import { runInProcess } from './cliHarness';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

/** Any terminal control character a human-readable output must not contain (newline and tab allowed). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('haiku docs, search and toc output', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  const hostileName = 'docs/evil\x1b[31m\x1b]0;owned\x07.md';

  before(async () => {
    workspace = temporaryFolder('haiku-output-');
    writeFiles(workspace.path, {
      'docs/notes.md': '# Notes\n\nFerrets sleep eighteen hours a day.\n',
      [hostileName]: '# Evil \x1b]0;pwned\x07title\n\n## Part \x1b[2Jtwo\n\nWombats \x1b[31mdig\x1b[0m burrows\u009b2J \x07 quietly.\n',
    });
    const indexed = await runInProcess(['index', 'docs', '--quiet'], { cwd: workspace.path });
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.match(indexed.stdout, /^Added 2/);
  });

  after(() => workspace.cleanup());

  it('a blank --filter is the same error in docs and search (exit 1)', async () => {
    for (const argv of [['docs', '--filter', '  '], ['search', 'ferrets', '--filter', ' \t ']]) {
      const run = await runInProcess(argv, { cwd: workspace.path });
      assert.equal(run.code, 1, argv.join(' '));
      assert.equal(run.stderr, `haiku ${argv[0]}: The filter is empty. Give a SQL condition over the documents, e.g. --filter "format = 'pdf'", or leave --filter out.\n`);
    }
  });

  it('docs --filter with no match says so, not "No documents indexed"', async () => {
    const run = await runInProcess(['docs', '--filter', "format = 'pdf'"], { cwd: workspace.path });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'No documents match the filter (2 indexed).\n');
  });

  it('strips control characters and escape sequences of document text and file names from human output', async () => {
    const outputs = [
      await runInProcess(['docs'], { cwd: workspace.path }),
      await runInProcess(['search', 'wombats burrows'], { cwd: workspace.path }),
      await runInProcess(['search', 'wombats burrows', '--expand'], { cwd: workspace.path }),
      await runInProcess(['toc', hostileName], { cwd: workspace.path }),
    ];
    for (const run of outputs) {
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stdout, CONTROL, JSON.stringify(run.stdout));
    }
    assert.match(outputs[0].stdout, /docs\/evil\.md +markdown +d[0-9a-f]+ +Evil title\n/);
    assert.match(outputs[1].stdout, /Evil title > Part two\n {3}docs\/evil\.md:\d+ .*\n {3}Wombats dig burrows  quietly\./);
    assert.match(outputs[3].stdout, /^Evil title \(docs\/evil\.md, d[0-9a-f]+\)\n {2}Evil title {2}\[docs\/evil\.md:1, 1 chunk\]\n {4}Part two {2}\[docs\/evil\.md:3/);
  });

  it('--json keeps control characters, escaped', async () => {
    for (const argv of [['docs', '--json'], ['search', 'wombats burrows', '--json']]) {
      const run = await runInProcess(argv, { cwd: workspace.path });
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stdout, CONTROL, 'no raw control characters');
      assert.match(run.stdout, /\\u001b\[31m/, argv.join(' '));
      const parsed = JSON.stringify(JSON.parse(run.stdout));
      assert.ok(parsed.includes('\\u001b]0;owned\\u0007'), 'the file name round-trips unchanged');
    }
  });
});
