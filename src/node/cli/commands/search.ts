import { listFlag, type CliCommand } from '../command';
import { commandConfig } from '../../config/cliConfig';
import { SEARCH_DEFAULT_LIMIT } from '../../../core/limits';
import type { DocumentSummary, SearchResult } from '../../../core/model/search';
import { chunkMetaOf } from '../../../core/agent/citations';
import { textArgument } from '../textInput';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, FILTER_OPTION, RERANKER_OPTIONS, filterFlag, embedderFromFlags, locationText, printJson, rerankerFromFlags, snippet, wantsJson, withDatabaseSet, withStore } from '../indexAccess';

export const searchCommand: CliCommand = {
  name: 'search',
  arguments: [{ syntax: '<query...>', description: 'What to search for (several words are one query; - reads it from standard input).' }],
  summary: 'Search the index (hybrid with an embedder, else full text)',
  description: 'Search the index and print ranked chunks with their section trail and line or page. Full-text (BM25) search always; hybrid (reciprocal rank fusion with vector search) when --embeddings-model is given.',
  options: [
    ...DATABASE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    { flags: '--limit <count>', description: `How many results to print (default: search.limit in haiku.config.json, else ${SEARCH_DEFAULT_LIMIT}).`, value: 'positive integer' },
    FILTER_OPTION,
    { flags: '--expand', description: "Grow each hit to its surrounding section's text (context expansion)." },
    ...RERANKER_OPTIONS,
  ],
  examples: ['haiku search "dependency pre-bundling" --limit 5', "haiku search caching --filter \"format = 'pdf'\" --json"],
  async run(context) {
    const query = await textArgument(context, 'query', 'haiku search "dependency pre-bundling"');
    const limit = commandConfig(context).search.limit;
    const searchOptions = { limit, filter: filterFlag(context), expand: context.flags.expand === true, abortSignal: context.abortSignal };
    const storeOptions = { embedder: embedderFromFlags(context), reranker: rerankerFromFlags(context) };
    const withMetadata = (result: SearchResult, document: DocumentSummary | undefined) => ({
      ...result,
      relativePath: document?.relativePath ?? result.uri,
      documentMeta: document?.metadata ?? {},
      chunkMeta: chunkMetaOf(result),
    });
    const results: Array<ReturnType<typeof withMetadata> & { database?: string }> = (listFlag(context, 'db')?.length ?? 0) > 1
      // Several --db: one ranking fused across the databases, each result labelled with its database.
      ? await withDatabaseSet(context, storeOptions, async (set) => {
        const documents = new Map<string, DocumentSummary>();
        for (const database of set.databases) {
          for (const document of await database.store.listDocuments()) {
            documents.set(`${database.name}\u0000${document.id}`, document);
          }
        }
        return (await set.search(query, searchOptions)).map((result) => ({ ...withMetadata(result, documents.get(`${result.database}\u0000${result.documentId}`)), database: result.database }));
      })
      : await withStore(context, storeOptions, async (store) => {
        const found = await store.search(query, searchOptions);
        const documents = new Map((await store.listDocuments()).map((document) => [document.id, document]));
        return found.map((result) => withMetadata(result, documents.get(result.documentId)));
      });
    if (wantsJson(context)) {
      printJson(context, results);
    } else {
      context.io.stdout(results.length === 0 ? 'No results.\n' : results.map(resultText).join('\n') + '\n');
    }
    return 0;
  },
};

function resultText(result: SearchResult & { relativePath: string; database?: string }): string {
  const trail = [result.title, ...result.headings.filter((heading) => heading !== result.title)].filter(Boolean).join(' > ');
  return [
    `${result.rank}. [${formatScore(result.score)}]${result.database ? ` (${result.database})` : ''} ${trail}`,
    `   ${locationText(result.relativePath, result.sourceRange, result.pageNumbers)}  (chunk ${result.chunkId})`,
    `   ${snippet(result.content)}`,
  ].join('\n');
}

function formatScore(score: number): string {
  return Math.abs(score) < 0.1 ? score.toFixed(4) : score.toFixed(2);
}
