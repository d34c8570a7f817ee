import type { CliCommand } from '../command';
import { listFlag, numberFlag } from '../command';
import { SEARCH_DEFAULT_LIMIT } from '../../../core/limits';
import type { SearchResult } from '../../../core/model/search';
import { textArgument } from '../textInput';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, FILTER_OPTION, filterFlag, embedderFromFlags, locationText, printJson, rerankerFromFlags, snippet, wantsJson, withDatabaseSet, withStore } from '../indexAccess';

export const searchCommand: CliCommand = {
  name: 'search',
  arguments: [{ syntax: '<query...>', description: 'What to search for (several words are one query; - reads it from standard input).' }],
  summary: 'Search the index (hybrid with an embedder, else full text)',
  description: 'Search the index and print ranked chunks with their section trail and line or page. Full-text (BM25) search always; hybrid (reciprocal rank fusion with vector search) when --embeddings-model is given.',
  options: [
    ...DATABASE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    { flags: '--limit <count>', description: `How many results to print (default ${SEARCH_DEFAULT_LIMIT}).`, value: 'positive integer' },
    FILTER_OPTION,
    { flags: '--expand', description: "Grow each hit to its surrounding section's text (context expansion)." },
    { flags: '--reranker-url <url>', description: 'Base URL of an HTTP reranker (POST {url}/rerank, Cohere or TEI style) applied to the hits.' },
    { flags: '--reranker-model <name>', description: 'Model name sent to the reranker.' },
  ],
  examples: ['haiku search "dependency pre-bundling" --limit 5', "haiku search caching --filter \"format = 'pdf'\" --json"],
  async run(context) {
    const query = await textArgument(context, 'query', 'haiku search "dependency pre-bundling"');
    const limit = numberFlag(context, 'limit');
    const searchOptions = { limit, filter: filterFlag(context), expand: context.flags.expand === true, abortSignal: context.abortSignal };
    const storeOptions = { embedder: embedderFromFlags(context), reranker: rerankerFromFlags(context) };
    const results: Array<SearchResult & { relativePath: string; database?: string }> = (listFlag(context, 'db')?.length ?? 0) > 1
      // Several --db: one ranking fused across the databases, each result labelled with its database.
      ? await withDatabaseSet(context, storeOptions, async (set) => {
        const paths = new Map<string, string>();
        for (const database of set.databases) {
          for (const document of await database.store.listDocuments()) {
            paths.set(`${database.name}\u0000${document.id}`, document.relativePath);
          }
        }
        return (await set.search(query, searchOptions)).map((result) => ({ ...result, relativePath: paths.get(`${result.database}\u0000${result.documentId}`) ?? result.uri }));
      })
      : await withStore(context, storeOptions, async (store) => {
        const found = await store.search(query, searchOptions);
        const paths = new Map((await store.listDocuments()).map((document) => [document.id, document.relativePath]));
        return found.map((result) => ({ ...result, relativePath: paths.get(result.documentId) ?? result.uri }));
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
