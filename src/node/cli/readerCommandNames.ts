/**
 * The commands the small entry (`entry.ts`) hands to the index readers' bundle (dist/cli-reader.js, `readerMain.ts`)
 * instead of the full CLI, by the invocation's first argument. Its own module so the entry carries only the names.
 */
export const READER_COMMAND_NAMES: readonly string[] = ['search', 'docs', 'toc'];
