import * as path from 'node:path';
import type { CliCommand } from '../command';
import { HaikuError } from '../../../core/errors';
import { indexPaths } from '../../index/indexer';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, embedderFromFlags, printJson, progressPrinter, summaryText, wantsJson, withStore } from '../indexAccess';

function listFlag(value: unknown): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  return (Array.isArray(value) ? value : [value]).filter((entry): entry is string => typeof entry === 'string');
}

export const indexCommand: CliCommand = {
  name: 'index',
  usage: 'index <paths…> [--include glob] [--exclude glob] [--db dir] [--json]',
  summary: 'Index files and folders (incremental: unchanged files are skipped)',
  options: { ...DATABASE_OPTIONS, ...EMBEDDING_OPTIONS, include: { type: 'string', multiple: true }, exclude: { type: 'string', multiple: true }, quiet: { type: 'boolean' } },
  async run(context) {
    if (context.positionals.length === 0) {
      throw new HaikuError('not_found', 'Name at least one file or folder to index, e.g. `haiku index docs/`.');
    }
    const embedder = embedderFromFlags(context);
    const summary = await withStore(context, { embedder }, (store) =>
      indexPaths({
        roots: context.positionals.map((root) => path.resolve(context.io.cwd, root)),
        baseFolder: context.io.cwd,
        store,
        embedder,
        include: listFlag(context.flags.include),
        exclude: listFlag(context.flags.exclude),
        abortSignal: context.abortSignal,
        onProgress: context.flags.quiet ? undefined : progressPrinter(context),
      }),
    );
    if (wantsJson(context)) {
      printJson(context, summary);
    } else {
      context.io.stdout(summaryText(summary));
    }
    // A path that could not be read is an error even when the rest indexed: its documents were kept, not refreshed.
    const unreadable = summary.failed.some((failure) => failure.code === 'unreadable_file');
    return unreadable || (summary.failed.length > 0 && summary.added.length + summary.updated.length + summary.unchanged === 0) ? 1 : 0;
  },
};
