import type { StoredChunkFields } from './schema';

/**
 * The result fields of every live chunk, kept in memory beside the vector cache while they fit a budget:
 * a vector search then needs no LanceDB query to turn its top ids into results (fetching 10 rows by id
 * cost 2–3.5 ms, a third of a 10k-chunk scan).
 */
export class ResidentRows {
  private readonly rows = new Map<string, StoredChunkFields>();
  private readonly idsByDocument = new Map<string, string[]>();
  private bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Replaces a document's rows; false when the budget is exceeded (the caller then drops the whole cache). */
  setDocument(documentId: string, rows: readonly StoredChunkFields[]): boolean {
    this.removeDocument(documentId);
    if (rows.length === 0) {
      return true;
    }
    for (const row of rows) {
      this.rows.set(row.id, row);
      this.bytes += rowBytes(row);
    }
    this.idsByDocument.set(documentId, rows.map((row) => row.id));
    return this.bytes <= this.maxBytes;
  }

  removeDocument(documentId: string): void {
    for (const id of this.idsByDocument.get(documentId) ?? []) {
      const row = this.rows.get(id);
      if (row) {
        this.bytes -= rowBytes(row);
        this.rows.delete(id);
      }
    }
    this.idsByDocument.delete(documentId);
  }

  get(chunkId: string): StoredChunkFields | undefined {
    return this.rows.get(chunkId);
  }
}

/** Rough memory of one row: UTF-16 strings plus object overhead. */
function rowBytes(row: StoredChunkFields): number {
  const characters = row.id.length + row.document_id.length + row.generation.length + row.content.length + row.doc_item_refs.length
    + row.labels.length + row.headings.length + row.page_numbers.length + (row.source_range?.length ?? 0);
  return 2 * characters + 160;
}
