import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { compileDocumentFilter } from '../../../src/core/search/documentFilter';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, fakeModelRequests, assertTargets, citationTarget, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/** @haiku through the real Chat view with the scripted tool-calling model, then the runs panel and jump-to-chunk. */
describe('Haiku: @haiku participant and the runs panel', () => {
  let api: HaikuTestApi;

  before(async () => {
    api = await activateHaiku();
    await waitForIndex(api);
  });

  it('answers with search, cite and an anchored, referenced citation (no command: both tool sets, deferred)', async () => {
    const requestsBefore = fakeModelRequests().length;
    const record = await askHaiku(api, '@haiku What is hot module replacement in Vite?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.route, 'both');
    assert.strictEqual(record.model, 'fake-lm/fake-1');
    const [first, second] = fakeModelRequests().slice(requestsBefore).map((request) => request.toolNames);
    assert.deepStrictEqual(first, ['load_capability'], 'the first request carries only the loader');
    assert.deepStrictEqual([...second].sort(), ['load_capability', 'rag_cite', 'rag_search'], 'loading rag adds its tools');
    const run = api.runsStore.get(record.runId)!;
    assert.strictEqual(run.status, 'done', run.error);
    assert.match(run.answer, /According to the documents/);
    const search = run.steps.find((step) => step.kind === 'search');
    assert.ok(search && search.kind === 'search' && search.hits.length > 0, 'the search and its hits are recorded');
    assert.strictEqual(run.citations.length, 1);
    assertTargets(record.references, [citationTarget(run.citations[0])], 'the citation is referenced');
    assert.deepStrictEqual(record.chunkLinks.map((link) => [link.text, link.chunkId]), [['[1]', run.citations[0].chunkId]], 'the [1] marker became a link to its chunk');
    assert.ok(record.buttons.includes('haiku.showRuns'));
  });

  it('/ask offers only the rag tools and carries the conversation to the next turn', async () => {
    const requestsBefore = fakeModelRequests().length;
    const record = await askHaiku(api, '@haiku /ask How does the Go garbage collector decide when to run?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(record.route, 'ask');
    const requests = fakeModelRequests().slice(requestsBefore);
    assert.deepStrictEqual([...new Set(requests.flatMap((request) => request.toolNames))].sort(), ['rag_cite', 'rag_search']);
    // The earlier question of this chat session travels as history.
    assert.ok(requests[0].messages.some((message) => message.text.includes('hot module replacement')), 'history of the previous turn was sent');
    assert.strictEqual(api.runsStore.get(record.runId)?.citations.length, 1);
  });

  it('/analyze runs code in the sandbox and records the execution', async () => {
    const record = await askHaiku(api, '@haiku /analyze How many documents mention caching?');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    const run = api.runsStore.get(record.runId)!;
    const execution = run.steps.find((step) => step.kind === 'execution');
    assert.ok(execution && execution.kind === 'execution', JSON.stringify(run.steps));
    assert.ok(execution.success, execution.stderr);
    assert.match(execution.stdout, /hits: \d+/);
    assert.match(run.answer, /Analysis done/);
  });

  it('/search lists ranked hits with anchors and references, without a model request', async () => {
    const requestsBefore = fakeModelRequests().length;
    const record = await askHaiku(api, '@haiku /search garbage collector pacing');
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.strictEqual(fakeModelRequests().length, requestsBefore, 'no model request for /search');
    // Each hit is an anchor, or (a PDF hit, named by its page) an Open Chunk link; each is referenced.
    assert.ok(record.anchors.length > 0 && record.anchors.length + record.chunkLinks.length === record.references.length);
    const run = api.runsStore.get(record.runId)!;
    const [search] = run.steps;
    assert.ok(search.kind === 'search' && search.hits[0].relativePath === 'guides/gc-guide.html', JSON.stringify(search));
  });

  it('scopes the question to an attached file, and the scope carries to the next turn', async () => {
    const features = workspaceUri('guides/features.md');
    const record = await askHaiku(api, '@haiku /search memory cache of dependencies', [features]);
    const [document] = (await (await api.knowledgeBase()).listDocuments()).filter((candidate) => candidate.uri === features.toString());
    // One IN list of document ids, compiled where every document filter is (never OR chains of URIs).
    assert.strictEqual(record.documentFilter, compileDocumentFilter({ documentIds: [document.id] }));
    const [search] = api.runsStore.get(record.runId)!.steps;
    assert.ok(search.kind === 'search' && search.hits.length > 0 && search.hits.every((hit) => hit.relativePath === 'guides/features.md'), JSON.stringify(search));
    const next = await askHaiku(api, '@haiku /ask What does it say about the garbage collector?');
    assert.strictEqual(next.documentFilter, record.documentFilter, 'the filter persists in the conversation state');
  });

  it('opens a cited chunk of a text source at its range, selected and highlighted', async () => {
    const [hit] = await (await api.knowledgeBase()).search('Hot Module Replacement HMR API native ESM', { limit: 1 });
    assert.strictEqual(hit.uri, workspaceUri('guides/features.md').toString());
    await vscode.commands.executeCommand('haiku.openChunk', hit.chunkId);
    const editor = vscode.window.activeTextEditor!;
    assert.strictEqual(editor.document.uri.toString(), hit.uri);
    assert.strictEqual(editor.selection.start.line, hit.sourceRange?.startLine);
    assert.strictEqual(editor.selection.end.line, hit.sourceRange?.endLine);
    assert.strictEqual(api.lastHighlight?.uri, hit.uri);
    assert.match(editor.document.getText(editor.selection), /HMR/);
  });

  it('renders the run in the runs panel (code highlighted, hits and citations) and jumps to a cited chunk', async () => {
    const analyzed = api.runsStore.all().find((run) => run.route === 'analyze')!;
    await vscode.commands.executeCommand('haiku.showRuns', analyzed.id);
    const report = await waitFor(() => api.renderReports.find((entry) => entry.runId === analyzed.id), 'the webview to render the analyze run');
    assert.ok(report.executions >= 1 && report.highlightedBlocks >= 1, JSON.stringify(report));

    const answered = api.runsStore.all().find((run) => run.route === 'both')!;
    await vscode.commands.executeCommand('haiku.showRuns', answered.id);
    const answeredReport = await waitFor(() => api.renderReports.find((entry) => entry.runId === answered.id), 'the webview to render the answered run');
    assert.strictEqual(answeredReport.citations, 1);
    assert.ok(answeredReport.answerBlocks >= 1, `the answer is rendered from Markdown: ${JSON.stringify(answeredReport)}`);
    assert.ok(answeredReport.hits >= 1 && answeredReport.searches >= 1, JSON.stringify(answeredReport));

    // The webview's jump-to-chunk message, through the host's validation, opens the source at the chunk.
    const cited = answered.citations[0];
    console.log(`cited: ${cited.relativePath} ${cited.locationLabel}`);
    await api.runsPanel.handleMessage({ type: 'openChunk', runId: answered.id, chunkId: cited.chunkId });
    const rendering = /\.(pdf|docx)$/.test(cited.relativePath);
    const editor = await waitFor(() => {
      const active = vscode.window.activeTextEditor;
      return active && active.document.uri.scheme === (rendering ? 'haiku-doc' : 'file') ? active : undefined;
    }, () => `an editor on the cited ${cited.relativePath} (active: ${vscode.window.activeTextEditor?.document.uri.toString()})`);
    if (!rendering) {
      assert.strictEqual(editor.document.uri.toString(), workspaceUri(cited.relativePath).toString());
      const expectedStart = Number(/^L(\d+)/.exec(cited.locationLabel)?.[1]) - 1;
      assert.strictEqual(editor.selection.start.line, expectedStart);
    }
    assert.ok(api.lastHighlight && editor.selection.start.line === api.lastHighlight.range.start.line);
    assert.ok(!editor.selection.isEmpty, 'the chunk range is selected');
    // A chunk id the run does not show is refused.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.runsPanel.handleMessage({ type: 'openChunk', runId: answered.id, chunkId: 'not-a-chunk-of-this-run' });
    assert.strictEqual(vscode.window.activeTextEditor, undefined);
  });
});
