import * as path from 'node:path';
import { booleanFlag, listFlag, UsageError, type CliCommand } from '../command';
import { globProblem } from '../../../core/excludeGlobs';
import type { IndexWarning } from '../../index/indexer';
import { indexWithRules } from '../../backend/indexWithRules';
import { createProgressReporter } from '../progress';
import { settingFlagOption } from '../settingFlags';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, PICTURES_OPTIONS, QUIET_OPTION, embedderFromFlags, picturesFromFlags, printJson, summaryText, wantsJson, withIndex } from '../indexAccess';

export const indexCommand: CliCommand = {
  name: 'index',
  arguments: [{ syntax: '<paths...>', description: 'Files and folders to index; folders are walked (.gitignore respected).' }],
  summary: 'Index files and folders (incremental: unchanged files are skipped)',
  description: 'Index files and folders: Markdown, HTML, PDF, DOCX and text. Incremental: an unchanged file costs a stat, a changed one is re-indexed alone, a deleted one is removed.',
  options: [
    ...DATABASE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    { flags: '--include <glob>', description: 'Index only files matching this glob (repeat for more).', value: 'repeatable' },
    { flags: '--exclude <glob>', description: 'Skip files matching this glob, on top of the default exclusions (repeat for more).', value: 'repeatable' },
    { flags: '--prune', description: 'Remove the documents of a folder even when no file in it matches the patterns (without it, such a run changes nothing and fails).' },
    settingFlagOption('follow-links-outside'),
    settingFlagOption('source-root'),
    ...PICTURES_OPTIONS,
    QUIET_OPTION,
  ],
  examples: ['haiku index docs/', "haiku index . --include '**/*.md' --exclude 'drafts/**'"],
  async run(context) {
    for (const flag of ['include', 'exclude']) {
      for (const glob of listFlag(context, flag) ?? []) {
        const problem = globProblem(glob);
        if (problem) {
          throw new UsageError(`--${flag} '${glob}' is not a valid glob: ${problem}`);
        }
      }
    }
    const embedder = embedderFromFlags(context);
    const progress = createProgressReporter(context);
    // Validates --pictures; the value itself reaches the rules through the layered configuration.
    picturesFromFlags(context);
    // The configured rules (source root, include/exclude, size limit, links, pictures) as MCP and VS Code apply them.
    const summary = await withIndex(context, { embedder, createIfMissing: true }, (index) =>
      indexWithRules(index, context.positionals.map((root) => path.resolve(context.io.cwd, root)), {
        include: listFlag(context, 'include'),
        // --exclude adds to the configured exclusions (the defaults, or the config file's list).
        extraExclude: listFlag(context, 'exclude'),
        pruneWhenNothingMatches: booleanFlag(context, 'prune'),
        abortSignal: context.abortSignal,
        onProgress: progress.onProgress,
      }),
    ).finally(() => progress.finish());
    if (wantsJson(context)) {
      printJson(context, summary);
    } else {
      context.io.stdout(summaryText(summary) + warningsText(summary.warnings));
    }
    // A path that could not be read is an error even when the rest indexed: its documents were kept, not refreshed.
    const unreadable = summary.failed.some((failure) => failure.code === 'unreadable_file');
    return unreadable || (summary.failed.length > 0 && summary.added.length + summary.updated.length + summary.unchanged === 0) ? 1 : 0;
  },
};

/** The run's warnings (files indexed only in part), one line each under the summary. */
export function warningsText(warnings: readonly IndexWarning[]): string {
  return warnings.map((warning) => `  warning: ${warning.message}\n`).join('');
}
