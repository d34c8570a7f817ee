import type { ItemLabel } from '../../src/core/model/document';
import type { ChunkRecord, DocumentSummary, KnowledgeBase, SearchOptions, SearchResult, StoredItem } from '../../src/core/model/search';

/**
 * An in-memory `KnowledgeBase` with real item structure (headers, positions, chunks over items), for tests of
 * code that only consumes the interface: the sandbox's VFS and its mechanics. Search is naive term overlap;
 * filters support `column = 'x'`, `column != 'x'` and `column LIKE '%x%'` joined by AND / OR (no parentheses)
 * over id, uri, title, relative_path and format. Every call is recorded in `calls`.
 */
export interface StructuredDocument {
  id: string;
  uri: string;
  title: string;
  relativePath?: string;
  format?: string;
  content?: string;
  /** `position` defaults to the index (set it to leave gaps). */
  items: Array<{ selfRef: string; label: ItemLabel; text: string; headingLevel?: number; pageNumbers?: number[]; position?: number }>;
  /** Each chunk lists the self_refs of the items it was built from. */
  chunks: Array<{ chunkId: string; itemRefs: string[] }>;
}

export interface StructuredKnowledgeBase extends KnowledgeBase {
  calls: Array<{ method: string; args: unknown[] }>;
}

export function createStructuredKnowledgeBase(documents: StructuredDocument[]): StructuredKnowledgeBase {
  const calls: Array<{ method: string; args: unknown[] }> = [];
  const summaries = new Map(documents.map((document) => [document.id, summaryOf(document)]));

  function visible(filter: string | undefined): StructuredDocument[] {
    return documents.filter((document) => structuredFilterMatches(summaries.get(document.id)!, filter));
  }

  function chunkRecords(document: StructuredDocument): ChunkRecord[] {
    return document.chunks.map((chunk) => {
      const items = document.items.filter((item) => chunk.itemRefs.includes(item.selfRef));
      return {
        chunkId: chunk.chunkId,
        documentId: document.id,
        uri: document.uri,
        title: document.title,
        content: items.map((item) => item.text).join('\n\n'),
        headings: [],
        labels: [...new Set(items.map((item) => item.label))],
        pageNumbers: [...new Set(items.flatMap((item) => item.pageNumbers ?? []))].sort((left, right) => left - right),
        docItemRefs: chunk.itemRefs,
      };
    });
  }

  return {
    calls,
    async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
      calls.push({ method: 'search', args: [query, options] });
      const terms = query.toLowerCase().split(/\W+/).filter((term) => term.length > 0);
      const scored = visible(options.filter).flatMap(chunkRecords).map((chunk) => {
        const text = chunk.content.toLowerCase();
        return { chunk, score: terms.filter((term) => text.includes(term)).length };
      }).filter((entry) => entry.score > 0);
      scored.sort((left, right) => right.score - left.score);
      return scored.slice(0, options.limit ?? 5).map((entry, index) => ({ ...entry.chunk, score: entry.score, rank: index + 1 }));
    },
    async listDocuments(options = {}) {
      calls.push({ method: 'listDocuments', args: [options.filter] });
      return visible(options.filter).map((document) => summaries.get(document.id)!);
    },
    async getDocument(documentId, options = {}) {
      calls.push({ method: 'getDocument', args: [documentId, options.filter] });
      return visible(options.filter).some((document) => document.id === documentId) ? summaries.get(documentId) : undefined;
    },
    async getDocumentContent(documentId) {
      calls.push({ method: 'getDocumentContent', args: [documentId] });
      const document = documents.find((candidate) => candidate.id === documentId);
      return document ? document.content ?? document.items.map((item) => item.text).join('\n\n') : undefined;
    },
    async getDocumentItems(documentId): Promise<StoredItem[]> {
      calls.push({ method: 'getDocumentItems', args: [documentId] });
      const document = documents.find((candidate) => candidate.id === documentId);
      if (!document) {
        return [];
      }
      return document.items.map((item, index) => ({
        documentId,
        position: item.position ?? index,
        selfRef: item.selfRef,
        label: item.label,
        text: item.text,
        headingLevel: item.headingLevel ?? 0,
        pageNumbers: item.pageNumbers ?? [],
        treeDepth: 0,
        chunkIds: document.chunks.filter((chunk) => chunk.itemRefs.includes(item.selfRef)).map((chunk) => chunk.chunkId),
      }));
    },
    async getChunks(chunkIds, options = {}) {
      calls.push({ method: 'getChunks', args: [chunkIds, options.filter] });
      const wanted = new Set(chunkIds);
      return visible(options.filter).flatMap(chunkRecords).filter((chunk) => wanted.has(chunk.chunkId));
    },
  };
}

function summaryOf(document: StructuredDocument): DocumentSummary {
  return {
    id: document.id,
    uri: document.uri,
    relativePath: document.relativePath ?? document.uri.replace(/^file:\/\/\/?/, ''),
    title: document.title,
    format: document.format ?? 'markdown',
    contentHash: 'hash-' + document.id,
    metadata: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

export function structuredFilterMatches(summary: DocumentSummary, filter: string | undefined): boolean {
  if (!filter || filter.trim() === '') {
    return true;
  }
  const columns: Record<string, string> = { id: summary.id, uri: summary.uri, title: summary.title, relative_path: summary.relativePath, format: summary.format };
  return filter.split(/\s+OR\s+/i).some((alternative) => alternative.split(/\s+AND\s+/i).every((condition) => {
    const match = /^\s*(\w+)\s*(=|!=|LIKE)\s*'((?:[^']|'')*)'\s*$/i.exec(condition);
    if (!match || !(match[1] in columns)) {
      throw new Error(`structuredKnowledgeBase: unsupported filter condition: ${condition}`);
    }
    const value = columns[match[1]];
    const literal = match[3].replace(/''/g, "'");
    if (match[2] === '=') {
      return value === literal;
    }
    if (match[2] === '!=') {
      return value !== literal;
    }
    const pattern = new RegExp('^' + literal.split('%').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$', 's');
    return pattern.test(value);
  }));
}
