import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChunkRecord, DocumentSummary } from '../../core/model/search';
import type { IndexedRoot } from './rootsRegistry';

/** What a consumer needs of a published index to map its documents: where the publisher's files were. */
export interface PublishedIndex {
  readonly roots: IndexedRoot[];
}

export interface SourceRootMapping {
  /** Local folders that hold the same files as the publisher's source root (first match wins). */
  localRoots: readonly string[];
  /** The URI to show when no local folder has the file: a read-only rendering of the stored text. */
  missing: (relativePath: string, documentId: string) => string;
}

/**
 * A document URI of a published index, mapped to this machine: the publisher stored `file:///ci/checkout/docs/a.md`
 * with the source root `/ci/checkout`; here it becomes `<local root>/docs/a.md` when that file exists, else the
 * rendering `mapping.missing` names. URIs that are not files below a publisher root pass unchanged.
 */
export function mapDocumentUri(uri: string, documentId: string, published: PublishedIndex, mapping: SourceRootMapping): string {
  let publishedPath: string;
  try {
    publishedPath = fileURLToPath(uri);
  } catch {
    return uri;
  }
  const relativePath = relativeToRoots(publishedPath, published.roots.map((root) => root.baseFolder));
  if (relativePath === undefined) {
    return fs.existsSync(publishedPath) ? uri : mapping.missing(path.basename(publishedPath), documentId);
  }
  for (const localRoot of mapping.localRoots) {
    const candidate = path.join(localRoot, relativePath);
    if (fs.existsSync(candidate)) {
      return pathToFileURL(candidate).toString();
    }
  }
  return mapping.missing(relativePath.split(path.sep).join('/'), documentId);
}

function relativeToRoots(file: string, baseFolders: readonly string[]): string | undefined {
  // POSIX and Windows publishers both: compare with forward slashes.
  const normalized = file.split(path.sep).join('/');
  for (const base of [...baseFolders].sort((left, right) => right.length - left.length)) {
    const prefix = base.split(path.sep).join('/').replace(/\/+$/, '') + '/';
    if (normalized.startsWith(prefix)) {
      return normalized.slice(prefix.length).split('/').join(path.sep);
    }
  }
  return undefined;
}

/**
 * `store` with every document and chunk URI it returns mapped by `mapDocumentUri` (search results, documents,
 * chunks); everything else passes through. Used for read-only consumers of a published index.
 */
export function mapToSourceRoot<T extends object & PublishedIndex>(store: T, mapping: SourceRootMapping): T {
  const mapChunk = <C extends Pick<ChunkRecord, 'uri' | 'documentId'>>(chunk: C): C => ({ ...chunk, uri: mapDocumentUri(chunk.uri, chunk.documentId, store, mapping) });
  const mapDocument = (document: DocumentSummary | undefined): DocumentSummary | undefined =>
    document && { ...document, uri: mapDocumentUri(document.uri, document.id, store, mapping) };
  const wrapped: Record<string, (...args: never[]) => unknown> = {
    search: async (...args) => ((await callOn(store, 'search', args)) as ChunkRecord[]).map(mapChunk),
    getChunks: async (...args) => ((await callOn(store, 'getChunks', args)) as ChunkRecord[]).map(mapChunk),
    listDocuments: async (...args) => ((await callOn(store, 'listDocuments', args)) as DocumentSummary[]).map((document) => mapDocument(document) as DocumentSummary),
    getDocument: async (...args) => mapDocument((await callOn(store, 'getDocument', args)) as DocumentSummary | undefined),
    findDocument: async (...args) => mapDocument((await callOn(store, 'findDocument', args)) as DocumentSummary | undefined),
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in wrapped && typeof Reflect.get(target, property) === 'function') {
        return wrapped[property];
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function callOn(target: object, name: string, args: unknown[]): unknown {
  return (Reflect.get(target, name) as (...parameters: unknown[]) => unknown).apply(target, args);
}
