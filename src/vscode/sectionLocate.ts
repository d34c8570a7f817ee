import type { SectionNode } from '../core/model/document';
import type { StoredItem } from '../core/model/search';
import { normalizeRenderedText } from '../core/renderingLocate';
import { lastLine } from './citationFormat';

// Locating a chunk or heading in a rendering is pure text work, kept in core; named here for the VS Code callers.
export { findChunkInRendering, findHeadingLine } from '../core/renderingLocate';

/**
 * Pure lookups between sections, stored items and editor lines (no `vscode` import, unit-tested): which section
 * holds a line and where a section starts (where a chunk sits in a rendering: `src/core/renderingLocate.ts`).
 */

export interface LineSpan {
  startLine: number;
  endLine: number;
}

/** Lines a section spans in its text source: from its header's first line to its last item's last line. */
export function sectionLineSpan(section: SectionNode, items: readonly StoredItem[]): LineSpan | undefined {
  const [start, end] = section.itemRange;
  let span: LineSpan | undefined;
  for (const item of items) {
    const range = item.sourceRange;
    if (item.position < start || item.position >= end || range?.startLine === undefined) {
      continue;
    }
    const itemEnd = lastLine(range);
    span = span ? { startLine: Math.min(span.startLine, range.startLine), endLine: Math.max(span.endLine, itemEnd) } : { startLine: range.startLine, endLine: itemEnd };
  }
  return span;
}

/** The innermost section whose lines hold `line`, with its ancestors (outermost first). */
export function sectionPathAtLine(sections: readonly SectionNode[], items: readonly StoredItem[], line: number): SectionNode[] {
  for (const section of sections) {
    const span = sectionLineSpan(section, items);
    if (span && line >= span.startLine && line <= span.endLine) {
      return [section, ...sectionPathAtLine(section.children, items, line)];
    }
  }
  return [];
}

/** The header item of a section. */
export function headerItem(section: SectionNode, items: readonly StoredItem[]): StoredItem | undefined {
  return items.find((item) => item.selfRef === section.selfRef);
}

/** The folder part of a relative path ('' for top-level files). */
export function folderOf(relativePath: string): string {
  const slash = relativePath.lastIndexOf('/');
  return slash < 0 ? '' : relativePath.slice(0, slash);
}

/** Formats whose source has no lines to select (PDF, office files, images) open as a Markdown rendering. */
const RENDERED_FORMATS: ReadonlySet<string> = new Set(['pdf', 'docx', 'odt', 'pptx', 'odp', 'xlsx', 'ods', 'image']);

/** Documents whose source has no lines (PDF, DOCX, slides, sheets, images) open as a Markdown rendering. */
export function opensAsRendering(format: string): boolean {
  return RENDERED_FORMATS.has(format);
}

/**
 * The section path at a line of a Markdown rendering: the nearest heading at or above the line, matched to the
 * section tree by title in document order (so repeated titles resolve to the right occurrence).
 */
export function sectionPathAtRenderingLine(sections: readonly SectionNode[], markdown: string, line: number): SectionNode[] {
  const lines = markdown.split('\n');
  const headingTitles: string[] = [];
  for (let index = 0; index <= Math.min(line, lines.length - 1); index++) {
    if (/^#{1,6}\s/.test(lines[index])) {
      headingTitles.push(normalizeRenderedText(lines[index].replace(/^#{1,6}\s+/, '')));
    }
  }
  if (headingTitles.length === 0) {
    return [];
  }
  // Walk the sections in document order, consuming the headings seen so far; the last match is the target.
  const flat: Array<{ node: SectionNode; trail: SectionNode[] }> = [];
  const visit = (nodes: readonly SectionNode[], trail: SectionNode[]): void => {
    for (const node of nodes) {
      flat.push({ node, trail: [...trail, node] });
      visit(node.children, [...trail, node]);
    }
  };
  visit(sections, []);
  let cursor = 0;
  let found: SectionNode[] = [];
  for (const title of headingTitles) {
    const index = flat.findIndex((entry, position) => position >= cursor && normalizeRenderedText(entry.node.title) === title);
    if (index >= 0) {
      found = flat[index].trail;
      cursor = index + 1;
    }
  }
  return found;
}
