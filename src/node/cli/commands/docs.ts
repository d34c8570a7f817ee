import type { CliCommand } from '../command';
import { stringFlag } from '../command';
import { DATABASE_OPTIONS, printJson, wantsJson, withStore } from '../indexAccess';

export const docsCommand: CliCommand = {
  name: 'docs',
  usage: 'docs [--filter SQL] [--db dir] [--json]',
  summary: 'List the indexed documents',
  options: { ...DATABASE_OPTIONS, filter: { type: 'string' } },
  async run(context) {
    const { documents, stats } = await withStore(context, {}, async (store) => ({
      documents: await store.listDocuments({ filter: stringFlag(context, 'filter'), abortSignal: context.abortSignal }),
      stats: await store.stats(),
    }));
    if (wantsJson(context)) {
      printJson(context, documents);
      return 0;
    }
    if (documents.length === 0) {
      context.io.stdout('No documents indexed. Run `haiku index <folder>` first.\n');
      return 0;
    }
    const width = Math.max(...documents.map((document) => document.relativePath.length));
    for (const document of documents) {
      context.io.stdout(`${document.relativePath.padEnd(width)}  ${document.format.padEnd(8)}  ${document.id}  ${document.title}\n`);
    }
    context.io.stdout(`${stats.documents} documents, ${stats.chunks} chunks.\n`);
    return 0;
  },
};
