import * as assert from 'node:assert/strict';
import type { SearchResult } from '../../../src/core/model/search';
import { LiveSearch, searchPickRow, SEARCH_PICK_SNIPPET_CHARACTERS } from '../../../src/vscode/searchPickItems';

const relativePathOf = (uri: string): string => uri.replace('file:///work/', '');

function hit(overrides: Partial<SearchResult>): SearchResult {
  return {
    chunkId: 'c1', documentId: 'd1', uri: 'file:///work/guides/features.md', title: 'Features', content: 'Vite pre-bundles dependencies with esbuild.',
    headings: ['Features', 'npm Dependency Resolving and Pre-Bundling'], pageNumbers: [], score: 0.5, rank: 1,
    sourceRange: { startLine: 11, endLine: 20, endColumn: 0 },
    ...overrides,
  } as SearchResult;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('Haiku: Search quick pick rows', () => {
  it('shows the title, the section trail with path and lines, and the start of the chunk\'s own text', () => {
    const row = searchPickRow(hit({}), relativePathOf);
    assert.equal(row.label, 'Features');
    assert.equal(row.description, 'npm Dependency Resolving and Pre-Bundling — guides/features.md L12–L20');
    assert.equal(row.detail, 'Vite pre-bundles dependencies with esbuild.');
  });

  it('names the page of a PDF hit and locates the chunk by its own range, not the expanded context', () => {
    const pdf = searchPickRow(hit({ uri: 'file:///work/papers/a.pdf', title: 'A Paper', headings: ['2 Method'], sourceRange: undefined, pageNumbers: [3, 4] }), relativePathOf);
    assert.equal(pdf.description, '2 Method — papers/a.pdf pp. 3–4');
    const expanded = searchPickRow(hit({ sourceRange: { startLine: 0, endLine: 40, endColumn: 0 }, chunkSourceRange: { startLine: 14, endLine: 14, endColumn: 9 } }), relativePathOf);
    assert.match(expanded.description, /L15$/);
  });

  it('cuts long chunks to a one-line snippet and falls back to the path without a title', () => {
    const row = searchPickRow(hit({ title: '', headings: [], content: `word\n\n${'x'.repeat(1000)}` }), relativePathOf);
    assert.equal(row.label, 'guides/features.md');
    assert.equal(row.description, 'guides/features.md L12–L20');
    assert.equal(row.detail.length, SEARCH_PICK_SNIPPET_CHARACTERS);
    assert.ok(row.detail.startsWith('word x') && row.detail.endsWith('…'));
  });
});

describe('LiveSearch (search as the user types)', () => {
  it('searches once after the typing pauses, and aborts a search a newer query overtook', async () => {
    const started: Array<{ query: string; signal: AbortSignal }> = [];
    const shown: string[] = [];
    const states: boolean[] = [];
    const live = new LiveSearch<string>(
      async (query, signal) => {
        started.push({ query, signal });
        await wait(query === 'slow' ? 80 : 5);
        return `results of ${query}`;
      },
      (_query, results) => shown.push(results),
      (state) => states.push(state.busy),
      20,
    );
    live.update('s');
    live.update('sl');
    live.update('slow');
    await wait(40);
    assert.deepEqual(started.map((entry) => entry.query), ['slow'], 'typing within the pause starts one search');
    live.update('slower');
    await wait(120);
    assert.equal(started[0]!.signal.aborted, true, 'the overtaken search was aborted');
    assert.deepEqual(shown, ['results of slower'], 'the aborted search never shows its results');
    assert.equal(states[states.length - 1], false);
  });

  it('reports a failure, clears on an empty query, and cancel stops a pending search', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const live = new LiveSearch<string>(
      async () => {
        calls++;
        throw new Error('index gone');
      },
      () => assert.fail('nothing to show'),
      (state) => state.error !== undefined && errors.push(state.error),
      5,
    );
    live.update('x');
    await wait(30);
    assert.equal((errors[0] as Error).message, 'index gone');
    live.update('   ');
    live.update('y');
    live.cancel();
    await wait(30);
    assert.equal(calls, 1);
  });
});
