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
  flags: Record<string, string | boolean | Array<string | boolean> | undefined>;
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

/** A string flag's value, or undefined (for flags declared `type: 'string'`). */
export function stringFlag(context: CommandContext, name: string): string | undefined {
  const value = context.flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** A numeric flag's value; a non-number is a usage error with a message that names the flag. */
export function numberFlag(context: CommandContext, name: string): number | undefined {
  const value = stringFlag(context, name);
  if (value === undefined) {
    return undefined;
  }
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) {
    throw new Error(`--${name} takes a number, got '${value}'.`);
  }
  return parsed;
}
