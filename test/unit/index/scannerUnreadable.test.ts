import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IndexSummary } from '../../../src/node/index/indexer';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';

/** The unprivileged user the CLI runs as: root reads through `chmod 000`, so the denial needs another user. */
const UNPRIVILEGED_ID = 65534;
const runAsOtherUser = process.getuid?.() === 0;

interface CliRun {
  code: number | null;
  summary: IndexSummary;
  stderr: string;
}

/** `haiku index <root> --json` in a real child process, as the unprivileged user when the tests run as root. */
function indexInChild(cwd: string, root: string, database: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), path.join(repositoryRoot, 'src', 'node', 'cli', 'main.ts'), 'index', root, '--db', database, '--json', '--quiet'], {
      cwd,
      env: { ...process.env, HOME: cwd, LANCEDB_LOG: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(runAsOtherUser ? { uid: UNPRIVILEGED_ID, gid: UNPRIVILEGED_ID } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, summary: JSON.parse(stdout) as IndexSummary, stderr });
      } catch {
        reject(new Error(`index exited ${code} without a JSON summary.\nstdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
  });
}

function chownTree(target: string): void {
  fs.chownSync(target, UNPRIVILEGED_ID, UNPRIVILEGED_ID);
  if (fs.statSync(target).isDirectory()) {
    for (const entry of fs.readdirSync(target)) {
      chownTree(path.join(target, entry));
    }
  }
}

describe('index with unreadable paths (real child processes)', function () {
  this.timeout(300_000);
  let top: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    top = temporaryFolder('haiku-unreadable-');
    writeFiles(top.path, {
      'outer/docs/a.md': '# Alpha\n\nThe alpha document.\n',
      'outer/docs/sub/b.md': '# Beta\n\nThe beta document.\n',
      'outer/docs/sub/deeper/c.md': '# Gamma\n\nThe gamma document.\n',
    });
    fs.mkdirSync(path.join(top.path, 'db'));
    if (runAsOtherUser) {
      chownTree(top.path);
    }
  });

  afterEach(() => {
    for (const folder of ['outer', 'outer/docs', 'outer/docs/sub']) {
      fs.chmodSync(path.join(top.path, folder), 0o755);
    }
    top.cleanup();
  });

  it('keeps the documents of an unreadable sub-folder, root, root without search permission or unreadable parent; reports the path and exits 1', async () => {
    const database = path.join(top.path, 'db');
    const first = await indexInChild(top.path, 'outer/docs', database);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual([...first.summary.added].sort(), ['outer/docs/a.md', 'outer/docs/sub/b.md', 'outer/docs/sub/deeper/c.md']);

    const denials: Array<{ folder: string; mode: number; failedPaths: string[]; unchanged: number }> = [
      { folder: 'outer/docs/sub', mode: 0o000, failedPaths: ['outer/docs/sub'], unchanged: 1 },
      { folder: 'outer/docs', mode: 0o000, failedPaths: ['outer/docs'], unchanged: 0 },
      // Listable but not searchable: names are known, yet no entry can be examined.
      { folder: 'outer/docs', mode: 0o644, failedPaths: ['outer/docs/a.md', 'outer/docs/sub'], unchanged: 0 },
      { folder: 'outer', mode: 0o000, failedPaths: ['outer/docs'], unchanged: 0 },
    ];
    for (const denial of denials) {
      const target = path.join(top.path, denial.folder);
      fs.chmodSync(target, denial.mode);
      try {
        const run = await indexInChild(top.path, 'outer/docs', database);
        const label = `${denial.folder} at ${denial.mode.toString(8)}`;
        assert.equal(run.code, 1, `${label}: exit code\n${run.stderr}`);
        assert.deepEqual(run.summary.removed, [], label);
        assert.deepEqual(run.summary.added, [], label);
        assert.equal(run.summary.unchanged, denial.unchanged, label);
        const failures = run.summary.failed.filter((failure) => failure.code === 'unreadable_file');
        assert.deepEqual(failures.map((failure) => failure.path).sort(), denial.failedPaths, label);
        for (const failure of failures) {
          assert.match(failure.reason, /cannot be read \(permission denied\); what was indexed from it is kept\. Check its permissions and index again\./, label);
        }
      } finally {
        fs.chmodSync(target, 0o755);
      }
    }

    // Readable again: nothing was lost meanwhile (all unchanged), and a file really deleted is still removed.
    fs.rmSync(path.join(top.path, 'outer/docs/sub/deeper/c.md'));
    const last = await indexInChild(top.path, 'outer/docs', database);
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual(last.summary.added, []);
    assert.equal(last.summary.unchanged, 2);
    assert.deepEqual(last.summary.removed, ['outer/docs/sub/deeper/c.md']);
    assert.deepEqual(last.summary.failed, []);
  });
});
