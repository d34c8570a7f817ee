#!/usr/bin/env node
/**
 * The `haiku` executable (`dist/cli.js`): answers `--version` and help from the commands' help table, which the
 * build writes into this small bundle, hands `search`, `docs` and `toc` to the index readers' bundle
 * (`dist/cli-reader.js`, readerMain.ts) and everything else to the full CLI (`dist/cli-main.js`, main.ts).
 * Loading the full CLI (3 MB of JavaScript, LanceDB's addon, Arrow) took ~0.5 s, which `haiku --version` and
 * `haiku search --help` need not pay, and a one-shot `haiku search` need not pay for the indexer, agent and MCP server.
 */
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import type { CommandIo } from './command';
import { type CommandHelp, helpOnlyCommands } from './commandTable';
import { COMPILE_CACHE_FILES_PER_BUNDLE, HELP_WIDTH_WHEN_PIPED } from '../../core/limits';
import { haikuVersion } from './haikuVersion';
import { READER_COMMAND_NAMES } from './readerCommandNames';

// Set by esbuild.mjs (`define`) in the bundle; under tsx neither exists and every invocation goes to main.ts.
declare const HAIKU_BUILT_COMMAND_TABLE: readonly CommandHelp[];
declare const HAIKU_FULL_CLI_BUNDLE: string;
declare const HAIKU_READER_CLI_BUNDLE: string;

/** What asks for help or the version without running a command (commander decides the rest). */
const HELP_OR_VERSION = new Set(['-h', '--help', 'help', '-v', '-V', '--version', 'version']);

/** The version alone, as commander prints it for each spelling (program.ts): no need to build the program. */
const VERSION_ALONE = new Set(['-v', '-V', '--version', 'version']);

/**
 * Prints help or the version from `table` and returns 0, or returns undefined (printing nothing) when `argv` asks
 * for anything else, usage mistakes included, so the full CLI reports those exactly as before.
 */
export function answerHelpOrVersion(table: readonly CommandHelp[], argv: readonly string[], io: CommandIo): number | undefined {
  if (!argv.some((argument) => HELP_OR_VERSION.has(argument))) {
    return undefined;
  }
  if (argv.length === 1 && VERSION_ALONE.has(argv[0])) {
    io.stdout(`${haikuVersion()}\n`);
    return 0;
  }
  // Required here: commander (and the child_process it requires) is most of what `haiku --version` would load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseInvocation } = require('./program') as typeof import('./program');
  const written: Array<{ to: 'stdout' | 'stderr'; text: string }> = [];
  const held: CommandIo = { ...io, stdout: (text) => written.push({ to: 'stdout', text }), stderr: (text) => written.push({ to: 'stderr', text }) };
  const invocation = parseInvocation(helpOnlyCommands(table), argv, held);
  if (!('exitCode' in invocation) || invocation.exitCode !== 0) {
    return undefined;
  }
  for (const { to, text } of written) {
    io[to](text);
  }
  return 0;
}

function main(): void {
  const table = typeof HAIKU_BUILT_COMMAND_TABLE === 'undefined' ? undefined : HAIKU_BUILT_COMMAND_TABLE;
  if (table !== undefined) {
    // `haiku help | head -3` closes the pipe early: the rest of the help is dropped, not an unhandled EPIPE (as in runner.ts).
    const onStdoutError = (error: NodeJS.ErrnoException): void => {
      if (error.code !== 'EPIPE') {
        throw error;
      }
    };
    process.stdout.on('error', onStdoutError);
    const io: CommandIo = {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      cwd: process.cwd(),
      env: process.env,
      stderrColumns: process.stderr.isTTY ? process.stderr.columns || HELP_WIDTH_WHEN_PIPED : undefined,
    };
    const answered = answerHelpOrVersion(table, process.argv.slice(2), io);
    if (answered !== undefined) {
      process.exitCode = answered;
      return;
    }
    process.stdout.off('error', onStdoutError);
  }
  if (typeof HAIKU_FULL_CLI_BUNDLE === 'undefined') {
    // Under tsx: a computed path all the same, so the module graph of this file stays small.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require(path.join(__dirname, 'main')) as typeof import('./main')).startCli();
    return;
  }
  // The bundles' `import()` calls come here (see importThroughEntryPlugin in esbuild.mjs): code compiled by `vm.Script`
  // has no loader of its own for them.
  (globalThis as { __haikuImport?: (specifier: string) => Promise<unknown> }).__haikuImport = (specifier) => import(specifier);
  // The command is the first argument: the program itself takes no flags before it (only --help and --version).
  const bundle = READER_COMMAND_NAMES.includes(process.argv[2]) ? HAIKU_READER_CLI_BUNDLE : HAIKU_FULL_CLI_BUNDLE;
  (requireWithCompileCache(path.join(__dirname, bundle), process.env) as typeof import('./main')).startCli();
}

/**
 * Requires a CommonJS bundle with V8's code cache kept in the user's cache folder (`compileCacheFolder`): compiling
 * dist/cli-main.js (3 MB) was ~0.17 s of CPU in every command, about a fifth of a one-shot `haiku search`. The cache
 * is written at exit when missing or rejected (V8 rejects it after a change of the bundle or of Node); it is keyed
 * by the bundle's size and time, and any failure falls back to compiling as `require` does.
 */
export function requireWithCompileCache(file: string, env: NodeJS.ProcessEnv): unknown {
  const folder = compileCacheFolder(env);
  let cacheFile: string | undefined;
  let cachedData: Buffer | undefined;
  let source: string;
  try {
    const stat = fs.statSync(file);
    source = fs.readFileSync(file, 'utf8');
    if (folder !== undefined) {
      cacheFile = path.join(folder, `${path.basename(file)}-${stat.size}-${Math.floor(stat.mtimeMs)}-${process.version}.v8cache`);
      cachedData = fs.existsSync(cacheFile) ? fs.readFileSync(cacheFile) : undefined;
    }
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file);
  }
  // What `require` does with a .js file: the module wrapper, compiled here so V8 can take and give a code cache.
  const script = new vm.Script(nodeModule.wrap(source.replace(/^#!.*/, '')), { filename: file, cachedData });
  const loaded = new nodeModule.Module(file, module);
  loaded.filename = file;
  loaded.paths = (nodeModule as unknown as { _nodeModulePaths(folder: string): string[] })._nodeModulePaths(path.dirname(file));
  const compiled = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: NodeJS.Module, filename: string, dirname: string) => void;
  compiled.call(loaded.exports, loaded.exports, nodeModule.createRequire(file), loaded, file, path.dirname(file));
  loaded.loaded = true;
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    const target = cacheFile;
    // At exit the cache also holds the functions this command compiled lazily.
    process.once('exit', () => writeCompileCache(folder!, target, script));
  }
  return loaded.exports;
}

/** `$HAIKU_COMPILE_CACHE_DIR`, else `$XDG_CACHE_HOME/haiku` or `~/.cache/haiku`; `HAIKU_COMPILE_CACHE_DIR=off` turns it off. */
function compileCacheFolder(env: NodeJS.ProcessEnv): string | undefined {
  if (env.HAIKU_COMPILE_CACHE_DIR === 'off') {
    return undefined;
  }
  if (env.HAIKU_COMPILE_CACHE_DIR) {
    return env.HAIKU_COMPILE_CACHE_DIR;
  }
  const base = env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), '.cache') : undefined);
  return base === undefined ? undefined : path.join(base, 'haiku', 'compile-cache');
}

function writeCompileCache(folder: string, cacheFile: string, script: vm.Script): void {
  try {
    // Private to the user: a planted cache would run as their code.
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const partial = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(partial, cacheFile);
    pruneCompileCaches(folder, cacheFile);
  } catch {
    // A read-only home or a full disk: the next run compiles again.
  }
}

/**
 * Deletes the oldest caches of `cacheFile`'s bundle beyond `COMPILE_CACHE_FILES_PER_BUNDLE`: each update of Haiku (or
 * of Node) writes a new one, and nothing else would ever remove the old (a few MB each).
 */
export function pruneCompileCaches(folder: string, cacheFile: string): void {
  const bundle = path.basename(cacheFile).replace(/-\d+-\d+-v[^-]+\.v8cache$/, '');
  const siblings = fs
    .readdirSync(folder)
    .filter((name) => name.startsWith(`${bundle}-`) && name.endsWith('.v8cache'))
    .map((name) => ({ file: path.join(folder, name), writtenMs: fs.statSync(path.join(folder, name)).mtimeMs }))
    .sort((left, right) => right.writtenMs - left.writtenMs);
  for (const { file } of siblings.slice(COMPILE_CACHE_FILES_PER_BUNDLE)) {
    if (file !== cacheFile) {
      fs.rmSync(file, { force: true });
    }
  }
}

if (require.main === module) {
  main();
}
