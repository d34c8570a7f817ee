import type { SectionNode, SourceRange } from '../../core/model/document';
import type { StoredItem } from '../../core/model/search';
import { namedLocation, unionSourceRanges } from '../../core/sourceRanges';

/** The 1-based, inclusive lines the ranges cover (first range's start to last range's end), or undefined without lines. */
function lineSpan(ranges: ReadonlyArray<SourceRange | undefined>): { first: number; last: number } | undefined {
  const withLines = ranges.filter((range): range is SourceRange & { startLine: number } => range?.startLine !== undefined);
  if (withLines.length === 0) {
    return undefined;
  }
  const first = withLines[0].startLine + 1;
  const lastRange = withLines[withLines.length - 1];
  // The end is exclusive: an end at column 0 means the previous line was the last one.
  const endLine = lastRange.endLine ?? lastRange.startLine;
  const last = lastRange.endColumn === 0 && endLine > lastRange.startLine ? endLine : endLine + 1;
  return { first, last: Math.max(first, last) };
}

function pagesOf(ranges: ReadonlyArray<SourceRange | undefined>, pageNumbers: readonly number[]): number[] {
  const pages = [...pageNumbers, ...ranges.flatMap((range) => (range?.page !== undefined ? [range.page] : []))];
  return [...new Set(pages)].sort((left, right) => left - right);
}

/**
 * Where content sits, for a reader: `slide 3`, `sheet Sales, A1:D9`, `cell 4`, `lines 12-20` (1-based, inclusive),
 * `p. 3` or `pp. 3-5`, or '' when unknown.
 */
export function whereText(ranges: ReadonlyArray<SourceRange | undefined>, pageNumbers: readonly number[]): string {
  const named = namedLocation(unionSourceRanges(ranges));
  if (named !== undefined) {
    return named;
  }
  const lines = lineSpan(ranges);
  if (lines) {
    return lines.first === lines.last ? `line ${lines.first}` : `lines ${lines.first}-${lines.last}`;
  }
  const pages = pagesOf(ranges, pageNumbers);
  if (pages.length === 0) {
    return '';
  }
  return pages.length === 1 ? `p. ${pages[0]}` : `pp. ${pages[0]}-${pages[pages.length - 1]}`;
}

/**
 * The JSON shape of a location: 1-based inclusive lines and pages, so clients need not know our 0-based ranges,
 * and the place's own name where the format has one (`slide 3`, `sheet Sales, A1:D9`, `cell 4`).
 */
export function locationJson(
  ranges: ReadonlyArray<SourceRange | undefined>,
  pageNumbers: readonly number[],
): { start_line: number | null; end_line: number | null; pages: number[]; place: string | null } {
  const lines = lineSpan(ranges);
  return { start_line: lines?.first ?? null, end_line: lines?.last ?? null, pages: pagesOf(ranges, pageNumbers), place: namedLocation(unionSourceRanges(ranges)) ?? null };
}

/** Items as Markdown, headings with their level and code fenced, each block once. */
export function itemsAsMarkdown(items: readonly StoredItem[]): string {
  return items
    .map((item) => {
      if (item.label === 'section_header') {
        return `${'#'.repeat(Math.max(1, item.headingLevel))} ${item.text}`;
      }
      return item.label === 'code' ? ['```', item.text, '```'].join('\n') : item.text;
    })
    .join('\n\n');
}

/** Text cut at `maxChars` with a marker that says what to do for the rest. */
export function cutText(text: string, maxChars: number, rest: string): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n[… cut at ${maxChars} characters; ${rest}]` : text;
}

/** A section tree as an indented outline with item ranges (what `read_section` takes) and locations. */
export function outlineText(tree: readonly SectionNode[], items: readonly StoredItem[]): string {
  const byPosition = new Map(items.map((item) => [item.position, item]));
  const lines: string[] = [];
  const visit = (nodes: readonly SectionNode[], depth: number) => {
    for (const node of nodes) {
      const [start, end] = node.itemRange;
      const where = whereText([byPosition.get(start)?.sourceRange, byPosition.get(end - 1)?.sourceRange], node.pageNumbers);
      lines.push(`${'  '.repeat(depth)}- ${node.title} (items ${start}-${end - 1}${where ? `, ${where}` : ''})`);
      visit(node.children, depth + 1);
    }
  };
  visit(tree, 0);
  return lines.length > 0 ? lines.join('\n') : '(no section headings)';
}
