import type * as lancedb from '@lancedb/lancedb';
import type { LanceStore } from '../../src/node/store/lanceStore';
import type { VectorSearch } from '../../src/node/store/vectorSearch';

/** The store's vector search, to load, drop or inspect its resident copy. */
export function vectorSearchOf(store: LanceStore): VectorSearch {
  return (store as unknown as { vectors: VectorSearch }).vectors;
}

/** The tables the store's vector search reads (the same object the store's reader and writer share). */
function tablesOf(store: LanceStore): { chunks: lancedb.Table } {
  return (vectorSearchOf(store) as unknown as { tables: { chunks: lancedb.Table } }).tables;
}

/** The store's chunks table. */
export function chunksTableOf(store: LanceStore): lancedb.Table {
  return tablesOf(store).chunks;
}

/** A full-text query of the chunks table: whether it left out the rows the FTS index does not cover (`fastSearch`). */
export interface NotedFullTextQuery {
  fast: boolean;
}

/**
 * Runs `work` with the queries of the store's chunks table noted: each vector query (to count them, or read the plan
 * LanceDB ran with `explainPlan`), each full-text query and each `where` condition. The real table answers them.
 */
export async function withChunkQueriesNoted<T>(
  store: LanceStore,
  work: () => Promise<T>,
): Promise<{ result: T; vectorQueries: lancedb.VectorQuery[]; fullTextQueries: NotedFullTextQuery[]; conditions: string[] }> {
  const tables = tablesOf(store);
  const chunks = tables.chunks;
  const vectorQueries: lancedb.VectorQuery[] = [];
  const fullTextQueries: NotedFullTextQuery[] = [];
  const conditions: string[] = [];
  tables.chunks = Object.assign(Object.create(chunks) as lancedb.Table, {
    query: () => {
      const builder = chunks.query();
      const nearestTo = builder.nearestTo.bind(builder);
      const fullTextSearch = builder.fullTextSearch.bind(builder);
      const fastSearch = builder.fastSearch.bind(builder);
      const where = builder.where.bind(builder);
      let noted: NotedFullTextQuery | undefined;
      return Object.assign(builder, {
        nearestTo: (vector: number[]) => {
          const query = nearestTo(vector);
          vectorQueries.push(query);
          return query;
        },
        fullTextSearch: (...args: Parameters<lancedb.Query['fullTextSearch']>) => {
          noted = { fast: false };
          fullTextQueries.push(noted);
          return fullTextSearch(...args);
        },
        fastSearch: () => {
          if (noted) {
            noted.fast = true;
          }
          return fastSearch();
        },
        where: (condition: string) => {
          conditions.push(condition);
          return where(condition);
        },
      });
    },
  });
  try {
    return { result: await work(), vectorQueries, fullTextQueries, conditions };
  } finally {
    tables.chunks = chunks;
  }
}
