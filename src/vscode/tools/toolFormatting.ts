import type { SectionNode } from '../../core/model/document';
import type { DocumentSummary, SearchResult, StoredItem } from '../../core/model/search';
import { lookUpSection, matchDocument } from '../../core/documents/documentAccess';
import { TOOL_SEARCH_MAX_LIMIT, TOOL_SECTION_MAX_CHARS } from '../../core/limits';
import { locationLabel, ownRange } from '../citationFormat';
import { untranslated, type Translate } from '../statusText';

/**
 * Pure text rendering of the language-model tools' results (no `vscode` import, unit-tested). The sentences go
 * through `t` (`vscode.l10n.t` in the host); document text, paths and tool names stay as they are.
 */

export function formatSearchHits(query: string, results: readonly SearchResult[], relativePathOf: (uri: string) => string, t: Translate = untranslated): string {
  if (results.length === 0) {
    return t('No hits for "{0}". Try other words, or {1} to see what is indexed.', query, 'haiku_listDocuments');
  }
  const blocks = results.map((result) => {
    const location = locationLabel(ownRange(result), result.pageNumbers);
    const trail = result.headings.length > 0 ? result.headings.join(' > ') : result.title;
    // The text below is the expanded context: say where it starts and ends when that is more than the chunk's own
    // lines, so that a hit labelled L176–L195 is not read as the sentence of L73 that opens its context.
    const contextLocation = result.chunkSourceRange ? locationLabel(result.sourceRange, result.pageNumbers) : '';
    const context = contextLocation && contextLocation !== location ? ` (${t('text: {0}', contextLocation)})` : '';
    return [
      `[${result.rank}] ${relativePathOf(result.uri)}${location ? ` ${location}` : ''}${context} — ${trail}`,
      t('chunk: {0} · score {1}', result.chunkId, result.score.toFixed(3)),
      result.content.trim(),
    ].join('\n');
  });
  return `${t('{0} hits for "{1}" (cite as path and line or page):', results.length, query)}\n\n${blocks.join('\n\n---\n\n')}`;
}

export function formatDocumentList(documents: readonly DocumentSummary[], t: Translate = untranslated): string {
  if (documents.length === 0) {
    return t('No documents are indexed (or none match).');
  }
  return `${t('{0} documents:', documents.length)}\n${documents.map((document) => `- ${document.relativePath} — "${document.title}" (${t('{0}, id {1}', document.format, document.id)})`).join('\n')}`;
}

/** A document by id, exact relative path, or a unique path suffix (the documents module's rules, shared with MCP). */
export function findDocument(documents: readonly DocumentSummary[], reference: string): DocumentSummary | undefined {
  return matchDocument(documents, reference).document;
}

/** A section by title or heading trail (`A > B`), as MCP's read_section finds it. */
export function findSection(sections: readonly SectionNode[], reference: string): SectionNode | undefined {
  return lookUpSection(sections, reference).section;
}

export function formatTableOfContents(document: DocumentSummary, sections: readonly SectionNode[], t: Translate = untranslated): string {
  const lines: string[] = [];
  const visit = (nodes: readonly SectionNode[], depth: number): void => {
    for (const node of nodes) {
      const page = node.pageNumbers.length > 0 ? ` (${t('p. {0}', node.pageNumbers[0])})` : '';
      lines.push(`${'  '.repeat(depth)}- ${node.title}${page}`);
      visit(node.children, depth + 1);
    }
  };
  visit(sections, 0);
  return [
    t('Sections of {0} ("{1}"):', document.relativePath, document.title),
    lines.length > 0 ? lines.join('\n') : t('(no headings)'),
    t('Read one with {0} and its title.', 'haiku_readSection'),
  ].join('\n');
}

/** The section's items as Markdown, with where it sits in the source; cut at `TOOL_SECTION_MAX_CHARS`. */
export function formatSection(document: DocumentSummary, section: SectionNode, items: readonly StoredItem[], t: Translate = untranslated): string {
  const [start, end] = section.itemRange;
  const inside = items.filter((item) => item.position >= start && item.position < end);
  const lines = inside.filter((item) => item.sourceRange?.startLine !== undefined).map((item) => item.sourceRange!);
  const pages = [...new Set(inside.flatMap((item) => item.pageNumbers))].sort((left, right) => left - right);
  const first = lines[0];
  const last = lines[lines.length - 1];
  const where = first ? locationLabel({ startLine: first.startLine, endLine: last.endLine, endColumn: last.endColumn }) : locationLabel(undefined, pages);
  let text = inside.map((item) => (item.label === 'section_header' ? `${'#'.repeat(Math.max(1, item.headingLevel))} ${item.text}` : item.label === 'code' ? `\`\`\`\n${item.text}\n\`\`\`` : item.text)).join('\n\n');
  if (text.length > TOOL_SECTION_MAX_CHARS) {
    text = `${text.slice(0, TOOL_SECTION_MAX_CHARS)}\n[${t('… cut at {0} characters; read a subsection for the rest', TOOL_SECTION_MAX_CHARS)}]`;
  }
  return `${document.relativePath}${where ? ` ${where}` : ''} — ${section.title}\n\n${text}`;
}

/** The hits `haiku_search` returns: the model's `limit`, else `haiku.search.limit`; at least 1, at most `TOOL_SEARCH_MAX_LIMIT`. */
export function searchToolLimit(requested: unknown, configured: number): number {
  const limit = typeof requested === 'number' && Number.isFinite(requested) ? requested : configured;
  return Math.min(Math.max(1, Math.floor(limit)), TOOL_SEARCH_MAX_LIMIT);
}
