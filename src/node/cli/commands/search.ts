import { stringFlag, UsageError, type CliCommand, type CommandContext } from '../command';
import { commandConfig } from '../../config/cliConfig';
import type { DocumentSummary, SearchResult } from '../../../core/model/search';
import { chunkMetaOf } from '../../../core/agent/citations';
import type { Embedder } from '../../../core/embeddings/embedder';
import type { EngineSearchOptions, SearchMode } from '../../search/searchEngine';
import { settingFlagOption } from '../settingFlags';
import { textArgument } from '../textInput';
import { DATABASE_OPTIONS, databaseLocations, EMBEDDING_OPTIONS, FILTER_OPTION, RERANKER_OPTIONS, filterFlag, embedderFromFlags, locationText, printJson, rerankerFromFlags, snippet, wantsJson, withDatabaseSet, withStore } from '../indexAccess';

export const searchCommand: CliCommand = {
  name: 'search',
  arguments: [{ syntax: '<query...>', description: 'What to search for (several words are one query; - reads it from standard input).' }],
  summary: 'Search the index (hybrid with an embedder, else full text; --search-type picks one)',
  description:
    'Search the index and print ranked chunks with their section trail and line or page. Full-text (BM25) search always; hybrid (reciprocal rank fusion with vector search) when --embeddings-model is given. --search-type fts, vector or hybrid picks the search; vector and hybrid need the embedder the index was built with.',
  options: [
    ...DATABASE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    settingFlagOption('limit'),
    FILTER_OPTION,
    {
      flags: '--search-type <type>',
      description: 'fts (full text, BM25), vector (nearest embeddings) or hybrid (both, fused). Default: hybrid with an embedder, else fts. vector and hybrid need --embeddings-model.',
    },
    { flags: '--expand', description: "Grow each hit to its surrounding section's text (context expansion)." },
    ...RERANKER_OPTIONS,
  ],
  examples: ['haiku search "dependency pre-bundling" --limit 5', "haiku search caching --filter \"format = 'pdf'\" --json"],
  async run(context) {
    const query = await textArgument(context, 'query', 'haiku search "dependency pre-bundling"');
    const limit = commandConfig(context).search.limit;
    const embedder = embedderFromFlags(context);
    const mode = searchModeFromFlags(context, embedder);
    // The engine reads `mode`; a database set hands these options to each index's engine as they are.
    const searchOptions: EngineSearchOptions = { limit, filter: filterFlag(context), expand: context.flags.expand === true, abortSignal: context.abortSignal, mode };
    const storeOptions = { embedder, reranker: rerankerFromFlags(context) };
    const withMetadata = (result: SearchResult, document: DocumentSummary | undefined) => ({
      ...result,
      relativePath: document?.relativePath ?? result.uri,
      documentMeta: document?.metadata ?? {},
      chunkMeta: chunkMetaOf(result),
    });
    const results: Array<ReturnType<typeof withMetadata> & { database?: string }> = databaseLocations(context).length > 1
      // Several --db (or the config file's index.additional_databases): one ranking fused across the databases, each result labelled with its database.
      ? await withDatabaseSet(context, storeOptions, async (set) => {
        const documents = new Map<string, DocumentSummary>();
        for (const database of set.databases) {
          requireVectors(mode, database.store.hasVectors, database.name);
          for (const document of await database.store.listDocuments()) {
            documents.set(`${database.name}\u0000${document.id}`, document);
          }
        }
        return (await set.search(query, searchOptions)).map((result) => ({ ...withMetadata(result, documents.get(`${result.database}\u0000${result.documentId}`)), database: result.database }));
      })
      : await withStore(context, { ...storeOptions, transient: true }, async (store) => {
        requireVectors(mode, store.hasVectors);
        const found = await store.searchWith(query, searchOptions);
        // The hits' documents only: listing them all sorted every path (and loaded ICU's collator) for ten results.
        const documents = new Map<string, DocumentSummary | undefined>();
        for (const documentId of new Set(found.map((result) => result.documentId))) {
          documents.set(documentId, await store.getDocument(documentId));
        }
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

/** `--search-type` as the spec spells it (haiku-rag's `search --search-type`) → the engine's modes. */
const SEARCH_TYPES: Readonly<Record<string, SearchMode>> = { fts: 'fullText', vector: 'vector', hybrid: 'hybrid' };

/** The requested search, checked: undefined lets the engine choose (hybrid with vectors, else full text). */
function searchModeFromFlags(context: CommandContext, embedder: Embedder | undefined): SearchMode | undefined {
  const given = stringFlag(context, 'search-type');
  if (given === undefined) {
    return undefined;
  }
  const type = given.trim().toLowerCase();
  const mode = Object.hasOwn(SEARCH_TYPES, type) ? SEARCH_TYPES[type] : undefined;
  if (mode === undefined) {
    throw new UsageError(`--search-type is "${given}"; use fts (full text), vector or hybrid.`);
  }
  if (mode !== 'fullText' && !embedder) {
    throw new UsageError(`--search-type ${type} needs an embedder: give --embeddings-model (the model the index was built with), or use --search-type fts.`);
  }
  return mode;
}

/** Vector and hybrid search need an index built with vectors; without them the engine would fall back to full text silently. */
function requireVectors(mode: SearchMode | undefined, hasVectors: boolean, databaseName?: string): void {
  if ((mode === 'vector' || mode === 'hybrid') && !hasVectors) {
    const which = databaseName === undefined ? 'The index' : `The index ${databaseName}`;
    throw new UsageError(
      `${which} has no vectors (it was built without an embedder), so --search-type ${mode} cannot run. Use --search-type fts, or rebuild the index with --embeddings-model.`,
    );
  }
}

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
