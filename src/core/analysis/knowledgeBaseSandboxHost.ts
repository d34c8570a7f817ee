import type { SandboxHost } from '../agent/codeSandbox';
import type { ChunkRecord, KnowledgeBase, SearchResult } from '../model/search';
import { createVirtualFileSystem, type VirtualFileSystem } from './virtualFileSystem';

export interface KnowledgeBaseSandboxHostOptions {
  knowledgeBase: KnowledgeBase;
  /** SQL WHERE clause over documents; search, listing, citations and the VFS are all scoped by it. */
  filter?: string;
  /** Sees every in-code search (the agent records them so `cite` outside the code can resolve their ids). */
  onSearch?: (query: string, results: SearchResult[]) => void;
  /** Sees the chunks an in-code `cite()` accepted. */
  onCite?: (chunks: ChunkRecord[]) => void;
  /** Replaces the default citation check (ids must be chunks of filtered documents). */
  cite?: (chunkIds: string[]) => Promise<{ accepted: string[]; unknown: string[] }>;
}

/** A `SandboxHost` over a knowledge base: one per question, so the VFS caches live exactly as long as it. */
export function createKnowledgeBaseSandboxHost(options: KnowledgeBaseSandboxHostOptions): SandboxHost & { fileSystem: VirtualFileSystem } {
  const { knowledgeBase, filter } = options;
  const fileSystem = createVirtualFileSystem(knowledgeBase, { filter });
  return {
    fileSystem,
    async search(query, limit) {
      const results = await knowledgeBase.search(query, { limit, filter, expand: true });
      options.onSearch?.(query, results);
      return results;
    },
    listDocuments: () => knowledgeBase.listDocuments({ filter }),
    async cite(chunkIds) {
      if (options.cite) {
        return options.cite(chunkIds);
      }
      const unique = [...new Set(chunkIds)];
      const chunks = await knowledgeBase.getChunks(unique, { filter });
      const found = new Set(chunks.map((chunk) => chunk.chunkId));
      options.onCite?.(chunks);
      return { accepted: unique.filter((id) => found.has(id)), unknown: unique.filter((id) => !found.has(id)) };
    },
    readFile: (path) => fileSystem.readFile(path),
    listDir: (path) => fileSystem.listDir(path),
  };
}
