/**
 * Document filters: the one place a filter becomes SQL over the documents table.
 *
 * - `parseDocumentFilter` takes a user's raw SQL (the CLI's `--filter`, the MCP tools' `filter`) and accepts it
 *   only when the whole text is one boolean expression over the allowed columns; anything else is a typed
 *   `invalid_filter` error naming what could not be parsed.
 * - `compileDocumentFilter` turns a typed filter (ids, a folder, formats) into SQL with correct quoting and
 *   `LIKE` escaping; code builds these instead of concatenating SQL.
 *
 * STUB (signatures are fixed; the implementation is being written): today it passes raw SQL through unchanged.
 */

/** A filter built by code (attachments, folders, formats); every field narrows the selection (AND). */
export interface DocumentFilter {
  /** Keep only these document ids. */
  documentIds?: readonly string[];
  /** Keep documents whose root-relative path is this folder or lies below it ('/'-separated, no leading './'). */
  pathPrefix?: string;
  /** Keep documents of these formats (`markdown`, `html`, `pdf`, `docx`, `text`). */
  formats?: readonly string[];
  /** Raw SQL typed by a user, validated by `parseDocumentFilter` before use. */
  sql?: string;
}

/** Validates a user's SQL filter as a whole expression; returns the text to hand to LanceDB. Throws `HaikuError('invalid_filter')`. */
export function parseDocumentFilter(filter: string): string {
  return filter;
}

/** SQL for a typed filter, or undefined when it selects everything. */
export function compileDocumentFilter(filter: DocumentFilter): string | undefined {
  const clauses: string[] = [];
  if (filter.sql !== undefined && filter.sql.trim() !== '') {
    clauses.push(`(${parseDocumentFilter(filter.sql)})`);
  }
  return clauses.length > 0 ? clauses.join(' AND ') : undefined;
}
