import * as assert from 'node:assert';
import type { SearchResult } from '../../../src/core/model/search';
import { formatSearchHits } from '../../../src/vscode/tools/toolFormatting';
import { citationLabel, contextAround, openChunkLink, editorRange, linkFragment, locationLabel, markdownCitation, ownRange, plainCitation, preview, relativeLinkPath } from '../../../src/vscode/citationFormat';

describe('citation formatting', () => {
  it('labels line ranges 1-based and treats an end at column 0 as the previous line', () => {
    assert.strictEqual(locationLabel({ startLine: 11, endLine: 20, endColumn: 0 }), 'L12–L20');
    assert.strictEqual(locationLabel({ startLine: 4, endLine: 4, endColumn: 30 }), 'L5');
    assert.strictEqual(locationLabel(undefined, [3]), 'p. 3');
    assert.strictEqual(locationLabel({ page: 2 }, [2, 3]), 'pp. 2–3');
    assert.strictEqual(locationLabel(undefined, []), '');
  });

  it('builds link fragments: #L for text sources, #page= for paged ones', () => {
    assert.strictEqual(linkFragment({ pageNumbers: [], sourceRange: { startLine: 9, endLine: 9, endColumn: 12 } }), '#L10');
    assert.strictEqual(linkFragment({ pageNumbers: [], sourceRange: { startLine: 9, endLine: 14, endColumn: 0 } }), '#L10-L14');
    assert.strictEqual(linkFragment({ pageNumbers: [2, 3] }), '#page=2');
    assert.strictEqual(linkFragment({ pageNumbers: [] }), '');
  });

  it('links relative to the file being written, escaping link text and path segments', () => {
    const link = markdownCitation(
      { title: 'Features [Vite]', uri: 'file:///w/guides/features.md', headings: ['Features', 'Hot Module Replacement'], pageNumbers: [], sourceRange: { startLine: 26, endLine: 28, endColumn: 0 } },
      { fromFsPath: '/w/notes/my notes.md', targetFsPath: '/w/guides/features.md' },
    );
    assert.strictEqual(link, '[Features \\[Vite\\] › Hot Module Replacement](../guides/features.md#L27-L28)');
    assert.strictEqual(relativeLinkPath('/w/a.md', '/w/papers/multi page.pdf'), 'papers/multi%20page.pdf');
    assert.strictEqual(markdownCitation({ title: 'Report', uri: 'file:///w/r.pdf', headings: [], pageNumbers: [2], sourceRange: { page: 2 } }, { fromFsPath: '/w/a.md', targetFsPath: '/w/r.pdf' }), '[Report](r.pdf#page=2)');
  });

  it('formats plain citations, labels, previews and editor ranges', () => {
    assert.strictEqual(citationLabel({ title: 'Guide', headings: ['Guide'] }), 'Guide');
    assert.strictEqual(plainCitation({ title: 'Guide', headings: ['Guide', 'Setup'], pageNumbers: [], sourceRange: { startLine: 0 } }, 'docs/guide.md'), 'Guide › Setup — docs/guide.md#L1');
    assert.strictEqual(preview('a\n\n b  c', 10), 'a b c');
    assert.strictEqual(preview('x'.repeat(20), 10), `${'x'.repeat(9)}…`);
    assert.deepStrictEqual(editorRange({ startLine: 3, endLine: 5 }), { startLine: 3, startColumn: 0, endLine: 5, endColumn: 0 });
    assert.strictEqual(editorRange({ page: 1 }), undefined);
  });
});

describe('jump ranges: the chunk selected, the context shaded', () => {
  it('names and selects the chunk\'s own range, not the expanded one', () => {
    const expanded = { startLine: 0, startColumn: 0, endLine: 86, endColumn: 0 };
    const own = { startLine: 71, startColumn: 0, endLine: 76, endColumn: 0 };
    assert.deepStrictEqual(ownRange({ sourceRange: expanded, chunkSourceRange: own }), own);
    assert.deepStrictEqual(ownRange({ sourceRange: expanded }), expanded, 'an unexpanded hit is its own range');
    assert.strictEqual(locationLabel(ownRange({ sourceRange: expanded, chunkSourceRange: own })), 'L72–L76');
  });

  it('shades the context lines above and below the chunk, never the chunk\'s own lines', () => {
    assert.deepStrictEqual(contextAround({ startLine: 0, endLine: 86, endColumn: 0 }, { startLine: 71, endLine: 76, endColumn: 0 }), [
      { startLine: 0, endLine: 70 },
      { startLine: 76, endLine: 85 },
    ]);
    assert.deepStrictEqual(contextAround({ startLine: 71, endLine: 76, endColumn: 0 }, { startLine: 71, endLine: 76, endColumn: 0 }), [], 'no context when nothing was expanded');
    // The chunk ends mid-line: that line is the chunk's, the context starts on the next one.
    assert.deepStrictEqual(contextAround({ startLine: 10, endLine: 20, endColumn: 4 }, { startLine: 10, endLine: 12, endColumn: 7 }), [{ startLine: 13, endLine: 20 }]);
  });

  it('links [n] to the Open Chunk command with the chunk id and its context as arguments', () => {
    const link = openChunkLink('[2]', 'chunk-1', { sourceRange: { startLine: 72, endLine: 95, endColumn: 0 }, docItemRefs: ['#/texts/(3)'] });
    const match = /^\[(.*)\]\(command:haiku\.openChunk\?([^()\s]+)\)$/.exec(link);
    assert.ok(match, link);
    assert.strictEqual(match[1], '\\[2\\]', 'the brackets of the number are escaped, so the text shows [2]');
    assert.deepStrictEqual(JSON.parse(decodeURIComponent(match[2])), ['chunk-1', { sourceRange: { startLine: 72, endLine: 95, endColumn: 0 }, docItemRefs: ['#/texts/(3)'] }]);
    assert.strictEqual(openChunkLink('papers/a.pdf p. 3', 'c'), '[papers/a.pdf p. 3](command:haiku.openChunk?%5B%22c%22%5D)');
  });
});

describe('the LM search tool\'s hits', () => {
  it('labels a hit by its own lines and says where its expanded text starts and ends', () => {
    const result = {
      chunkId: 'c1', documentId: 'd1', uri: 'file:///w/guide.md', title: 'Guide', headings: ['Guide', 'Analyze'], labels: ['paragraph'], pageNumbers: [], docItemRefs: [],
      content: 'Line 73 opens the context.\nThe analysis.', sourceRange: { startLine: 72, endLine: 200, endColumn: 0 }, chunkSourceRange: { startLine: 175, endLine: 195, endColumn: 0 }, score: 0.5, rank: 1,
    } as SearchResult;
    const text = formatSearchHits('analyze', [result], (uri) => uri.replace('file:///w/', ''));
    assert.match(text, /\[1\] guide\.md L176–L195 \(text: L73–L200\) — Guide > Analyze/);
    const plain = formatSearchHits('analyze', [{ ...result, chunkSourceRange: undefined, sourceRange: { startLine: 175, endLine: 195, endColumn: 0 } }], (uri) => uri);
    assert.doesNotMatch(plain, /text:/, 'a hit that was not expanded is its own text');
  });
});
