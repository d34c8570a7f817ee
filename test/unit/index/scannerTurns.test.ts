import * as assert from 'node:assert/strict';
import type * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { isHaikuError } from '../../../src/core/errors';
import { SCAN_STATS_PER_TURN, SCAN_TURN_MAX_MS } from '../../../src/core/limits';
import { scanRoots } from '../../../src/node/index/scanner';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

/** A count of event-loop turns, advanced by a `setImmediate` chain until stopped. */
function turnCounter(): { readonly turns: number; stop: () => void } {
  const counter = { turns: 0, stopped: false, stop: () => (counter.stopped = true) };
  const tick = () => {
    if (!counter.stopped) {
      counter.turns++;
      setImmediate(tick);
    }
  };
  setImmediate(tick);
  return counter;
}

describe('scanner turns (files examined synchronously, in runs between turns of the event loop)', () => {
  let workspace: ReturnType<typeof temporaryFolder>;
  const fileCount = 4 * SCAN_STATS_PER_TURN + 7;
  const name = (index: number) => `notes/${String(index).padStart(4, '0')}.md`;
  const content = (index: number) => `# Note ${index}\n\n${'x'.repeat(index)}\n`;

  beforeEach(() => {
    workspace = temporaryFolder('haiku-scan-turns-');
    writeFiles(workspace.path, Object.fromEntries(Array.from({ length: fileCount }, (_, index) => [name(index), content(index)])));
  });

  afterEach(() => {
    workspace.cleanup();
  });

  it('finds every file with its size, and other work runs between runs of stats', async () => {
    const counter = turnCounter();
    const turnAtFile: number[] = [];
    const scan = await scanRoots({ roots: [workspace.path], baseFolder: workspace.path, onFile: () => turnAtFile.push(counter.turns) }).finally(counter.stop);
    assert.equal(scan.files.length, fileCount);
    const sizes = new Map(scan.files.map((file) => [file.relativePath, file.size]));
    for (const index of [0, SCAN_STATS_PER_TURN, fileCount - 1]) {
      assert.equal(sizes.get(name(index)), Buffer.byteLength(content(index)));
    }
    // The files of one folder are found over several turns: a scan that never yielded would find them all in one.
    const turnsSpanned = new Set(turnAtFile).size;
    assert.ok(turnsSpanned >= Math.floor(fileCount / SCAN_STATS_PER_TURN), `the ${fileCount} files were found in ${turnsSpanned} turn(s) of the event loop`);
  });

  it('yields after SCAN_TURN_MAX_MS of stats however few were made (a slow network folder)', async () => {
    const slowFiles = 40;
    const statMs = 3;
    const slowFolder = temporaryFolder('haiku-scan-slow-');
    writeFiles(slowFolder.path, Object.fromEntries(Array.from({ length: slowFiles }, (_, index) => [name(index), content(index)])));
    // The module object itself (an ES namespace import is read-only): the scanner reads `statSync` from it at each call.
    const nodeFs = createRequire(__filename)('node:fs') as { statSync: typeof fs.statSync };
    const statSync = nodeFs.statSync;
    // Each stat of a note takes `statMs` of this thread, as on a slow network folder.
    nodeFs.statSync = ((file: fs.PathLike, options?: fs.StatSyncOptions) => {
      if (String(file).endsWith('.md')) {
        const until = performance.now() + statMs;
        while (performance.now() < until) {
          // Busy: a synchronous stat holds the thread.
        }
      }
      return statSync(file, options);
    }) as typeof fs.statSync;
    const counter = turnCounter();
    const turnAtFile: number[] = [];
    try {
      const scan = await scanRoots({ roots: [slowFolder.path], baseFolder: slowFolder.path, onFile: () => turnAtFile.push(counter.turns) });
      assert.equal(scan.files.length, slowFiles);
    } finally {
      nodeFs.statSync = statSync;
      counter.stop();
      slowFolder.cleanup();
    }
    // About one turn per SCAN_TURN_MAX_MS of stats; without the time limit all 40 (< SCAN_STATS_PER_TURN) share one.
    const expectedTurns = Math.floor((slowFiles * statMs) / (SCAN_TURN_MAX_MS + statMs));
    assert.ok(new Set(turnAtFile).size >= expectedTurns / 2, `${slowFiles} slow stats spanned ${new Set(turnAtFile).size} turn(s) of the event loop`);
  });

  it('stops at the end of the current run when cancelled, with a cancellation error', async () => {
    const controller = new AbortController();
    let found = 0;
    const scan = scanRoots({
      roots: [workspace.path],
      baseFolder: workspace.path,
      abortSignal: controller.signal,
      onFile: () => {
        if (++found === 1) {
          controller.abort();
        }
      },
    });
    await assert.rejects(scan, (error: unknown) => isHaikuError(error, 'cancelled'));
    assert.ok(found <= SCAN_STATS_PER_TURN, `${found} files were examined after the cancellation`);
  });
});
