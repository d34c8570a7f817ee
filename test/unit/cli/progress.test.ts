import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cliNodeArguments, runProcess } from './cliHarness';
import type { CommandContext } from '../../../src/node/cli/command';
import { createProgressReporter } from '../../../src/node/cli/progress';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

const FILE_COUNT = 30;

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Runs the CLI under `script`, which gives it a pseudo-terminal for stdin, stdout and stderr. */
function runOnPseudoTerminal(argv: string[], cwd: string): Promise<{ code: number; output: string }> {
  const command = `stty cols 120 rows 40; exec ${[process.execPath, ...cliNodeArguments(argv)].map(shellQuote).join(' ')}`;
  return new Promise((resolve, reject) => {
    execFile('script', ['--quiet', '--return', '--command', command, '/dev/null'], { cwd, env: { ...process.env, LANCEDB_LOG: 'error' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, output: stdout });
    });
  });
}

function contextWriting(stderrColumns: number | undefined, flags: CommandContext['flags'] = {}): { context: CommandContext; written: string[] } {
  const written: string[] = [];
  const io = { stdout: () => undefined, stderr: (text: string) => written.push(text), cwd: '/', env: {}, stderrColumns };
  return { context: { positionals: [], flags, io, rawStderr: (text) => written.push(text), abortSignal: new AbortController().signal }, written };
}

describe('haiku index progress', function () {
  this.timeout(180_000);
  let workspace: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    workspace = temporaryFolder('haiku-progress-');
    const files: Record<string, string> = {};
    for (let index = 0; index < FILE_COUNT; index++) {
      files[`docs/note-${String(index).padStart(2, '0')}.md`] = `# Note ${index}\n\nThe ferret number ${index} sleeps.\n`;
    }
    writeFiles(workspace.path, files);
  });

  afterEach(() => workspace.cleanup());

  it('draws a bar redrawn in place on a pseudo-terminal: files done/total, rate, ETA, current file; then a clean summary', async () => {
    const { code, output } = await runOnPseudoTerminal(['index', 'docs', '--db', 'index'], workspace.path);
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`\\rConverting \\[[#-]{24}\\] \\d+/${FILE_COUNT} files {2}(?:\\d+\\.\\d|--) files/s {2}ETA (?:\\d+:\\d\\d|--:--) {2}docs/note-\\d\\d\\.md\\x1b\\[K`));
    assert.match(output, /\rScanning…\x1b\[K/);
    // The bar is cleared before the summary, which is a line of its own.
    assert.match(output, new RegExp(`\\r\\x1b\\[K(?:\\r\\n)?Added ${FILE_COUNT}, updated 0`));
    assert.doesNotMatch(output, /\[\d+\/\d+\] docs/, 'no plain progress lines on a terminal');
  });

  it('prints plain lines when stderr is a pipe, and nothing with --quiet', async () => {
    const piped = await runProcess(['index', 'docs', '--db', 'index'], { cwd: workspace.path });
    assert.equal(piped.code, 0, piped.stderr);
    const lines = piped.stderr.trim().split('\n');
    const fileLines = lines.filter((line) => /^\[\d+\/30\] docs\/note-\d\d\.md$/.test(line));
    assert.equal(fileLines.length, FILE_COUNT, piped.stderr);
    // The count goes up by one per line (each line is written as its file is done), not [0/30] on every line.
    assert.deepEqual(fileLines.map((line) => Number(/^\[(\d+)\//.exec(line)![1])), Array.from({ length: FILE_COUNT }, (_, index) => index + 1), piped.stderr);
    assert.equal(new Set(fileLines.map((line) => line.split(' ')[1])).size, FILE_COUNT, 'each file listed once');
    assert.equal(lines[0], 'Scanning…');
    assert.doesNotMatch(piped.stderr, /[\r\x1b]/, 'no terminal control characters in piped progress');
    assert.match(piped.stdout, /^Added 30, updated 0/);

    const quiet = await runProcess(['index', 'docs', '--db', 'index', '--quiet'], { cwd: workspace.path });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
    assert.match(quiet.stdout, /^Added 0, updated 0, unchanged 30/);
  });

  it('computes the rate and the time left from the converting phase, throttles redraws and cuts to the width', () => {
    let now = 0;
    const { context, written } = contextWriting(100);
    const reporter = createProgressReporter(context, () => now);
    reporter.onProgress!({ phase: 'converting', filesDone: 0, filesTotal: 10 });
    now = 50;
    reporter.onProgress!({ phase: 'converting', filesDone: 1, filesTotal: 10, currentFile: 'a.md' });
    assert.equal(written.length, 1, 'a redraw within the interval is skipped');
    now = 2000;
    reporter.onProgress!({ phase: 'converting', filesDone: 4, filesTotal: 10, currentFile: 'docs/\x1b]0;owned\x07very-long-folder-name/file.md' });
    // The file name's escape sequence is dropped; the line is cut to 99 columns.
    assert.equal(written[1], '\rConverting [##########--------------] 4/10 files  2.0 files/s  ETA 0:03  docs/very-long-folder-nam…\x1b[K');
    reporter.onProgress!({ phase: 'writing', filesDone: 10, filesTotal: 10 });
    assert.match(written[2], /^\rWriting \[#{24}\] 10\/10 files\x1b\[K$/, 'a phase change draws at once');
    reporter.finish();
    assert.equal(written[3], '\r\x1b[K');
  });
});
