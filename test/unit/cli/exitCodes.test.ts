import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { cliNodeArguments, runInProcess } from './cliHarness';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';

describe('haiku exit codes', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    workspace = temporaryFolder('haiku-exit-');
    writeFiles(workspace.path, { 'docs/notes.md': '# Notes\n\nFerrets sleep eighteen hours a day.\n' });
  });

  afterEach(() => workspace.cleanup());

  it('0 on success, 1 when the command fails at run time', async () => {
    const indexed = await runInProcess(['index', 'docs', '--quiet'], { cwd: workspace.path });
    assert.equal(indexed.code, 0, indexed.stderr);
    const found = await runInProcess(['search', 'ferrets'], { cwd: workspace.path });
    assert.equal(found.code, 0, found.stderr);
    const missingFile = await runInProcess(['convert', 'no/such/file.md'], { cwd: workspace.path });
    assert.equal(missingFile.code, 1);
    assert.match(missingFile.stderr, /^haiku convert: .*no such file/);
    const unknownDocument = await runInProcess(['toc', 'missing.md'], { cwd: workspace.path });
    assert.equal(unknownDocument.code, 1);
    assert.match(unknownDocument.stderr, /No indexed document matches 'missing\.md'/);
  });

  it('2 on usage errors: missing argument, bad number, unknown flag, unknown command, empty question', async () => {
    const cases: Array<{ argv: string[]; message: RegExp }> = [
      { argv: ['search'], message: /missing required argument 'query'/ },
      { argv: ['index'], message: /missing required argument 'paths'/ },
      { argv: ['toc'], message: /missing required argument 'document'/ },
      { argv: ['search', 'x', '--limit', 'many'], message: /option '--limit <count>' argument 'many' is invalid\. Give a number\./ },
      { argv: ['search', 'x', '--limit', '0'], message: /Give a whole number of 1 or more/ },
      { argv: ['search', 'x', '--limit'], message: /option '--limit <count>' argument missing/ },
      { argv: ['search', 'x', '--bogus'], message: /unknown option '--bogus'/ },
      { argv: ['serach', 'x'], message: /unknown command 'serach'/ },
      { argv: ['convert', 'a.md', 'b.md'], message: /too many arguments for 'convert'/ },
      { argv: ['ask', '  '], message: /Give a question, e\.g\./ },
      { argv: ['index', 'docs', '--include', '['], message: /--include '\[' is not a valid glob/ },
      { argv: ['index', 'docs', '--exclude', 'a{b'], message: /--exclude 'a\{b' is not a valid glob/ },
      { argv: [], message: /Usage: haiku \[options\] \[command\]/ },
    ];
    for (const { argv, message } of cases) {
      const run = await runInProcess(argv, { cwd: workspace.path });
      assert.equal(run.code, 2, `${argv.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message, argv.join(' '));
      assert.equal(run.stdout, '', argv.join(' '));
    }
  });

  it('130 when the run is cancelled (the abort signal Ctrl-C fires)', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await runInProcess(['index', 'docs'], { cwd: workspace.path, abortSignal: controller.signal });
    assert.equal(run.code, 130);
    assert.match(run.stderr, /haiku index: interrupted\./);
  });

  it('130 when a real process gets SIGINT in the middle of indexing, and the index stays usable', async () => {
    const database = path.join(workspace.path, 'index');
    const child = spawn(process.execPath, cliNodeArguments(['index', corpusRoot, '--db', database]), { cwd: workspace.path, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LANCEDB_LOG: 'error' } });
    let stderr = '';
    let interrupted = false;
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      // Interrupt once conversion is under way (a file has been reported), well before the corpus is done.
      if (!interrupted && /\[\d+\/\d+\] /.test(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.ok(interrupted, `progress was printed: ${stderr}`);
    assert.equal(code, 130, stderr);
    assert.match(stderr, /haiku index: interrupted\.\n$/);
    // The cancelled run left an index that opens and answers.
    const docs = await runInProcess(['docs', '--db', database, '--json'], { cwd: workspace.path });
    assert.equal(docs.code, 0, docs.stderr);
  });
});
