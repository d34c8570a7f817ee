import { chunkDocument } from '../../../src/core/chunker';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { CancelledError, ConversionError, type HaikuErrorCode } from '../../../src/core/errors';
import { CONVERSION_BATCH_FILES } from '../../../src/core/limits';
import type { HaikuDocument } from '../../../src/core/model/document';
import { createConversionPool, resolveConversionWorker, type ConversionPool } from '../../../src/node/convert/conversionPool';
import type { WorkerScript } from '../../../src/node/workerResolution';
import { loadDocument } from '../../../src/node/convert/convertFile';
import { corpusRoot, repositoryRoot } from '../../support/paths';

/**
 * The real conversion worker behind a filter: a job for a file named `slow-*` runs a synchronous loop forever and
 * one for `hog-*` allocates until the heap limit ends the thread, as a pathological file would (the Markdown parser
 * is now linear, so no small file is reliably slow or big enough). Everything else is converted for real.
 */
function filteredWorkerSource(realWorker: string): string {
  return [
    "const { parentPort } = require('node:worker_threads');",
    'const listen = parentPort.on.bind(parentPort);',
    'parentPort.on = (event, listener) => listen(event, event !== "message" ? listener : (message) => {',
    '  const text = JSON.stringify(message);',
    '  if (/slow-/.test(text)) { for (;;) {} }',
    '  if (/hog-/.test(text)) { const hog = []; for (;;) { hog.push(new Array(1e5).fill(hog.length)); } }',
    '  listener(message);',
    '});',
    `require(${JSON.stringify(realWorker)});`,
  ].join('\n');
}

function expectConversionError(code: HaikuErrorCode, filePath: string, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ConversionError, `expected a ConversionError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(error.path, filePath);
    if (pattern) {
      assert.match(error.message, pattern);
    }
    return true;
  };
}

async function outcome(promise: Promise<HaikuDocument>): Promise<{ document?: HaikuDocument; error?: unknown }> {
  try {
    return { document: await promise };
  } catch (error) {
    return { error };
  }
}

describe('conversion pool', function () {
  this.timeout(30_000);
  let folder: string;
  let slowFile: string;
  let smallFile: string;
  let filteredWorker: WorkerScript;
  const pools: ConversionPool[] = [];

  /** A stand-in worker script: `onJobs` (lines of code) handles each message's `jobs`; `parentPort` and `threadId` are in scope. */
  function standInWorker(fileName: string, onJobs: readonly string[]): WorkerScript {
    const file = path.join(folder, fileName);
    fs.writeFileSync(file, [
      "const { parentPort, threadId } = require('node:worker_threads');",
      "parentPort.on('message', ({ jobs }) => {",
      ...onJobs,
      '});',
      "parentPort.postMessage({ type: 'ready' });",
    ].join('\n'));
    return { file, execArgv: [] };
  }

  /** A pool on the filtered real worker unless the test names its own worker script. */
  function pool(options: Parameters<typeof createConversionPool>[0]): ConversionPool {
    const created = createConversionPool({ workerScript: filteredWorker, ...options });
    pools.push(created);
    return created;
  }

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-conversion-pool-'));
    slowFile = path.join(folder, 'slow-nested.md');
    fs.writeFileSync(slowFile, '# Slow\n');
    const realWorker = resolveConversionWorker(path.join(repositoryRoot, 'src/node/convert'));
    filteredWorker = { file: path.join(folder, 'filtered-worker.js'), execArgv: realWorker.execArgv };
    fs.writeFileSync(filteredWorker.file, filteredWorkerSource(realWorker.file));
    smallFile = path.join(folder, 'small.md');
    fs.writeFileSync(smallFile, '# Small\n\nA short paragraph.\n');
  });

  after(async () => {
    await Promise.all(pools.map((created) => created.dispose()));
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('finds the worker source under tsx when no build is beside the code', () => {
    const script = resolveConversionWorker(path.join(repositoryRoot, 'src/node/convert'));
    assert.equal(script.file, path.join(repositoryRoot, 'src/node/convert/conversionWorker.ts'));
    assert.equal(script.execArgv[0], '--require');
    assert.ok(path.isAbsolute(script.execArgv[1]) && fs.existsSync(script.execArgv[1]));
  });

  it('runs from the esbuild bundle beside the calling code, as shipped', async () => {
    const bundleFolder = path.join(folder, 'dist');
    // The options of esbuild.mjs's node bundles.
    await esbuild.build({
      entryPoints: [path.join(repositoryRoot, 'src/node/convert/conversionWorker.ts')],
      outfile: path.join(bundleFolder, 'conversion-worker.js'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode', '@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'],
      define: { 'import.meta.url': '__importMetaUrl' },
      banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
      logLevel: 'silent',
    });
    const script = resolveConversionWorker(bundleFolder);
    assert.deepStrictEqual(script, { file: path.join(bundleFolder, 'conversion-worker.js'), execArgv: [] });
    const converter = pool({ size: 1, workerScript: script });
    for (const relative of ['pdf-docx/docling/code_and_formula.pdf', 'pdf-docx/docling/word_sample.docx', 'vite-docs/docs/guide/cli.md']) {
      const filePath = path.join(corpusRoot, relative);
      assert.deepStrictEqual(await converter.load(filePath, { rootPath: corpusRoot }), await loadDocument({ rootPath: corpusRoot, filePath }));
    }
  });

  it('converts corpus files exactly as in-process conversion does, errors included', async () => {
    const converter = pool({ size: 2 });
    const files = [
      'vite-docs/docs/guide/dep-pre-bundling.md',
      'go-docs/doc/articles/race_detector.html',
      'pdf-docx/docling/code_and_formula.pdf',
      'pdf-docx/docling/word_sample.docx',
    ].map((relative) => path.join(corpusRoot, relative));
    const emptyFile = path.join(folder, 'empty.md');
    fs.writeFileSync(emptyFile, '');
    const missingFile = path.join(folder, 'missing.md');

    const pooled = await Promise.all([...files, emptyFile, missingFile].map((filePath) => outcome(converter.load(filePath, { rootPath: corpusRoot }))));
    for (const [index, filePath] of files.entries()) {
      const expected = await loadDocument({ rootPath: corpusRoot, filePath });
      assert.ok(pooled[index].document, `${filePath}: ${String(pooled[index].error)}`);
      assert.deepStrictEqual(pooled[index].document, expected);
      assert.ok(expected.items.length > 3, filePath);
      // The indexer's path: chunks are made in the worker too, identical to chunking in-process.
      const prepared = await converter.prepare(filePath, { rootPath: corpusRoot });
      assert.deepStrictEqual(prepared.chunks, chunkDocument({ id: expected.id, items: expected.items }));
      assert.ok(prepared.chunks.length > 0, filePath);
    }
    for (const [index, filePath] of [emptyFile, missingFile].entries()) {
      const inProcess = await outcome(loadDocument({ rootPath: corpusRoot, filePath }));
      const error = pooled[files.length + index].error;
      assert.ok(error instanceof ConversionError && inProcess.error instanceof ConversionError);
      assert.deepStrictEqual([error.code, error.path, error.message], [inProcess.error.code, inProcess.error.path, inProcess.error.message]);
    }
    assert.deepStrictEqual(pooled.slice(files.length).map(({ error }) => (error as ConversionError).code), ['empty_file', 'unreadable_file']);
  });

  it('gives up on a pathological file after the time limit and converts the next file', async () => {
    const converter = pool({ size: 1, timeoutMs: 800 });
    await converter.load(smallFile, { rootPath: folder }); // starts the worker and loads the Markdown parser
    const started = Date.now();
    await assert.rejects(converter.load(slowFile, { rootPath: folder }), expectConversionError('conversion_timeout', slowFile, /took longer than 1 s to convert; it was skipped/));
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 750 && elapsed < 3_500, `timed out after ${elapsed} ms`);
    // The event loop stayed free meanwhile: that is the point of the worker.
    const document = await converter.load(smallFile, { rootPath: folder });
    assert.equal(document.title, 'Small');
  });

  it('reports a worker that runs out of memory as a clear error naming the file, then keeps working', async () => {
    // 96 MiB: room for a worker that compiles its TypeScript through tsx (32 MiB ran out on small.md when
    // both cores were busy), far below what the hog allocates.
    const converter = pool({ size: 1, maxOldGenerationMb: 96 });
    const bigFile = path.join(folder, 'hog-big.md');
    fs.writeFileSync(bigFile, '# Big\n');
    assert.equal((await converter.load(smallFile, { rootPath: folder })).title, 'Small');
    await assert.rejects(converter.load(bigFile, { rootPath: folder }), expectConversionError('corrupt_file', bigFile, /more than the 96 MiB of memory/));
    assert.equal((await converter.load(smallFile, { rootPath: folder })).title, 'Small');
  });

  it('reports a worker that crashes or exits mid-job as corrupt_file naming the file, and replaces it', async () => {
    // A stand-in worker script whose "converter" crashes on files named crash*, exits on exit*, and answers otherwise.
    const crashingWorker = path.join(folder, 'crashing-worker.js');
    fs.writeFileSync(crashingWorker, [
      "const { parentPort } = require('node:worker_threads');",
      "parentPort.on('message', ({ jobs: [job] }) => {",
      "  if (job.filePath.includes('crash')) { setImmediate(() => { throw new TypeError('converter bug'); }); return; }",
      "  if (job.filePath.includes('exit')) { process.exit(3); }",
      "  parentPort.postMessage({ type: 'converted', jobId: job.jobId, document: { title: 'fine' } });",
      '});',
      "parentPort.postMessage({ type: 'ready' });",
    ].join('\n'));
    const converter = pool({ size: 1, workerScript: { file: crashingWorker, execArgv: [] } });
    await assert.rejects(converter.load('crash.md', { rootPath: folder }), expectConversionError('corrupt_file', path.join(folder, 'crash.md'), /worker crashed \(TypeError: converter bug\)/));
    await assert.rejects(converter.load('exit.md', { rootPath: folder }), expectConversionError('corrupt_file', path.join(folder, 'exit.md'), /exited with code 3/));
    assert.equal((await converter.load('fine.md', { rootPath: folder })).title, 'fine');
  });

  it('stops a running conversion on abort, cancels queued ones, and keeps working', async () => {
    const converter = pool({ size: 1 });
    await converter.load(smallFile, { rootPath: folder });
    const controller = new AbortController();
    const running = outcome(converter.load(slowFile, { rootPath: folder, abortSignal: controller.signal }));
    const queued = outcome(converter.load(smallFile, { rootPath: folder, abortSignal: controller.signal }));
    const unaffected = outcome(converter.load(smallFile, { rootPath: folder }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const abortedAt = Date.now();
    controller.abort();
    const [runningOutcome, queuedOutcome] = await Promise.all([running, queued]);
    assert.ok(Date.now() - abortedAt < 1_000, 'abort took effect at once, not when the conversion would have ended');
    assert.ok(runningOutcome.error instanceof CancelledError && runningOutcome.error.code === 'cancelled', String(runningOutcome.error));
    assert.ok(queuedOutcome.error instanceof CancelledError, String(queuedOutcome.error));
    assert.equal((await unaffected).document?.title, 'Small');
    await assert.rejects(converter.load(smallFile, { rootPath: folder, abortSignal: controller.signal }), CancelledError);
  });

  it('continues a batch past the bad files', async () => {
    const converter = pool({ size: 2, timeoutMs: 1_000 });
    const batch = [
      path.join(corpusRoot, 'vite-docs/README.md'),
      slowFile,
      path.join(folder, 'missing.md'),
      smallFile,
      path.join(corpusRoot, 'go-docs/doc/articles/race_detector.html'),
    ];
    const results = await Promise.all(batch.map((filePath) => outcome(converter.load(filePath, { rootPath: path.dirname(filePath) }))));
    assert.deepStrictEqual(results.map(({ document, error }) => document ? 'converted' : (error as ConversionError).code), [
      'converted', 'conversion_timeout', 'unreadable_file', 'converted', 'converted',
    ]);
  });

  it('rejects pending work when disposed', async () => {
    const converter = pool({ size: 1 });
    const running = outcome(converter.load(slowFile, { rootPath: folder }));
    const queued = outcome(converter.load(smallFile, { rootPath: folder }));
    await converter.dispose();
    assert.ok((await running).error instanceof CancelledError);
    assert.ok((await queued).error instanceof CancelledError);
    await assert.rejects(converter.load(smallFile, { rootPath: folder }), /disposed/);
  });

  describe('batches of small files', () => {
    /** A stand-in worker converting its message's jobs in order; the title is the batch size; `slow*` files never end. */
    function batchReportingWorker(): WorkerScript {
      return standInWorker('batch-worker.js', [
        '  for (const job of jobs) {',
        "    if (job.filePath.includes('slow')) { for (;;) {} }",
        "    parentPort.postMessage({ type: 'converted', jobId: job.jobId, document: { title: String(jobs.length) } });",
        '  }',
      ]);
    }

    it('hands a worker the small files waiting behind the first in one message', async () => {
      const converter = pool({ size: 1, workerScript: batchReportingWorker() });
      const titles = await Promise.all(['a.md', 'b.md', 'c.md', 'd.md', 'e.md'].map(async (name) => (await converter.load(name, { rootPath: folder, sizeBytes: 100 })).title));
      assert.deepStrictEqual(titles, ['1', '4', '4', '4', '4']);
    });

    it('sends large files, and files of unknown size, one per message', async () => {
      const converter = pool({ size: 1, workerScript: batchReportingWorker() });
      const sizes = [100, 10 * 1024 * 1024, undefined, 100];
      const titles = await Promise.all(sizes.map(async (sizeBytes, index) => (await converter.load(`${index}.md`, { rootPath: folder, sizeBytes })).title));
      assert.deepStrictEqual(titles, ['1', '1', '1', '1']);
    });

    it('fails only the file past its time limit and converts the rest of its batch on a fresh worker', async () => {
      const converter = pool({ size: 1, timeoutMs: 1_000, workerScript: batchReportingWorker() });
      const names = ['first.md', 'b.md', 'slow.md', 'c.md', 'd.md'];
      const results = await Promise.all(names.map((name) => outcome(converter.load(name, { rootPath: folder, sizeBytes: 100 }))));
      assert.deepStrictEqual(results.map(({ document, error }) => document ? 'converted' : (error as ConversionError).code), ['converted', 'converted', 'conversion_timeout', 'converted', 'converted']);
      assert.deepStrictEqual(results.map(({ document }) => document?.title), ['1', '4', undefined, '2', '2'], 'the files after the slow one went to the fresh worker as a batch of their own');
    });

    it('cancels a file waiting in a batch without stopping the file being converted', async () => {
      const converter = pool({ size: 1, workerScript: batchReportingWorker() });
      const controller = new AbortController();
      const first = converter.load('first.md', { rootPath: folder, sizeBytes: 100 });
      const kept = converter.load('kept.md', { rootPath: folder, sizeBytes: 100 });
      const cancelled = outcome(converter.load('cancelled.md', { rootPath: folder, sizeBytes: 100, abortSignal: controller.signal }));
      const last = converter.load('last.md', { rootPath: folder, sizeBytes: 100 });
      await first;
      controller.abort();
      assert.ok((await cancelled).error instanceof CancelledError);
      assert.deepStrictEqual([(await kept).title, (await last).title], ['3', '3']);
    });

    it('queues the next batch of small files behind the one a worker converts, so it keeps converting while the caller is busy', async () => {
      const converter = pool({ size: 1, workerScript: standInWorker('start-time-worker.js', [
        '  for (const job of jobs) {',
        "    parentPort.postMessage({ type: 'converted', jobId: job.jobId, document: { title: String(Date.now()) } });",
        '  }',
      ]) });
      await converter.load('warm.md', { rootPath: folder, sizeBytes: 100 });
      // The first goes alone to the idle worker; the whole batch queued behind it is sent ahead.
      const names = Array.from({ length: 1 + CONVERSION_BATCH_FILES }, (_, index) => `small-${index}.md`);
      const loads = names.map((name) => converter.load(name, { rootPath: folder, sizeBytes: 100 }));
      // The caller busy for a while (as the indexer turning a batch into Arrow): no message is handled meanwhile.
      const busyUntil = Date.now() + 500;
      while (Date.now() < busyUntil) {
        // Busy on purpose.
      }
      const started = (await Promise.all(loads)).map((document) => Number(document.title));
      const late = started.filter((time) => time >= busyUntil).length;
      assert.equal(late, 0, `${late} of ${started.length} files started only after the caller was free again`);
    });

    it('rejects the unstarted files of a batch when disposed', async () => {
      const converter = pool({ size: 1, workerScript: batchReportingWorker() });
      const warm = converter.load('warm.md', { rootPath: folder, sizeBytes: 100 });
      // Queued behind the first file, so they leave in one batch led by the file that never ends.
      const batch = ['slow.md', 'x.md', 'y.md'].map((name) => outcome(converter.load(name, { rootPath: folder, sizeBytes: 100 })));
      await warm;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await converter.dispose();
      for (const result of await Promise.all(batch)) {
        assert.ok(result.error instanceof CancelledError, String(result.error));
      }
    });
  });

  describe('sizing', () => {
    /** A stand-in worker that answers with its thread id as the title; files named wait* take 600 ms. */
    function threadReportingWorker(): WorkerScript {
      return standInWorker('thread-worker.js', [
        '  const [job] = jobs;',
        "  if (job.filePath.includes('wait')) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600); }",
        "  parentPort.postMessage({ type: 'converted', jobId: job.jobId, document: { title: String(threadId) } });",
      ]);
    }

    it('converts a few quick files on one worker even when the pool may have two', async () => {
      const converter = pool({ size: 2, workerScript: threadReportingWorker() });
      const titles = await Promise.all(['a.md', 'b.md', 'c.md', 'd.md'].map(async (name) => (await converter.load(name, { rootPath: folder })).title));
      assert.equal(new Set(titles).size, 1, titles.join(', '));
    });

    it('starts the second worker when files wait for a busy one', async () => {
      const converter = pool({ size: 2, workerScript: threadReportingWorker() });
      const titles = await Promise.all(['wait-a.md', 'wait-b.md', 'wait-c.md'].map(async (name) => (await converter.load(name, { rootPath: folder })).title));
      assert.equal(new Set(titles).size, 2, titles.join(', '));
    });

    it('starts the second worker at once when a whole batch of files waits, even for quick files', async () => {
      const converter = pool({ size: 2, workerScript: threadReportingWorker() });
      const names = Array.from({ length: CONVERSION_BATCH_FILES + 4 }, (_, index) => `quick-${index}.md`);
      const titles = await Promise.all(names.map(async (name) => (await converter.load(name, { rootPath: folder })).title));
      assert.equal(new Set(titles).size, 2, titles.join(', '));
    });

    /** The thread id the next worker started in this process gets (ids count up per process). */
    async function nextThreadId(): Promise<number> {
      const marker = new Worker('', { eval: true });
      const id = marker.threadId;
      await marker.terminate();
      return id + 1;
    }

    it('starts workers ahead of their jobs on warmUp: two quick files then go to two threads', async () => {
      const converter = pool({ size: 2, workerScript: threadReportingWorker() });
      const firstId = await nextThreadId();
      converter.warmUp!(2);
      const titles = await Promise.all(['a.md', 'b.md'].map(async (name) => (await converter.load(name, { rootPath: folder })).title));
      assert.deepEqual([...titles].sort(), [String(firstId), String(firstId + 1)]);
    });

    it('ends a worker started ahead of its jobs after the idle time when none comes', async () => {
      const converter = pool({ size: 1, idleMs: 200, workerScript: threadReportingWorker() });
      const warmedId = await nextThreadId();
      converter.warmUp!(1);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const title = (await converter.load('a.md', { rootPath: folder })).title;
      assert.ok(Number(title) > warmedId, `a new worker (thread ${title}) took the file, not the warmed one (${warmedId})`);
    });

    it('ends a worker that stayed idle, and starts a new one for the next file', async () => {
      const converter = pool({ size: 1, idleMs: 200, workerScript: threadReportingWorker() });
      const first = (await converter.load('a.md', { rootPath: folder })).title;
      assert.equal((await converter.load('b.md', { rootPath: folder })).title, first, 'a busy worker is reused');
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.notEqual((await converter.load('c.md', { rootPath: folder })).title, first);
    });
  });

  it('lets the process exit while workers started ahead of their jobs load', () => {
    const script = [
      `const { createConversionPool } = require(${JSON.stringify(path.join(repositoryRoot, 'src/node/convert/conversionPool.ts'))});`,
      'createConversionPool({ size: 2 }).warmUp(2);',
      "console.log('started');",
    ].join('\n');
    // Well within a worker's start-up and idle time: it must not wait for either.
    const child = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8', timeout: 5_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'started');
  });

  it('lets the process exit while its workers are idle', () => {
    const script = [
      `const { createConversionPool } = require(${JSON.stringify(path.join(repositoryRoot, 'src/node/convert/conversionPool.ts'))});`,
      'const pool = createConversionPool({ size: 2 });',
      `pool.load(${JSON.stringify(smallFile)}, { rootPath: ${JSON.stringify(folder)} }).then((document) => console.log(document.title));`,
    ].join('\n');
    const child = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'Small');
  });
});
