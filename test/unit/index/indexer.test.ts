import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isHaikuError } from '../../../src/core/errors';
import { documentIdForPath } from '../../../src/core/hash';
import { CONVERSION_BATCH_MAX_FILE_BYTES, EMBEDDING_BATCH_SIZE, INDEX_IN_FLIGHT_MAX_BYTES, INDEX_IN_PROCESS_MAX_FILES, INDEX_WRITE_BATCH_DOCUMENTS, INDEX_WRITE_TAIL_MIN_DOCUMENTS } from '../../../src/core/limits';
import { inProcessConversion, type ConversionPool } from '../../../src/node/convert/conversionPool';
import { indexPaths, rebuildIndex, type IndexProgress } from '../../../src/node/index/indexer';
import { scanRoots } from '../../../src/node/index/scanner';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { FileWriterLease, WRITER_LOCK_FILE } from '../../../src/node/store/writerLease';
import { HashingEmbedder, temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';

/** Real documents from the shared corpus: Markdown, HTML, PDF, DOCX. */
const CORPUS_FILES: Record<string, string> = {
  'vite/features.md': 'vite-docs/docs/guide/features.md',
  'vite/dep-pre-bundling.md': 'vite-docs/docs/guide/dep-pre-bundling.md',
  'vite/server-options.md': 'vite-docs/docs/config/server-options.md',
  'go/gc-guide.html': 'go-docs/doc/gc-guide.html',
  'go/faq.md': 'go-docs/doc/faq.md',
  'office/multi_page.pdf': 'pdf-docx/docling/multi_page.pdf',
  'office/unit_test_headers.docx': 'pdf-docx/docling/unit_test_headers.docx',
};

function copyCorpus(folder: string): void {
  for (const [target, source] of Object.entries(CORPUS_FILES)) {
    fs.mkdirSync(path.dirname(path.join(folder, target)), { recursive: true });
    fs.copyFileSync(path.join(corpusRoot, source), path.join(folder, target));
  }
}

async function chunkIdsByDocument(store: LanceStore): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const document of await store.listDocuments()) {
    const ids = new Set((await store.getDocumentItems(document.id)).flatMap((item) => item.chunkIds));
    result.set(document.relativePath, [...ids].sort());
  }
  return result;
}

/** In-process conversion that records each `warmUp` and `prepare` call, in order. */
function warmUpRecordingPool(events: string[]): ConversionPool {
  const inner = inProcessConversion();
  return {
    load: (filePath, options) => inner.load(filePath, options),
    dispose: () => inner.dispose(),
    warmUp: (workers) => events.push(`warm up ${workers}`),
    prepare: (filePath, options) => {
      events.push('prepare');
      return inner.prepare(filePath, options);
    },
  };
}

describe('indexPaths', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let database: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;

  beforeEach(async () => {
    workspace = temporaryFolder('haiku-workspace-');
    database = temporaryFolder('haiku-db-');
    store = await openStore({ uri: database.path });
  });

  afterEach(async () => {
    await store.close();
    workspace.cleanup();
    database.cleanup();
  });

  it('indexes incrementally: unchanged files cost no write, a changed file replaces only its rows, a deleted file goes', async () => {
    copyCorpus(workspace.path);
    const first = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual(first.failed, []);
    assert.deepEqual([...first.added].sort(), Object.keys(CORPUS_FILES).sort());
    assert.ok(first.chunksWritten > 50);
    assert.equal((await store.stats()).chunks, first.chunksWritten);
    assert.ok((await store.search('GOGC memory limit', { limit: 3 }))[0].uri.endsWith('go/gc-guide.html'));
    const idsBefore = await chunkIdsByDocument(store);

    const versions = await store.tableVersions();
    const second = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual({ added: second.added, updated: second.updated, removed: second.removed, unchanged: second.unchanged }, { added: [], updated: [], removed: [], unchanged: 7 });
    assert.deepEqual(await store.tableVersions(), versions, 'no table was written for unchanged files');

    // Modification time moved, content did not: hashed, not rewritten.
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(workspace.path, 'go/faq.md'), future, future);
    const touched = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual({ unchanged: touched.unchanged, touched: touched.touched, updated: touched.updated }, { unchanged: 7, touched: 1, updated: [] });
    const afterTouch = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual({ unchanged: afterTouch.unchanged, touched: afterTouch.touched }, { unchanged: 7, touched: 0 }, 'the new modification time was recorded');
    const { chunks, document_items } = await store.tableVersions();
    assert.deepEqual({ chunks, document_items }, { chunks: versions.chunks, document_items: versions.document_items }, 'chunks and items were not rewritten');

    fs.appendFileSync(path.join(workspace.path, 'vite/features.md'), '\n## Zanzibar appendix\n\nA new section about zanzibar.\n');
    const third = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual(third.updated, ['vite/features.md']);
    assert.equal(third.unchanged, 6);
    const idsAfter = await chunkIdsByDocument(store);
    for (const [relativePath, ids] of idsBefore) {
      if (relativePath !== 'vite/features.md') {
        assert.deepEqual(idsAfter.get(relativePath), ids, `${relativePath} kept its chunk ids`);
      }
    }
    const changed = new Set(idsAfter.get('vite/features.md'));
    assert.ok(idsBefore.get('vite/features.md')!.filter((id) => changed.has(id)).length > 10, 'unchanged chunks of the edited file keep their ids');
    assert.equal((await store.search('zanzibar'))[0].headings.at(-1), 'Zanzibar appendix');

    fs.rmSync(path.join(workspace.path, 'go/faq.md'));
    const fourth = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual(fourth.removed, ['go/faq.md']);
    assert.equal((await store.listDocuments()).length, 6);
    assert.equal(await store.getDocument(documentIdForPath('go/faq.md')), undefined);
    assert.equal((await store.stats()).chunks, [...(await chunkIdsByDocument(store)).values()].reduce((sum, ids) => sum + ids.length, 0));
  });

  it('converts a few small files in-process and more files on conversion workers', async () => {
    let workersStarted = 0;
    const onWorker = (): void => {
      workersStarted++;
    };
    process.on('worker', onWorker);
    try {
      const few = Object.fromEntries(Array.from({ length: INDEX_IN_PROCESS_MAX_FILES }, (_, index) => [`few/note-${index}.md`, `# Note ${index}\n\nA small note number ${index}.\n`]));
      writeFiles(workspace.path, few);
      const small = await indexPaths({ roots: [path.join(workspace.path, 'few')], baseFolder: workspace.path, store });
      assert.deepEqual([small.added.length, small.failed, workersStarted], [INDEX_IN_PROCESS_MAX_FILES, [], 0], 'no worker for a tiny job');
      const many = Object.fromEntries(Array.from({ length: INDEX_IN_PROCESS_MAX_FILES + 1 }, (_, index) => [`many/note-${index}.md`, `# Many ${index}\n\nAnother note, number ${index}.\n`]));
      writeFiles(workspace.path, many);
      const larger = await indexPaths({ roots: [path.join(workspace.path, 'many')], baseFolder: workspace.path, store });
      assert.deepEqual([larger.added.length, larger.failed], [INDEX_IN_PROCESS_MAX_FILES + 1, []]);
      assert.ok(workersStarted >= 1, 'more files than the in-process limit go to a worker');
      const hits = await store.searchWith('small note number', { mode: 'fullText', limit: 3, rerank: false });
      assert.ok(hits[0]?.uri.includes('/few/note-'), 'in-process documents are searchable like the others');
    } finally {
      process.off('worker', onWorker);
    }
  });

  it('reports a bad file and indexes the rest; the previous good version of a file that turned bad stays', async () => {
    writeFiles(workspace.path, { 'notes.md': '# Notes\n\nThe quokka is a small marsupial.\n', 'ok.md': '# OK\n\nFine.\n' });
    await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    writeFiles(workspace.path, {
      'notes.md': Uint8Array.from([0x23, 0x20, 0xc3, 0x28, 0x0a, 0xff, 0xfe]),
      'broken.pdf': 'this is not a pdf at all',
      'new.md': '# New\n\nA wombat appears.\n',
    });
    const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual(summary.added, ['new.md']);
    assert.deepEqual(summary.failed.map((failure) => failure.path).sort(), ['broken.pdf', 'notes.md']);
    const notes = summary.failed.find((failure) => failure.path === 'notes.md')!;
    assert.equal(notes.code, 'invalid_encoding');
    assert.match(notes.reason, /notes\.md/);
    assert.deepEqual(summary.removed, [], 'a failing file is not a deleted file');
    assert.equal((await store.search('quokka')).length, 1, 'the old version is still searchable');
    assert.equal((await store.search('wombat')).length, 1);
  });

  it('respects include/exclude globs, nested .gitignore files, node_modules and the size limit', async () => {
    writeFiles(workspace.path, {
      '.gitignore': 'drafts/\n*.tmp.md\n',
      'a.md': '# A\n',
      'page.HTML': '<h1>Page</h1>',
      'notes.txt': 'plain text',
      'data.json': '{}',
      'x.tmp.md': '# ignored by pattern\n',
      'drafts/d.md': '# ignored folder\n',
      'sub/.gitignore': 'secret.md\n',
      'sub/secret.md': '# ignored by nested gitignore\n',
      'sub/visible.md': '# visible\n',
      'node_modules/pkg/readme.md': '# dependency\n',
      'skip/me.md': '# excluded by option\n',
      'big.md': `# Big\n\n${'x'.repeat(5000)}\n`,
    });
    const scan = await scanRoots({ roots: [workspace.path], baseFolder: workspace.path, exclude: ['**/skip/**'], maxFileBytes: 1000 });
    assert.deepEqual(scan.files.map((file) => file.relativePath), ['a.md', 'notes.txt', 'page.HTML', 'sub/visible.md']);
    assert.deepEqual(scan.skipped.map((skipped) => skipped.path), ['big.md']);

    const withoutGitignore = await scanRoots({ roots: [workspace.path], baseFolder: workspace.path, respectGitignore: false, include: ['**/*.md'] });
    assert.deepEqual(withoutGitignore.files.map((file) => file.relativePath), ['a.md', 'big.md', 'drafts/d.md', 'skip/me.md', 'sub/secret.md', 'sub/visible.md', 'x.tmp.md']);

    // A root inside the base folder inherits the base folder's .gitignore; a named file is taken as is.
    const sub = await scanRoots({ roots: [path.join(workspace.path, 'drafts'), path.join(workspace.path, 'data.json')], baseFolder: workspace.path });
    assert.deepEqual(sub.files.map((file) => file.relativePath), ['data.json']);
  });

  it('reports two roots whose files would share a document id instead of letting one overwrite the other', async () => {
    writeFiles(workspace.path, { 'one/README.md': '# One\n\nFirst readme.\n', 'two/README.md': '# Two\n\nSecond readme.\n' });
    // No common base folder: each root is its own base, so both files are `README.md`.
    const summary = await indexPaths({ roots: [path.join(workspace.path, 'one'), path.join(workspace.path, 'two')], store });
    assert.deepEqual(summary.added, ['README.md']);
    assert.equal(summary.failed.length, 1);
    assert.match(summary.failed[0].reason, /same relative path \(README\.md\).*common parent folder/);
    // With the workspace as base folder both are indexed.
    const together = await indexPaths({ roots: [path.join(workspace.path, 'one'), path.join(workspace.path, 'two')], baseFolder: workspace.path, store });
    assert.deepEqual(together.added.sort(), ['one/README.md', 'two/README.md']);
  });

  it('stops on cancellation and leaves a consistent index that a later run completes', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 40; index++) {
      files[`notes/note${String(index).padStart(2, '0')}.md`] = `# Note ${index}\n\nThe pangolin count for note ${index} is ${index * 7}.\n`;
    }
    writeFiles(workspace.path, files);
    const controller = new AbortController();
    const events: IndexProgress[] = [];
    await assert.rejects(
      indexPaths({
        roots: [workspace.path],
        baseFolder: workspace.path,
        store,
        abortSignal: controller.signal,
        concurrency: 1,
        onProgress: (progress) => {
          events.push(progress);
          // At least, and early: small files convert in batches, so several finish between two progress reports
          // and the last ~30 start before the first of them is done.
          if (progress.phase === 'converting' && progress.filesDone >= 10 && !controller.signal.aborted) {
            controller.abort();
          }
        },
      }),
      (error: unknown) => isHaikuError(error, 'cancelled'),
    );
    assert.ok(events.some((event) => event.filesTotal === 40 && event.currentFile));
    const partial = await store.listDocuments();
    assert.ok(partial.length < 40);
    for (const document of partial) {
      assert.ok((await store.getDocumentItems(document.id)).some((item) => item.chunkIds.length > 0), `${document.relativePath} is complete`);
    }
    assert.equal((await store.stats()).chunks, partial.length);

    const resumed = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.equal(resumed.added.length + resumed.unchanged, 40);
    assert.equal(resumed.unchanged, partial.length);
    assert.deepEqual(await store.stats(), { documents: 40, chunks: 40 });
    assert.equal((await store.search('pangolin', { limit: 50 })).length, 40);
  });

  it('looks for lost rows only among files it would keep: an edited file is rewritten without that lookup', async () => {
    writeFiles(workspace.path, { 'edited.md': '# Edited\n\nCormorants dive.\n', 'kept.md': '# Kept\n\nPuffins nest.\n' });
    await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    const asked: string[][] = [];
    const lookup = store.documentsMissingRows.bind(store);
    store.documentsMissingRows = (ids?: readonly string[]) => {
      asked.push([...(ids ?? [])]);
      return lookup(ids);
    };
    fs.appendFileSync(path.join(workspace.path, 'edited.md'), 'More cormorants.\n');
    const single = await indexPaths({ roots: [path.join(workspace.path, 'edited.md')], baseFolder: workspace.path, store, optimize: false });
    assert.deepEqual(single.updated, ['edited.md']);
    assert.deepEqual(asked, [], 'the watcher-style run of one edited file does not query the tables for lost rows');
    fs.appendFileSync(path.join(workspace.path, 'edited.md'), 'Even more cormorants.\n');
    const both = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepEqual({ updated: both.updated, unchanged: both.unchanged }, { updated: ['edited.md'], unchanged: 1 });
    assert.deepEqual(asked, [[documentIdForPath('kept.md')]], 'only the unchanged file is checked');
  });

  it('writes a few hundred small files in one commit per table, not one per document or per 256', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 600; index++) {
      files[`n${String(index).padStart(3, '0')}.md`] = `# Note ${index}\n\nThe okapi count is ${index}.\n`;
    }
    writeFiles(workspace.path, files);
    await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    const before = await store.tableVersions();
    for (const name of Object.keys(files).slice(0, 599)) {
      fs.appendFileSync(path.join(workspace.path, name), 'More wombats.\n');
    }
    const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, optimize: false });
    assert.equal(summary.updated.length, 599);
    const after = await store.tableVersions();
    assert.equal(after.chunks - before.chunks, 1, 'one add to the chunks table');
    assert.equal(after.document_items - before.document_items, 1, 'one add to the items table');
    assert.equal(after.documents - before.documents, 1, 'one switch of the documents table');
    assert.equal((await store.search('wombats', { limit: 1000 })).length, 599);
  });

  it("writes a run's last files apart after a full batch, so the batch before them is written while they convert", async () => {
    const files: Record<string, string> = {};
    const rest = 700;
    for (let index = 0; index < INDEX_WRITE_BATCH_DOCUMENTS; index++) {
      files[`a${String(index).padStart(4, '0')}.md`] = `# Note ${index}\n\nThe quokka count is ${index}.\n`;
    }
    // The last files take longer to convert than the first batch takes to write (~4 chunks each: under the chunk limit of a batch).
    const paragraph = 'The quokka smiled at the tourists while the ranger counted the burrows along the ridge. '.repeat(20);
    for (let index = 0; index < rest; index++) {
      files[`z${String(index).padStart(4, '0')}.md`] = `# Survey ${index}\n\n${paragraph}\n\n## Notes\n\n${paragraph}\n`;
    }
    writeFiles(workspace.path, files);
    const batches: number[] = [];
    const write = store.writeDocuments.bind(store);
    store.writeDocuments = (entries, options) => {
      batches.push(entries.length);
      return write(entries, options);
    };
    const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.equal(summary.added.length, INDEX_WRITE_BATCH_DOCUMENTS + rest);
    assert.equal(batches.length, 3, `write batches: ${batches.join(', ')}`);
    const [first, closedEarly, last] = batches;
    assert.equal(first, INDEX_WRITE_BATCH_DOCUMENTS);
    assert.ok(closedEarly >= INDEX_WRITE_TAIL_MIN_DOCUMENTS && 4 * last <= closedEarly && 8 * last >= closedEarly, `write batches: ${batches.join(', ')}`);
    assert.equal((await store.search('quokka', { limit: 10 })).length, 10);
  });

  it('starts big files largest first, and while they fill their byte budget keeps small files going', async () => {
    // Six big files that come last by path, and small ones: a big file started last would be converted alone.
    const files: Record<string, string> = {};
    const bigKilobytes = [400, 650, 500, 450, 600, 550];
    bigKilobytes.forEach((kilobytes, index) => {
      files[`z-big-${index}.md`] = `# Big ${index}\n\n${'The dugong grazes on seagrass. '.repeat(Math.round((kilobytes * 1024) / 31))}\n`;
    });
    for (let index = 0; index < 20; index++) {
      files[`small-${String(index).padStart(2, '0')}.md`] = `# Small ${index}\n\nA short note about manatees, number ${index}.\n`;
    }
    writeFiles(workspace.path, files);
    const inner = inProcessConversion();
    const started: string[] = [];
    const inFlight = new Map<string, number>();
    const violations: string[] = [];
    const isBig = (size: number) => size > CONVERSION_BATCH_MAX_FILE_BYTES;
    const recording: ConversionPool = {
      load: (filePath, options) => inner.load(filePath, options),
      dispose: () => inner.dispose(),
      prepare: async (filePath, options) => {
        const size = fs.statSync(filePath).size;
        const filesBefore = inFlight.size;
        inFlight.set(filePath, size);
        const bytesOfKind = [...inFlight.values()].filter((value) => isBig(value) === isBig(size)).reduce((sum, value) => sum + value, 0);
        if (filesBefore >= 4 && bytesOfKind > INDEX_IN_FLIGHT_MAX_BYTES) {
          violations.push(`${path.basename(filePath)} started with ${filesBefore} files and ${bytesOfKind} bytes of its kind in flight`);
        }
        started.push(path.basename(filePath));
        try {
          // Slow enough that files overlap, as on workers; big files take longer.
          await new Promise((resolve) => setTimeout(resolve, isBig(size) ? 40 : 2));
          return await inner.prepare(filePath, options);
        } finally {
          inFlight.delete(filePath);
        }
      },
    };
    const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, concurrency: 2, conversionPool: recording });
    assert.deepEqual([summary.added.length, summary.failed], [26, []]);
    assert.deepEqual(started.slice(0, 4), ['z-big-1.md', 'z-big-4.md', 'z-big-5.md', 'z-big-2.md'], 'the four largest first');
    assert.deepEqual(violations, []);
    const firstSmall = started.findIndex((name) => name.startsWith('small-'));
    const lastBig = started.length - 1 - [...started].reverse().findIndex((name) => name.startsWith('z-big-'));
    assert.ok(firstSmall < lastBig, `small files start while big ones wait for their budget (${started.join(', ')})`);
    assert.equal(new Set(started).size, 26);
  });

  it("starts the caller's conversion workers while it scans on a first build only", async () => {
    copyCorpus(workspace.path);
    const events: string[] = [];
    const recording = warmUpRecordingPool(events);
    const first = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, concurrency: 2, conversionPool: recording });
    assert.equal(first.added.length, 7);
    // One worker per file found, up to the two, both asked for before the first file converts: one then two when the
    // run knew it was a first build before the scan's second file, else both at once.
    const beforeFirst = events.slice(0, events.indexOf('prepare')).join(', ');
    assert.ok(['warm up 1, warm up 2', 'warm up 2'].includes(beforeFirst), `the workers start before the first file converts (${events.join(', ')})`);
    events.length = 0;
    fs.appendFileSync(path.join(workspace.path, 'vite/features.md'), '\nOne more line.\n');
    const second = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, concurrency: 2, conversionPool: recording });
    assert.equal(second.updated.length, 1);
    assert.deepEqual(events, ['prepare'], 'an index with documents converts only what changed: no workers ahead of time');
  });

  it('warms one conversion worker for a first build of one file', async () => {
    writeFiles(workspace.path, { 'only.md': '# Only\n\nOne file.\n' });
    const events: string[] = [];
    const recording = warmUpRecordingPool(events);
    const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, concurrency: 2, conversionPool: recording });
    assert.equal(summary.added.length, 1);
    assert.deepEqual(events, ['warm up 1', 'prepare']);
  });

  it('converts a one-file re-index beside the writer lease, and again when the file changed before the lease was held', async () => {
    writeFiles(workspace.path, { 'note.md': '# Note\n\nFirst version.\n' });
    const file = path.join(workspace.path, 'note.md');
    const id = documentIdForPath('note.md');
    await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    const inner = inProcessConversion();
    let conversions = 0;
    let onConverted: (() => void) | undefined;
    const recording: ConversionPool = {
      load: (filePath, options) => inner.load(filePath, options),
      dispose: () => inner.dispose(),
      prepare: async (filePath, options) => {
        const prepared = await inner.prepare(filePath, options);
        conversions++;
        onConverted?.();
        return prepared;
      },
    };
    fs.appendFileSync(file, '\nSecond version.\n');
    const second = await indexPaths({ roots: [file], baseFolder: workspace.path, store, optimize: false, conversionPool: recording });
    assert.deepEqual([second.updated, conversions], [['note.md'], 1], 'one conversion, started before the lease');
    const touched = await indexPaths({ roots: [file], baseFolder: workspace.path, store, optimize: false, conversionPool: recording });
    assert.deepEqual([touched.unchanged, conversions], [1, 1], 'a file stored at its size is compared before it converts');

    // Another writer holds the lease while the run converts ahead; the file changes again before the run gets it.
    const held = await new FileWriterLease(path.join(database.path, WRITER_LOCK_FILE)).acquire();
    fs.appendFileSync(file, '\nThird version.\n');
    const convertedAhead = new Promise<void>((resolve) => {
      onConverted = resolve;
    });
    const run = indexPaths({ roots: [file], baseFolder: workspace.path, store, optimize: false, conversionPool: recording });
    await convertedAhead;
    fs.appendFileSync(file, '\nFourth version.\n');
    await held.release();
    const third = await run;
    assert.deepEqual([third.updated, conversions], [['note.md'], 3], 'converted ahead, then again under the lease');
    assert.match((await store.getDocumentContent(id)) ?? '', /Fourth version/);
    const state = (await store.documentStates()).get(id)!;
    const stats = fs.statSync(file);
    assert.deepEqual([state.mtime_ms, state.size], [stats.mtimeMs, stats.size], 'the stored file state is the content converted');
  });

  it('starts its own conversion workers while it scans a first build of more files than convert in-process', async () => {
    const events: string[] = [];
    const onWorker = (): void => {
      events.push('worker');
    };
    process.on('worker', onWorker);
    try {
      const count = INDEX_IN_PROCESS_MAX_FILES + 4;
      writeFiles(workspace.path, Object.fromEntries(Array.from({ length: count }, (_, index) => [`note-${index}.md`, `# Note ${index}\n\nA note about dugongs, number ${index}.\n`])));
      const onProgress = (progress: IndexProgress): void => {
        if (progress.phase === 'converting' && !events.includes('converting')) {
          events.push('converting');
        }
      };
      const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, concurrency: 2, onProgress });
      assert.deepEqual([summary.added.length, summary.failed], [count, []]);
      assert.deepEqual(events, ['worker', 'worker', 'converting'], 'both workers start before the first file converts');
    } finally {
      process.off('worker', onWorker);
    }
  });

  it('counts every converted file in its progress, the last ones in flight too', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 40; index++) {
      files[`notes/note${String(index).padStart(2, '0')}.md`] = `# Note ${index}\n\nThe dugong count is ${index}.\n`;
    }
    writeFiles(workspace.path, files);
    const converting: number[] = [];
    await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, concurrency: 1, onProgress: (progress) => progress.phase === 'converting' && converting.push(progress.filesDone) });
    assert.equal(Math.max(...converting), 40, `converting progress reached ${Math.max(...converting)} of 40`);
  });

  it('fails the run on an embedding error, writes nothing after it, and keeps what was written consistent', async () => {
    await store.close();
    const embedder = new HashingEmbedder(32);
    store = await openStore({ uri: database.path + '/failing', embedder });
    const files: Record<string, string> = {};
    // One chunk per file: the first write batch is INDEX_WRITE_BATCH_DOCUMENTS files, the failure comes in the second.
    for (let index = 0; index < INDEX_WRITE_BATCH_DOCUMENTS + 344; index++) {
      files[`n${String(index).padStart(4, '0')}.md`] = `# Note ${index}\n\nThe axolotl count is ${index}.\n`;
    }
    writeFiles(workspace.path, files);
    const failing = Object.assign(Object.create(embedder) as HashingEmbedder, {
      embed: async (texts: readonly string[], options: { kind: 'query' | 'document' }) => {
        if (embedder.calls >= INDEX_WRITE_BATCH_DOCUMENTS / EMBEDDING_BATCH_SIZE + 1) {
          throw new Error('embeddings server went away');
        }
        return embedder.embed(texts, options);
      },
    });
    await assert.rejects(indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store, embedder: failing }), /embeddings server went away/);
    const versions = await store.tableVersions();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(await store.tableVersions(), versions, 'no worker kept writing after the rejection');
    const stats = await store.stats();
    assert.equal(stats.documents, INDEX_WRITE_BATCH_DOCUMENTS, 'the first batch (before the failure) is complete');
    assert.equal(stats.chunks, INDEX_WRITE_BATCH_DOCUMENTS);
  });

  it('embeds chunks in batches and rebuilds with the same documents and chunk ids', async () => {
    await store.close();
    const embedder = new HashingEmbedder(64);
    store = await openStore({ uri: database.path + '/hybrid', embedder });
    copyCorpus(workspace.path);
    const summary = await indexPaths({ roots: [path.join(workspace.path, 'vite'), path.join(workspace.path, 'go')], baseFolder: workspace.path, store, embedder });
    assert.equal(embedder.textsEmbedded, summary.chunksWritten);
    assert.ok(embedder.calls >= Math.ceil(summary.chunksWritten / 64) && embedder.calls < summary.chunksWritten);
    const before = await chunkIdsByDocument(store);
    const hybrid = await store.search('dependency pre-bundling esbuild', { limit: 3 });
    assert.ok(hybrid[0].score < 2 / 61 + 1e-9 && hybrid[0].score > 0, 'hybrid scores are RRF scores');

    const rebuilt = await rebuildIndex({ store, embedder });
    assert.deepEqual(rebuilt.roots.map((root) => path.relative(workspace.path, root.path)), ['go', 'vite']);
    assert.equal(rebuilt.added.length, 5);
    assert.deepEqual(await chunkIdsByDocument(store), before);
  });
});
