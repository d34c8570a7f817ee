import type { CliCommand } from './command';

/** What commander needs of a command to parse and print help: everything but its code. */
export type CommandHelp = Omit<CliCommand, 'run'>;

/** The commands' help as plain data (JSON), written into the small CLI entry at build time (esbuild.mjs). */
export function commandTable(commands: readonly CliCommand[]): CommandHelp[] {
  return commands.map(({ name, arguments: commandArguments, summary, description, options, examples }) => ({
    name,
    arguments: commandArguments.map(({ syntax, description: text }) => ({ syntax, description: text })),
    summary,
    ...(description === undefined ? {} : { description }),
    options: options.map(({ flags, description: text, value }) => ({ flags, description: text, ...(value === undefined ? {} : { value }) })),
    ...(examples === undefined ? {} : { examples: [...examples] }),
  }));
}

/** Commands that only parse and print help; running one is a bug, since the entry hands commands to the full CLI. */
export function helpOnlyCommands(table: readonly CommandHelp[]): CliCommand[] {
  return table.map((help) => ({
    ...help,
    run: () => Promise.reject(new Error(`haiku ${help.name}: the help-only command table cannot run commands.`)),
  }));
}
