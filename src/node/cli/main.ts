#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { CliCommand, CommandIo } from './command';
import { errorMessage, isHaikuError } from '../../core/errors';
import { convertCommand } from './commands/convert';
import { indexCommand } from './commands/indexFiles';
import { searchCommand } from './commands/search';
import { docsCommand } from './commands/docs';
import { tocCommand } from './commands/toc';
import { rebuildCommand } from './commands/rebuild';
import { removeCommand } from './commands/remove';
import { demoCommand } from './commands/demo';
import { askCommand } from './commands/ask';
import { analyzeCommand } from './commands/analyze';
import { mcpCommand } from './commands/mcp';

/** Every command, in the order `haiku help` lists them. */
const commands: CliCommand[] = [demoCommand, indexCommand, searchCommand, askCommand, analyzeCommand, docsCommand, tocCommand, rebuildCommand, removeCommand, convertCommand, mcpCommand];

function helpText(): string {
  const width = Math.max(...commands.map((command) => command.usage.length));
  return ['Usage: haiku <command> [options]', '', ...commands.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`)].join('\n') + '\n';
}

/** Runs one CLI invocation; returns the exit code instead of exiting, so tests can call it in-process. */
export async function runCli(argv: string[], io: CommandIo, abortSignal: AbortSignal = new AbortController().signal): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout(helpText());
    return name ? 0 : 1;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr(`haiku: unknown command '${name}'. Run 'haiku help' for the list.\n`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr(`haiku ${name}: ${errorMessage(error)}\nUsage: haiku ${command.usage}\n`);
    return 2;
  }
  try {
    return await command.run({ positionals: parsed.positionals, flags: parsed.values, io, abortSignal });
  } catch (error) {
    io.stderr(`haiku ${name}: ${errorMessage(error)}\n`);
    return isHaikuError(error, 'cancelled') ? 130 : 1;
  }
}

if (require.main === module) {
  process.env.LANCEDB_LOG ??= 'error';
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  // A reader that stops early (`haiku search … | head`) closes the pipe: drop further output and let the
  // command finish (an index run still completes) instead of dying on an unhandled EPIPE.
  let stdoutClosed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') {
      throw error;
    }
    stdoutClosed = true;
  });
  const io: CommandIo = {
    stdout: (text) => {
      if (!stdoutClosed) {
        process.stdout.write(text);
      }
    },
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
  };
  runCli(process.argv.slice(2), io, controller.signal).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`haiku: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
