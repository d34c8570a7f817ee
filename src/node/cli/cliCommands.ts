import type { CliCommand } from './command';
import { convertCommand } from './commands/convert';
import { indexCommand } from './commands/indexFiles';
import { searchCommand } from './commands/search';
import { docsCommand } from './commands/docs';
import { tocCommand } from './commands/toc';
import { rebuildCommand } from './commands/rebuild';
import { removeCommand } from './commands/remove';
import { addCommand } from './commands/add';
import { demoCommand } from './commands/demo';
import { askCommand } from './commands/ask';
import { chatCommand } from './commands/chat';
import { analyzeCommand } from './commands/analyze';
import { mcpCommand } from './commands/mcp';
import { visualizeCommand } from './commands/visualize';
import { trustCommand } from './commands/trust';
import { completionCommand } from './commands/completion';

/**
 * Every command, in the order `haiku help` lists them. Its own module so the build can write the commands'
 * help (`commandTable.ts`) into the small `dist/cli.js` entry without the commands' code.
 */
export const cliCommands: readonly CliCommand[] = [
  demoCommand, indexCommand, addCommand, searchCommand, askCommand, chatCommand, analyzeCommand, docsCommand, tocCommand, rebuildCommand, removeCommand, convertCommand, visualizeCommand,
  mcpCommand, trustCommand, completionCommand(() => cliCommands),
];
