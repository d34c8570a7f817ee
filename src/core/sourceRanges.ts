import type { SourceRange } from './model/document';

/**
 * The union of source ranges: earliest start, latest end (line, then column); for page-only ranges (PDF),
 * the first page. Undefined when no item has a range.
 */
export function unionSourceRanges(ranges: ReadonlyArray<SourceRange | undefined>): SourceRange | undefined {
  let union: SourceRange | undefined;
  for (const range of ranges) {
    if (!range) {
      continue;
    }
    union ??= {};
    if (range.startLine !== undefined) {
      const startColumn = range.startColumn ?? 0;
      if (union.startLine === undefined || range.startLine < union.startLine || (range.startLine === union.startLine && startColumn < (union.startColumn ?? 0))) {
        union.startLine = range.startLine;
        union.startColumn = startColumn;
      }
    }
    if (range.endLine !== undefined) {
      const endColumn = range.endColumn ?? 0;
      if (union.endLine === undefined || range.endLine > union.endLine || (range.endLine === union.endLine && endColumn > (union.endColumn ?? 0))) {
        union.endLine = range.endLine;
        union.endColumn = endColumn;
      }
    }
    if (range.page !== undefined && (union.page === undefined || range.page < union.page)) {
      union.page = range.page;
    }
  }
  return union && Object.keys(union).length > 0 ? union : undefined;
}
