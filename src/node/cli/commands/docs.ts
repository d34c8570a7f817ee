import type { CliCommand } from '../command';
import { DATABASE_OPTIONS, FILTER_OPTION, filterFlag, printJson, wantsJson, withStore } from '../indexAccess';
import { terminalFileName } from '../terminalText';

export const docsCommand: CliCommand = {
  name: 'docs',
  arguments: [],
  summary: 'List the indexed documents',
  description: 'List the indexed documents: path, format, id and title, then the document and chunk counts.',
  options: [...DATABASE_OPTIONS, FILTER_OPTION],
  examples: ["haiku docs --filter \"relative_path LIKE 'guides/%'\""],
  async run(context) {
    const filter = filterFlag(context);
    const { documents, stats } = await withStore(context, {}, async (store) => ({
      documents: await store.listDocuments({ filter, abortSignal: context.abortSignal }),
      stats: await store.stats(),
    }));
    if (wantsJson(context)) {
      printJson(context, documents);
      return 0;
    }
    if (documents.length === 0) {
      context.io.stdout(filter === undefined ? 'No documents indexed. Run `haiku index <folder>` first.\n' : `No documents match the filter (${stats.documents} indexed).\n`);
      return 0;
    }
    // Paths and titles are one field of one line each: newlines, tabs and bidirectional controls show escaped.
    const paths = documents.map((document) => terminalFileName(document.relativePath));
    const width = paths.reduce((widest, shown) => Math.max(widest, shown.length), 0);
    documents.forEach((document, index) => {
      context.io.stdout(`${paths[index].padEnd(width)}  ${document.format.padEnd(8)}  ${document.id}  ${terminalFileName(document.title)}\n`);
    });
    context.io.stdout(`${stats.documents} documents, ${stats.chunks} chunks.\n`);
    return 0;
  },
};
