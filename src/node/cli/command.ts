import type { ParseArgsConfig } from 'node:util';

/** Where a command writes: injectable so tests can capture output without spawning a process. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The folder relative paths and the default database are resolved against. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface CommandContext {
  /** Positional arguments after the command name. */
  positionals: string[];
  /** Parsed flags (strings and booleans as declared in `options`). */
  flags: Record<string, string | boolean | string[] | undefined>;
  io: CommandIo;
  abortSignal: AbortSignal;
}

/** One CLI command, one file under `commands/`. */
export interface CliCommand {
  name: string;
  /** One line: `convert <file> [--json]`. */
  usage: string;
  summary: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Returns the process exit code. */
  run(context: CommandContext): Promise<number>;
}
