import { unionSourceRanges } from '../sourceRanges';
import { EVIDENCE_ANCHOR_MIN_CHARS, EXPANSION_WINDOW_MARGIN, SMALL_SECTION_RATIO } from '../limits';
import { NOISE_LABELS, type ItemLabel } from '../model/document';
import type { SearchResult, StoredItem } from '../model/search';
import { pictureRefsOf } from './pictureRefs';

/** Items that open a section. */
const SECTION_BOUNDARY_LABELS: ReadonlySet<ItemLabel> = new Set<ItemLabel>(['section_header', 'title']);
/** Matches whose pertinent unit is the item plus its own (small) section: they never grow across sections. */
const TIGHT_LABELS: ReadonlySet<ItemLabel> = new Set<ItemLabel>(['picture', 'table']);
/** Between the items of an expanded result. */
const ITEM_SEPARATOR = '\n\n';

type ExpansionItem = Pick<StoredItem, 'position' | 'selfRef' | 'label' | 'text' | 'pageNumbers' | 'sourceRange'>;

/**
 * Section-aware context expansion (haiku.rag's algorithm). Per result, the matched items are found by their
 * refs, then:
 * - structured documents (a `section_header`/`title` within ±`EXPANSION_WINDOW_MARGIN` positions of the
 *   matches): the section around the median matched item is returned whole when its non-noise text is
 *   between `SMALL_SECTION_RATIO` and 100 % of the budget; a larger section grows item by item (one left,
 *   then one right) inside its bounds; a smaller one grows across sections, except for picture and table
 *   matches, which get their section as it is; noise items neither count nor appear;
 * - unstructured documents grow item by item over everything, noise included.
 * Overlapping ranges of one document (sharing a position) merge into one result that carries the
 * highest-scoring constituent's identity and lists every constituent in `mergedChunkIds`; the merge is
 * undone when the clip to the budget leaves a constituent with none of its own items. Content never
 * exceeds `maxContextChars` (clipped around the anchor chunk's text) and is never shorter than the anchor
 * chunk unless the budget forces it. Results without resolvable refs pass through. The list comes back
 * sorted by score (stable) with ranks renumbered from 1.
 */
export function expandSearchResults(
  results: readonly SearchResult[],
  itemsByDocument: ReadonlyMap<string, readonly ExpansionItem[]>,
  options: { maxContextChars: number },
): SearchResult[] {
  const maxChars = options.maxContextChars;
  const groups = new Map<string, SearchResult[]>();
  for (const result of results) {
    const group = groups.get(result.documentId);
    if (group) {
      group.push(result);
    } else {
      groups.set(result.documentId, [result]);
    }
  }
  const expanded: SearchResult[] = [];
  for (const [documentId, group] of groups) {
    expanded.push(...expandDocument(group, itemsByDocument.get(documentId) ?? [], maxChars));
  }
  const sorted = expanded.map((result, index) => ({ result, index })).sort((left, right) => right.result.score - left.result.score || left.index - right.index);
  return sorted.map(({ result }, index) => ({ ...result, rank: index + 1 }));
}

function expandDocument(results: readonly SearchResult[], items: readonly ExpansionItem[], maxChars: number): SearchResult[] {
  const positionByRef = new Map<string, number>();
  for (const item of items) {
    positionByRef.set(item.selfRef, item.position);
  }
  const matchedPositions = results.flatMap((result) => result.docItemRefs.filter((ref) => positionByRef.has(ref)).map((ref) => positionByRef.get(ref)!));
  if (matchedPositions.length === 0) {
    return [...results];
  }
  // The window haiku.rag fetches: section bounds and "structured or not" are decided inside it only.
  const windowStart = Math.max(0, Math.min(...matchedPositions) - EXPANSION_WINDOW_MARGIN);
  const windowEnd = Math.max(...matchedPositions) + EXPANSION_WINDOW_MARGIN;
  const window = items.filter((item) => item.position >= windowStart && item.position <= windowEnd).sort((left, right) => left.position - right.position);
  if (window.length === 0) {
    return [...results];
  }
  const hasSections = window.some((item) => SECTION_BOUNDARY_LABELS.has(item.label));
  const indexByPosition = new Map(window.map((item, index) => [item.position, index]));
  const itemByPosition = new Map(window.map((item) => [item.position, item]));

  const ranges: ExpansionRange[] = [];
  const passthrough: SearchResult[] = [];
  for (const result of results) {
    const matched = new Set<number>();
    for (const ref of result.docItemRefs) {
      const position = positionByRef.get(ref);
      if (position !== undefined && indexByPosition.has(position)) {
        matched.add(position);
      }
    }
    if (matched.size === 0) {
      passthrough.push(result);
      continue;
    }
    const matchedIndices = [...matched].map((position) => indexByPosition.get(position)!).sort((left, right) => left - right);
    const [first, last] = findExpansionRange(window, matchedIndices, hasSections, maxChars);
    ranges.push({ first, last, results: [result] });
  }

  const built: SearchResult[] = [];
  for (const range of mergeRanges(ranges)) {
    const result = buildResult(range, itemByPosition, hasSections, maxChars);
    if (range.results.length > 1 && lostConstituent(result, range.results)) {
      // The merged window cannot keep every constituent's evidence: give each its own window instead.
      for (const constituent of range.results) {
        const own = ranges.find((candidate) => candidate.results[0] === constituent)!;
        built.push(buildResult(own, itemByPosition, hasSections, maxChars));
      }
      continue;
    }
    built.push(result);
  }
  return [...built, ...passthrough];
}

/** An inclusive range of item positions and the results it serves. */
interface ExpansionRange {
  first: number;
  last: number;
  results: SearchResult[];
}

/** Inclusive [first, last] positions to expand to, around the median matched item. */
export function findExpansionRange(window: readonly ExpansionItem[], matchedIndices: readonly number[], hasSections: boolean, maxChars: number): [number, number] {
  const center = matchedIndices[Math.floor(matchedIndices.length / 2)];
  if (!hasSections) {
    return expandOutward(window, center, maxChars, { skipNoise: false });
  }
  const headerIndices = window.flatMap((item, index) => (SECTION_BOUNDARY_LABELS.has(item.label) ? [index] : []));
  // Items before the first header form a preamble section of their own.
  const sections: Array<[number, number]> = [];
  if (headerIndices[0] > 0) {
    sections.push([0, headerIndices[0] - 1]);
  }
  headerIndices.forEach((header, index) => {
    sections.push([header, index + 1 < headerIndices.length ? headerIndices[index + 1] - 1 : window.length - 1]);
  });
  const [sectionStart, sectionEnd] = sections.find(([start, end]) => start <= center && center <= end) ?? sections[0];
  let sectionChars = 0;
  for (let index = sectionStart; index <= sectionEnd; index++) {
    if (!NOISE_LABELS.has(window[index].label)) {
      sectionChars += window[index].text.length;
    }
  }
  const minimumUseful = Math.floor(maxChars * SMALL_SECTION_RATIO);
  if (sectionChars >= minimumUseful && sectionChars <= maxChars) {
    return [window[sectionStart].position, window[sectionEnd].position];
  }
  if (sectionChars > maxChars) {
    return expandOutward(window, center, maxChars, { skipNoise: true, lowBound: sectionStart, highBound: sectionEnd });
  }
  if (matchedIndices.some((index) => TIGHT_LABELS.has(window[index].label))) {
    return [window[sectionStart].position, window[sectionEnd].position];
  }
  return expandOutward(window, center, maxChars, { skipNoise: true });
}

/**
 * Grows from the centre one item left, then (if still under budget) one item right, until the budget is
 * reached or neither side can move; the last item added may overshoot. Returns inclusive positions.
 */
export function expandOutward(
  window: readonly ExpansionItem[],
  center: number,
  maxChars: number,
  options: { skipNoise: boolean; lowBound?: number; highBound?: number },
): [number, number] {
  const lowBound = options.lowBound ?? 0;
  const highBound = options.highBound ?? window.length - 1;
  const charsOf = (index: number): number => (options.skipNoise && NOISE_LABELS.has(window[index].label) ? 0 : window[index].text.length);
  let low = center;
  let high = center;
  let chars = charsOf(center);
  while (chars < maxChars) {
    let grew = false;
    if (low > lowBound) {
      low--;
      chars += charsOf(low);
      grew = true;
    }
    if (high < highBound && chars < maxChars) {
      high++;
      chars += charsOf(high);
      grew = true;
    }
    if (!grew) {
      break;
    }
  }
  return [window[low].position, window[high].position];
}

/** Sorts by start and merges ranges that share a position; merely adjacent ranges stay apart. */
export function mergeRanges(ranges: readonly ExpansionRange[]): ExpansionRange[] {
  const sorted = [...ranges].sort((left, right) => left.first - right.first);
  const merged: ExpansionRange[] = [];
  for (const range of sorted) {
    const current = merged[merged.length - 1];
    if (current && current.last >= range.first) {
      current.last = Math.max(current.last, range.last);
      current.results.push(...range.results);
    } else {
      merged.push({ first: range.first, last: range.last, results: [...range.results] });
    }
  }
  return merged;
}

/** Where one item's text sits in the joined content (zero width for a text-less picture). */
interface ItemSpan {
  start: number;
  end: number;
  item: ExpansionItem;
}

function buildResult(range: ExpansionRange, itemByPosition: ReadonlyMap<number, ExpansionItem>, hasSections: boolean, maxChars: number): SearchResult {
  const parts: string[] = [];
  const spans: ItemSpan[] = [];
  let cursor = 0;
  for (let position = range.first; position <= range.last; position++) {
    const item = itemByPosition.get(position);
    if (!item || (hasSections && NOISE_LABELS.has(item.label))) {
      continue;
    }
    if (item.text.length > 0) {
      if (parts.length > 0) {
        cursor += ITEM_SEPARATOR.length;
      }
      spans.push({ start: cursor, end: cursor + item.text.length, item });
      parts.push(item.text);
      cursor += item.text.length;
    } else if (item.label === 'picture') {
      // A picture without text keeps its ref (for its bytes and citations) at a zero-width position.
      spans.push({ start: cursor, end: cursor, item });
    }
  }
  const group = range.results;
  const anchor = group.reduce((best, result) => (result.score > best.score ? result : best));
  const joined = parts.join(ITEM_SEPARATOR);
  // Never less than the matched chunk itself (items can be fragments of what the chunk shows).
  const useChunk = joined.length < anchor.content.length;
  const base = useChunk ? anchor.content : joined;
  let content = base;
  let visible: ItemSpan[] | undefined = useChunk ? undefined : spans;
  if (base.length > maxChars) {
    const clip = clipAroundEvidence(base, anchor.content, [anchor, ...group], maxChars);
    content = clip.content;
    visible = visible?.filter((span) => spanInWindow(span, clip.start, clip.end));
  }
  let refs = visible ? visible.map((span) => span.item.selfRef) : [...anchor.docItemRefs];
  let labels = visible ? visible.map((span) => span.item.label) : [...anchor.labels];
  const pages = new Set<number>(visible ? visible.flatMap((span) => span.item.pageNumbers) : anchor.pageNumbers);
  // Inputs whose refs all survived lend their pages (fills items stored without page numbers).
  const surviving = new Set(refs);
  for (const result of group) {
    if (result.pageNumbers.length > 0 && result.docItemRefs.length > 0 && result.docItemRefs.every((ref) => surviving.has(ref))) {
      result.pageNumbers.forEach((page) => pages.add(page));
    }
  }
  if (refs.length === 0) {
    refs = [...anchor.docItemRefs];
    labels = [...anchor.labels];
  }
  const pageNumbers = pages.size > 0 ? [...pages].sort((left, right) => left - right) : [...anchor.pageNumbers];
  const sourceRange = (visible && visible.length > 0 ? unionSourceRanges(visible.map((span) => span.item.sourceRange)) : undefined) ?? anchor.sourceRange;
  const chunkIds = [anchor.chunkId, ...group.map((result) => result.chunkId).filter((id) => id !== anchor.chunkId)].filter((id, index, all) => all.indexOf(id) === index);
  const windowItems = [...itemByPosition.values()];
  const pictureRefs = pictureRefsOf(refs, windowItems);
  // Only the matched chunks' own pictures (directly or through their caption) are attachable; expansion's are not.
  const matchedPictures = new Set(pictureRefsOf(group.flatMap((result) => result.docItemRefs), windowItems));
  const expanded: SearchResult = {
    ...anchor,
    // The ordered union of the constituents' heading trails (reference §3.3 step 8), in the group's order.
    headings: [...new Set(group.flatMap((result) => result.headings))],
    content,
    docItemRefs: refs,
    pictureRefs,
    ownPictureRefs: pictureRefs.filter((ref) => matchedPictures.has(ref)),
    pictureCaptions: pictureCaptionsOf(pictureRefs, windowItems),
    labels,
    pageNumbers,
    score: Math.max(...group.map((result) => result.score)),
  };
  if (sourceRange) {
    expanded.sourceRange = sourceRange;
  } else {
    delete expanded.sourceRange;
  }
  // The hits' own lines, so a jump can select the evidence itself and only shade the context around it.
  const chunkSourceRange = unionSourceRanges(group.map((result) => result.chunkSourceRange ?? result.sourceRange));
  if (chunkSourceRange) {
    expanded.chunkSourceRange = chunkSourceRange;
  } else {
    delete expanded.chunkSourceRange;
  }
  if (chunkIds.length > 1) {
    expanded.mergedChunkIds = chunkIds;
  } else {
    delete expanded.mergedChunkIds;
  }
  return expanded;
}

/** Each picture followed by a caption item → the caption's text (a caption at p describes the picture at p − 1). */
function pictureCaptionsOf(pictureRefs: readonly string[], items: readonly ExpansionItem[]): Record<string, string> {
  const byRef = new Map(items.map((item) => [item.selfRef, item]));
  const byPosition = new Map(items.map((item) => [item.position, item]));
  const captions: Record<string, string> = {};
  for (const ref of pictureRefs) {
    const picture = byRef.get(ref);
    const caption = picture ? byPosition.get(picture.position + 1) : undefined;
    if (caption?.label === 'caption' && caption.text.trim() !== '') {
      captions[ref] = caption.text.trim();
    }
  }
  return captions;
}

function spanInWindow(span: ItemSpan, windowStart: number, windowEnd: number): boolean {
  if (span.start === span.end) {
    return windowStart <= span.start && span.start <= windowEnd;
  }
  return span.start < windowEnd && span.end > windowStart;
}

/** Whether some constituent (with refs) has none of its refs left in the built result. */
function lostConstituent(built: SearchResult, group: readonly SearchResult[]): boolean {
  const surviving = new Set(built.docItemRefs);
  return group.some((result) => result.docItemRefs.length > 0 && !result.docItemRefs.some((ref) => surviving.has(ref)));
}

/** Marks where expanded content was cut to fit the budget. */
const CUT_MARKER = '…';

/**
 * Cuts `base` to at most `maxChars` characters (cut markers included) around the anchor chunk's evidence. A chunk
 * that fits the budget comes back whole: the room for the markers is taken from the context around it, and a
 * marker that no longer fits (a chunk as long as the budget) is left out rather than cutting the chunk's words.
 */
export function clipAroundEvidence(
  base: string,
  chunkText: string,
  results: ReadonlyArray<Pick<SearchResult, 'content'>>,
  maxChars: number,
): { content: string; start: number; end: number } {
  const marked = (start: number, end: number): { content: string; start: number; end: number } => ({
    content: `${start > 0 ? CUT_MARKER : ''}${base.slice(start, end)}${end < base.length ? CUT_MARKER : ''}`,
    start,
    end,
  });
  // One character on each side is kept for the cut marker, so the content stays within the budget.
  const [clipStart, clipEnd] = clipWindow(base, results, Math.max(0, maxChars - 2 * CUT_MARKER.length));
  const [windowStart, windowEnd] = snapToBoundaries(base, clipStart, clipEnd);
  const chunkStart = chunkText.length > 0 && chunkText.length <= maxChars ? base.indexOf(chunkText) : -1;
  const chunkEnd = chunkStart + chunkText.length;
  if (chunkStart < 0 || (windowStart <= chunkStart && chunkEnd <= windowEnd)) {
    return marked(windowStart, windowEnd);
  }
  // The marker room pushed the chunk's edges out of the window: keep the chunk whole, context only as room allows.
  const leadingMarker = chunkStart > 0 ? CUT_MARKER.length : 0;
  const trailingMarker = chunkEnd < base.length ? CUT_MARKER.length : 0;
  const spare = maxChars - chunkText.length - leadingMarker - trailingMarker;
  if (spare <= 0) {
    // No room for context; markers only where they still fit (the leading one first: the reader meets it first).
    const leading = leadingMarker > 0 && chunkText.length + CUT_MARKER.length <= maxChars;
    const trailing = trailingMarker > 0 && chunkText.length + (leading ? 2 : 1) * CUT_MARKER.length <= maxChars;
    return {
      content: `${leading ? CUT_MARKER : ''}${chunkText}${trailing ? CUT_MARKER : ''}`,
      start: chunkStart,
      end: chunkEnd,
    };
  }
  let start = Math.max(0, chunkStart - Math.floor(spare / 2));
  const end = Math.min(base.length, start + chunkText.length + spare);
  start = Math.max(0, Math.min(start, end - chunkText.length - spare));
  const [snappedStart, snappedEnd] = snapToBoundaries(base, start, end);
  // Snapping trims context only, never the chunk.
  const keptStart = Math.min(snappedStart, chunkStart);
  const keptEnd = Math.max(snappedEnd, chunkEnd);
  const content = marked(keptStart, keptEnd);
  return content.content.length <= maxChars ? content : marked(chunkStart, chunkEnd);
}

/** How far (share of the window) a cut may move to reach an item, sentence or word boundary. */
const BOUNDARY_SEARCH_SHARE = 0.15;

/**
 * Moves a clipped window's edges inward to the nearest boundary, preferring the gap between items, then the end of
 * a sentence, then white space, so expanded content never starts or ends inside a word. An edge moves at most
 * `BOUNDARY_SEARCH_SHARE` of the window (the evidence sits in the middle and stays inside); a window holding no
 * boundary at all (one enormous word) keeps its edges.
 */
export function snapToBoundaries(content: string, start: number, end: number): [number, number] {
  const reach = Math.max(1, Math.floor((end - start) * BOUNDARY_SEARCH_SHARE));
  let snappedStart = start;
  if (start > 0 && !isWordBoundary(content, start)) {
    const ahead = content.slice(start, Math.min(end, start + reach));
    const item = ahead.indexOf(ITEM_SEPARATOR);
    const sentence = /[.!?…。！？]["'”’)\]]*\s+/u.exec(ahead);
    const space = /\s+/u.exec(ahead);
    if (item >= 0) {
      snappedStart = start + item + ITEM_SEPARATOR.length;
    } else if (sentence) {
      snappedStart = start + sentence.index + sentence[0].length;
    } else if (space) {
      snappedStart = start + space.index + space[0].length;
    }
  }
  let snappedEnd = end;
  if (end < content.length && !isWordBoundary(content, end)) {
    const behind = content.slice(Math.max(snappedStart, end - reach), end);
    const offset = end - behind.length;
    const item = behind.lastIndexOf(ITEM_SEPARATOR);
    const sentenceEnds = [...behind.matchAll(/[.!?…。！？]["'”’)\]]*(?=\s)/gu)];
    const lastSentence = sentenceEnds.at(-1);
    const lastSpace = Math.max(behind.lastIndexOf(' '), behind.lastIndexOf('\n'), behind.lastIndexOf('\t'));
    if (item >= 0) {
      snappedEnd = offset + item;
    } else if (lastSentence) {
      snappedEnd = offset + lastSentence.index + lastSentence[0].length;
    } else if (lastSpace >= 0) {
      snappedEnd = offset + lastSpace;
    }
  }
  return snappedEnd > snappedStart ? [snappedStart, snappedEnd] : [start, end];
}

/** A cut at `index` falls between words: no word continues across it. */
function isWordBoundary(content: string, index: number): boolean {
  return !(isWordCharacter(content[index - 1]) && isWordCharacter(content[index]));
}

function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}_]/u.test(character);
}

/**
 * Substrings that locate a chunk inside expanded content: the whole chunk text when it fits the budget,
 * plus a central slice (about half the budget or half the text, at least `EVIDENCE_ANCHOR_MIN_CHARS` unless
 * the text or budget is shorter) that tolerates formatting drift at the chunk's edges. None is longer than
 * the budget.
 */
export function evidenceAnchors(content: string, maxChars: number): string[] {
  if (content.length === 0) {
    return [];
  }
  const anchors: string[] = [];
  if (content.length <= maxChars) {
    anchors.push(content);
  }
  if (maxChars > 0) {
    const minimum = Math.min(EVIDENCE_ANCHOR_MIN_CHARS, maxChars, content.length);
    let target = Math.min(Math.floor(maxChars / 2), Math.floor(content.length / 2));
    target = Math.min(Math.max(target, minimum), maxChars, content.length);
    if (target < content.length) {
      const start = Math.max(0, Math.floor(content.length / 2) - Math.floor(target / 2));
      anchors.push(content.slice(start, start + target));
    }
  }
  return anchors;
}

/**
 * The [start, end) window of `content` to keep: `maxChars` wide, centred on the first locatable anchor of
 * the first result that has one; the prefix when none is found.
 */
export function clipWindow(content: string, results: ReadonlyArray<Pick<SearchResult, 'content'>>, maxChars: number): [number, number] {
  if (maxChars <= 0) {
    return [0, 0];
  }
  let evidenceStart = -1;
  let evidenceLength = 0;
  for (const result of results) {
    for (const anchor of evidenceAnchors(result.content, maxChars)) {
      const index = content.indexOf(anchor);
      if (index >= 0) {
        evidenceStart = index;
        evidenceLength = anchor.length;
        break;
      }
    }
    if (evidenceStart >= 0) {
      break;
    }
  }
  if (evidenceStart < 0) {
    return [0, Math.min(content.length, maxChars)];
  }
  const center = evidenceStart + Math.floor(evidenceLength / 2);
  let start = Math.max(0, center - Math.floor(maxChars / 2));
  const end = Math.min(content.length, start + maxChars);
  start = Math.max(0, end - maxChars);
  return [start, end];
}
