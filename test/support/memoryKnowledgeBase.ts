import type { ChunkRecord, DocumentSummary, KnowledgeBase, SearchOptions, SearchResult, StoredItem } from '../../src/core/model/search';

/**
 * A small in-memory knowledge base for agent tests that do not exercise search quality: keyword overlap scoring,
 * and a filter language of `column = 'value'` / `column LIKE 'pattern'` joined by AND (columns: uri, title,
 * relative_path, id). Final search/cite/filter tests run on the real LanceDB index instead.
 */
export interface MemoryDocument {
  id: string;
  title: string;
  uri?: string;
  relativePath?: string;
  chunks: Array<{ id: string; content: string; headings?: string[] }>;
}

function likeToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}

export function memoryFilterMatches(filter: string | undefined, document: MemoryDocument): boolean {
  if (!filter || filter.trim() === '') {
    return true;
  }
  const columns: Record<string, string> = {
    id: document.id,
    title: document.title,
    uri: document.uri ?? `file:///docs/${document.id}.md`,
    relative_path: document.relativePath ?? `${document.id}.md`,
  };
  return filter.split(/\s+AND\s+/i).every((clause) => {
    const match = /^\s*(\w+)\s+(=|LIKE)\s+'((?:[^']|'')*)'\s*$/i.exec(clause);
    if (!match) {
      throw new Error(`memory filter cannot parse: ${clause}`);
    }
    const value = columns[match[1].toLowerCase()] ?? '';
    const literal = match[3].replace(/''/g, "'");
    return match[2] === '=' ? value === literal : likeToRegExp(literal).test(value);
  });
}

export class MemoryKnowledgeBase implements KnowledgeBase {
  readonly searchCalls: Array<{ query: string; options?: SearchOptions }> = [];

  constructor(readonly documents: MemoryDocument[]) {}

  private summary(document: MemoryDocument): DocumentSummary {
    return {
      id: document.id,
      uri: document.uri ?? `file:///docs/${document.id}.md`,
      relativePath: document.relativePath ?? `${document.id}.md`,
      title: document.title,
      format: 'markdown',
      contentHash: document.id,
      metadata: {},
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
  }

  private record(document: MemoryDocument, chunk: MemoryDocument['chunks'][number]): ChunkRecord {
    return {
      chunkId: chunk.id,
      documentId: document.id,
      uri: document.uri ?? `file:///docs/${document.id}.md`,
      title: document.title,
      content: chunk.content,
      headings: chunk.headings ?? [],
      labels: ['paragraph'],
      pageNumbers: [],
      docItemRefs: [`#/texts/${chunk.id}`],
      sourceRange: { startLine: 0, endLine: 1 },
    };
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
    this.searchCalls.push({ query, options });
    const words = query.toLowerCase().split(/\W+/).filter((word) => word.length > 1);
    const scored: Array<{ record: ChunkRecord; score: number }> = [];
    for (const document of this.documents.filter((candidate) => memoryFilterMatches(options.filter, candidate))) {
      for (const chunk of document.chunks) {
        const text = `${document.title} ${(chunk.headings ?? []).join(' ')} ${chunk.content}`.toLowerCase();
        const score = words.filter((word) => text.includes(word)).length;
        if (score > 0) {
          scored.push({ record: this.record(document, chunk), score });
        }
      }
    }
    scored.sort((left, right) => right.score - left.score);
    return scored.slice(0, options.limit ?? 5).map(({ record, score }, position) => ({ ...record, score, rank: position + 1 }));
  }

  async listDocuments(options: { filter?: string } = {}): Promise<DocumentSummary[]> {
    return this.documents.filter((document) => memoryFilterMatches(options.filter, document)).map((document) => this.summary(document));
  }

  async getDocument(documentId: string, options: { filter?: string } = {}): Promise<DocumentSummary | undefined> {
    const document = this.documents.find((candidate) => candidate.id === documentId && memoryFilterMatches(options.filter, candidate));
    return document ? this.summary(document) : undefined;
  }

  async getDocumentContent(documentId: string): Promise<string | undefined> {
    const document = this.documents.find((candidate) => candidate.id === documentId);
    return document ? `# ${document.title}\n\n${document.chunks.map((chunk) => chunk.content).join('\n\n')}` : undefined;
  }

  async getDocumentItems(documentId: string): Promise<StoredItem[]> {
    const document = this.documents.find((candidate) => candidate.id === documentId);
    return (document?.chunks ?? []).map((chunk, position) => ({
      documentId,
      position,
      selfRef: `#/texts/${chunk.id}`,
      label: 'paragraph',
      text: chunk.content,
      headingLevel: 0,
      pageNumbers: [],
      treeDepth: 0,
      chunkIds: [chunk.id],
    }));
  }

  async getChunks(chunkIds: string[], options: { filter?: string } = {}): Promise<ChunkRecord[]> {
    const wanted = new Set(chunkIds);
    const found: ChunkRecord[] = [];
    for (const document of this.documents.filter((candidate) => memoryFilterMatches(options.filter, candidate))) {
      for (const chunk of document.chunks) {
        if (wanted.has(chunk.id)) {
          found.push(this.record(document, chunk));
        }
      }
    }
    return found;
  }
}
