import { MULTI_DATABASE_RRF_K } from '../core/limits';
import type { ChunkRecord, DocumentSummary, SearchOptions, SearchResult, StoredItem } from '../core/model/search';
import type { ExtensionKnowledgeBase } from './indexBackend';

/** An index of `haiku.index.additionalDatabases`, opened read-only, by the name the user gave it. */
export interface NamedKnowledgeBase {
  name: string;
  knowledgeBase: ExtensionKnowledgeBase;
}

/**
 * The ids of an additional database's chunks and documents carry its name (`team:<id>`), so a citation, an Open
 * Chunk link or a rendering URI names the index it came from: stored ids are hashes of paths, equal across indexes
 * that hold the same relative path. The workspace index's ids stay as they are.
 */
export function databaseId(database: string, id: string): string {
  return `${database}:${id}`;
}

/**
 * The workspace index and the additional ones as one knowledge base, like `haiku search --db a --db b`: each ranks
 * on its own, the rankings are fused by reciprocal rank (`MULTI_DATABASE_RRF_K`), and every id read back is routed
 * to the index its prefix names. Counts (`stats`) are the workspace index's: the status bar reports what it indexes.
 */
export function combinedKnowledgeBase(primary: ExtensionKnowledgeBase, additional: readonly NamedKnowledgeBase[]): ExtensionKnowledgeBase {
  if (additional.length === 0) {
    return primary;
  }
  const byName = new Map(additional.map((database) => [database.name, database.knowledgeBase]));
  const all: Array<{ name?: string; knowledgeBase: ExtensionKnowledgeBase }> = [{ knowledgeBase: primary }, ...additional];

  /** The index an id belongs to and the id as that index stores it. */
  const route = (id: string): { name?: string; knowledgeBase: ExtensionKnowledgeBase; id: string } => {
    const separator = id.indexOf(':');
    const knowledgeBase = separator > 0 ? byName.get(id.slice(0, separator)) : undefined;
    return knowledgeBase ? { name: id.slice(0, separator), knowledgeBase, id: id.slice(separator + 1) } : { knowledgeBase: primary, id };
  };
  const label = (name: string | undefined, id: string) => (name === undefined ? id : databaseId(name, id));
  const labelChunk = <T extends ChunkRecord>(name: string | undefined, chunk: T): T => name === undefined ? chunk : {
    ...chunk,
    chunkId: label(name, chunk.chunkId),
    documentId: label(name, chunk.documentId),
    ...('mergedChunkIds' in chunk && Array.isArray(chunk.mergedChunkIds) ? { mergedChunkIds: chunk.mergedChunkIds.map((id: string) => label(name, id)) } : {}),
  };
  const labelDocument = (name: string | undefined, document: DocumentSummary): DocumentSummary => name === undefined ? document : { ...document, id: label(name, document.id) };

  return {
    async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
      const rankings = await Promise.all(all.map(async ({ name, knowledgeBase }) => (await knowledgeBase.search(query, options)).map((result) => labelChunk(name, result))));
      const fused: Array<{ result: SearchResult; score: number; order: number }> = [];
      rankings.forEach((ranking, order) => ranking.forEach((result, index) => fused.push({ result, score: 1 / (MULTI_DATABASE_RRF_K + index + 1), order })));
      fused.sort((left, right) => right.score - left.score || left.order - right.order);
      return fused.slice(0, options.limit ?? fused.length).map((entry, index) => ({ ...entry.result, score: entry.score, rank: index + 1 }));
    },
    async listDocuments(options) {
      const lists = await Promise.all(all.map(async ({ name, knowledgeBase }) => (await knowledgeBase.listDocuments(options)).map((document) => labelDocument(name, document))));
      return lists.flat();
    },
    async getDocument(documentId, options) {
      const { name, knowledgeBase, id } = route(documentId);
      const document = await knowledgeBase.getDocument(id, options);
      return document && labelDocument(name, document);
    },
    getDocumentContent(documentId) {
      const { knowledgeBase, id } = route(documentId);
      return knowledgeBase.getDocumentContent(id);
    },
    async getDocumentItems(documentId): Promise<StoredItem[]> {
      const { name, knowledgeBase, id } = route(documentId);
      const items = await knowledgeBase.getDocumentItems(id);
      return name === undefined ? items : items.map((item) => ({ ...item, documentId: label(name, item.documentId), chunkIds: item.chunkIds.map((chunkId) => label(name, chunkId)) }));
    },
    async getChunks(chunkIds, options) {
      const groups = new Map<ExtensionKnowledgeBase, { name?: string; ids: string[] }>();
      for (const chunkId of chunkIds) {
        const { name, knowledgeBase, id } = route(chunkId);
        const group = groups.get(knowledgeBase) ?? { name, ids: [] };
        group.ids.push(id);
        groups.set(knowledgeBase, group);
      }
      const found = (await Promise.all([...groups].map(async ([knowledgeBase, { name, ids }]) => (await knowledgeBase.getChunks(ids, options)).map((chunk) => labelChunk(name, chunk))))).flat();
      // In the order asked, as one index answers.
      const position = new Map(chunkIds.map((chunkId, index) => [chunkId, index]));
      return found.sort((left, right) => (position.get(left.chunkId) ?? 0) - (position.get(right.chunkId) ?? 0));
    },
    pictureBytes(documentId, selfRef) {
      const { knowledgeBase, id } = route(documentId);
      return knowledgeBase.pictureBytes(id, selfRef);
    },
    stats: () => primary.stats(),
  };
}
