import type { DocumentItem } from '../../src/core/model/document';

/** Normalises a heading for comparison: no Markdown marks, numbering kept, case and spacing folded. */
export function normalizeHeading(text: string): string {
  return text.replace(/[*_`#]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The `#` headings of a ground-truth Markdown file, in order (Markdown backslash escapes such as `FUNCTION\_USAGE` undone). */
export function groundTruthHeadings(markdown: string): string[] {
  return markdown.split(/\r?\n/).filter((line) => /^#{1,6}\s/.test(line)).map((line) => normalizeHeading(line.replace(/^#+\s*/, '').replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1')));
}

/**
 * Share of ground-truth headings found among the document's title/section_header items *in the same order*
 * (longest common subsequence, so a heading found out of order does not count).
 */
export function headingRecall(expected: readonly string[], items: readonly DocumentItem[]): { recall: number; found: number; expected: number; missing: string[] } {
  const actual = items.filter((item) => item.label === 'section_header' || item.label === 'title').map((item) => normalizeHeading(item.text));
  const table: number[][] = Array.from({ length: expected.length + 1 }, () => new Array<number>(actual.length + 1).fill(0));
  for (let i = 1; i <= expected.length; i++) {
    for (let j = 1; j <= actual.length; j++) {
      table[i][j] = expected[i - 1] === actual[j - 1] ? table[i - 1][j - 1] + 1 : Math.max(table[i - 1][j], table[i][j - 1]);
    }
  }
  const matched = new Set<number>();
  for (let i = expected.length, j = actual.length; i > 0 && j > 0;) {
    if (expected[i - 1] === actual[j - 1]) {
      matched.add(i - 1); i--; j--;
    } else if (table[i - 1][j] >= table[i][j - 1]) {
      i--;
    } else {
      j--;
    }
  }
  const found = table[expected.length][actual.length];
  return { recall: expected.length === 0 ? 1 : found / expected.length, found, expected: expected.length, missing: expected.filter((_, index) => !matched.has(index)) };
}
