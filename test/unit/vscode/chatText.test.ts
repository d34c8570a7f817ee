import * as assert from 'node:assert';
import { agentModeFor, AnswerCitationNumbers, CitationMarkerSplitter, attachedDocumentIds, followupPrompts, historyMessages, readTurnMetadata, routeFor, type AnswerSegment } from '../../../src/vscode/chat/chatText';
import { chatErrorView, indexNotReadyView } from '../../../src/vscode/chat/chatErrors';

function collect(splitter: CitationMarkerSplitter, deltas: string[]): AnswerSegment[] {
  const segments = deltas.flatMap((delta) => splitter.push(delta));
  segments.push(...splitter.flush());
  // Merge adjacent text for readable assertions.
  return segments.reduce<AnswerSegment[]>((merged, segment) => {
    const last = merged[merged.length - 1];
    if (segment.kind === 'text' && last?.kind === 'text') {
      last.text += segment.text;
    } else {
      merged.push({ ...segment });
    }
    return merged;
  }, []);
}

describe('@haiku participant text helpers', () => {
  it('finds citation markers split across deltas, and leaves unknown numbers as text', () => {
    const splitter = new CitationMarkerSplitter((index) => index === 1 || index === 2);
    assert.deepStrictEqual(collect(splitter, ['Vite caches deps [', '1] and uses HMR [1, ', '2]. See [7] and a[b].']), [
      { kind: 'text', text: 'Vite caches deps ' },
      { kind: 'citation', index: 1 },
      { kind: 'text', text: ' and uses HMR ' },
      { kind: 'citation', index: 1 },
      { kind: 'citation', index: 2 },
      { kind: 'text', text: '. See [7] and a[b].' },
    ]);
  });

  it('releases a held-back bracket that never became a marker', () => {
    const splitter = new CitationMarkerSplitter(() => true);
    assert.deepStrictEqual(splitter.push('array['), [{ kind: 'text', text: 'array' }]);
    assert.deepStrictEqual(splitter.push('x]'), [{ kind: 'text', text: '[x]' }]);
    assert.deepStrictEqual(splitter.push('end ['), [{ kind: 'text', text: 'end ' }]);
    assert.deepStrictEqual(splitter.flush(), [{ kind: 'text', text: '[' }]);
  });

  it('routes slash commands to agent modes', () => {
    assert.deepStrictEqual(['ask', 'analyze', 'search', undefined].map(routeFor), ['ask', 'analyze', 'search', 'both']);
    assert.deepStrictEqual(['ask', 'analyze', 'both'].map((route) => agentModeFor(route as never)), ['rag', 'analysis', 'auto']);
  });

  it('selects the documents of attached files and folders, by path containment', () => {
    const documents = [
      { id: 'a', path: '/w/a.md' },
      { id: 'p1', path: '/w/papers/one.pdf' },
      { id: 'p2', path: '/w/papers/deep/two.docx' },
      { id: 'sibling', path: '/w/papers2/three.md' },
      { id: 'percent', path: '/w/a_b%c/four.md' },
      { id: 'remote', path: undefined },
    ];
    assert.deepStrictEqual(attachedDocumentIds([], documents), []);
    assert.deepStrictEqual(attachedDocumentIds([{ path: '/w/a.md', isFolder: false }], documents), ['a']);
    assert.deepStrictEqual(attachedDocumentIds([{ path: '/w/a.md', isFolder: false }, { path: '/w/papers', isFolder: true }], documents), ['a', 'p1', 'p2']);
    assert.deepStrictEqual(attachedDocumentIds([{ path: '/w/a_b%c', isFolder: true }], documents), ['percent']);
    assert.deepStrictEqual(attachedDocumentIds([{ path: '/w/missing.md', isFolder: false }], documents), []);
  });

  it('reads turn metadata back and rebuilds the history (search turns skipped)', () => {
    const metadata = { runId: 'run-1', route: 'ask', question: 'q1', citedTitles: ['Features'], responseMessages: [{ role: 'assistant', content: 'a1' }] };
    assert.deepStrictEqual(readTurnMetadata({ haiku: metadata }), metadata);
    assert.strictEqual(readTurnMetadata({ other: 1 }), undefined);
    assert.strictEqual(readTurnMetadata(undefined), undefined);
    const history = historyMessages([
      { question: 'q1', metadata: metadata as never, answerText: 'ignored' },
      { question: 'q2', metadata: { runId: 'run-2', route: 'search', question: 'q2', citedTitles: [] }, answerText: 'hits' },
      { question: 'q3', metadata: { runId: 'run-3', route: 'both', question: 'q3', citedTitles: [] }, answerText: 'a3' },
    ]);
    assert.deepStrictEqual(history, [
      { role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q3' }, { role: 'assistant', content: 'a3' },
    ]);
  });

  it('suggests follow-ups from the cited documents and the route', () => {
    const followups = followupPrompts({ runId: 'r', route: 'both', question: 'What is HMR?', citedTitles: ['Features'] });
    assert.deepStrictEqual(followups.map((followup) => followup.command), [undefined, 'analyze', 'search']);
    assert.match(followups[0].prompt, /Features/);
    assert.deepStrictEqual(followupPrompts({ runId: 'r', route: 'ask', question: 'q', citedTitles: [], errorCode: 'quota' }), []);
  });

  it('turns failures into actionable messages with a fixing button', () => {
    assert.strictEqual(chatErrorView({ languageModelErrorCode: 'NoPermissions', message: 'denied' }).code, 'no_permissions');
    assert.strictEqual(chatErrorView({ languageModelErrorCode: 'Blocked', message: 'x' }).code, 'quota');
    assert.strictEqual(chatErrorView({ message: 'HTTP 429 Too Many Requests' }).code, 'quota');
    assert.strictEqual(chatErrorView({ haikuErrorCode: 'model_failed', message: 'The model server answered 429: slow down.' }).code, 'quota');
    // A port that contains 429, and a typed cause whose text quotes one, are not a rate limit.
    assert.strictEqual(chatErrorView({ message: 'Failed at http://127.0.0.1:42935/v1 (socket hang up)' }).code, 'failed');
    assert.strictEqual(chatErrorView({ haikuErrorCode: 'model_unreachable', message: 'Cannot reach the model server at http://127.0.0.1:429/v1 (ECONNREFUSED).' }).code, 'model_unreachable');
    const tools = chatErrorView({ haikuErrorCode: 'model_failed', message: "The model 'x' does not support tool calling (server said: tools not supported)." });
    assert.strictEqual(tools.code, 'no_tool_calling');
    assert.ok(tools.button);
    assert.strictEqual(chatErrorView({ haikuErrorCode: 'model_unreachable', message: 'Cannot reach' }).button?.arguments?.[0], 'haiku.model.baseUrl');
    assert.strictEqual(chatErrorView({ haikuErrorCode: 'rebuild_needed', message: 'Rebuild.' }).button?.command, 'haiku.rebuildIndex');
    assert.strictEqual(indexNotReadyView({ state: 'ready', documents: 0 })?.button?.command, 'haiku.buildIndex');
    assert.strictEqual(indexNotReadyView({ state: 'waiting-for-trust', documents: 0 })?.button?.command, 'workbench.trust.manage');
    assert.strictEqual(indexNotReadyView({ state: 'ready', documents: 3 }), undefined);
  });

  it('numbers each answer\'s citations from [1], whatever the conversation\'s numbering', () => {
    // A follow-up: the conversation already holds citation 1, so the agent registers this answer's as 2 and 3.
    const numbers = new AnswerCitationNumbers<{ chunkId: string; index: number }>();
    assert.deepStrictEqual(numbers.add({ chunkId: 'b', index: 2 }), { chunkId: 'b', index: 1 });
    assert.deepStrictEqual(numbers.add({ chunkId: 'c', index: 3 }), { chunkId: 'c', index: 2 });
    assert.deepStrictEqual(numbers.add({ chunkId: 'b', index: 2 }), { chunkId: 'b', index: 1 }, 'the same chunk keeps its number');
    assert.strictEqual(numbers.get(1)?.chunkId, 'b');
    assert.strictEqual(numbers.get(3), undefined);
    // The answer's list: the numbers the text showed, then the next ones for citations not seen while streaming.
    assert.deepStrictEqual(numbers.all([{ chunkId: 'b', index: 2 }, { chunkId: 'c', index: 3 }, { chunkId: 'a', index: 1 }]).map((citation) => `${citation.chunkId}${citation.index}`), ['b1', 'c2', 'a3']);
    // The model writes [1] and [2]: both are known markers of this answer.
    const splitter = new CitationMarkerSplitter((index) => numbers.get(index) !== undefined);
    assert.deepStrictEqual(collect(splitter, ['Deps are pre-bundled [1] and cached [2].']).filter((segment) => segment.kind === 'citation'), [{ kind: 'citation', index: 1 }, { kind: 'citation', index: 2 }]);
  });
});
