import type { CliCommand } from '../command';
import { HaikuError } from '../../../core/errors';
import { rebuildIndex } from '../../index/indexer';
import { createProgressReporter } from '../progress';
import { warningsText } from './indexFiles';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, PICTURES_OPTIONS, QUIET_OPTION, embedderFromFlags, pictureDescriptionFromFlags, picturesFromFlags, printJson, summaryText, wantsJson, withStore } from '../indexAccess';

export const rebuildCommand: CliCommand = {
  name: 'rebuild',
  arguments: [],
  summary: 'Drop the index and re-index every folder indexed before',
  description: 'Drop the index and re-index every folder indexed before (needed after a change of embedding model or of Haiku version).',
  options: [...DATABASE_OPTIONS, ...EMBEDDING_OPTIONS, ...PICTURES_OPTIONS, QUIET_OPTION],
  async run(context) {
    const embedder = embedderFromFlags(context);
    const progress = createProgressReporter(context);
    const summary = await withStore(context, { embedder }, async (store) => {
      if (store.roots.length === 0 && (await store.stats().catch(() => ({ documents: 0 }))).documents === 0 && !store.rebuildNeeded) {
        throw new HaikuError('not_found', 'Nothing to rebuild: this index has no indexed folders. Run `haiku index <folder>` first.');
      }
      return rebuildIndex({
        store,
        embedder,
        pictures: picturesFromFlags(context),
        pictureDescription: pictureDescriptionFromFlags(context),
        abortSignal: context.abortSignal,
        onProgress: progress.onProgress,
      });
    }).finally(() => progress.finish());
    if (wantsJson(context)) {
      printJson(context, summary);
    } else {
      context.io.stdout(`Rebuilt from ${summary.roots.map((root) => root.path).join(', ') || '(no roots)'}.\n` + summaryText(summary) + warningsText(summary.warnings));
    }
    // As \`index\`: a folder that could not be read kept its documents, not refreshed.
    return summary.failed.some((failure) => failure.code === 'unreadable_file') ? 1 : 0;
  },
};
