import type { StoredItem } from '../../core/model/search';
import type { DocumentState, StoredChunkFields } from '../store/schema';
import type { ChunkCandidate } from '../store/storeReader';

/** What the search engine needs from an index: candidates, rows by id, item windows, document states. */
export interface CandidateSource {
  /** Throws the typed "rebuild needed" error when the index cannot be read. */
  assertUsable(): void;
  /** True when chunks carry vectors of the configured embedder. */
  readonly hasVectors: boolean;
  readonly vectorDimensions: number | undefined;
  /** True while every chunk's result fields are held in memory: candidates need not carry their rows. */
  readonly rowsResident: boolean;
  /** The states of these documents (the map may hold others too). */
  documentStatesOf(documentIds: Iterable<string>): Promise<ReadonlyMap<string, DocumentState>>;
  /** Ids of the documents a SQL condition over document columns selects (a bad condition is a typed error). */
  documentIdsMatching(filter: string): Promise<Set<string>>;
  fullTextCandidates(query: string, limit: number, allowedDocumentIds?: ReadonlySet<string>, options?: { withRows?: boolean }): Promise<ChunkCandidate[]>;
  vectorCandidates(vector: Float32Array, limit: number, allowedDocumentIds?: ReadonlySet<string>): Promise<ChunkCandidate[]>;
  chunkRowsByIds(chunkIds: readonly string[]): Promise<Map<string, StoredChunkFields>>;
  itemsInWindows(windows: ReadonlyMap<string, readonly [number, number]>): Promise<Map<string, StoredItem[]>>;
}
