import type { StoredItem } from './model/search';

/**
 * Where a chunk sits in the Markdown rendering of a document whose source has no lines (PDF, DOCX). Text alone
 * is ambiguous (a sentence can repeat across sections), so a chunk is placed by its own position: the order of
 * its text among the document's items when they are known, else its section trail (its headings, found in order).
 */

/** Inclusive, 0-based lines of a rendering. */
export interface RenderingLineSpan {
  startLine: number;
  endLine: number;
}

/** What places a chunk among repeated texts: its item refs and the document's items in position order. */
export interface ChunkPlacement {
  docItemRefs: readonly string[];
  items: ReadonlyArray<Pick<StoredItem, 'selfRef' | 'position' | 'text'>>;
}

/** Characters of a line that identify it (longer lines are compared by this prefix). */
const PROBE_CHARS = 60;
/** How far below its first line a chunk's last line is looked for. */
const CHUNK_MAX_LINES = 400;

/** Markdown emphasis, code and heading marks dropped, white space collapsed, lower case. */
export function normalizeRenderedText(text: string): string {
  return text.replace(/[*_`#]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

const HEADING_LINE = /^#{1,6}\s/;

/** 0-based line of the Markdown heading with this title (exact first, then loose), at or after `fromLine`. */
export function findHeadingLine(markdown: string, title: string, fromLine = 0): number | undefined {
  return headingLineIn(markdown.split('\n'), title, fromLine);
}

function headingLineIn(lines: readonly string[], title: string, fromLine: number): number | undefined {
  const wanted = normalizeRenderedText(title);
  for (let index = fromLine; index < lines.length; index++) {
    if (HEADING_LINE.test(lines[index]) && normalizeRenderedText(lines[index].replace(/^#{1,6}\s+/, '')) === wanted) {
      return index;
    }
  }
  for (let index = fromLine; index < lines.length; index++) {
    if (HEADING_LINE.test(lines[index]) && normalizeRenderedText(lines[index]).includes(wanted)) {
      return index;
    }
  }
  return undefined;
}

/**
 * The line of the innermost heading of a trail, each heading looked for below the one before (so "Part B > Notes"
 * finds Part B's Notes, not Part A's); undefined when no heading of the trail is found.
 */
export function headingTrailLine(lines: readonly string[], headings: readonly string[]): number | undefined {
  let found: number | undefined;
  for (const heading of headings) {
    const line = headingLineIn(lines, heading, found ?? 0);
    if (line !== undefined) {
      found = line;
    }
  }
  return found;
}

/**
 * Where a chunk's content sits in a rendering: the line holding the start of its first non-empty line, through the
 * line holding its last. When its first line occurs more than once, `placement` picks the occurrence by how often
 * the text occurs in the items before the chunk's; without it, the first occurrence below the chunk's heading
 * trail. Falls back to the innermost heading of the trail when the text is not found.
 */
export function findChunkInRendering(markdown: string, chunkContent: string, headings: readonly string[], placement?: ChunkPlacement): RenderingLineSpan | undefined {
  const lines = markdown.split('\n');
  const normalizedLines = lines.map(normalizeRenderedText);
  const contentLines = chunkContent.split('\n').map(normalizeRenderedText).filter((line) => line.length > 0);
  if (contentLines.length > 0) {
    const needle = contentLines[0].slice(0, PROBE_CHARS);
    const candidates = normalizedLines.flatMap((line, index) => (line.includes(needle) ? [index] : []));
    const start = candidates.length > 1 ? chooseOccurrence(candidates, needle, lines, headings, placement) : candidates[0];
    if (start !== undefined) {
      const lastNeedle = contentLines[contentLines.length - 1].slice(0, PROBE_CHARS);
      let end = start;
      for (let index = start; index < normalizedLines.length && index < start + CHUNK_MAX_LINES; index++) {
        if (normalizedLines[index].includes(lastNeedle)) {
          end = index;
          break;
        }
      }
      return { startLine: start, endLine: end };
    }
  }
  const trailLine = headingTrailLine(lines, headings);
  return trailLine === undefined ? undefined : { startLine: trailLine, endLine: trailLine };
}

/** The candidate line that is the chunk's own occurrence of `needle`. */
function chooseOccurrence(candidates: readonly number[], needle: string, lines: readonly string[], headings: readonly string[], placement: ChunkPlacement | undefined): number {
  const earlier = placement ? occurrencesBeforeChunk(needle, placement) : undefined;
  if (earlier !== undefined && earlier < candidates.length) {
    return candidates[earlier];
  }
  const trailLine = headingTrailLine(lines, headings);
  if (trailLine !== undefined) {
    return candidates.find((line) => line >= trailLine) ?? candidates[0];
  }
  return candidates[0];
}

/**
 * How many lines of the items before the chunk's own item hold `needle`: the chunk's occurrence is the next one.
 * The chunk's own item is its first ref whose text holds the needle (its refs may start with a header it does not
 * show). Undefined when none of its refs is among the items.
 */
function occurrencesBeforeChunk(needle: string, placement: ChunkPlacement): number | undefined {
  const refs = new Set(placement.docItemRefs);
  const own = placement.items.filter((item) => refs.has(item.selfRef));
  if (own.length === 0) {
    return undefined;
  }
  const linesHolding = (text: string): number => text.split('\n').filter((line) => normalizeRenderedText(line).includes(needle)).length;
  const anchor = own.find((item) => linesHolding(item.text) > 0) ?? own[0];
  let count = 0;
  for (const item of placement.items) {
    if (item.position < anchor.position) {
      count += linesHolding(item.text);
    }
  }
  return count;
}
