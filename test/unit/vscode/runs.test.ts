import * as assert from 'node:assert';
import type { Citation } from '../../../src/core/agent/conversationState';
import type { SearchResult } from '../../../src/core/model/search';
import { RUNS_KEPT, RUNS_THUMBNAILS_PER_STEP } from '../../../src/core/limits';
import { parseWebviewMessage, picturesOf, runPictures } from '../../../src/shared/runsProtocol';
import { hitView, RunRecorder } from '../../../src/vscode/runs/runRecorder';
import { RunsStore } from '../../../src/vscode/runs/runsStore';
import { answerHtml } from '../../../src/webview/runs/answerMarkdown';
import { tokenize } from '../../../src/webview/runs/highlight';

const hit: SearchResult = {
  chunkId: 'chunk-hmr', documentId: 'doc-1', uri: 'file:///w/guides/features.md', title: 'Features', content: 'Vite provides an HMR API over native ESM.',
  headings: ['Features', 'Hot Module Replacement'], labels: ['paragraph'], pageNumbers: [], docItemRefs: ['#/texts/5'], sourceRange: { startLine: 26, endLine: 27, endColumn: 0 }, score: 0.0328, rank: 1,
};
const citation: Citation = {
  index: 1, chunkId: 'chunk-hmr', chunkIds: ['chunk-hmr'], documentId: 'doc-1', uri: hit.uri, title: 'Features', pageNumbers: [], headings: hit.headings,
  content: hit.content, docItemRefs: hit.docItemRefs, pictureRefs: [], labels: ['paragraph'], sourceRange: hit.sourceRange,
};
const relativePathOf = (uri: string): string => uri.replace('file:///w/', '');

describe('runs: recorder, store, protocol, highlighter', () => {
  it('records searches, executions, citations and the answer from agent events', () => {
    const state = { searches: { HMR: [hit] } } as never;
    const recorder = new RunRecorder({ id: 'run-1', question: 'What is HMR?', route: 'both', model: 'fake-lm/fake-1', now: 1000 }, relativePathOf, state);
    assert.strictEqual(recorder.apply({ type: 'search-started', source: 'rag_search', query: 'HMR' }), false);
    assert.strictEqual(recorder.apply({ type: 'search-finished', source: 'rag_search', query: 'HMR', resultCount: 1 }), true);
    recorder.apply({ type: 'execution-finished', toolCallId: 't', execution: { code: 'console.log(1)', stdout: '1\n', stderr: '', success: true, durationMs: 12 } });
    recorder.apply({ type: 'citation-added', citation });
    recorder.apply({ type: 'citation-added', citation });
    recorder.apply({ type: 'text-delta', text: 'HMR is ' });
    recorder.apply({ type: 'text-delta', text: 'fast [1].' });
    const run = recorder.finish('done', { now: 1500 });
    assert.strictEqual(run.answer, 'HMR is fast [1].');
    assert.strictEqual(run.durationMs, 500);
    assert.deepStrictEqual(run.steps.map((step) => step.kind), ['search', 'execution']);
    const search = run.steps[0];
    assert.ok(search.kind === 'search');
    assert.deepStrictEqual([search.hits[0].relativePath, search.hits[0].locationLabel], ['guides/features.md', 'L27']);
    assert.strictEqual(run.citations.length, 1);
    assert.deepStrictEqual([...recorder.chunkIds()], ['chunk-hmr']);
  });

  it('keeps the newest runs and lets the webview open only chunks a run shows', () => {
    const store = new RunsStore();
    const seen: string[] = [];
    store.onDidChange((run) => seen.push(run.id));
    const recorder = new RunRecorder({ id: 'run-a', question: 'q', route: 'ask', model: 'm' }, relativePathOf);
    recorder.addCitation(citation);
    store.put(recorder.run);
    assert.strictEqual(store.showsChunk('run-a', 'chunk-hmr'), true);
    assert.strictEqual(store.showsChunk('run-a', 'chunk-other'), false);
    assert.strictEqual(store.showsChunk('run-missing', 'chunk-hmr'), false);
    for (let index = 0; index < RUNS_KEPT + 5; index++) {
      store.put({ ...recorder.run, id: `run-${index}` });
    }
    assert.strictEqual(store.all().length, RUNS_KEPT);
    assert.strictEqual(store.get('run-a'), undefined);
    assert.strictEqual(store.latest()?.id, `run-${RUNS_KEPT + 4}`);
    assert.strictEqual(seen.length, RUNS_KEPT + 6);
  });

  it('accepts only well-formed webview messages with id-shaped values', () => {
    assert.deepStrictEqual(parseWebviewMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepStrictEqual(parseWebviewMessage({ type: 'openChunk', runId: 'run-1', chunkId: 'abc_1' }), { type: 'openChunk', runId: 'run-1', chunkId: 'abc_1' });
    assert.strictEqual(parseWebviewMessage({ type: 'openChunk', runId: 'run-1', chunkId: '../../etc/passwd' }), undefined);
    assert.strictEqual(parseWebviewMessage({ type: 'openFile', path: '/etc/passwd' }), undefined);
    assert.strictEqual(parseWebviewMessage({ type: 'rendered', runId: 'r', counts: { executions: 1 } }), undefined);
    assert.deepStrictEqual(parseWebviewMessage({ type: 'rendered', runId: 'r', counts: { executions: 1, searches: 2, hits: 3, citations: 1, highlightedBlocks: 1, answerBlocks: 2, thumbnails: 4, extra: 9 } }),
      { type: 'rendered', runId: 'r', counts: { executions: 1, searches: 2, hits: 3, citations: 1, highlightedBlocks: 1, answerBlocks: 2, thumbnails: 4 } });
    assert.strictEqual(parseWebviewMessage('ready'), undefined);
    assert.deepStrictEqual(parseWebviewMessage({ type: 'openPicture', runId: 'run-1', documentId: 'doc-1', selfRef: '#/pictures/3' }), { type: 'openPicture', runId: 'run-1', documentId: 'doc-1', selfRef: '#/pictures/3' });
    assert.strictEqual(parseWebviewMessage({ type: 'openPicture', runId: 'run-1', documentId: 'doc-1', selfRef: '#/texts/3' }), undefined);
    assert.strictEqual(parseWebviewMessage({ type: 'openPicture', runId: 'run-1', documentId: '../x', selfRef: '#/pictures/3' }), undefined);
  });

  it('carries hits\' and citations\' pictures, shows at most RUNS_THUMBNAILS_PER_STEP per step, and opens only those', () => {
    const pictureRefs = Array.from({ length: RUNS_THUMBNAILS_PER_STEP + 3 }, (_, index) => `#/pictures/${index}`);
    const state = { searches: { figures: [{ ...hit, pictureRefs }, { ...hit, chunkId: 'chunk-2', pictureRefs: ['#/pictures/0'] }, { ...hit, chunkId: 'chunk-3' }] } } as never;
    const recorder = new RunRecorder({ id: 'run-p', question: 'q', route: 'ask', model: 'm' }, relativePathOf, state);
    recorder.apply({ type: 'search-finished', source: 'rag_search', query: 'figures', resultCount: 3 });
    recorder.addCitation({ ...citation, chunkId: 'chunk-cited', pictureRefs: ['#/pictures/20'] });
    const [search] = recorder.run.steps;
    assert.ok(search.kind === 'search');
    assert.deepStrictEqual([search.hits[0].documentId, search.hits[0].pictureRefs?.length], ['doc-1', pictureRefs.length]);
    assert.strictEqual(search.hits[2].pictureRefs, undefined, 'no picture fields on a hit without pictures');
    const shown = picturesOf(search.hits);
    assert.deepStrictEqual(shown.map((picture) => picture.selfRef), pictureRefs.slice(0, RUNS_THUMBNAILS_PER_STEP));
    assert.strictEqual(shown[0].relativePath, 'guides/features.md');
    assert.deepStrictEqual(runPictures(recorder.run).map((picture) => picture.selfRef).slice(-1), ['#/pictures/20']);
    const store = new RunsStore();
    store.put(recorder.run);
    assert.ok(store.shownPicture('run-p', 'doc-1', '#/pictures/20'));
    assert.ok(store.shownPicture('run-p', 'doc-1', '#/pictures/0'));
    assert.strictEqual(store.shownPicture('run-p', 'doc-1', `#/pictures/${RUNS_THUMBNAILS_PER_STEP + 1}`), undefined, 'beyond the cap: not shown, not openable');
    assert.strictEqual(store.shownPicture('run-p', 'doc-2', '#/pictures/0'), undefined);
  });

  it('renders an answer\'s Markdown: headings, lists, tables, highlighted JavaScript; raw HTML stays text', () => {
    const html = answerHtml('## Result\n\n- **two** documents [1]\n- `inline`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst n = 2; // two\n```\n\n<script>alert(1)</script> <img src=x onerror=alert(1)>');
    assert.match(html, /<h2>Result<\/h2>/);
    assert.match(html, /<li><strong>two<\/strong> documents \[1\]<\/li>/);
    assert.match(html, /<table>[\s\S]*<td>1<\/td>/);
    assert.match(html, /<code class="language-js highlighted"><span class="token-keyword">const<\/span> n = <span class="token-number">2<\/span>; <span class="token-comment">\/\/ two<\/span>/);
    assert.doesNotMatch(html, /<script|<img/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('highlights sandbox code into classed tokens that reassemble the source', () => {
    const code = 'const hits = await search("caching", 3); // top hits\nif (hits.length > 0) { cite([hits[0].chunk_id]); }';
    const tokens = tokenize(code);
    assert.strictEqual(tokens.map((token) => token.text).join(''), code);
    const kinds = (text: string) => tokens.filter((token) => token.text === text).map((token) => token.kind);
    assert.deepStrictEqual(kinds('const'), ['keyword']);
    assert.deepStrictEqual(kinds('await'), ['keyword']);
    assert.deepStrictEqual(kinds('search'), ['function']);
    assert.deepStrictEqual(kinds('"caching"'), ['string']);
    assert.deepStrictEqual(kinds('3'), ['number']);
    assert.deepStrictEqual(kinds('// top hits'), ['comment']);
  });

  it('previews a hit\'s and a citation\'s own text, not the expanded context before it', () => {
    // An expanded hit: its own lines are L176–L195, its context starts 100 lines earlier in another section.
    const expanded: SearchResult = {
      ...hit, chunkId: 'own-1', mergedChunkIds: ['own-1', 'own-2'], content: 'Line 73 opens the context of another section. Then the analysis itself.',
      sourceRange: { startLine: 72, endLine: 200, endColumn: 0 }, chunkSourceRange: { startLine: 175, endLine: 195, endColumn: 0 },
    };
    const ownTexts = new Map([['own-1', 'Analyze the profile first.'], ['own-2', 'Then compare the runs.']]);
    const view = hitView(expanded, relativePathOf, ownTexts);
    assert.strictEqual(view.locationLabel, 'L176–L195');
    assert.strictEqual(view.preview, 'Analyze the profile first. Then compare the runs.');
    assert.strictEqual(hitView(expanded, relativePathOf).preview.startsWith('Line 73'), true, 'without stored chunks the content stands');
    const recorder = new RunRecorder({ id: 'run-own', question: 'q', route: 'ask', model: 'm' }, relativePathOf);
    recorder.addCitation({ ...citation, index: 3, chunkId: 'own-1', chunkIds: ['own-1'], content: expanded.content });
    // The answer's own number and the own text replace what was recorded while the answer streamed.
    recorder.addCitation({ ...citation, index: 1, chunkId: 'own-1', chunkIds: ['own-1'], content: expanded.content }, ownTexts);
    assert.deepStrictEqual(recorder.run.citations.map((view) => [view.index, view.preview]), [[1, 'Analyze the profile first.']]);
  });
});
