/** The text handed to LanceDB's full-text search for a user's query. */
export function fullTextQueryTerms(query: string): string {
  return query.trim();
}
