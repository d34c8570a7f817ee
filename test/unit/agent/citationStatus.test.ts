import * as assert from 'node:assert';
import type { ModelMessage } from 'ai';
import { lastToolText } from '../../support/scriptedChatServer';
import { askScripted, useScriptedCorpus } from './agentHarness';
import { chunkIdsIn } from './corpusIndex';

function search(query: string) {
  return { name: 'rag_search', arguments: { query } };
}

function cite(chunkIds: string[]) {
  return { name: 'rag_cite', arguments: { chunk_ids: chunkIds } };
}

describe('agent: citation status, follow-ups and metadata', function () {
  this.timeout(60_000);
  const fixture = useScriptedCorpus();

  it('a cite whose ids all fail to resolve leaves the question "missing" and tells the model nothing was registered', async () => {
    fixture.server.push({ toolCalls: [search('cache')] }, { toolCalls: [cite(['not-a-chunk', 'also-not-one'])] }, { text: 'The cache is somewhere.' });
    const { answer } = await askScripted(fixture.server, fixture.corpus.store);
    assert.match(lastToolText(fixture.server.requests[2]), /^None of the 2 chunk id\(s\) matched.*Nothing was registered, so the answer has no citation yet\./);
    assert.strictEqual(answer.citationStatus, 'missing', 'not recorded as an explicit "ungrounded" declaration');
    assert.deepStrictEqual(answer.citations, []);
  });

  it('an empty cite is still an explicit "ungrounded" declaration', async () => {
    fixture.server.push({ toolCalls: [search('cache')] }, { toolCalls: [cite([])] }, { text: 'Not covered.' });
    const { answer } = await askScripted(fixture.server, fixture.corpus.store);
    assert.strictEqual(answer.citationStatus, 'ungrounded');
  });

  it('citations carry document_meta (the document metadata column) and chunk_meta (the chunk\'s stored columns)', async () => {
    fixture.server.push({ toolCalls: [search('dependency pre-bundling')] }, (request) => ({ toolCalls: [cite(chunkIdsIn(lastToolText(request)).slice(0, 1))] }), { text: 'ok' });
    const { answer } = await askScripted(fixture.server, fixture.corpus.store);
    const [citation] = answer.citations;
    const document = await fixture.corpus.store.getDocument(citation.documentId);
    assert.deepStrictEqual(citation.documentMeta, document!.metadata);
    assert.strictEqual(citation.documentMeta!.format, 'markdown');
    assert.deepStrictEqual(Object.keys(citation.chunkMeta!).sort(), ['doc_item_refs', 'headings', 'labels', 'page_numbers', 'picture_refs', 'source_range']);
    assert.deepStrictEqual(citation.chunkMeta!.headings, citation.headings);
  });

  it('citation policy: a follow-up answered from evidence cited earlier is asked to declare it, and cites the earlier chunk', async () => {
    let citedId = '';
    fixture.server.push(
      { toolCalls: [search('dependency pre-bundling')] },
      (request) => {
        citedId = chunkIdsIn(lastToolText(request))[0];
        return { toolCalls: [cite([citedId])] };
      },
      { text: 'Vite pre-bundles dependencies with esbuild.' },
    );
    const first = await askScripted(fixture.server, fixture.corpus.store, { settings: { citationPolicy: true } });
    assert.strictEqual(first.answer.citationStatus, 'grounded');
    const history: ModelMessage[] = [{ role: 'user', content: 'What does the manual say?' }, ...first.answer.responseMessages];
    fixture.server.push(
      { text: 'As said before, it uses esbuild.' },
      () => ({ toolCalls: [cite([citedId])] }),
      { text: 'As said before, it uses esbuild.' },
    );
    const followUp = await askScripted(fixture.server, fixture.corpus.store, { settings: { citationPolicy: true }, state: first.answer.state, history, question: 'Which tool again?' });
    const redirect = fixture.server.requests[4].body.messages.at(-1)!;
    assert.match(String(redirect.content), /^\[haiku\/citation-redirect\] .*cited earlier in the conversation/);
    assert.strictEqual(followUp.answer.citationStatus, 'grounded');
    assert.deepStrictEqual(followUp.answer.citations.map((citation) => [citation.chunkId, citation.index, citation.content]), [[citedId, 1, first.answer.citations[0].content]]);
    assert.strictEqual(followUp.answer.answer, 'As said before, it uses esbuild.');
  });

  it('citation policy in routed mode: a follow-up with nothing loaded gets a cite tool for the redirect', async () => {
    let citedId = '';
    fixture.server.push(
      { toolCalls: [{ name: 'load_capability', arguments: { name: 'rag' } }] },
      { toolCalls: [search('dependency pre-bundling')] },
      (request) => {
        citedId = chunkIdsIn(lastToolText(request))[0];
        return { toolCalls: [cite([citedId])] };
      },
      { text: 'esbuild.' },
      { text: 'Still esbuild.' },
      () => ({ toolCalls: [cite([citedId])] }),
      { text: 'Still esbuild.' },
    );
    const neverCalled = () => Promise.reject(new Error('no code in this test'));
    const first = await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', createSandbox: neverCalled, settings: { citationPolicy: true } });
    const followUp = await askScripted(fixture.server, fixture.corpus.store, { mode: 'auto', createSandbox: neverCalled, settings: { citationPolicy: true }, state: first.answer.state, question: 'Again?' });
    assert.deepStrictEqual(fixture.server.requests[5].body.tools?.map((entry) => entry.function.name).sort(), ['load_capability', 'rag_cite', 'rag_search']);
    assert.strictEqual(followUp.answer.citationStatus, 'grounded');
  });
});
