#!/usr/bin/env node
import type { CommandIo } from './command';
import { cliCommands } from './cliCommands';
import { runCommandLine, startCommandLine } from './runner';

/**
 * Runs one CLI invocation and returns its exit code instead of exiting, so tests can call it in-process:
 * 0 success, 1 the command failed, 2 a usage error, 130 cancelled through `abortSignal` (Ctrl-C).
 */
export function runCli(argv: string[], io: CommandIo, abortSignal: AbortSignal = new AbortController().signal): Promise<number> {
  return runCommandLine(cliCommands, argv, io, abortSignal);
}

/**
 * Runs the process's own invocation. Called when this module is the main script (tsx) and by the small entry
 * (`entry.ts`, `dist/cli.js`) for everything but help, the version and the index readers (`readerMain.ts`).
 */
export function startCli(): void {
  startCommandLine(cliCommands);
}

if (require.main === module) {
  startCli();
}
