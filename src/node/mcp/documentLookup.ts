import { HaikuError } from '../../core/errors';
import type { DocumentSummary } from '../../core/model/search';
import type { LanceStore } from '../store/lanceStore';

/** A document by id, relative path, URI or absolute path; a typed error that says how to find one otherwise. */
export async function requireDocument(store: LanceStore, reference: string): Promise<DocumentSummary> {
  const document = await store.findDocument(reference.trim());
  if (!document) {
    throw new HaikuError('not_found', `No indexed document matches '${reference}'. Call list_documents for the ids and paths.`);
  }
  return document;
}
