import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runInProcess } from './cliHarness';
import { repositoryRoot } from '../../support/paths';

/** What bash offers for `words` (the last one being completed), with the completion script sourced. */
function bashCompletions(script: string, words: string[]): string[] {
  const quoted = words.map((word) => `'${word}'`).join(' ');
  const program = `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _haiku; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program], { encoding: 'utf8', cwd: os.tmpdir() }).split('\n').filter((line) => line !== '');
}

describe('CLI conventions (issue 26)', function () {
  this.timeout(60_000);

  it('`mcp --port` without --http is a usage error (exit code 2), before any index is opened', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-port-'));
    try {
      const run = await runInProcess(['mcp', '--port', '8001', '--db', path.join(folder, 'missing')], { cwd: folder });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /--port applies to --http only/);
      assert.match(run.stderr, /Run 'haiku mcp --help'/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('`convert --json` writes a picture\'s bytes as base64, not one entry per byte', async () => {
    const page = path.join(repositoryRoot, 'test/fixtures/pictures/docs/page.md');
    const run = await runInProcess(['convert', page, '--json'], { cwd: repositoryRoot });
    assert.equal(run.code, 0, run.stderr);
    const output = JSON.parse(run.stdout) as { items: { label: string; picture?: { bytes?: unknown; mimeType: string } }[] };
    const withBytes = output.items.filter((item) => item.picture?.bytes !== undefined);
    assert.ok(withBytes.length >= 2, `${withBytes.length} pictures with bytes`);
    for (const item of withBytes) {
      assert.equal(typeof item.picture!.bytes, 'string');
      const bytes = Buffer.from(item.picture!.bytes as string, 'base64');
      if (item.picture!.mimeType === 'image/png') {
        assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'PNG signature');
      }
    }
  });

  it('`completion bash` completes commands, a command\'s flags and `help <command>` from the command table', async () => {
    const run = await runInProcess(['completion', 'bash'], { cwd: repositoryRoot });
    assert.equal(run.code, 0, run.stderr);
    execFileSync('bash', ['-n'], { input: run.stdout });
    assert.deepEqual(bashCompletions(run.stdout, ['haiku', 'se']), ['search']);
    assert.ok(bashCompletions(run.stdout, ['haiku', '']).includes('completion'));
    assert.deepEqual(bashCompletions(run.stdout, ['haiku', 'search', '--li']), ['--limit']);
    assert.ok(bashCompletions(run.stdout, ['haiku', 'mcp', '--']).includes('--read-only'));
    assert.deepEqual(bashCompletions(run.stdout, ['haiku', 'help', 'vis']), ['visualize']);
  });

  it('`completion zsh` and `completion fish` name every command and flag; an unknown shell is a usage error', async () => {
    const help = (await runInProcess(['help'], { cwd: repositoryRoot })).stdout;
    const commands = [...help.matchAll(/^ {2}([a-z]+) \[options\]/gm)].map((match) => match[1]);
    assert.ok(commands.includes('completion') && commands.includes('search'), commands.join(' '));
    const zsh = await runInProcess(['completion', 'zsh'], { cwd: repositoryRoot });
    assert.equal(zsh.code, 0);
    assert.match(zsh.stdout, /^#compdef haiku\n/);
    const fish = await runInProcess(['completion', 'fish'], { cwd: repositoryRoot });
    assert.equal(fish.code, 0);
    for (const command of commands) {
      assert.match(zsh.stdout, new RegExp(`'${command}:`), `zsh: ${command}`);
      assert.match(fish.stdout, new RegExp(`-a ${command} `), `fish: ${command}`);
    }
    assert.match(zsh.stdout, /'--limit\[[^\]]+\]:value:_files'/);
    assert.match(fish.stdout, /__fish_seen_subcommand_from search' -l limit -r -F/);
    const unknown = await runInProcess(['completion', 'powershell'], { cwd: repositoryRoot });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /bash, zsh, fish/);
  });
});
