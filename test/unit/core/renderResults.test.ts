import * as assert from 'node:assert';
import type { SearchResult } from '../../../src/core/model/search';
import { headingTrail, primaryLabel, renderSearchResultForModel, renderSearchResultsForModel } from '../../../src/core/search/renderResults';

function result(overrides: Partial<SearchResult>): SearchResult {
  return { chunkId: 'c1', documentId: 'd1', uri: 'file:///a.md', title: 'Guide', content: 'Body text.', headings: [], labels: [], pageNumbers: [], docItemRefs: [], score: 0.5, rank: 1, ...overrides };
}

describe('renderSearchResultsForModel', () => {
  it('renders id, rank, source, type and content exactly, separated by a blank line', () => {
    const text = renderSearchResultsForModel([
      result({ chunkId: 'abc', title: 'Vite Guide', headings: ['Features', 'CSS'], labels: ['section_header', 'paragraph', 'table'], content: 'Line one.\n\nLine two.' }),
      result({ chunkId: 'def', title: '', headings: ['Only heading'], labels: ['paragraph'], content: 'Second.' }),
    ]);
    assert.strictEqual(text, [
      '[abc] [rank 1 of 2]',
      'Source: "Vite Guide" > Features > CSS',
      'Type: table',
      'Content:',
      'Line one.\n\nLine two.',
      '',
      '[def] [rank 2 of 2]',
      'Source: Only heading',
      'Type: paragraph',
      'Content:',
      'Second.',
    ].join('\n'));
  });

  it('leaves out Source without title or headings and Type without labels', () => {
    assert.strictEqual(renderSearchResultForModel(result({ chunkId: 'x', title: '', headings: [], labels: [] }), { rank: 3, total: 7 }), '[x] [rank 3 of 7]\nContent:\nBody text.');
    assert.strictEqual(renderSearchResultForModel(result({ chunkId: 'x', headings: [] }), { rank: 1, total: 1 }), '[x] [rank 1 of 1]\nSource: "Guide"\nContent:\nBody text.');
  });

  it('says "No results found." for no results', () => {
    assert.strictEqual(renderSearchResultsForModel([]), 'No results found.');
  });

  it('picks the most structural label', () => {
    assert.strictEqual(primaryLabel(['paragraph', 'code', 'list_item']), 'code');
    assert.strictEqual(primaryLabel(['section_header', 'paragraph']), 'paragraph');
    assert.strictEqual(primaryLabel(['title', 'section_header']), 'section_header');
    assert.strictEqual(primaryLabel(['caption', 'picture']), 'picture');
    assert.strictEqual(primaryLabel(['list_item', 'formula']), 'list_item');
    assert.strictEqual(primaryLabel([]), undefined);
  });
});

describe('headingTrail', () => {
  it('never repeats a heading: a title that is also the first heading appears once', () => {
    assert.deepStrictEqual(headingTrail('Document Processing', ['Document Processing', 'Conversion Options']), ['Document Processing', 'Conversion Options']);
    assert.deepStrictEqual(headingTrail('', ['A', 'A', 'B']), ['A', 'B']);
    assert.deepStrictEqual(headingTrail('Guide', ['Setup', 'Guide']), ['Guide', 'Setup', 'Guide'], 'only repeats in a row are dropped');
    const rendered = renderSearchResultForModel({ chunkId: 'c', title: 'Document Processing', headings: ['Document Processing', 'Conversion Options'], labels: ['paragraph'], content: 'x' }, { rank: 1, total: 1 });
    assert.match(rendered, /^Source: "Document Processing" > Conversion Options$/m);
  });
});
