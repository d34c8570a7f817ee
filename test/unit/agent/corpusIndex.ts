import * as path from 'node:path';
import type { ChunkRecord, KnowledgeBase, SearchOptions, SearchResult } from '../../../src/core/model/search';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';

export const GUIDE_FOLDER = path.join(corpusRoot, 'vite-docs', 'docs', 'guide');
/** Three Vite guide pages: enough documents for filters, small enough to index in about a second. */
export const GUIDE_FILES = ['dep-pre-bundling.md', 'env-and-mode.md', 'static-deploy.md'];

/** A real LanceDB index (full text, no embedder) of corpus documents in a temp folder. */
export interface CorpusIndex {
  store: LanceStore;
  databasePath: string;
  folder: string;
  close(): Promise<void>;
}

export async function buildCorpusIndex(files: readonly string[] = GUIDE_FILES): Promise<CorpusIndex> {
  const folder = temporaryFolder('haiku-agent-');
  const databasePath = path.join(folder.path, 'index');
  const store = await openStore({ uri: databasePath });
  const summary = await indexPaths({ roots: files.map((file) => path.join(GUIDE_FOLDER, file)), store, baseFolder: GUIDE_FOLDER });
  if (summary.added.length !== files.length) {
    throw new Error(`indexing the corpus fixture failed: ${JSON.stringify(summary.failed)}`);
  }
  return {
    store,
    databasePath,
    folder: folder.path,
    close: async () => {
      await store.close();
      folder.cleanup();
    },
  };
}

/** A stored chunk of `relativePath` whose raw content contains `text` (found through full-text search). */
export async function chunkContaining(store: LanceStore, relativePath: string, text: string): Promise<ChunkRecord> {
  const hits = await store.search(text, { limit: 20, filter: `relative_path = '${relativePath}'` });
  const hit = hits.find((candidate) => candidate.content.includes(text));
  if (!hit) {
    throw new Error(`no chunk of ${relativePath} contains "${text}"`);
  }
  const [record] = await store.getChunks([hit.chunkId]);
  return record;
}

/** The knowledge base as the agent sees it, with every search call recorded (the store does the work). */
export class RecordingKnowledgeBase implements KnowledgeBase {
  readonly searchCalls: Array<{ query: string; options?: SearchOptions }> = [];
  constructor(private readonly inner: KnowledgeBase) {}
  search(query: string, options?: SearchOptions): Promise<SearchResult[]> {
    this.searchCalls.push({ query, options });
    return this.inner.search(query, options);
  }
  listDocuments: KnowledgeBase['listDocuments'] = (options) => this.inner.listDocuments(options);
  getDocument: KnowledgeBase['getDocument'] = (documentId, options) => this.inner.getDocument(documentId, options);
  getDocumentContent: KnowledgeBase['getDocumentContent'] = (documentId) => this.inner.getDocumentContent(documentId);
  getDocumentItems: KnowledgeBase['getDocumentItems'] = (documentId) => this.inner.getDocumentItems(documentId);
  getChunks: KnowledgeBase['getChunks'] = (chunkIds, options) => this.inner.getChunks(chunkIds, options);
}

/** The chunk ids at the head of each result block of a search tool's return, in order. */
export function chunkIdsIn(text: string): string[] {
  return [...text.matchAll(/^\[([^\]\s]+)\] \[rank \d+ of \d+\]/gm)].map((match) => match[1]);
}

/** The store with a search that always fails (its filter is refused as unparsable, a typed invalid_filter error); listing still works. */
export function failingSearchKnowledgeBase(store: LanceStore): KnowledgeBase {
  return Object.assign(Object.create(store) as KnowledgeBase, {
    search: (query: string, options?: SearchOptions) => store.search(query, { ...options, filter: 'relative_path = ' }),
  });
}
