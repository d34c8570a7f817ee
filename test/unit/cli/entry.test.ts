import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandIo } from '../../../src/node/cli/command';
import { cliCommands } from '../../../src/node/cli/cliCommands';
import { commandTable } from '../../../src/node/cli/commandTable';
import { answerHelpOrVersion, pruneCompileCaches } from '../../../src/node/cli/entry';
import { COMPILE_CACHE_FILES_PER_BUNDLE } from '../../../src/core/limits';
import { runCli } from '../../../src/node/cli/main';
import { repositoryRoot } from '../../support/paths';
import { decodePng } from '../../support/png';

function capturingIo(stderrColumns?: number): { io: CommandIo; output: () => string } {
  let output = '';
  const io: CommandIo = { stdout: (text) => { output += `out:${text}`; }, stderr: (text) => { output += `err:${text}`; }, cwd: os.tmpdir(), env: {}, stderrColumns };
  return { io, output: () => output };
}

describe('CLI entry: help and --version without the full CLI', () => {
  const table = commandTable(cliCommands);

  for (const argv of [['--version'], ['-V'], ['version'], ['--help'], ['help'], ['help', 'search'], ['help', '--help'], ['search', '--help'], ['index', '-h'], ['ask', 'why', '--help'], ['bogus', '--help']]) {
    it(`answers 'haiku ${argv.join(' ')}' exactly as the full CLI does`, async () => {
      for (const columns of [undefined, 132]) {
        const entry = capturingIo(columns);
        const full = capturingIo(columns);
        assert.equal(answerHelpOrVersion(table, argv, entry.io), 0);
        assert.equal(await runCli(argv, full.io), 0);
        assert.equal(entry.output(), full.output());
      }
    });
  }

  for (const argv of [[], ['search', 'help'], ['help', 'bogus'], ['search', '--limit', 'many', 'x'], ['docs']]) {
    it(`hands 'haiku ${argv.join(' ')}' to the full CLI, printing nothing`, () => {
      const entry = capturingIo();
      assert.equal(answerHelpOrVersion(table, argv, entry.io), undefined);
      assert.equal(entry.output(), '');
    });
  }

  it('the table is plain data (the build writes it into dist/cli.js as JSON)', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(table)), table);
    assert.deepEqual(table.map((command) => command.name), cliCommands.map((command) => command.name));
  });

  it('dist/cli.js answers --version and help without loading LanceDB or the full CLI, and runs commands through it', function () {
    const bundle = path.join(repositoryRoot, 'dist', 'cli.js');
    const sources = ['esbuild.mjs', 'src/node/cli/entry.ts', 'src/node/cli/main.ts', 'src/node/cli/cliCommands.ts', 'src/node/cli/commandTable.ts', 'src/node/cli/program.ts'];
    const newestSource = Math.max(...sources.map((source) => fs.statSync(path.join(repositoryRoot, source)).mtimeMs));
    // Building here would race other work on the tree; `npm run test:unit` builds before testing.
    assert.ok(fs.existsSync(bundle) && fs.statSync(bundle).mtimeMs >= newestSource, 'dist/cli.js is missing or older than its sources: run `npm run build` first');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-entry-'));
    try {
      // Preloaded: reports at exit every loaded module whose path names LanceDB, Arrow or the full CLI bundle.
      const reporter = path.join(folder, 'loadedModules.js');
      fs.writeFileSync(reporter, "process.on('exit', () => process.stderr.write('LOADED:' + JSON.stringify(Object.keys(require.cache).filter((name) => /lancedb|apache-arrow|cli-main/.test(name))) + '\\n'));\n");
      const withLoaded = (argv: string[]): { stdout: string; loaded: string[] } => {
        const outputFile = path.join(folder, 'stderr.txt');
        const stdout = execFileSync(process.execPath, ['--require', reporter, bundle, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', fs.openSync(outputFile, 'w')] });
        const line = fs.readFileSync(outputFile, 'utf8').split('\n').find((text) => text.startsWith('LOADED:'));
        assert.ok(line !== undefined, 'the preloaded reporter wrote nothing');
        return { stdout, loaded: JSON.parse(line.slice('LOADED:'.length)) as string[] };
      };
      const { version } = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
      const versionRun = withLoaded(['--version']);
      assert.equal(versionRun.stdout, `${version}\n`);
      assert.deepEqual(versionRun.loaded, []);
      const helpRun = withLoaded(['search', '--help']);
      assert.match(helpRun.stdout, /Usage: haiku search/);
      assert.deepEqual(helpRun.loaded, []);
      // A command goes to dist/cli-main.js: `docs` on a missing index fails there (exit 1), having loaded LanceDB.
      assert.throws(
        () => execFileSync(process.execPath, ['--require', reporter, bundle, 'docs', '--db', path.join(folder, 'no-index')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HAIKU_COMPILE_CACHE_DIR: 'off' } }),
        (error: { status?: number; stderr?: string }) => error.status === 1 && /haiku docs:/.test(error.stderr ?? '') && /@lancedb/.test(error.stderr ?? ''),
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('dist/cli.js prints the version without initialising commander (whose child_process nothing else there requires)', () => {
    const bundle = path.join(repositoryRoot, 'dist', 'cli.js');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-entry-version-'));
    try {
      const reporter = path.join(folder, 'builtins.js');
      fs.writeFileSync(reporter, "process.on('exit', () => process.stderr.write('CHILD_PROCESS:' + process.moduleLoadList.includes('NativeModule child_process') + '\\n'));\n");
      const loadsChildProcess = (argv: string[]): boolean => {
        const outputFile = path.join(folder, 'stderr.txt');
        execFileSync(process.execPath, ['--require', reporter, bundle, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', fs.openSync(outputFile, 'w')] });
        return /CHILD_PROCESS:true/.test(fs.readFileSync(outputFile, 'utf8'));
      };
      for (const spelling of ['--version', '-v', '-V', 'version']) {
        assert.equal(loadsChildProcess([spelling]), false, spelling);
      }
      // Help still goes through commander: the check above would notice it.
      assert.equal(loadsChildProcess(['help']), true);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('dist/cli.js keeps V8\'s code cache of dist/cli-main.js and dist/cli-reader.js, and a damaged cache only costs a compile', function () {
    const bundle = path.join(repositoryRoot, 'dist', 'cli.js');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-compile-cache-'));
    try {
      const cacheFolder = path.join(folder, 'cache');
      fs.mkdirSync(path.join(folder, 'docs'));
      fs.writeFileSync(path.join(folder, 'docs', 'wombat.md'), '# Wombats\n\nWombats dig burrows with their claws.\n');
      const haiku = (...argv: string[]): string => execFileSync(process.execPath, [bundle, ...argv], { encoding: 'utf8', env: { ...process.env, HAIKU_COMPILE_CACHE_DIR: cacheFolder } });
      haiku('index', path.join(folder, 'docs'), '--db', path.join(folder, 'db'), '--quiet');
      const cached = fs.readdirSync(cacheFolder);
      assert.equal(cached.length, 1, 'one cache file for dist/cli-main.js');
      assert.match(cached[0], /^cli-main\.js-.*\.v8cache$/);
      const fullCacheFile = path.join(cacheFolder, cached[0]);
      const fullWritten = fs.statSync(fullCacheFile).mtimeMs;
      // `search` runs from the index readers' bundle, which keeps a cache of its own.
      assert.match(haiku('search', 'burrows', '--db', path.join(folder, 'db')), /wombat\.md/);
      const readerCached = fs.readdirSync(cacheFolder).filter((name) => name !== cached[0]);
      assert.equal(readerCached.length, 1, 'one cache file for dist/cli-reader.js');
      assert.match(readerCached[0], /^cli-reader\.js-.*\.v8cache$/);
      const cacheFile = path.join(cacheFolder, readerCached[0]);
      const written = fs.statSync(cacheFile).mtimeMs;
      assert.match(haiku('search', 'burrows', '--db', path.join(folder, 'db')), /wombat\.md/);
      assert.equal(fs.statSync(cacheFile).mtimeMs, written, 'an accepted cache is not written again');
      assert.equal(fs.statSync(fullCacheFile).mtimeMs, fullWritten, 'the full CLI\'s cache is left alone');
      fs.writeFileSync(cacheFile, Buffer.alloc(4096, 7));
      assert.match(haiku('search', 'burrows', '--db', path.join(folder, 'db')), /wombat\.md/);
      assert.ok(fs.statSync(cacheFile).size > 4096, 'a rejected cache is replaced');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('old code caches of a bundle are deleted beyond the newest few, whatever Node wrote them, and other bundles keep theirs', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-compile-prune-'));
    try {
      const write = (name: string, secondsAgo: number): string => {
        const file = path.join(folder, name);
        fs.writeFileSync(file, 'cache');
        const when = new Date(Date.now() - secondsAgo * 1000);
        fs.utimesSync(file, when, when);
        return name;
      };
      const stale = [write('cli-main.js-10-1-v18.0.0.v8cache', 50), write('cli-main.js-11-2-v20.20.2.v8cache', 40), write('cli-main.js-12-3-v20.20.2.v8cache', 30)];
      const kept = [write('cli-main.js-13-4-v22.1.0.v8cache', 20), write('cli-main.js-14-5-v20.20.2.v8cache', 10)];
      const newest = write('cli-main.js-15-6-v20.20.2.v8cache', 0);
      const others = [write('cli-reader.js-1-1-v20.20.2.v8cache', 90), write('cli-main.js.notes', 90)];
      pruneCompileCaches(folder, path.join(folder, newest));
      assert.equal(COMPILE_CACHE_FILES_PER_BUNDLE, 3);
      assert.deepEqual(fs.readdirSync(folder).sort(), [...kept, newest, ...others].sort());
      for (const name of stale) {
        assert.ok(!fs.existsSync(path.join(folder, name)), `${name} deleted`);
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('dist/cli.js prunes the caches of the bundle it ran when it writes a new one', function () {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-compile-prune-cli-'));
    try {
      const cacheFolder = path.join(folder, 'cache');
      fs.mkdirSync(cacheFolder);
      const planted = [1, 2, 3].map((age) => {
        const name = `cli-reader.js-${age}-${age}-${process.version}.v8cache`;
        fs.writeFileSync(path.join(cacheFolder, name), 'stale');
        const when = new Date(Date.now() - age * 60_000);
        fs.utimesSync(path.join(cacheFolder, name), when, when);
        return name;
      });
      // A failing command still loads the readers' bundle and writes its cache at exit.
      try {
        execFileSync(process.execPath, [path.join(repositoryRoot, 'dist', 'cli.js'), 'docs', '--db', path.join(folder, 'no-index-here'), '--read-only'], { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, HAIKU_COMPILE_CACHE_DIR: cacheFolder } });
      } catch {
        // The exit code is not what this test is about.
      }
      const left = fs.readdirSync(cacheFolder).sort();
      assert.equal(left.length, COMPILE_CACHE_FILES_PER_BUNDLE, left.join(', '));
      assert.ok(!left.includes(planted[2]), 'the oldest cache is gone');
      assert.ok(left.includes(planted[0]) && left.includes(planted[1]), 'the two newest planted caches stay');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('dist/cli.js runs a command that loads an ES module with import() (visualize loads pdf.js), compiled with and from the code cache', async function () {
    this.timeout(120_000);
    const bundle = path.join(repositoryRoot, 'dist', 'cli.js');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-entry-import-'));
    try {
      fs.mkdirSync(path.join(folder, 'docs'));
      fs.copyFileSync(path.join(repositoryRoot, 'test', 'fixtures', 'corpus', 'pdf-docx', 'py-pdf-sample-files', 'google-doc-document.pdf'), path.join(folder, 'docs', 'doc.pdf'));
      const haiku = (...argv: string[]): string => execFileSync(process.execPath, [bundle, ...argv], { encoding: 'utf8', env: { ...process.env, HAIKU_COMPILE_CACHE_DIR: path.join(folder, 'cache') } });
      const db = path.join(folder, 'db');
      haiku('index', path.join(folder, 'docs'), '--db', db, '--quiet');
      const [hit] = JSON.parse(haiku('search', 'document', '--db', db, '--json')) as Array<{ chunkId: string }>;
      assert.ok(hit?.chunkId, 'a chunk to render');
      // The first run compiles dist/cli-main.js and writes its cache, the second runs from the cache: both import pdf.js.
      for (const round of [1, 2]) {
        const image = path.join(folder, `page-${round}.png`);
        assert.match(haiku('visualize', hit.chunkId, '--db', db, '--out', image), /page 1, \d+ highlighted boxes/);
        // The page itself is drawn under the boxes, text included (a fresh process lacked pdf.js's Node 20 shim).
        const png = await decodePng(new Uint8Array(fs.readFileSync(image)));
        let ink = 0;
        for (let offset = 0; offset < png.data.length; offset += png.channels) {
          ink += png.data[offset] < 90 && png.data[offset + 1] < 90 && png.data[offset + 2] < 90 ? 1 : 0;
        }
        assert.ok(ink > 0.005 * png.width * png.height, `${ink} dark pixels of ${png.width * png.height}`);
      }
      assert.ok(fs.readdirSync(path.join(folder, 'cache')).some((name) => name.startsWith('cli-main.js-')), 'the full CLI ran from its cache');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('dist/cli.js answers help into a pipe its reader already closed without an EPIPE crash (haiku help | head)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'dist', 'cli.js'), 'help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the first write: every write of the help hits EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
