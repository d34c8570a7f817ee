import * as assert from 'node:assert';
import { registerCitations } from '../../../src/core/agent/citations';
import { startQuestion } from '../../../src/core/agent/conversationState';
import type { KnowledgeBase } from '../../../src/core/model/search';
import { buildCorpusIndex, chunkContaining, RecordingKnowledgeBase, type CorpusIndex } from './corpusIndex';

/** The real store, with the ids each `getChunks` call asked for recorded. */
class ChunkLookupRecorder extends RecordingKnowledgeBase {
  readonly lookups: string[][] = [];
  constructor(inner: KnowledgeBase) {
    super(inner);
    const lookUp = this.getChunks;
    this.getChunks = (chunkIds, options) => {
      this.lookups.push([...chunkIds]);
      return lookUp(chunkIds, options);
    };
  }
}

describe('agent: cite repairs near misses against the retrieved ids before asking the store', function () {
  this.timeout(120_000);
  let corpus: CorpusIndex;

  before(async () => {
    corpus = await buildCorpusIndex();
  });
  after(async () => {
    await corpus?.close();
  });

  it('repairs a mistyped retrieved id without a store lookup, and looks up only the ids still unresolved', async () => {
    const retrieved = await corpus.store.search('dependency pre-bundling cache', { limit: 3 });
    assert.ok(retrieved.length > 0);
    const state = startQuestion(undefined, undefined);
    state.searches['dependency pre-bundling cache'] = retrieved;
    const target = retrieved[0].chunkId;
    const mistyped = `[${target.slice(0, -1)}]`;
    const knowledgeBase = new ChunkLookupRecorder(corpus.store);

    const repairedOnly = await registerCitations(state, knowledgeBase, [mistyped]);
    assert.deepStrictEqual(repairedOnly.repaired, { [mistyped]: target });
    assert.deepStrictEqual(repairedOnly.accepted, [target]);
    assert.deepStrictEqual(knowledgeBase.lookups, [], 'a near miss of a retrieved id needs no store lookup');

    // An id only the sandbox showed (not retrieved) still resolves through the store, asked for it alone.
    const retrievedIds = new Set(retrieved.map((result) => result.chunkId));
    const notRetrieved = await chunkContaining(corpus.store, 'static-deploy.md', 'GitHub Pages');
    assert.ok(!retrievedIds.has(notRetrieved.chunkId));
    const next = startQuestion(state, undefined);
    next.searches['dependency pre-bundling cache'] = retrieved;
    const mixed = await registerCitations(next, knowledgeBase, [mistyped, notRetrieved.chunkId, 'zzzz-not-an-id']);
    assert.deepStrictEqual(mixed.accepted, [target, notRetrieved.chunkId]);
    assert.deepStrictEqual(mixed.unknown, ['zzzz-not-an-id']);
    assert.deepStrictEqual(knowledgeBase.lookups, [[notRetrieved.chunkId, 'zzzz-not-an-id']]);
  });
});
