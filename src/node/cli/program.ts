/**
 * The command line's grammar, built with commander from the `CliCommand` list: per-command `--help` with every
 * flag described, `haiku help <command>`, `--version`, and parse errors as exit code 2.
 *
 * Commander only parses here; `runCli` runs the chosen command itself, so a command's own failure (exit code 1)
 * never goes through commander's error path.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HELP_WIDTH_WHEN_PIPED } from '../../core/limits';
import type { CliCommand, CliOption, CommandContext, CommandIo, OptionValueKind } from './command';
import { haikuVersion } from './haikuVersion';

export type Invocation = { command: CliCommand; positionals: string[]; flags: CommandContext['flags'] } | { exitCode: number };

/** `--config <file>`, on every command: the settings file instead of the `haiku.config.json` found from the current folder upwards. */
export const CONFIG_OPTION: CliOption = {
  flags: '--config <file>',
  description: 'Read settings from this file instead of the haiku.config.json found in the current folder or above it (flags and HAIKU_* variables still win).',
};

/** Exit code of a usage error: a missing argument, a bad number, an unknown flag or command. */
export const USAGE_EXIT_CODE = 2;

/** What prints the version besides `--version`: `-v`, `-V` (commander's own short flag) and `haiku version`. */
const VERSION_SPELLINGS = new Set(['-v', '-V', 'version']);

/** Parses `argv` (without `node` and the script); help, version and parse errors come back as an exit code. */
export function parseInvocation(commands: readonly CliCommand[], givenArgv: readonly string[], io: CommandIo): Invocation {
  // Commander takes one short flag per option and has no `version` command; `haiku help --help` is help about help.
  const argv = givenArgv.length === 1 && VERSION_SPELLINGS.has(givenArgv[0])
    ? ['--version']
    : givenArgv[0] === 'help' && (givenArgv[1] === '--help' || givenArgv[1] === '-h') ? ['--help'] : givenArgv;
  let chosen: { command: CliCommand; positionals: string[]; flags: CommandContext['flags'] } | undefined;
  const program = new Command('haiku');
  const width = io.stderrColumns ?? HELP_WIDTH_WHEN_PIPED;
  program
    .description('Index documents (Markdown, HTML, PDF, DOCX, text) into a local LanceDB and search them or ask questions with citations.')
    .version(haikuVersion(), '-v, --version', 'Print the version and exit (also -V, haiku version).')
    .helpOption('-h, --help', 'Show help for the command.')
    .helpCommand('help [command]', 'Show help for a command.')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      getOutHelpWidth: () => width,
      getErrHelpWidth: () => width,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError("Run 'haiku help' for the commands.")
    .addHelpText('after', "\nRun 'haiku help <command>' for a command's arguments and flags.");
  for (const command of commands) {
    const sub = program.command(command.name).summary(command.summary).description(command.description ?? command.summary);
    sub.showHelpAfterError(`Run 'haiku ${command.name} --help' for its arguments and flags.`);
    for (const argument of command.arguments) {
      sub.argument(argument.syntax, argument.description);
    }
    for (const option of [...command.options, CONFIG_OPTION]) {
      sub.addOption(commanderOption(option));
    }
    if (command.examples && command.examples.length > 0) {
      sub.addHelpText('after', `\nExamples:\n${command.examples.map((line) => `  ${line}`).join('\n')}`);
    }
    sub.action(() => {
      chosen = { command, positionals: [...sub.args], flags: flagValues(sub) };
    });
  }
  if (argv[0] === 'help' && argv[1] !== undefined && !commands.some((command) => command.name === argv[1])) {
    // Commander would print the general help; name the mistake instead.
    io.stderr(`error: unknown command '${argv[1]}'\nRun 'haiku help' for the commands.\n`);
    return { exitCode: USAGE_EXIT_CODE };
  }
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for (`--help`, `help <command>`) and `--version` end with 0; everything else commander
      // reports (unknown flag or command, missing argument, bad number, no command at all) is a usage error.
      return { exitCode: error.exitCode === 0 ? 0 : USAGE_EXIT_CODE };
    }
    throw error;
  }
  return chosen ?? { exitCode: USAGE_EXIT_CODE };
}


function commanderOption(option: CliOption): Option {
  const made = new Option(option.flags, option.description);
  switch (option.value) {
    case 'number':
    case 'positive number':
    case 'positive integer':
      return made.argParser((text: string) => parseNumber(text, option.value!));
    case 'repeatable':
      return made.argParser((text: string, previous: string[] | undefined) => [...(previous ?? []), text]);
    default:
      return made;
  }
}

function parseNumber(text: string, kind: OptionValueKind): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) {
    throw new InvalidArgumentError('Give a number.');
  }
  if (kind === 'positive integer' && (!Number.isInteger(value) || value < 1)) {
    throw new InvalidArgumentError('Give a whole number of 1 or more.');
  }
  if (kind === 'positive number' && value <= 0) {
    throw new InvalidArgumentError('Give a number above 0.');
  }
  return value;
}

/** Option values keyed by the long flag without dashes (`base-url`), as the commands name them. */
function flagValues(command: Command): CommandContext['flags'] {
  const values = command.opts<Record<string, unknown>>();
  const flags: CommandContext['flags'] = {};
  for (const option of command.options) {
    // A negated flag (`--no-expand`) is named by what it negates and holds false when given.
    const name = option.negate ? option.attributeName().replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`) : (option.long ?? option.short ?? '').replace(/^-+/, '');
    flags[name] = values[option.attributeName()] as CommandContext['flags'][string];
  }
  return flags;
}
