import { HaikuError, throwIfAborted } from '../errors';
import type { DocumentSummary, KnowledgeBase, StoredItem } from '../model/search';
import type { SectionNode } from '../model/document';
import { buildSectionTree } from '../toc';

/**
 * The read-only view of the knowledge base that code in the sandbox reads:
 *
 *   /documents/                         the ids of the documents matching the run's filter (nothing else exists)
 *   /documents/{id}/metadata.json       {id, title, uri, created_at, relative_path, format}
 *   /documents/{id}/content.txt         the Markdown rendering of the document
 *   /documents/{id}/items.jsonl         one item per line, line index = item position
 *   /documents/{id}/toc.json            {doc_id, title, tree} built from the section headers
 *
 * Files are built on first read and cached for the life of this object (one question).
 */
export const DOCUMENTS_FOLDER = '/documents';
export const DOCUMENT_FILE_NAMES: readonly string[] = ['metadata.json', 'content.txt', 'items.jsonl', 'toc.json'];

export type VirtualFileSystemErrorKind = 'ENOENT' | 'EISDIR' | 'ENOTDIR';

/** A failed read; the message starts with the POSIX-style kind so guest code can match on it. */
export class VirtualFileSystemError extends HaikuError {
  readonly kind: VirtualFileSystemErrorKind;
  readonly path: string;
  constructor(kind: VirtualFileSystemErrorKind, path: string, hint: string) {
    const what = kind === 'ENOENT' ? 'no such file or directory' : kind === 'EISDIR' ? 'is a directory' : 'not a directory';
    super('not_found', `${kind}: ${what}, '${path}'. ${hint}`);
    this.name = 'VirtualFileSystemError';
    this.kind = kind;
    this.path = path;
  }
}

/** `metadata.json`. */
export interface VirtualMetadataFile {
  id: string;
  title: string;
  uri: string;
  created_at: string;
  relative_path: string;
  format: string;
}

/** One line of `items.jsonl`. Lines for missing positions (a gap in the index) have `label: "missing"` and a null `self_ref`. */
export interface VirtualItemLine {
  self_ref: string | null;
  label: string;
  text: string;
  page_numbers: number[];
  heading_level: number;
  chunk_ids: string[];
}

/** One node of `toc.json`'s `tree`. */
export interface VirtualSectionNode {
  self_ref: string;
  level: number;
  title: string;
  page_numbers: number[];
  /** [start, end) line slice of `items.jsonl` (= item positions), header included. */
  item_range: [number, number];
  chunk_ids: string[];
  children: VirtualSectionNode[];
}

/** `toc.json`. */
export interface VirtualTocFile {
  doc_id: string;
  title: string;
  tree: VirtualSectionNode[];
}

export interface VirtualFileSystem {
  readFile(path: string, options?: { abortSignal?: AbortSignal }): Promise<string>;
  listDir(path: string, options?: { abortSignal?: AbortSignal }): Promise<string[]>;
}

/**
 * Collapses `.`/`..`/repeated and trailing slashes into an absolute path; `..` stops at `/`, so no path escapes
 * the root. Relative paths are taken from `/`, backslashes count as slashes.
 */
export function normalizeVirtualPath(path: string): string {
  const segments: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') {
      continue;
    }
    if (part === '..') {
      segments.pop();
      continue;
    }
    segments.push(part);
  }
  return '/' + segments.join('/');
}

interface DocumentFiles {
  content?: Promise<string>;
  items?: Promise<StoredItem[]>;
  itemsJsonl?: Promise<string>;
  toc?: Promise<string>;
}

/** Builds the VFS of one question over `knowledgeBase`, scoped by `filter` (an SQL WHERE clause over documents). */
export function createVirtualFileSystem(knowledgeBase: KnowledgeBase, options: { filter?: string } = {}): VirtualFileSystem {
  let visibleDocuments: Promise<Map<string, DocumentSummary>> | undefined;
  const filesByDocument = new Map<string, DocumentFiles>();

  // One listing per question decides what exists: ids outside the filter are never looked up.
  function documents(): Promise<Map<string, DocumentSummary>> {
    visibleDocuments ??= knowledgeBase.listDocuments({ filter: options.filter })
      .then((summaries) => new Map(summaries.map((summary) => [summary.id, summary])));
    visibleDocuments.catch(() => {
      visibleDocuments = undefined;
    });
    return visibleDocuments;
  }

  async function visibleDocument(documentId: string, path: string): Promise<DocumentSummary> {
    const summary = (await documents()).get(documentId);
    if (!summary) {
      throw new VirtualFileSystemError('ENOENT', path, `No document with id '${documentId}' is available; list them with listDir('${DOCUMENTS_FOLDER}') or list_documents().`);
    }
    return summary;
  }

  function files(documentId: string): DocumentFiles {
    let entry = filesByDocument.get(documentId);
    if (!entry) {
      entry = {};
      filesByDocument.set(documentId, entry);
    }
    return entry;
  }

  function items(documentId: string): Promise<StoredItem[]> {
    const entry = files(documentId);
    entry.items ??= knowledgeBase.getDocumentItems(documentId);
    return entry.items;
  }

  async function readDocumentFile(summary: DocumentSummary, name: string, path: string): Promise<string> {
    const entry = files(summary.id);
    switch (name) {
      case 'metadata.json':
        return JSON.stringify(metadataFile(summary), null, 2);
      case 'content.txt':
        entry.content ??= knowledgeBase.getDocumentContent(summary.id).then((content) => content ?? '');
        return entry.content;
      case 'items.jsonl':
        entry.itemsJsonl ??= items(summary.id).then(itemsJsonl);
        return entry.itemsJsonl;
      case 'toc.json':
        entry.toc ??= items(summary.id).then((stored) => JSON.stringify(tocFile(summary, stored), null, 2));
        return entry.toc;
      default:
        throw new VirtualFileSystemError('ENOENT', path, `A document folder holds only ${DOCUMENT_FILE_NAMES.join(', ')}.`);
    }
  }

  return {
    async readFile(rawPath, readOptions) {
      throwIfAborted(readOptions?.abortSignal, 'Reading a file');
      const path = normalizeVirtualPath(rawPath);
      const segments = path.split('/').slice(1).filter((segment) => segment !== '');
      if (segments.length === 0 || (segments.length === 1 && segments[0] === 'documents')) {
        throw new VirtualFileSystemError('EISDIR', path, 'Use listDir() on folders.');
      }
      if (segments[0] !== 'documents' || segments.length > 3) {
        throw new VirtualFileSystemError('ENOENT', path, `Every file lives in ${DOCUMENTS_FOLDER}/{id}/.`);
      }
      const summary = await visibleDocument(segments[1], path);
      if (segments.length === 2) {
        throw new VirtualFileSystemError('EISDIR', path, `Its files are ${DOCUMENT_FILE_NAMES.join(', ')}.`);
      }
      return readDocumentFile(summary, segments[2], path);
    },

    async listDir(rawPath, listOptions) {
      throwIfAborted(listOptions?.abortSignal, 'Listing a folder');
      const path = normalizeVirtualPath(rawPath);
      const segments = path.split('/').slice(1).filter((segment) => segment !== '');
      if (segments.length === 0) {
        return ['documents'];
      }
      if (segments[0] !== 'documents' || segments.length > 3) {
        throw new VirtualFileSystemError('ENOENT', path, `The only folders are ${DOCUMENTS_FOLDER} and ${DOCUMENTS_FOLDER}/{id}.`);
      }
      if (segments.length === 1) {
        return [...(await documents()).keys()];
      }
      await visibleDocument(segments[1], path);
      if (segments.length === 3) {
        const isFile = DOCUMENT_FILE_NAMES.includes(segments[2]);
        throw new VirtualFileSystemError(isFile ? 'ENOTDIR' : 'ENOENT', path, isFile ? 'Read it with readFile().' : `A document folder holds only ${DOCUMENT_FILE_NAMES.join(', ')}.`);
      }
      return [...DOCUMENT_FILE_NAMES];
    },
  };
}

export function metadataFile(summary: DocumentSummary): VirtualMetadataFile {
  return {
    id: summary.id,
    title: summary.title,
    uri: summary.uri,
    created_at: summary.createdAt,
    relative_path: summary.relativePath,
    format: summary.format,
  };
}

/** One line per position 0..max; a gap gets a placeholder line so that line index = position always holds. */
export function itemsJsonl(items: readonly StoredItem[]): string {
  const byPosition = new Map(items.map((item) => [item.position, item]));
  // A loop, not Math.max(...positions): spreading ~200,000 arguments overflows the stack.
  const count = items.reduce((highest, item) => Math.max(highest, item.position + 1), 0);
  const lines: string[] = [];
  for (let position = 0; position < count; position++) {
    const item = byPosition.get(position);
    const line: VirtualItemLine = item
      ? { self_ref: item.selfRef, label: item.label, text: item.text, page_numbers: item.pageNumbers, heading_level: item.headingLevel, chunk_ids: item.chunkIds }
      : { self_ref: null, label: 'missing', text: '', page_numbers: [], heading_level: 0, chunk_ids: [] };
    lines.push(JSON.stringify(line));
  }
  // No trailing newline: `text.split('\n')` then yields exactly one line per position.
  return lines.join('\n');
}

export function tocFile(summary: Pick<DocumentSummary, 'id' | 'title'>, items: readonly StoredItem[]): VirtualTocFile {
  const chunkIdsByRef = new Map(items.map((item) => [item.selfRef, item.chunkIds]));
  return { doc_id: summary.id, title: summary.title, tree: buildSectionTree(items, chunkIdsByRef).map(virtualSection) };
}

function virtualSection(node: SectionNode): VirtualSectionNode {
  return {
    self_ref: node.selfRef,
    level: node.level,
    title: node.title,
    page_numbers: node.pageNumbers,
    item_range: node.itemRange,
    chunk_ids: node.chunkIds,
    children: node.children.map(virtualSection),
  };
}
