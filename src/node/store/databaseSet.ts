import { HaikuError } from '../../core/errors';
import { MULTI_DATABASE_RRF_K } from '../../core/limits';
import type { SearchOptions, SearchResult } from '../../core/model/search';
import type { LanceStore } from './lanceStore';

/** One index of several searched together, with the name its results are labelled with. */
export interface NamedDatabase {
  name: string;
  uri: string;
}

/** A result of a multi-database search: which database it came from. */
export type LabelledResult = SearchResult & { database: string };

/**
 * `name=uri` gives a name; a bare URI or folder is named after its last path segment. Several databases get
 * distinct names (a repeated name gets `-2`, `-3`, …).
 */
export function namedDatabases(values: readonly string[]): NamedDatabase[] {
  const used = new Set<string>();
  return values.map((value) => {
    const match = /^([A-Za-z][\w.-]*)=(.+)$/.exec(value);
    const uri = match ? match[2] : value;
    const base = match ? match[1] : (uri.replace(/[/\\]+$/, '').split(/[/\\]/).pop() || uri);
    let name = base;
    for (let suffix = 2; used.has(name); suffix++) {
      name = `${base}-${suffix}`;
    }
    used.add(name);
    return { name, uri };
  });
}

/**
 * Several open indexes searched as one (haiku.rag's multi-database search): each ranks on its own, the rankings
 * are fused by reciprocal rank (k = `MULTI_DATABASE_RRF_K`), and every result names its database. All must have
 * been built with one embedder, or vector scores and hybrid rankings would not be comparable.
 */
export class DatabaseSet {
  readonly databases: ReadonlyArray<{ name: string; store: LanceStore }>;

  constructor(databases: ReadonlyArray<{ name: string; store: LanceStore }>) {
    const identities = databases.map((database) => ({ name: database.name, embedder: database.store.storedEmbedderId ?? 'none (full text only)' }));
    if (new Set(identities.map((identity) => identity.embedder)).size > 1) {
      throw new HaikuError(
        'invalid_settings',
        `These indexes were built with different embedders, so their results cannot be ranked together: ${identities.map((identity) => `${identity.name}: ${identity.embedder}`).join('; ')}. Search them one at a time, or rebuild them with one embeddings model.`,
      );
    }
    this.databases = databases;
  }

  async search(query: string, options: SearchOptions = {}): Promise<LabelledResult[]> {
    const limit = options.limit;
    const rankings = await Promise.all(this.databases.map(async (database) => (await database.store.search(query, options)).map((result) => ({ ...result, database: database.name }))));
    const fused = new Map<string, { result: LabelledResult; score: number; order: number }>();
    rankings.forEach((ranking, databaseIndex) => {
      ranking.forEach((result, index) => {
        const key = `${result.database}\u0000${result.chunkId}`;
        fused.set(key, { result, score: 1 / (MULTI_DATABASE_RRF_K + index + 1), order: databaseIndex });
      });
    });
    const ordered = [...fused.values()].sort((left, right) => right.score - left.score || left.order - right.order);
    return ordered.slice(0, limit ?? ordered.length).map((entry, index) => ({ ...entry.result, score: entry.score, rank: index + 1 }));
  }
}
