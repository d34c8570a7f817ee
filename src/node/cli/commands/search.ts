import type { CliCommand } from '../command';
import { numberFlag, stringFlag } from '../command';
import { HaikuError } from '../../../core/errors';
import type { SearchResult } from '../../../core/model/search';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, embedderFromFlags, locationText, printJson, rerankerFromFlags, snippet, wantsJson, withStore } from '../indexAccess';

export const searchCommand: CliCommand = {
  name: 'search',
  usage: 'search "<query>" [--limit N] [--filter SQL] [--expand] [--db dir] [--json]',
  summary: 'Search the index (hybrid with an embedder, else full text)',
  options: {
    ...DATABASE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    limit: { type: 'string' },
    filter: { type: 'string' },
    expand: { type: 'boolean' },
    'reranker-url': { type: 'string' },
    'reranker-model': { type: 'string' },
  },
  async run(context) {
    const query = context.positionals.join(' ').trim();
    if (!query) {
      throw new HaikuError('not_found', 'Give a query, e.g. `haiku search "dependency pre-bundling"`.');
    }
    const limit = numberFlag(context, 'limit');
    const results = await withStore(context, { embedder: embedderFromFlags(context), reranker: rerankerFromFlags(context) }, async (store) => {
      const found = await store.search(query, { limit, filter: stringFlag(context, 'filter'), expand: context.flags.expand === true, abortSignal: context.abortSignal });
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

function resultText(result: SearchResult & { relativePath: string }): string {
  const trail = [result.title, ...result.headings.filter((heading) => heading !== result.title)].filter(Boolean).join(' > ');
  return [
    `${result.rank}. [${formatScore(result.score)}] ${trail}`,
    `   ${locationText(result.relativePath, result.sourceRange, result.pageNumbers)}  (chunk ${result.chunkId})`,
    `   ${snippet(result.content)}`,
  ].join('\n');
}

function formatScore(score: number): string {
  return Math.abs(score) < 0.1 ? score.toFixed(4) : score.toFixed(2);
}
