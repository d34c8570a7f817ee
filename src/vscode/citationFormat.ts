import * as path from 'node:path';
import type { SourceRange } from '../core/model/document';
import { namedLocation } from '../core/sourceRanges';
import type { LineSpan } from './sectionLocate';
import { COMMANDS } from './contributionIds';

/**
 * Pure formatting of citations and locations (no `vscode` import, unit-tested): labels, Markdown links and the
 * editor range of a chunk.
 */

export interface CitableChunk {
  title: string;
  /** `file://` URI of the source. */
  uri: string;
  headings: string[];
  pageNumbers: number[];
  sourceRange?: SourceRange;
}

/** "slide 3", "sheet Sales, A1:D9", "cell 4", "L12–L20" (1-based), "p. 3", "pp. 3–4", or "" when nothing locates the chunk. */
export function locationLabel(sourceRange: SourceRange | undefined, pageNumbers: readonly number[] = []): string {
  const named = namedLocation(sourceRange);
  if (named !== undefined) {
    return named;
  }
  if (sourceRange?.startLine !== undefined) {
    const start = sourceRange.startLine + 1;
    const end = lastLine(sourceRange) + 1;
    return end > start ? `L${start}–L${end}` : `L${start}`;
  }
  const pages = pageNumbers.length > 0 ? pageNumbers : sourceRange?.page !== undefined ? [sourceRange.page] : [];
  if (pages.length === 0) {
    return '';
  }
  const first = Math.min(...pages);
  const last = Math.max(...pages);
  return first === last ? `p. ${first}` : `pp. ${first}–${last}`;
}

/** The 0-based last line a range covers (an exclusive end at column 0 does not cover its line). */
export function lastLine(sourceRange: SourceRange): number {
  const start = sourceRange.startLine ?? 0;
  const end = sourceRange.endLine ?? start;
  return end > start && sourceRange.endColumn === 0 ? end - 1 : end;
}

/** The range a jump selects and a label names: the chunk's own lines, not the expanded context around them. */
export function ownRange(chunk: { sourceRange?: SourceRange; chunkSourceRange?: SourceRange }): SourceRange | undefined {
  return chunk.chunkSourceRange ?? chunk.sourceRange;
}

/**
 * The whole lines of `outer` (the expanded context) outside `inner` (the chunk): at most one span above and one
 * below, 0-based and inclusive. Ends are exclusive positions, so an end at column 0 does not cover its line.
 */
export function contextAround(outer: { startLine: number; endLine: number; endColumn: number }, inner: { startLine: number; endLine: number; endColumn: number }): LineSpan[] {
  const last = (range: { startLine: number; endLine: number; endColumn: number }): number => (range.endLine > range.startLine && range.endColumn === 0 ? range.endLine - 1 : range.endLine);
  const spans: LineSpan[] = [];
  if (outer.startLine < inner.startLine) {
    spans.push({ startLine: outer.startLine, endLine: Math.min(last(outer), inner.startLine - 1) });
  }
  if (last(outer) > last(inner)) {
    spans.push({ startLine: Math.max(outer.startLine, last(inner) + 1), endLine: last(outer) });
  }
  return spans;
}

/** 0-based editor range of a chunk in its text source, or undefined for sources without lines (PDF, DOCX). */
export function editorRange(sourceRange: SourceRange | undefined): { startLine: number; startColumn: number; endLine: number; endColumn: number } | undefined {
  if (sourceRange?.startLine === undefined) {
    return undefined;
  }
  return {
    startLine: sourceRange.startLine,
    startColumn: sourceRange.startColumn ?? 0,
    endLine: sourceRange.endLine ?? sourceRange.startLine,
    endColumn: sourceRange.endColumn ?? 0,
  };
}

/** First page of a chunk, when it has pages. */
export function firstPage(chunk: Pick<CitableChunk, 'pageNumbers' | 'sourceRange'>): number | undefined {
  if (chunk.pageNumbers.length > 0) {
    return Math.min(...chunk.pageNumbers);
  }
  return chunk.sourceRange?.page;
}

/** The fragment of a link to the chunk: `#L12` / `#L12-L20` for text sources, `#page=3` for paged ones. */
export function linkFragment(chunk: Pick<CitableChunk, 'pageNumbers' | 'sourceRange'>): string {
  const range = chunk.sourceRange;
  if (range?.startLine !== undefined) {
    const start = range.startLine + 1;
    const end = lastLine(range) + 1;
    return end > start ? `#L${start}-L${end}` : `#L${start}`;
  }
  const page = firstPage(chunk);
  return page !== undefined ? `#page=${page}` : '';
}

/** Path of `targetFsPath` relative to the folder of `fromFsPath`, with forward slashes and URL-escaped. */
export function relativeLinkPath(fromFsPath: string, targetFsPath: string): string {
  const relative = path.relative(path.dirname(fromFsPath), targetFsPath).split(path.sep).join('/');
  return relative.split('/').map((segment) => encodeURIComponent(segment)).join('/');
}

function escapeLinkText(text: string): string {
  return text.replace(/([\\[\]])/g, '\\$1').replace(/\s+/g, ' ').trim();
}

/** The link text: the document title and the innermost heading ("Guide › Setup"). */
export function citationLabel(chunk: Pick<CitableChunk, 'title' | 'headings'>): string {
  const heading = chunk.headings[chunk.headings.length - 1];
  return heading && heading !== chunk.title ? `${chunk.title} › ${heading}` : chunk.title;
}

/** A Markdown link to the chunk's source, relative to the file being written. */
export function markdownCitation(chunk: CitableChunk, options: { fromFsPath: string; targetFsPath: string }): string {
  const target = relativeLinkPath(options.fromFsPath, options.targetFsPath) + linkFragment(chunk);
  return `[${escapeLinkText(citationLabel(chunk))}](${target})`;
}

/** A plain-text citation for the clipboard: `Title › Heading — docs/guide.md#L12`. */
export function plainCitation(chunk: Pick<CitableChunk, 'title' | 'headings' | 'pageNumbers' | 'sourceRange'>, relativePath: string): string {
  return `${citationLabel(chunk)} — ${relativePath}${linkFragment(chunk)}`;
}

/**
 * A Markdown link that opens a chunk through the `haiku.openChunk` command (own range selected, `context` shaded;
 * a PDF chunk on its page). The chat renders it only in a `MarkdownString` whose `isTrusted.enabledCommands` names
 * the command. The link text is escaped, so `[1]` shows as `[1]`.
 */
export function openChunkLink(text: string, chunkId: string, context?: { sourceRange?: SourceRange; docItemRefs?: readonly string[] }): string {
  const argumentsJson = JSON.stringify(context ? [chunkId, context] : [chunkId]);
  // Parentheses would end the link destination early in some renderers: percent-encode them too.
  const query = encodeURIComponent(argumentsJson).replace(/\(/g, '%28').replace(/\)/g, '%29');
  return `[${text.replace(/([\\`*_[\]<>])/g, '\\$1')}](command:${COMMANDS.openChunk}?${query})`;
}

/** A one-line preview of a chunk's content. */
export function preview(content: string, maxCharacters = 160): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  return flat.length > maxCharacters ? `${flat.slice(0, maxCharacters - 1)}…` : flat;
}
