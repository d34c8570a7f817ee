import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { defaultConfig } from '../../../src/core/config';
import { openIndex } from '../../../src/node/backend/openIndex';
import { indexPaths, rebuildIndex } from '../../../src/node/index/indexer';
import { addDocumentFromText } from '../../../src/node/ingest/addDocument';
import { HashingEmbedder, temporaryFolder, writeFiles } from '../../support/indexFixtures';

/** `haiku rebuild` re-indexes what `haiku add` put in from text or a URL (no file to convert again) instead of dropping it. */
describe('rebuild keeps documents added from text or URLs', function () {
  this.timeout(120_000);

  it('re-indexes them from their stored text, with their id, URI, title and metadata, under a new embedder too', async () => {
    const workspace = temporaryFolder('haiku-rebuild-added-');
    try {
      const documents = path.join(workspace.path, 'docs');
      writeFiles(documents, { 'file.md': '# File\n\nA file on disk about wombats.\n' });
      const config = defaultConfig();
      config.index.databaseUri = path.join(workspace.path, 'index');
      const index = await openIndex({ config, cwd: workspace.path, mustExist: false, models: {} });
      await indexPaths({ roots: [documents], baseFolder: documents, store: index.store });
      const pasted = await addDocumentFromText(index, '# Quokka notes\n\n## Habits\n\nQuokkas smile on Rottnest Island.\n', { metadata: { team: 'zoo' } });
      const page = await addDocumentFromText(index, '<h1>Wallaby</h1><p>Wallabies hop across the plain.</p>', { format: 'html', uri: 'https://example.com/wallaby' });
      await index.close();

      const embedder = new HashingEmbedder(16);
      const reopened = await openIndex({ config, cwd: workspace.path, mustExist: true, models: { embedder } });
      const summary = await rebuildIndex({ store: reopened.store, embedder });
      assert.deepEqual(summary.removed, [], 'nothing removed');
      const byId = new Map((await reopened.store.listDocuments()).map((document) => [document.id, document]));
      assert.equal(byId.size, 3);
      const quokka = byId.get(pasted.document.id);
      assert.ok(quokka, 'the pasted text is still there');
      assert.equal(quokka.title, 'Quokka notes');
      assert.equal(quokka.uri, pasted.document.uri);
      assert.equal(quokka.metadata.team, 'zoo');
      assert.equal(quokka.metadata.source, 'text');
      assert.equal(byId.get(page.document.id)?.uri, 'https://example.com/wallaby');
      const hits = await reopened.store.search('quokkas smile rottnest');
      assert.equal(hits[0]?.documentId, pasted.document.id);
      assert.deepEqual(hits[0]?.headings.slice(-1), ['Habits'], 'its sections come back from the stored text');
      // Re-embedded with the new embedder: a vector candidate like any other chunk.
      const [vector] = await embedder.embed(['Wallabies hop across the plain.'], { kind: 'query' });
      const nearest = await reopened.store.vectorCandidates(vector, 10);
      assert.ok(nearest.some((candidate) => candidate.chunkId.length > 0) && nearest.length === (await reopened.store.stats()).chunks, JSON.stringify(nearest));
      await reopened.close();
    } finally {
      workspace.cleanup();
    }
  });
});
