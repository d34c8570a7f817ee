#!/usr/bin/env node
/**
 * The `haiku` executable (`dist/cli.js`): answers `--version` and help from the commands' help table, which the
 * build writes into this small bundle, and hands everything else to the full CLI (`dist/cli-main.js`, main.ts).
 * Loading that bundle (3 MB of JavaScript, LanceDB's addon, Arrow) took ~0.5 s, which `haiku --version` and
 * `haiku search --help` need not pay.
 */
import * as path from 'node:path';
import type { CommandIo } from './command';
import { type CommandHelp, helpOnlyCommands } from './commandTable';
import { HELP_WIDTH_WHEN_PIPED } from '../../core/limits';
import { parseInvocation } from './program';

// Set by esbuild.mjs (`define`) in the bundle; under tsx neither exists and every invocation goes to main.ts.
declare const HAIKU_BUILT_COMMAND_TABLE: readonly CommandHelp[];
declare const HAIKU_FULL_CLI_BUNDLE: string;

/** What asks for help or the version without running a command (commander decides the rest). */
const HELP_OR_VERSION = new Set(['-h', '--help', 'help', '-v', '-V', '--version', 'version']);

/**
 * Prints help or the version from `table` and returns 0, or returns undefined (printing nothing) when `argv` asks
 * for anything else, usage mistakes included, so the full CLI reports those exactly as before.
 */
export function answerHelpOrVersion(table: readonly CommandHelp[], argv: readonly string[], io: CommandIo): number | undefined {
  if (!argv.some((argument) => HELP_OR_VERSION.has(argument))) {
    return undefined;
  }
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
  }
  // A computed path, so esbuild leaves the full CLI out of this bundle.
  const fullCli = path.join(__dirname, typeof HAIKU_FULL_CLI_BUNDLE === 'undefined' ? 'main' : HAIKU_FULL_CLI_BUNDLE);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require(fullCli) as typeof import('./main')).startCli();
}

if (require.main === module) {
  main();
}
