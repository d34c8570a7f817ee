/**
 * Running a command line: parsing, the command's failure as an exit code, Ctrl-C and a closed stdout. Shared by the
 * full CLI (`main.ts`, dist/cli-main.js) and the index readers' bundle (`readerMain.ts`, dist/cli-reader.js).
 */
import { UsageError, type CliCommand, type CommandIo } from './command';
import { errorMessage } from '../../core/errors';
import { HELP_WIDTH_WHEN_PIPED } from '../../core/limits';
import { CONFIG_OPTION, parseInvocation, USAGE_EXIT_CODE } from './program';
import { cliErrorText, flagNames } from '../config/cliErrorWording';
import { stripTerminalControls } from './terminalText';

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130;

/**
 * Runs one invocation of `commands` and returns its exit code instead of exiting: 0 success, 1 the command failed,
 * 2 a usage error, 130 cancelled through `abortSignal` (Ctrl-C). The full CLI (`main.ts`) runs every command, the
 * index readers' bundle (`readerMain.ts`) a few.
 */
export async function runCommandLine(commands: readonly CliCommand[], argv: string[], io: CommandIo, abortSignal: AbortSignal): Promise<number> {
  const invocation = parseInvocation(commands, argv, io);
  if ('exitCode' in invocation) {
    return invocation.exitCode;
  }
  const { command, positionals, flags } = invocation;
  // Document text and file names can hold terminal escape sequences; nothing a command prints passes them on.
  const terminalIo: CommandIo = { ...io, stdout: (text) => io.stdout(stripTerminalControls(text)), stderr: (text) => io.stderr(stripTerminalControls(text)) };
  try {
    const code = await command.run({ positionals, flags, io: terminalIo, rawStderr: io.stderr, abortSignal });
    return abortSignal.aborted ? INTERRUPTED_EXIT_CODE : code;
  } catch (error) {
    // After Ctrl-C the failure is whatever the interrupted step threw; the user asked for it, so say only that.
    if (abortSignal.aborted) {
      terminalIo.stderr(`haiku ${command.name}: interrupted.\n`);
      return INTERRUPTED_EXIT_CODE;
    }
    terminalIo.stderr(`haiku ${command.name}: ${cliErrorText(error, flagNames([...command.options, CONFIG_OPTION]))}\n`);
    if (error instanceof UsageError) {
      terminalIo.stderr(`Run 'haiku ${command.name} --help' for its arguments and flags.\n`);
      return USAGE_EXIT_CODE;
    }
    return 1;
  }
}

/** Runs the process's own invocation of `commands`: Ctrl-C, a closed stdout, the exit code. */
export function startCommandLine(commands: readonly CliCommand[]): void {
  process.env.LANCEDB_LOG ??= 'error';
  const controller = new AbortController();
  // The first Ctrl-C cancels the running work, which closes the index cleanly; a second one exits at once.
  process.on('SIGINT', () => {
    if (controller.signal.aborted) {
      process.exit(INTERRUPTED_EXIT_CODE);
    }
    controller.abort();
  });
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
    stdin: process.stdin,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    stderrColumns: process.stderr.isTTY ? process.stderr.columns || HELP_WIDTH_WHEN_PIPED : undefined,
  };
  runCommandLine(commands, process.argv.slice(2), io, controller.signal).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`haiku: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
