import * as assert from 'node:assert';
import type { ItemLabel } from '../../../src/core/model/document';
import type { SearchResult, StoredItem } from '../../../src/core/model/search';
import { clipWindow, evidenceAnchors, expandOutward, expandSearchResults, findExpansionRange, mergeRanges } from '../../../src/core/search/contextExpansion';
import { renderSearchResultsForModel } from '../../../src/core/search/renderResults';

const BUDGET = 5000;

/** Stored items of one document; refs are `#/texts/<position>` so tests can name them by position. */
function items(specs: Array<[ItemLabel, string | number]>, documentId = 'doc'): StoredItem[] {
  return specs.map(([label, text], position) => ({
    documentId,
    position,
    selfRef: `#/texts/${position}`,
    label,
    text: typeof text === 'number' ? filler(text, position) : text,
    headingLevel: label === 'section_header' ? 1 : 0,
    pageNumbers: [],
    treeDepth: 0,
    sourceRange: { startLine: position, startColumn: 0, endLine: position + 1, endColumn: 0 },
    chunkIds: [],
  }));
}

/** Text of exactly `length` characters, unique per position. */
function filler(length: number, position: number): string {
  const seed = `item${position} `;
  return seed.repeat(Math.ceil(length / seed.length)).slice(0, length);
}

function ref(position: number): string {
  return `#/texts/${position}`;
}

function hit(positions: number[], stored: readonly StoredItem[], overrides: Partial<SearchResult> = {}): SearchResult {
  const own = positions.map((position) => stored[position]);
  return {
    chunkId: `chunk-${positions.join('-')}`,
    documentId: stored[0]?.documentId ?? 'doc',
    uri: 'file:///doc.md',
    title: 'Doc',
    content: own.map((item) => item.text).join('\n\n'),
    headings: ['Anchor heading'],
    labels: own.map((item) => item.label),
    pageNumbers: [],
    docItemRefs: positions.map(ref),
    score: 0.5,
    rank: 1,
    ...overrides,
  };
}

function expand(results: SearchResult[], stored: readonly StoredItem[], maxContextChars = BUDGET): SearchResult[] {
  return expandSearchResults(results, new Map([[stored[0]?.documentId ?? 'doc', stored]]), { maxContextChars });
}

function rangeOf(stored: readonly StoredItem[], matched: number[], maxChars = BUDGET): [number, number] {
  const hasSections = stored.some((item) => item.label === 'section_header' || item.label === 'title');
  return findExpansionRange(stored, matched, hasSections, maxChars);
}

function rangeResult(first: number, last: number, chunkId: string): { first: number; last: number; results: SearchResult[] } {
  return { first, last, results: [{ chunkId } as SearchResult] };
}

describe('context expansion', () => {
  describe('merging ranges', () => {
    it('handles empty input', () => {
      assert.deepStrictEqual(mergeRanges([]), []);
    });

    it('keeps disjoint and adjacent ranges apart, merges overlaps and shared endpoints, sorts unsorted input', () => {
      const merged = mergeRanges([rangeResult(20, 25, 'd'), rangeResult(0, 5, 'a'), rangeResult(3, 8, 'b'), rangeResult(9, 12, 'c'), rangeResult(12, 14, 'e')]);
      assert.deepStrictEqual(merged.map((range) => [range.first, range.last, range.results.map((result) => result.chunkId)]), [
        [0, 8, ['a', 'b']],
        [9, 14, ['c', 'e']],
        [20, 25, ['d']],
      ]);
    });
  });

  describe('growing outward', () => {
    const flat = items(Array.from({ length: 40 }, () => ['paragraph', 500] as [ItemLabel, number]));

    it('reaches the budget, overshooting by at most one item, one left then one right', () => {
      const [first, last] = expandOutward(flat, 20, BUDGET, { skipNoise: false });
      const chars = flat.slice(first, last + 1).reduce((sum, item) => sum + item.text.length, 0);
      assert.ok(chars >= BUDGET && chars <= BUDGET + 500, `${chars} chars`);
      assert.deepStrictEqual([first, last], [15, 24]);
    });

    it('grows only rightwards from the first item and only leftwards from the last', () => {
      assert.deepStrictEqual(expandOutward(flat, 0, BUDGET, { skipNoise: false }), [0, 9]);
      assert.deepStrictEqual(expandOutward(flat, 39, BUDGET, { skipNoise: false }), [30, 39]);
    });

    it('does not count noise when told to, and a noise centre starts at zero', () => {
      const noisy = items([['paragraph', 1000], ['footnote', 5000], ['paragraph', 1000], ['footnote', 5000], ['paragraph', 1000], ['paragraph', 1000], ['paragraph', 1000]]);
      assert.deepStrictEqual(expandOutward(noisy, 2, 3000, { skipNoise: true }), [0, 4]);
      assert.deepStrictEqual(expandOutward(noisy, 2, 3000, { skipNoise: false }), [1, 2], 'the 5 000-char footnote fills the budget');
      const noiseCentre = items([['paragraph', 100], ['page_footer', 9000], ['paragraph', 100]]);
      assert.deepStrictEqual(expandOutward(noiseCentre, 1, 150, { skipNoise: true }), [0, 2]);
    });

    it('respects low and high bounds', () => {
      assert.deepStrictEqual(expandOutward(flat, 20, BUDGET, { skipNoise: false, lowBound: 18, highBound: 22 }), [18, 22]);
    });
  });

  describe('finding the range', () => {
    const structured = items([
      ['title', 'Paper'], // 0
      ['paragraph', 'A. Author, B. Author'], // 1
      ['section_header', 'Abstract'], // 2
      ['paragraph', 1500], // 3
      ['paragraph', 1500], // 4
      ['footnote', 3000], // 5
      ['section_header', 'Methods'], // 6
      ['paragraph', 2000], // 7
      ['section_header', 'Small'], // 8
      ['picture', 'Figure 1: a chart'], // 9
      ['caption', 'Figure 1'], // 10
      ['section_header', 'Tiny table'], // 11
      ['table', '| a |\n| - |\n| 1 |'], // 12
      ['section_header', 'Tiny text'], // 13
      ['paragraph', 'A short remark.'], // 14
      ['section_header', 'Next'], // 15
      ['paragraph', 3000], // 16
    ]);

    it('returns the section of a structured match whole, trailing footnote included', () => {
      assert.deepStrictEqual(rangeOf(structured, [3]), [2, 5]);
      assert.deepStrictEqual(rangeOf(structured, [7]), [6, 7]);
    });

    it('excludes noise from the section size (4 000 chars of text + 3 000 of footnote still fit 5 000)', () => {
      const withNoise = items([['section_header', 'S'], ['paragraph', 2000], ['footnote', 3000], ['paragraph', 2000], ['section_header', 'T'], ['paragraph', 4000]]);
      assert.deepStrictEqual(rangeOf(withNoise, [1]), [0, 3]);
    });

    it('keeps growth inside a section larger than the budget', () => {
      const large = items([['section_header', 'A'], ['paragraph', 1000], ...Array.from({ length: 19 }, () => ['paragraph', 1000] as [ItemLabel, number]), ['section_header', 'B'], ['paragraph', 100]]);
      const [first, last] = rangeOf(large, [10]);
      assert.ok(first >= 0 && last <= 20, `${first}..${last}`);
      assert.deepStrictEqual([first, last], [8, 12]);
      const [edgeFirst, edgeLast] = rangeOf(large, [19]);
      assert.deepStrictEqual([edgeFirst, edgeLast], [16, 20], 'bounded by the next header');
    });

    it('returns a section of many small items whole when it fits', () => {
      const many = items([['section_header', 'List'], ...Array.from({ length: 20 }, () => ['list_item', 100] as [ItemLabel, number]), ['section_header', 'After'], ['paragraph', 4000]]);
      assert.deepStrictEqual(rangeOf(many, [5]), [0, 20]);
    });

    it('grows a tiny title+authors section into the abstract', () => {
      const [first, last] = rangeOf(structured, [1]);
      assert.strictEqual(first, 0);
      assert.ok(last >= 3, `reached ${last}`);
    });

    it('grows an unstructured document both ways', () => {
      const flat = items(Array.from({ length: 30 }, () => ['paragraph', 1000] as [ItemLabel, number]));
      assert.deepStrictEqual(rangeOf(flat, [15]), [13, 17]);
    });

    it('centres on the median of several matched items', () => {
      const flat = items(Array.from({ length: 30 }, () => ['paragraph', 1000] as [ItemLabel, number]));
      assert.deepStrictEqual(rangeOf(flat, [2, 20, 25]), [18, 22]);
      assert.deepStrictEqual(rangeOf(flat, [2, 20]), [18, 22], 'index len/2 of the sorted matches');
    });

    it('treats items before the first header as a section, which grows into the next when small', () => {
      const preamble = items([['paragraph', 'Draft notice.'], ['section_header', 'Intro'], ['paragraph', 3000], ['section_header', 'Body'], ['paragraph', 3000]]);
      const [first, last] = rangeOf(preamble, [0]);
      assert.strictEqual(first, 0);
      assert.ok(last >= 2);
      const largePreamble = items([['paragraph', 2000], ['section_header', 'Intro'], ['paragraph', 3000]]);
      assert.deepStrictEqual(rangeOf(largePreamble, [0]), [0, 0]);
    });

    it('keeps a picture or table match in a small section to exactly that section', () => {
      assert.deepStrictEqual(rangeOf(structured, [9]), [8, 10]);
      assert.deepStrictEqual(rangeOf(structured, [12]), [11, 12]);
    });

    it('lets a text match in an equally small section grow across sections', () => {
      const [first, last] = rangeOf(structured, [14]);
      assert.ok(first < 13 && last > 14, `${first}..${last}`);
    });

    it('still grows a picture match inside a large section', () => {
      const large = items([['section_header', 'Big'], ['paragraph', 3000], ['picture', 'chart'], ['paragraph', 3000], ['paragraph', 3000]]);
      assert.deepStrictEqual(rangeOf(large, [2]), [1, 3]);
    });
  });

  describe('evidence anchors and clipping', () => {
    it('gives no anchor for empty content', () => {
      assert.deepStrictEqual(evidenceAnchors('', 100), []);
    });

    it('never gives an anchor longer than the budget, even below the 128-char minimum', () => {
      for (const budget of [10, 50, 127, 300]) {
        for (const anchor of evidenceAnchors('x'.repeat(1000), budget)) {
          assert.ok(anchor.length <= budget);
        }
      }
    });

    it('uses only the full text for tiny content, and adds a strictly shorter central slice for long content', () => {
      assert.deepStrictEqual(evidenceAnchors('tiny', 100), ['tiny']);
      const long = 'a'.repeat(300) + 'MIDDLE' + 'b'.repeat(300);
      const anchors = evidenceAnchors(long, 5000);
      assert.strictEqual(anchors[0], long);
      assert.ok(anchors[1].length < long.length && anchors[1].length >= 128 && anchors[1].includes('MIDDLE'));
    });

    it('clips to nothing at zero budget, to the prefix without anchor, around the marker otherwise', () => {
      assert.deepStrictEqual(clipWindow('abc', [{ content: 'b' }], 0), [0, 0]);
      assert.deepStrictEqual(clipWindow('x'.repeat(100), [{ content: 'not there' }], 10), [0, 10]);
      const huge = 'a'.repeat(300_000) + 'MARKER' + 'b'.repeat(300_000);
      const [start, end] = clipWindow(huge, [{ content: 'MARKER' }], 10_000);
      assert.strictEqual(end - start, 10_000);
      assert.ok(huge.slice(start, end).includes('MARKER'));
    });
  });

  describe('expanding results', () => {
    const documentItems = items([
      ['title', 'Doc'], // 0
      ['section_header', 'Alpha'], // 1
      ['paragraph', 1200], // 2
      ['paragraph', 1200], // 3
      ['section_header', 'Beta'], // 4
      ['paragraph', 1500], // 5
      ['paragraph', 1500], // 6
    ]);

    it('passes through results without resolvable refs, next to an expanded sibling, and documents without items', () => {
      const unresolved = hit([2], documentItems, { chunkId: 'ghost', docItemRefs: ['#/texts/999'], score: 0.9 });
      const noRefs = hit([2], documentItems, { chunkId: 'custom', docItemRefs: [], score: 0.1 });
      const foreign = { ...hit([2], documentItems), chunkId: 'foreign', documentId: 'unknown', score: 0.3 };
      const expanded = expand([unresolved, hit([5], documentItems, { score: 0.5 }), noRefs, foreign], documentItems);
      assert.deepStrictEqual(expanded.map((result) => [result.chunkId, result.rank]), [['ghost', 1], ['chunk-5', 2], ['foreign', 3], ['custom', 4]]);
      assert.strictEqual(expanded[0].content, unresolved.content);
      assert.strictEqual(expanded[2].content, foreign.content);
      assert.strictEqual(expanded[1].content, [documentItems[4], documentItems[5], documentItems[6]].map((item) => item.text).join('\n\n'));
    });

    it('returns the whole mid-size section with its refs, labels, range and the anchor headings', () => {
      const [result] = expand([hit([3], documentItems)], documentItems);
      assert.strictEqual(result.content, ['Alpha', documentItems[2].text, documentItems[3].text].join('\n\n'));
      assert.deepStrictEqual(result.docItemRefs, [ref(1), ref(2), ref(3)]);
      assert.deepStrictEqual(result.labels, ['section_header', 'paragraph', 'paragraph']);
      assert.deepStrictEqual(result.sourceRange, { startLine: 1, startColumn: 0, endLine: 4, endColumn: 0 });
      assert.deepStrictEqual(result.headings, ['Anchor heading']);
      assert.strictEqual(result.chunkId, 'chunk-3');
      assert.strictEqual(result.mergedChunkIds, undefined, 'a solo result keeps its own id and lists no constituents');
    });

    it('keeps the chunk\'s own range beside the expanded one (jumps select the evidence, shade the context)', () => {
      const own = { startLine: 3, startColumn: 0, endLine: 4, endColumn: 0 };
      const [result] = expand([hit([3], documentItems, { sourceRange: own })], documentItems);
      assert.deepStrictEqual(result.sourceRange, { startLine: 1, startColumn: 0, endLine: 4, endColumn: 0 });
      assert.deepStrictEqual(result.chunkSourceRange, own);
    });

    it('gives a merged result the union of its constituents\' own ranges', () => {
      const low = hit([2], documentItems, { chunkId: 'low', score: 0.2, sourceRange: { startLine: 2, startColumn: 0, endLine: 3, endColumn: 0 } });
      const high = hit([3], documentItems, { chunkId: 'high', score: 0.7, sourceRange: { startLine: 3, startColumn: 4, endLine: 3, endColumn: 9 } });
      const [result] = expand([low, high], documentItems);
      assert.deepStrictEqual(result.mergedChunkIds, ['high', 'low']);
      assert.deepStrictEqual(result.chunkSourceRange, { startLine: 2, startColumn: 0, endLine: 3, endColumn: 9 });
    });

    it('keeps the original chunk when the range holds only noise', () => {
      // The footnote's section has no counted text; what it grows to holds no non-noise text but the header.
      const onlyNoise = items([['section_header', 'Foot'], ['footnote', 'A footnote that was matched.']]);
      const [result] = expand([hit([1], onlyNoise)], onlyNoise);
      assert.strictEqual(result.content, 'A footnote that was matched.');
      assert.deepStrictEqual(result.docItemRefs, [ref(1)]);
      // A small section grows across into the next one, whose footnote neither counts nor appears.
      const noisy = items([['section_header', 'Notes'], ['paragraph', 300], ['section_header', 'Foot'], ['footnote', 'A footnote, not matched.']]);
      const [fromNoisy] = expand([hit([1], noisy)], noisy);
      assert.strictEqual(fromNoisy.content, ['Notes', noisy[1].text, 'Foot'].join('\n\n'));
      assert.deepStrictEqual(fromNoisy.docItemRefs, [ref(0), ref(1), ref(2)]);
    });

    it('never returns less than the chunk: fragmented items fall back to the chunk text and metadata', () => {
      const fragments = items([['section_header', 'List'], ['list_item', 'alpha'], ['list_item', 'beta']]);
      const chunkText = 'alpha (the first entry, described at length in the chunk) and beta, with much more text than the items carry, because the converter split it into fragments';
      const [result] = expand([hit([1, 2], fragments, { content: chunkText, pageNumbers: [4] })], fragments);
      assert.strictEqual(result.content, chunkText);
      assert.deepStrictEqual(result.docItemRefs, [ref(1), ref(2)]);
      assert.deepStrictEqual(result.pageNumbers, [4]);
    });

    it('clips a single huge item around the match', () => {
      const huge = 'x'.repeat(20_000) + ' NEEDLE in the haystack ' + 'y'.repeat(20_000);
      const sheet = items([['section_header', 'Sheet'], ['table', huge]]);
      const [result] = expand([hit([1], sheet, { content: 'NEEDLE in the haystack' })], sheet);
      assert.strictEqual(result.content.length, BUDGET);
      assert.ok(result.content.includes('NEEDLE in the haystack'));
      assert.deepStrictEqual(result.docItemRefs, [ref(1)]);
    });

    it('does not let a giant neighbour blow the budget', () => {
      const giant = items([['paragraph', 'small match here'], ['paragraph', 50_000]]);
      const [result] = expand([hit([0], giant)], giant);
      assert.ok(result.content.length <= BUDGET);
      assert.ok(result.content.includes('small match here'));
    });

    it('does not clip small items under the budget', () => {
      const small = items([['paragraph', 100], ['paragraph', 100], ['paragraph', 100]]);
      const [result] = expand([hit([1], small)], small);
      assert.strictEqual(result.content, small.map((item) => item.text).join('\n\n'));
    });

    it('caps an original chunk larger than the budget', () => {
      const text = 'z'.repeat(8000);
      const single = items([['paragraph', 'short']]);
      const [result] = expand([hit([0], single, { content: text })], single, 1000);
      // One enormous word has no boundary to move to: the budget holds, less the room kept for the cut markers.
      assert.ok(result.content.length <= 1000 && result.content.length >= 998, String(result.content.length));
      assert.ok(result.content.endsWith('…'));
    });

    it('brings a chunk as long as the budget back whole: the cut markers never push its first words out', () => {
      const words = (seed: string, length: number): string => `${seed} `.repeat(Math.ceil(length / (seed.length + 1))).slice(0, length);
      const budget = 1000;
      // The chunk spans items 1 and 2 and is exactly the budget long; its neighbours make the expansion overflow.
      const left = words('before', 400);
      const first = `Opening words ${words('first', 490 - 'Opening words '.length)}`;
      const second = `${words('second', 501)}ending.`;
      const chunkText = `${first}\n\n${second}`;
      assert.strictEqual(chunkText.length, budget);
      const stored = items([['paragraph', left], ['paragraph', first], ['paragraph', second], ['paragraph', words('after', 400)]]);
      const [exact] = expand([hit([1, 2], stored)], stored, budget);
      assert.strictEqual(exact.content, chunkText);
      // One character under the budget: the chunk stays whole and one marker still fits.
      const [roomy] = expand([hit([1, 2], stored)], stored, budget + 1);
      assert.ok(roomy.content.includes(chunkText), roomy.content.slice(0, 40));
      assert.ok(roomy.content.length <= budget + 1);
      // With room to spare, context fills the rest inside the budget, markers included.
      const [spacious] = expand([hit([1, 2], stored)], stored, budget + 200);
      assert.ok(spacious.content.includes(chunkText));
      assert.ok(spacious.content.length <= budget + 200 && spacious.content.length > budget + 100, String(spacious.content.length));
      // (The expansion starts at the chunk's own first item, so only the end is cut.)
      assert.ok(spacious.content.startsWith(chunkText) && spacious.content.endsWith('…'));
    });

    it('merges overlapping hits: highest score is the anchor, every id is listed, only the anchor id is rendered', () => {
      const low = hit([2], documentItems, { chunkId: 'low', score: 0.2, headings: ['Alpha low'] });
      const high = hit([3], documentItems, { chunkId: 'high', score: 0.7, headings: ['Alpha high'] });
      const expanded = expand([low, high], documentItems);
      assert.strictEqual(expanded.length, 1);
      assert.strictEqual(expanded[0].chunkId, 'high');
      assert.deepStrictEqual(expanded[0].mergedChunkIds, ['high', 'low']);
      assert.strictEqual(expanded[0].score, 0.7);
      // The merged result carries the ordered union of its constituents' headings (reference §3.3 step 8).
      assert.deepStrictEqual(expanded[0].headings, ['Alpha low', 'Alpha high']);
      const rendered = renderSearchResultsForModel(expanded);
      assert.ok(rendered.startsWith('[high] [rank 1 of 1]'));
      assert.ok(!rendered.includes('[low]'));
    });

    it('keeps adjacent (non-overlapping) sections apart', () => {
      const expanded = expand([hit([2], documentItems, { score: 0.4 }), hit([5], documentItems, { score: 0.6 })], documentItems);
      assert.deepStrictEqual(expanded.map((result) => result.chunkId), ['chunk-5', 'chunk-2']);
      assert.deepStrictEqual(expanded.map((result) => result.rank), [1, 2]);
    });

    it('splits a clipped merge that would evict a constituent; each part keeps its evidence and budget', () => {
      const flat = items(Array.from({ length: 12 }, () => ['paragraph', 900] as [ItemLabel, number]));
      const left = hit([3], flat, { chunkId: 'left', score: 0.9 });
      const right = hit([7], flat, { chunkId: 'right', score: 0.3 });
      const expanded = expand([left, right], flat);
      assert.deepStrictEqual(expanded.map((result) => result.chunkId), ['left', 'right']);
      for (const result of expanded) {
        assert.ok(result.content.length <= BUDGET);
        assert.strictEqual(result.mergedChunkIds, undefined);
      }
      assert.ok(expanded[0].docItemRefs.includes(ref(3)) && expanded[1].docItemRefs.includes(ref(7)));
    });

    it('keeps a clipped merge that keeps every constituent’s evidence', () => {
      const flat = items(Array.from({ length: 12 }, () => ['paragraph', 900] as [ItemLabel, number]));
      const expanded = expand([hit([5], flat, { chunkId: 'a', score: 0.4 }), hit([6], flat, { chunkId: 'b', score: 0.8 })], flat);
      assert.strictEqual(expanded.length, 1);
      assert.deepStrictEqual(expanded[0].mergedChunkIds, ['b', 'a']);
      assert.ok(expanded[0].content.length <= BUDGET);
      assert.ok(expanded[0].docItemRefs.includes(ref(5)) && expanded[0].docItemRefs.includes(ref(6)));
    });

    it('splits a merge whose short-text fallback drops a constituent', () => {
      const fragments = items([['section_header', 'Frag'], ['list_item', 'one'], ['list_item', 'two'], ['list_item', 'three']]);
      const long = 'the anchor chunk shows far more text than the fragmented items hold together, so its own content is used';
      const expanded = expand([hit([1], fragments, { chunkId: 'anchor', score: 0.9, content: long }), hit([3], fragments, { chunkId: 'other', score: 0.1 })], fragments);
      assert.deepStrictEqual(expanded.map((result) => result.chunkId), ['anchor', 'other']);
      assert.strictEqual(expanded[0].content, long);
    });

    it('adds input pages for fully surviving refs only', () => {
      const pageless = items([['paragraph', 3000], ['paragraph', 3000], ['paragraph', 3000]]);
      const [kept] = expand([hit([1], pageless, { pageNumbers: [7] })], pageless);
      assert.deepStrictEqual(kept.pageNumbers, [7]);
      const paged = items([['paragraph', 'tiny'], ['paragraph', 6000]]);
      paged[1].pageNumbers = [2];
      // Partly clipped: ref 0 is gone from the window, so its input page 9 must not come back.
      const [clipped] = expand([hit([1], paged, { chunkId: 'b', pageNumbers: [2], score: 0.9 }), hit([0, 1], paged, { chunkId: 'a', pageNumbers: [9], score: 0.1, content: 'tiny' })], paged, 3000);
      // Within the budget, cut at a word boundary and marked.
      assert.ok(clipped.content.length <= 3000 && clipped.content.length > 2500, String(clipped.content.length));
      assert.ok(clipped.content.startsWith('…') || clipped.content.endsWith('…'));
      assert.deepStrictEqual(clipped.docItemRefs, [ref(1)]);
      assert.deepStrictEqual(clipped.pageNumbers, [2]);
      assert.deepStrictEqual(clipped.mergedChunkIds, ['b', 'a']);
    });

    it('finds the evidence by a central slice when the chunk text is not verbatim in the items', () => {
      const middle = 'M'.repeat(40) + ' central evidence marker ' + 'N'.repeat(400);
      const body = 'p'.repeat(6000) + middle + 'q'.repeat(6000);
      const single = items([['paragraph', body]]);
      const drifted = `# ${middle} (edited edge)`;
      const [result] = expand([hit([0], single, { content: drifted })], single);
      assert.ok(result.content.includes('central evidence marker'));
    });

    it('keeps a text-less picture inside the window by its zero-width span', () => {
      const figure = items([['section_header', 'Figure'], ['paragraph', 1500], ['picture', ''], ['paragraph', 1500]]);
      const [result] = expand([hit([1], figure)], figure);
      assert.deepStrictEqual(result.docItemRefs, [ref(0), ref(1), ref(2), ref(3)]);
      assert.strictEqual(result.content, ['Figure', figure[1].text, figure[3].text].join('\n\n'));
    });

    it('skips positions without items', () => {
      const gappy = items([['paragraph', 100], ['paragraph', 100], ['paragraph', 100], ['paragraph', 100]]).filter((item) => item.position !== 2);
      const [result] = expand([hit([1], items([['paragraph', 100], ['paragraph', 100]]))], gappy);
      assert.deepStrictEqual(result.docItemRefs, [ref(0), ref(1), ref(3)]);
    });

    it('decides "structured" within ±100 positions of the matches', () => {
      const far = items([['section_header', 'Far away'], ...Array.from({ length: 150 }, () => ['paragraph', 50] as [ItemLabel, number]), ['footnote', 'a footnote']]);
      const [result] = expand([hit([149], far)], far, 300);
      assert.ok(result.docItemRefs.includes(ref(151)), 'unstructured window: noise is not skipped');
      assert.ok(result.content.includes('a footnote'));
    });

    it('keeps a picture match in a small section on that section’s pages', () => {
      const paged = items([['section_header', 'Intro'], ['paragraph', 3000], ['section_header', 'Figure 2'], ['picture', 'A plot of results'], ['caption', 'Figure 2: results'], ['section_header', 'Discussion'], ['paragraph', 3000]]);
      paged.forEach((item, index) => (item.pageNumbers = [index < 2 ? 1 : index < 5 ? 2 : 3]));
      const [result] = expand([hit([3], paged)], paged);
      assert.deepStrictEqual(result.pageNumbers, [2]);
      assert.deepStrictEqual(result.docItemRefs, [ref(2), ref(3), ref(4)]);
    });
  });
});
