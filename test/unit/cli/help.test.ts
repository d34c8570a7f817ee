import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runInProcess } from './cliHarness';
import { repositoryRoot } from '../../support/paths';
import { haikuVersion } from '../../../src/node/cli/haikuVersion';

const COMMANDS = ['demo', 'index', 'search', 'ask', 'chat', 'analyze', 'docs', 'toc', 'rebuild', 'remove', 'convert'];

/** The long flags a help text lists in its Options section. */
function listedFlags(help: string): string[] {
  const options = help.split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
  return [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1]);
}

/** Help text before its Examples section (example command lines are not wrapped). */
function withoutExamples(help: string): string {
  return help.split('\nExamples:\n')[0];
}

describe('haiku help and --version', function () {
  this.timeout(30_000);
  const cwd = repositoryRoot;

  it('prints per-command help on stdout with exit code 0, every flag described, wrapped to the width', async () => {
    for (const name of COMMANDS) {
      const run = await runInProcess([name, '--help'], { cwd });
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.equal(run.stderr, '');
      assert.match(run.stdout, new RegExp(`^Usage: haiku ${name} \\[options\\]`), name);
      const flags = listedFlags(run.stdout);
      assert.ok(flags.includes('--help'), name);
      // Every option line has a description beside it (no bare flag).
      for (const line of run.stdout.split('\nOptions:\n')[1].split('\n\n')[0].split('\n')) {
        if (/^ {2}-/.test(line)) {
          assert.match(line, /^ {2}\S.*\S {2,}\S/, `${name}: a flag without a description: ${line}`);
        }
      }
      assert.ok(
        withoutExamples(run.stdout).split('\n').every((line) => line.length <= 80),
        `${name}: help is wrapped to 80 columns when not on a terminal`,
      );
    }
    const search = (await runInProcess(['search', '--help'], { cwd })).stdout;
    assert.deepEqual(listedFlags(search), ['--db', '--json', '--endpoint', '--region', '--path-style', '--allow-http', '--read-only', '--embeddings-url', '--embeddings-model', '--limit', '--filter', '--search-type', '--expand', '--reranker-url', '--reranker-model', '--config', '--help']);
    const narrow = await runInProcess(['search', '--help'], { cwd, stderrColumns: 70 });
    assert.ok(withoutExamples(narrow.stdout).split('\n').every((line) => line.length <= 70), 'wrapped to the terminal width');
  });

  it('`haiku help <command>` prints the same help as `<command> --help`; `haiku help` lists every command', async () => {
    const viaHelp = await runInProcess(['help', 'toc'], { cwd });
    assert.equal(viaHelp.code, 0);
    assert.equal(viaHelp.stdout, (await runInProcess(['toc', '--help'], { cwd })).stdout);
    assert.match(viaHelp.stdout, /Arguments:\n {2}document +A document id or its path/);
    const list = await runInProcess(['help'], { cwd });
    assert.equal(list.code, 0);
    for (const name of COMMANDS) {
      assert.match(list.stdout, new RegExp(`\\n {2}${name} \\[options\\]`), name);
    }
    const unknown = await runInProcess(['help', 'serach'], { cwd });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'serach'/);
  });

  it('--api-key help points to HAIKU_API_KEY instead', async () => {
    for (const name of ['ask', 'analyze', 'chat']) {
      const help = (await runInProcess([name, '--help'], { cwd })).stdout.replace(/\s+/g, ' ');
      assert.match(help, /--api-key <key> .*Prefer the HAIKU_API_KEY environment variable/, name);
    }
  });

  it('--version, -v, -V and `haiku version` print the version of package.json', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v', '-V', 'version']) {
      const run = await runInProcess([flag], { cwd });
      assert.equal(run.code, 0);
      assert.equal(run.stdout, `${version}\n`);
    }
  });

  it('`haiku help --help` (and -h) prints the general help with exit code 0', async () => {
    const general = await runInProcess(['help'], { cwd });
    for (const flag of ['--help', '-h']) {
      const run = await runInProcess(['help', flag], { cwd });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, general.stdout);
    }
  });

  it('finds the version in the npm package manifest too (haiku-rag-cli)', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-version-'));
    try {
      fs.mkdirSync(path.join(folder, 'dist'));
      fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'haiku-rag-cli', version: '9.8.7' }));
      assert.equal(haikuVersion(path.join(folder, 'dist')), '9.8.7');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
