import type { CliCommand } from './command';
import { docsCommand } from './commands/docs';
import { searchCommand } from './commands/search';
import { tocCommand } from './commands/toc';
import { startCommandLine } from './runner';

/**
 * The commands that only read an index (`READER_COMMAND_NAMES`, the same list), in their own bundle (dist/cli-reader.js), which the small entry (`entry.ts`)
 * runs them from: without the indexer, the agent, the MCP server and the AI SDK, a one-shot `haiku search` starts in
 * about half the JavaScript of dist/cli-main.js. Same command objects and runner as the full CLI, so the same output.
 */
export const readerCommands: readonly CliCommand[] = [searchCommand, docsCommand, tocCommand];

/** Runs the process's own invocation of one of `readerCommands` (the entry routed it here by its name). */
export function startCli(): void {
  startCommandLine(readerCommands);
}
