import type { HaikuConfig } from '../../core/config';
import type { Embedder } from '../../core/embeddings/embedder';
import { HaikuError, isHaikuError, errorMessage, throwIfAborted } from '../../core/errors';
import { EXPANSION_WINDOW_MARGIN, HYBRID_CANDIDATES_PER_LIST, MAX_CONTEXT_CHARS, QUERY_EMBEDDING_CACHE_SIZE, RERANK_POOL_FACTOR, RRF_K, SEARCH_DEFAULT_LIMIT } from '../../core/limits';
import type { SearchOptions, SearchResult } from '../../core/model/search';
import type { Reranker } from '../../core/search/reranker';
import { reciprocalRankFusion } from '../../core/search/rankFusion';
import { expandSearchResults } from '../../core/search/contextExpansion';
import { chunkRecord, type StoredChunkFields } from '../store/schema';
import type { ChunkCandidate } from '../store/storeReader';
import type { CandidateSource } from './candidateSource';

/** `hybrid` needs an embedder and falls back to `fullText` without one. */
export type SearchMode = 'hybrid' | 'fullText' | 'vector';

export interface EngineSearchOptions extends SearchOptions {
  /** Default: hybrid when the index has vectors, else full text. */
  mode?: SearchMode;
  /** Skip the reranker even when one is configured (evaluation). */
  rerank?: boolean;
}

export interface SearchEngineOptions {
  /** The index the candidates come from. */
  source: CandidateSource;
  embedder?: Embedder;
  reranker?: Reranker;
  settings?: Partial<HaikuConfig['search']>;
}

/**
 * Full-text (BM25), vector (resident exact scan) and hybrid search, fused with our own 1-based RRF
 * (LanceDB's native hybrid ranks from 0), then optional reranking and section-aware expansion.
 */
export class SearchEngine {
  private readonly store: CandidateSource;
  private readonly embedder: Embedder | undefined;
  private readonly reranker: Reranker | undefined;
  private readonly settings: HaikuConfig['search'];
  /** Query embeddings of this session (insertion-ordered, oldest evicted first). */
  private readonly queryVectors = new Map<string, Float32Array>();

  constructor(options: SearchEngineOptions) {
    this.store = options.source;
    this.embedder = options.embedder;
    this.reranker = options.reranker;
    this.settings = {
      limit: SEARCH_DEFAULT_LIMIT,
      maxContextChars: MAX_CONTEXT_CHARS,
      rerankPoolFactor: RERANK_POOL_FACTOR,
      fullTextWeight: 1,
      vectorWeight: 1,
      ...options.settings,
    };
  }

  async search(query: string, options: EngineSearchOptions = {}): Promise<SearchResult[]> {
    const text = query.trim();
    const limit = Math.max(0, Math.floor(options.limit ?? this.settings.limit));
    if (text.length === 0 || limit === 0) {
      return [];
    }
    this.store.assertUsable();
    throwIfAborted(options.abortSignal, 'Search');
    const allowed = options.filter?.trim() ? await this.store.documentIdsMatching(options.filter) : undefined;
    if (allowed && allowed.size === 0) {
      return [];
    }
    const useReranker = !!this.reranker && options.rerank !== false;
    const wanted = useReranker ? limit * Math.max(1, Math.floor(this.settings.rerankPoolFactor)) : limit;
    const mode = this.effectiveMode(options.mode);

    let ranked: Array<{ chunkId: string; score: number }>;
    const rows = new Map<string, StoredChunkFields>();
    const remember = (candidates: ChunkCandidate[]) => {
      for (const candidate of candidates) {
        if (candidate.row) {
          rows.set(candidate.chunkId, candidate.row);
        }
      }
    };
    if (mode === 'fullText') {
      const candidates = await this.store.fullTextCandidates(text, wanted, allowed);
      remember(candidates);
      ranked = candidates;
    } else if (mode === 'vector') {
      const vector = await this.queryVector(text, options.abortSignal);
      ranked = await this.store.vectorCandidates(vector, wanted, allowed);
    } else {
      const perList = Math.max(wanted, HYBRID_CANDIDATES_PER_LIST);
      // Rows come with the candidates unless they are resident: the fused top's rows looked up by id cost a fresh
      // process 20-27 ms more at 100k chunks (the id index loads), a first hybrid search 165 -> 125 ms in all.
      const withRows = !this.store.rowsResident;
      // The full-text query runs while the query is embedded (a round trip to the embeddings server, often the longer).
      const fullTextRead = this.store.fullTextCandidates(text, perList, allowed, { withRows });
      fullTextRead.catch(() => undefined);
      const vector = await this.queryVector(text, options.abortSignal);
      const [fullText, nearest] = await Promise.all([fullTextRead, this.store.vectorCandidates(vector, perList, allowed)]);
      remember(fullText);
      remember(nearest);
      const fused = reciprocalRankFusion(
        [
          { ids: fullText.map((candidate) => candidate.chunkId), weight: this.settings.fullTextWeight },
          { ids: nearest.map((candidate) => candidate.chunkId), weight: this.settings.vectorWeight },
        ],
        { k: RRF_K },
      );
      ranked = fused.slice(0, wanted).map((entry) => ({ chunkId: entry.id, score: entry.score }));
    }
    throwIfAborted(options.abortSignal, 'Search');

    const missing = ranked.map((entry) => entry.chunkId).filter((id) => !rows.has(id));
    if (missing.length > 0) {
      for (const [id, row] of await this.store.chunkRowsByIds(missing)) {
        rows.set(id, row);
      }
    }
    const present = ranked.filter((entry) => rows.has(entry.chunkId));
    let scored = present;
    if (useReranker && present.length > 0) {
      scored = await this.rerank(text, present, rows, limit, options.abortSignal);
    }
    const states = await this.store.documentStatesOf(scored.slice(0, limit).map((entry) => rows.get(entry.chunkId)!.document_id));
    let results: SearchResult[] = [];
    for (const entry of scored.slice(0, limit)) {
      const row = rows.get(entry.chunkId)!;
      const state = states.get(row.document_id);
      if (!state) {
        continue;
      }
      const record = chunkRecord(row, state);
      results.push({ ...record, score: entry.score, rank: results.length + 1 });
    }
    if (options.expand && results.length > 0) {
      // Expansion decides everything inside ±EXPANSION_WINDOW_MARGIN positions of a document's matches,
      // so only that window of items is read.
      const windows = new Map<string, [number, number]>();
      for (const result of results) {
        const row = rows.get(result.chunkId)!;
        if (row.first_position < 0) {
          continue;
        }
        const window = windows.get(result.documentId);
        const start = row.first_position - EXPANSION_WINDOW_MARGIN;
        const end = row.last_position + EXPANSION_WINDOW_MARGIN;
        windows.set(result.documentId, window ? [Math.min(window[0], start), Math.max(window[1], end)] : [start, end]);
      }
      const items = await this.store.itemsInWindows(windows);
      results = (await expandSearchResults(results, items, { maxContextChars: this.settings.maxContextChars })).map((result, index) => ({ ...result, rank: index + 1 }));
    }
    return results;
  }

  private effectiveMode(requested: SearchMode | undefined): SearchMode {
    if (requested === 'fullText') {
      return 'fullText';
    }
    if (!this.embedder || !this.store.hasVectors) {
      if (requested === 'vector') {
        throw new HaikuError('invalid_settings', 'Vector search needs an embedder, and this index has no vectors. Configure an embedding model and rebuild the index.', { remedy: { settings: ['embeddings.model'], action: 'rebuild_index' } });
      }
      return 'fullText';
    }
    return requested ?? 'hybrid';
  }

  private async queryVector(text: string, abortSignal: AbortSignal | undefined): Promise<Float32Array> {
    const cached = this.queryVectors.get(text);
    if (cached) {
      return cached;
    }
    let vectors: Float32Array[];
    try {
      vectors = await this.embedder!.embed([text], { kind: 'query', abortSignal });
    } catch (error) {
      if (isHaikuError(error)) {
        throw error;
      }
      throw new HaikuError('embedding_failed', `Embedding the query failed: ${errorMessage(error)}. Check the embeddings server, or search with full text only.`, { cause: error });
    }
    const vector = vectors[0];
    const dimensions = this.store.vectorDimensions;
    if (!vector || vector.length !== dimensions) {
      throw new HaikuError('embedding_failed', `The embedder returned a vector of ${vector?.length ?? 0} dimensions for the query; the index has ${dimensions}.`);
    }
    if (this.queryVectors.size >= QUERY_EMBEDDING_CACHE_SIZE) {
      this.queryVectors.delete(this.queryVectors.keys().next().value!);
    }
    this.queryVectors.set(text, vector);
    return vector;
  }

  private async rerank(
    query: string,
    candidates: Array<{ chunkId: string; score: number }>,
    rows: Map<string, StoredChunkFields>,
    limit: number,
    abortSignal: AbortSignal | undefined,
  ): Promise<Array<{ chunkId: string; score: number }>> {
    // Rerankers see the raw chunk content, as haiku.rag does (spec §2.5).
    const documents = candidates.map((candidate) => rows.get(candidate.chunkId)!.content);
    let scores: Array<{ index: number; score: number }>;
    try {
      scores = await this.reranker!.rerank(query, documents, { topN: Math.min(limit, documents.length), abortSignal });
    } catch (error) {
      if (isHaikuError(error)) {
        throw error;
      }
      throw new HaikuError('rerank_failed', `Reranking failed: ${errorMessage(error)}. Check the reranker server, or turn reranking off.`, { cause: error });
    }
    return scores
      .filter((entry) => entry.index >= 0 && entry.index < candidates.length)
      .sort((left, right) => right.score - left.score)
      .map((entry) => ({ chunkId: candidates[entry.index].chunkId, score: entry.score }));
  }
}
