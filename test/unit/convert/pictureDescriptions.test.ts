import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';

const fixtureDocs = path.join(repositoryRoot, 'test/fixtures/pictures/docs');

interface WireImagePart {
  type: string;
  image_url?: { url: string };
}

/** The data: URLs of the images a recorded chat request carried. */
function imagesOnTheWire(server: ScriptedChatServer): string[] {
  return server.requests.flatMap((request) => request.body.messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as WireImagePart[]) : []))
    .filter((part) => part.type === 'image_url')
    .map((part) => part.image_url!.url));
}

async function fullTextHits(store: LanceStore, query: string): Promise<Array<{ refs: string[]; content: string }>> {
  const candidates = await store.fullTextCandidates(query, 5, undefined, { withRows: true });
  return candidates.map((candidate) => ({ refs: JSON.parse(candidate.row!.doc_item_refs) as string[], content: candidate.row!.content }));
}

describe('picture descriptions at ingest (processing.pictures: description)', function () {
  this.timeout(180_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let server: ScriptedChatServer;

  beforeEach(async () => {
    folder = temporaryFolder('haiku-describe-');
    fs.cpSync(fixtureDocs, path.join(folder.path, 'docs'), { recursive: true });
    server = await startScriptedChatServer();
  });

  afterEach(async () => {
    await server.close();
    folder.cleanup();
  });

  it('sends each distinct picture to the vision endpoint once and makes its description searchable', async () => {
    server.push(
      () => ({ text: 'A tachometer dial with a red needle.' }),
      () => ({ text: 'A tachometer dial with a red needle.' }),
    );
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    try {
      const summary = await indexPaths({ roots: [path.join(folder.path, 'docs')], store, pictures: 'description', pictureDescription: { baseUrl: server.baseUrl, model: 'vision-test' } });
      assert.deepEqual(summary.failed, []);
      // pump.png and flow.png: the repeated pump and the figure's flow image are described once.
      assert.equal(server.requests.length, 2);
      const expected = ['pump.png', 'flow.png'].map((name) => `data:image/png;base64,${fs.readFileSync(path.join(fixtureDocs, 'images', name)).toString('base64')}`);
      assert.deepEqual(imagesOnTheWire(server).sort(), expected.sort());
      for (const request of server.requests) {
        assert.equal(request.body.model, 'vision-test');
        assert.equal(request.body.max_tokens ?? request.body.max_completion_tokens, 200);
      }
      const [document] = await store.listDocuments();
      const items = await store.getDocumentItems(document.id);
      const pump = items.find((item) => item.label === 'picture')!;
      assert.equal(pump.text, 'Cross-section of the centrifugal pump\nA tachometer dial with a red needle.');
      const hits = await fullTextHits(store, 'tachometer');
      assert.ok(hits.length > 0);
      assert.ok(hits.some((hit) => hit.refs.includes(pump.selfRef)), JSON.stringify(hits));
    } finally {
      await store.close();
    }
  });

  it('leaves a picture with its alt text and caption when the endpoint fails or times out', async () => {
    server.push({ status: 500, body: { error: { message: 'model crashed' } } }, { hang: true });
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    try {
      const started = Date.now();
      const summary = await indexPaths({ roots: [path.join(folder.path, 'docs')], store, pictures: 'description', pictureDescription: { baseUrl: server.baseUrl, model: 'vision-test', timeoutMs: 1_500 } });
      assert.ok(Date.now() - started < 60_000);
      assert.deepEqual(summary.failed, []);
      const [document] = await store.listDocuments();
      const warnings = (document.metadata.warnings ?? []) as string[];
      assert.ok(warnings.some((warning) => /^2 pictures were not described \(.+\); they keep their alt text and caption\./.test(warning)), warnings.join('\n'));
      const items = await store.getDocumentItems(document.id);
      const pump = items.find((item) => item.label === 'picture')!;
      assert.equal(pump.text, 'Cross-section of the centrifugal pump');
      const hits = await fullTextHits(store, 'impeller backward curved vanes');
      assert.ok(hits[0].refs.includes(pump.selfRef), JSON.stringify(hits));
    } finally {
      await store.close();
    }
  });

  it('stops at once when indexing is cancelled while a description is pending', async () => {
    server.push({ hang: true }, { hang: true });
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    try {
      const controller = new AbortController();
      const started = Date.now();
      const run = indexPaths({ roots: [path.join(folder.path, 'docs')], store, pictures: 'description', pictureDescription: { baseUrl: server.baseUrl, model: 'vision-test' }, abortSignal: controller.signal });
      while (server.requests.length === 0 && Date.now() - started < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      controller.abort();
      await assert.rejects(run, (error: Error & { code?: string }) => error.code === 'cancelled');
      assert.ok(Date.now() - started < 60_000);
      assert.deepEqual(await store.listDocuments(), [], 'nothing is written after cancellation');
    } finally {
      await store.close();
    }
  });

  it('refuses a description run without a vision model before indexing anything', async () => {
    const store = await openStore({ uri: path.join(folder.path, 'index') });
    try {
      await assert.rejects(indexPaths({ roots: [path.join(folder.path, 'docs')], store, pictures: 'description' }), /Picture descriptions need a vision model/);
    } finally {
      await store.close();
    }
  });
});
