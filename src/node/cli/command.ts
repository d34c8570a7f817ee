/** Where a command reads and writes: injectable so tests can run commands in-process and capture the output. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The folder relative paths and the default database are resolved against. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Standard input, for `-` as a query or question and for `chat`'s prompt; absent means empty. */
  stdin?: NodeJS.ReadableStream;
  /** Set when stdin and stdout are a terminal: `chat` without a question then starts a prompt. */
  interactive?: boolean;
  /** The terminal's width when stderr is a terminal (progress is then drawn as a bar); undefined when piped. */
  stderrColumns?: number;
}

/** How a flag's value is checked at parse time; a bad value is a usage error (exit code 2) naming the flag. */
export type OptionValueKind = 'text' | 'number' | 'positive number' | 'positive integer' | 'repeatable';

/** One flag of a command, as commander spells it (`--limit <number>`, `--json`, `--include <glob...>`). */
export interface CliOption {
  flags: string;
  /** Shown in `haiku <command> --help`; every flag has one. */
  description: string;
  value?: OptionValueKind;
}

/** One positional argument (`<file>`, `[question...]`) with its help text. */
export interface CliArgument {
  syntax: string;
  description: string;
}

export interface CommandContext {
  /** Positional arguments after the command name (variadic ones flattened). */
  positionals: string[];
  /** Parsed flags by their long name without dashes (`base-url`); numbers already checked. */
  flags: Record<string, string | boolean | number | string[] | undefined>;
  io: CommandIo;
  /** Writes to stderr unfiltered (the progress bar's own control sequences); everything else goes through `io`. */
  rawStderr: (text: string) => void;
  abortSignal: AbortSignal;
}

/** One CLI command, one file under `commands/`, one line in `main.ts`'s list. */
export interface CliCommand {
  name: string;
  arguments: readonly CliArgument[];
  /** One line for `haiku help`. */
  summary: string;
  /** Longer help shown by `haiku <command> --help` (defaults to the summary). */
  description?: string;
  options: readonly CliOption[];
  /** Example lines shown after the options in `--help`. */
  examples?: readonly string[];
  /** Returns the process exit code. */
  run(context: CommandContext): Promise<number>;
}

/** A usage mistake found after parsing (a missing question, an empty stdin): exit code 2, like commander's own. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A string flag's value, or undefined. */
export function stringFlag(context: CommandContext, name: string): string | undefined {
  const value = context.flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** A numeric flag's value (checked when parsed), or undefined. */
export function numberFlag(context: CommandContext, name: string): number | undefined {
  const value = context.flags[name];
  return typeof value === 'number' ? value : undefined;
}

/** A repeatable flag's values, or undefined when not given. */
export function listFlag(context: CommandContext, name: string): string[] | undefined {
  const value = context.flags[name];
  if (value === undefined) {
    return undefined;
  }
  return (Array.isArray(value) ? value : [value]).filter((entry): entry is string => typeof entry === 'string');
}

export function booleanFlag(context: CommandContext, name: string): boolean {
  return context.flags[name] === true;
}
