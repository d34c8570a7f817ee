import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { cliCommands } from '../../../src/node/cli/cliCommands';
import { READER_COMMAND_NAMES } from '../../../src/node/cli/readerCommandNames';
import { readerCommands } from '../../../src/node/cli/readerMain';
import { repositoryRoot } from '../../support/paths';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { startScriptedEmbeddingsServer } from '../../support/scriptedEmbeddingsServer';
import { runInProcess } from './cliHarness';

const run = promisify(execFile);

/** Modules a reader's command must not load: the AI SDK (only on an embedding request), the MCP SDK, zod's full API. */
const HEAVY_MODULE = /node_modules[\\/](ai|@ai-sdk[\\/][^\\/]+|@modelcontextprotocol[\\/]sdk|zod[\\/]v4[\\/]classic|zod[\\/]v3)[\\/]/;

describe('CLI index readers (dist/cli-reader.js)', () => {
  it('runs the full CLI\'s own command objects, the ones the entry routes to it', () => {
    assert.deepEqual(readerCommands.map((command) => command.name), READER_COMMAND_NAMES);
    for (const command of readerCommands) {
      assert.equal(command, cliCommands.find((full) => full.name === command.name));
    }
  });

  describe('on an index', () => {
    let folder: ReturnType<typeof temporaryFolder>;
    let server: Awaited<ReturnType<typeof startScriptedEmbeddingsServer>>;
    let embedding: string[];

    before(async () => {
      folder = temporaryFolder('haiku-reader-');
      server = await startScriptedEmbeddingsServer({ dimensions: 32 });
      embedding = ['--embeddings-url', server.baseUrl, '--embeddings-model', 'scripted'];
      writeFiles(path.join(folder.path, 'docs'), {
        'wombat.md': '# Wombats\n\nWombats dig burrows with their claws.\n\n## Diet\n\nThey graze on grasses at night.\n',
        'koala.md': '# Koalas\n\nKoalas sleep in eucalyptus trees most of the day.\n',
      });
      const indexed = await runInProcess(['index', path.join(folder.path, 'docs'), '--db', path.join(folder.path, 'db'), '--quiet', ...embedding], { cwd: folder.path });
      assert.equal(indexed.code, 0, indexed.stderr);
    });

    after(async () => {
      await server.close();
      folder.cleanup();
    });

    it('a full-text search loads neither the AI SDK nor the MCP SDK (sources, through tsx)', async () => {
      const script = path.join(folder.path, 'readerSearch.js');
      fs.writeFileSync(script, [
        `process.argv.splice(2, Infinity, 'search', 'burrows', '--db', ${JSON.stringify(path.join(folder.path, 'db'))}, '--search-type', 'fts');`,
        `process.on('exit', () => process.stderr.write('LOADED:' + JSON.stringify(Object.keys(require.cache).filter((name) => ${HEAVY_MODULE}.test(name))) + '\\n'));`,
        `require(${JSON.stringify(path.join(repositoryRoot, 'src', 'node', 'cli', 'readerMain.ts'))}).startCli();`,
      ].join('\n'));
      const { stdout, stderr } = await run(process.execPath, ['--require', 'tsx/cjs', script], { cwd: repositoryRoot, encoding: 'utf8' });
      assert.match(stdout, /wombat\.md/);
      const line = stderr.split('\n').find((text) => text.startsWith('LOADED:'));
      assert.ok(line !== undefined, stderr);
      assert.deepEqual(JSON.parse(line.slice('LOADED:'.length)), []);
    });

    it('dist/cli.js runs search, docs and toc from dist/cli-reader.js with the full CLI\'s output, hybrid search included', async function () {
      const bundle = path.join(repositoryRoot, 'dist', 'cli.js');
      const sources = ['esbuild.mjs', 'src/node/cli/entry.ts', 'src/node/cli/readerMain.ts', 'src/node/cli/runner.ts', 'src/node/embeddings/openAiCompatibleEmbedder.ts'];
      const newestSource = Math.max(...sources.map((source) => fs.statSync(path.join(repositoryRoot, source)).mtimeMs));
      assert.ok(fs.existsSync(bundle) && fs.statSync(bundle).mtimeMs >= newestSource, 'dist/cli.js is missing or older than its sources: run `npm run build` first');
      const cacheFolder = path.join(folder.path, 'compile-cache');
      const database = path.join(folder.path, 'db');
      for (const argv of [
        ['search', 'burrows', '--db', database, '--search-type', 'fts'],
        ['search', 'where do wombats dig', '--db', database, '--search-type', 'hybrid', ...embedding],
        ['search', 'trees', '--db', database, '--json', ...embedding],
        ['docs', '--db', database],
        ['toc', 'wombat.md', '--db', database],
      ]) {
        const full = await runInProcess(argv, { cwd: folder.path });
        assert.equal(full.code, 0, full.stderr);
        const { stdout } = await run(process.execPath, [bundle, ...argv], { cwd: folder.path, encoding: 'utf8', env: { ...process.env, HAIKU_COMPILE_CACHE_DIR: cacheFolder } });
        assert.equal(stdout, full.stdout, `haiku ${argv.join(' ')}`);
      }
      // Usage errors and failures read the same too (exit code and standard error).
      for (const argv of [['search', '--limit', 'many', 'x', '--db', database], ['search', '--bogus', 'x'], ['toc'], ['docs', '--db', path.join(folder.path, 'no-index')]]) {
        const full = await runInProcess(argv, { cwd: folder.path });
        assert.notEqual(full.code, 0);
        const failed = await run(process.execPath, [bundle, ...argv], { cwd: folder.path, encoding: 'utf8', env: { ...process.env, HAIKU_COMPILE_CACHE_DIR: cacheFolder } }).then(
          () => assert.fail(`haiku ${argv.join(' ')} succeeded`),
          (error: { code: number; stdout: string; stderr: string }) => error,
        );
        assert.deepEqual({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }, { code: full.code, stdout: full.stdout, stderr: full.stderr }, `haiku ${argv.join(' ')}`);
      }
      // Only the readers' bundle was compiled (each bundle run through the entry leaves its code cache).
      assert.deepEqual(fs.readdirSync(cacheFolder).map((name) => name.replace(/\.js-.*$/, '.js')), ['cli-reader.js']);
    });
  });
});
