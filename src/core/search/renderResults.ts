import type { ItemLabel } from '../model/document';
import type { SearchResult } from '../model/search';

/** What an empty search shows the model. */
export const NO_RESULTS_TEXT = 'No results found.';

/**
 * Which label names a result's `Type:`: the most structural one present. Unlike haiku.rag, plain paragraphs
 * outrank headers and titles, because our chunks carry their section header's ref and would otherwise all
 * read as `section_header`.
 */
const LABEL_PRIORITY: readonly ItemLabel[] = [
  'table',
  'code',
  'list_item',
  'formula',
  'picture',
  'caption',
  'paragraph',
  'footnote',
  'document_index',
  'page_header',
  'page_footer',
  'section_header',
  'title',
];

/** The most structural label of a result, or undefined without labels. */
export function primaryLabel(labels: readonly ItemLabel[]): ItemLabel | undefined {
  let best: ItemLabel | undefined;
  let bestPriority = Number.POSITIVE_INFINITY;
  for (const label of labels) {
    const priority = LABEL_PRIORITY.indexOf(label);
    if (priority >= 0 && priority < bestPriority) {
      best = label;
      bestPriority = priority;
    }
  }
  return best ?? labels[0];
}

/**
 * One result as the model sees it:
 * `[chunk_id] [rank i of n]`, `Source: "<title>" > <heading> > …` (left out when there is neither title nor
 * heading), `Type: <label>` (left out without labels), one `Figure caption (<self_ref>): …` line per captioned
 * picture, then `Content:` and the content on the next line.
 */
/**
 * The title and headings as one trail without repeats: a page whose title is also its first heading gives
 * `Document Processing > Conversion Options`, not `Document Processing > Document Processing > …`.
 */
export function headingTrail(title: string, headings: readonly string[]): string[] {
  const trail: string[] = title ? [title] : [];
  for (const heading of headings) {
    if (heading !== trail[trail.length - 1]) {
      trail.push(heading);
    }
  }
  return trail;
}

export function renderSearchResultForModel(result: Pick<SearchResult, 'chunkId' | 'title' | 'headings' | 'labels' | 'content' | 'pictureCaptions'>, position: { rank: number; total: number }): string {
  const lines = [`[${result.chunkId}] [rank ${position.rank} of ${position.total}]`];
  const source = headingTrail(result.title, result.headings).map((entry, index) => (index === 0 && result.title ? `"${entry}"` : entry));
  if (source.length > 0) {
    lines.push(`Source: ${source.join(' > ')}`);
  }
  const label = primaryLabel(result.labels);
  if (label) {
    lines.push(`Type: ${label}`);
  }
  for (const [selfRef, caption] of Object.entries(result.pictureCaptions ?? {})) {
    lines.push(`Figure caption (${selfRef}): ${caption.replace(/\s+/g, ' ')}`);
  }
  lines.push('Content:', result.content);
  return lines.join('\n');
}

/** Results in list order (rank i of n by position), separated by a blank line; none gives "No results found.". */
export function renderSearchResultsForModel(results: ReadonlyArray<Pick<SearchResult, 'chunkId' | 'title' | 'headings' | 'labels' | 'content'>>): string {
  if (results.length === 0) {
    return NO_RESULTS_TEXT;
  }
  return results.map((result, index) => renderSearchResultForModel(result, { rank: index + 1, total: results.length })).join('\n\n');
}
