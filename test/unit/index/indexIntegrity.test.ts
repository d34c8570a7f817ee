import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_DOCUMENT_CHUNKS } from '../../../src/core/limits';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { cliNodeArguments, runInProcess, runProcess } from '../cli/cliHarness';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

interface SignalledRun {
  code: number | null;
  signalled: boolean;
  stdout: string;
  stderr: string;
}

/** Starts the CLI and sends `signal` once `sendWhen` says so (given stderr so far); resolves when it has exited. */
function signalDuring(argv: string[], cwd: string, signal: NodeJS.Signals, sendWhen: (stderr: string) => boolean, options: { uid?: number } = {}): Promise<SignalledRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliNodeArguments(argv), { cwd, env: { ...process.env, HOME: cwd, LANCEDB_LOG: 'error' }, stdio: ['ignore', 'pipe', 'pipe'], ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }) });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => {
      stderr += data.toString();
      if (!signalled && sendWhen(stderr)) {
        signalled = child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, signalled, stdout, stderr }));
  });
}

function notes(count: number, words = 20): Record<string, string> {
  const files: Record<string, string> = {};
  for (let index = 0; index < count; index++) {
    const body = Array.from({ length: words }, (_, word) => `ferret${(index * 7 + word) % 101}`).join(' ');
    files[`docs/note-${String(index).padStart(3, '0')}.md`] = `# Note ${index}\n\nSurvivor ${index}: ${body}.\n`;
  }
  return files;
}

async function documentPaths(cwd: string, database: string): Promise<string[]> {
  const listed = await runProcess(['docs', '--db', database, '--json'], { cwd });
  assert.equal(listed.code, 0, listed.stderr);
  return (JSON.parse(listed.stdout) as Array<{ relativePath: string }>).map((document) => document.relativePath).sort();
}

describe('index runs that never empty or lose an index', function () {
  this.timeout(600_000);
  let workspace: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    workspace = temporaryFolder('haiku-integrity-');
  });

  afterEach(() => workspace.cleanup());

  it('an invalid glob is a usage error; patterns that match nothing change nothing (exit 1) unless --prune', async () => {
    writeFiles(workspace.path, notes(3));
    const first = await runInProcess(['index', 'docs', '--quiet'], { cwd: workspace.path });
    assert.equal(first.code, 0, first.stderr);
    const count = async () => JSON.parse((await runInProcess(['docs', '--json'], { cwd: workspace.path })).stdout).length as number;
    assert.equal(await count(), 3);

    for (const flags of [['--include', '['], ['--exclude', 'a{b'], ['--include', '']]) {
      const invalid = await runInProcess(['index', 'docs', '--quiet', ...flags], { cwd: workspace.path });
      assert.equal(invalid.code, 2, `${flags.join(' ')}: ${invalid.stderr}`);
      assert.match(invalid.stderr, /is not a valid glob/);
      assert.equal(await count(), 3, `${flags.join(' ')} removed nothing`);
    }
    for (const flags of [['--include', '*.markdwon'], ['--exclude', '**']]) {
      const nothing = await runInProcess(['index', 'docs', '--quiet', ...flags], { cwd: workspace.path });
      assert.equal(nothing.code, 1, `${flags.join(' ')}: ${nothing.stderr}`);
      assert.match(nothing.stderr, /No file under .*docs \(3 documents\) matches the include\/exclude patterns, so nothing was changed.*--prune/);
      assert.equal(await count(), 3, `${flags.join(' ')} removed nothing`);
    }
    // Asked for: the documents go.
    const pruned = await runInProcess(['index', 'docs', '--quiet', '--exclude', '**', '--prune'], { cwd: workspace.path });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /removed 3/);
    assert.equal(await count(), 0);
  });

  it('a rebuild killed (SIGKILL) at any moment leaves the previous index complete and searchable', async () => {
    writeFiles(workspace.path, notes(40));
    const database = path.join(workspace.path, 'index');
    const first = await runProcess(['index', 'docs', '--db', database, '--quiet'], { cwd: workspace.path, timeoutMs: 120_000 });
    assert.equal(first.code, 0, first.stderr);
    const expected = await documentPaths(workspace.path, database);
    assert.equal(expected.length, 40);
    // After the scan starts, once re-indexing is under way, half-way, and while optimizing.
    const moments: Array<{ name: string; when: (stderr: string) => boolean }> = [
      { name: 'while scanning', when: (stderr) => stderr.includes('Scanning') },
      { name: 'after 2 files', when: (stderr) => (stderr.match(/^\[\d+\/40\]/gm) ?? []).length >= 2 },
      { name: 'after 20 files', when: (stderr) => (stderr.match(/^\[\d+\/40\]/gm) ?? []).length >= 20 },
      { name: 'while writing', when: (stderr) => stderr.includes('Writing') },
      { name: 'while optimizing', when: (stderr) => stderr.includes('Optimizing') },
    ];
    for (const moment of moments) {
      const run = await signalDuring(['rebuild', '--db', database], workspace.path, 'SIGKILL', moment.when);
      assert.deepEqual(await documentPaths(workspace.path, database), expected, `every document after a kill ${moment.name} (${run.signalled ? 'killed' : 'finished'})`);
      const found = await runProcess(['search', 'Survivor', '--db', database, '--json', '--limit', '50'], { cwd: workspace.path });
      assert.equal(found.code, 0, found.stderr);
      assert.ok((JSON.parse(found.stdout) as unknown[]).length > 0, `searchable after a kill ${moment.name}`);
    }
    const rebuilt = await runProcess(['rebuild', '--db', database, '--quiet'], { cwd: workspace.path, timeoutMs: 120_000 });
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.match(rebuilt.stdout, /Added 40, updated 0, unchanged 0, removed 0, failed 0/);
    assert.deepEqual(await documentPaths(workspace.path, database), expected);
  });

  it('rebuild keeps the documents of a folder it cannot read, and exits 1 as index does', async function () {
    // Root reads through `chmod 000`: the CLI then runs as an unprivileged user.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    writeFiles(workspace.path, { 'docs/a.md': '# Alpha\n\nThe alpha document.\n', 'docs/locked/b.md': '# Beta\n\nThe beta document.\n', 'docs/locked/c.md': '# Gamma\n\nThe gamma.\n' });
    fs.mkdirSync(path.join(workspace.path, 'index'));
    if (uid !== undefined) {
      for (const entry of ['', 'docs', 'docs/a.md', 'docs/locked', 'docs/locked/b.md', 'docs/locked/c.md', 'index']) {
        fs.chownSync(path.join(workspace.path, entry), uid, uid);
      }
    }
    const run = (argv: string[]) => signalDuring(argv, workspace.path, 'SIGKILL', () => false, { uid });
    const first = await run(['index', 'docs', '--db', 'index', '--quiet']);
    assert.equal(first.code, 0, first.stderr);
    fs.chmodSync(path.join(workspace.path, 'docs', 'locked'), 0o000);
    try {
      const rebuilt = await run(['rebuild', '--db', 'index', '--quiet']);
      assert.equal(rebuilt.code, 1, rebuilt.stdout + rebuilt.stderr);
      assert.match(rebuilt.stdout, /failed: .*locked/);
      const listed = await run(['docs', '--db', 'index', '--json']);
      assert.deepEqual((JSON.parse(listed.stdout) as Array<{ relativePath: string }>).map((document) => document.relativePath).sort(), ['docs/a.md', 'docs/locked/b.md', 'docs/locked/c.md']);
    } finally {
      fs.chmodSync(path.join(workspace.path, 'docs', 'locked'), 0o755);
    }
  });

  it('Ctrl-C (SIGINT) during a first index keeps the documents converted so far; the next index completes the rest', async () => {
    writeFiles(workspace.path, notes(400, 400));
    const interrupted = await signalDuring(['index', 'docs', '--db', 'index'], workspace.path, 'SIGINT', (stderr) => (stderr.match(/^\[\d+\/400\]/gm) ?? []).length >= 30);
    assert.ok(interrupted.signalled);
    assert.equal(interrupted.code, 130, interrupted.stderr);
    const kept = await documentPaths(workspace.path, path.join(workspace.path, 'index'));
    assert.ok(kept.length >= 30 && kept.length < 400, `kept ${kept.length} of 400`);
    // The folder is recorded too: a rebuild now would re-index it.
    const store = await openStore({ uri: path.join(workspace.path, 'index'), readOnly: true });
    assert.deepEqual(store.roots.map((root) => root.path), [path.join(workspace.path, 'docs')]);
    await store.close();
    const completed = await runProcess(['index', 'docs', '--db', 'index', '--quiet'], { cwd: workspace.path, timeoutMs: 300_000 });
    assert.equal(completed.code, 0, completed.stderr);
    assert.match(completed.stdout, new RegExp(`^Added ${400 - kept.length}, updated 0, unchanged ${kept.length}`));
    assert.equal((await documentPaths(workspace.path, path.join(workspace.path, 'index'))).length, 400);
  });

  it(`a document cut at ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} chunks is a warning of the run (summary, printed, --json)`, async () => {
    // Headings without a body: each is a chunk of its own (one item each, well within the item limit). Big enough to
    // come from the conversion worker in parts.
    const sections = Array.from({ length: MAX_DOCUMENT_CHUNKS + 10_000 }, (_, index) => `# S${index}\n`).join('\n');
    writeFiles(workspace.path, { 'big/sections.md': sections });
    const store = await openStore({ uri: path.join(workspace.path, 'index') });
    try {
      const summary = await indexPaths({ roots: [path.join(workspace.path, 'big')], baseFolder: workspace.path, store });
      assert.equal(summary.failed.length, 0);
      assert.equal(summary.chunksWritten, MAX_DOCUMENT_CHUNKS);
      assert.equal(summary.warnings.length, 1);
      assert.equal(summary.warnings[0].path, 'big/sections.md');
      assert.ok(summary.warnings[0].message.includes(`more than ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} chunks`), summary.warnings[0].message);
    } finally {
      await store.close();
    }
    fs.appendFileSync(path.join(workspace.path, 'big', 'sections.md'), '\n# Last\n\nmore\n');
    const printed = await runInProcess(['index', 'big', '--db', 'index'], { cwd: workspace.path });
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, new RegExp(`\\n {2}warning: big/sections\\.md: .*${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')}`));
  });
});
