import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { indexPaths, rebuildIndex } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import type { VectorSearch } from '../../../src/node/store/vectorSearch';
import { HashingEmbedder, temporaryFolder, writeFiles } from '../../support/indexFixtures';

async function queryVector(embedder: HashingEmbedder, text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text], { kind: 'query' });
  return vector;
}

/** A rebuild that changes the vector column's width (an embedder added, resized or removed) keeps every document. */
describe('rebuild with another vector width', function () {
  this.timeout(180_000);

  it('keeps every document searchable at each step: embedder added, resized, removed, and a kill between settings and column', async () => {
    const folder = temporaryFolder('haiku-vector-width-');
    try {
      const documents = path.join(folder.path, 'documents');
      const database = path.join(folder.path, 'index');
      writeFiles(documents, {
        'alpha.md': '# Alpha\n\nOtters hold hands while sleeping.\n',
        'beta.md': '# Beta\n\nPenguins propose with pebbles.\n',
        'gamma.md': '# Gamma\n\nCrows remember faces for years.\n',
      });
      const plain = await openStore({ uri: database });
      await indexPaths({ roots: [documents], baseFolder: documents, store: plain });
      await plain.close();

      // An embedder added: the reset keeps the rows (no vectors yet), the rebuild's run gives each its vectors.
      const embedder16 = new HashingEmbedder(16);
      const with16 = await openStore({ uri: database, embedder: embedder16 });
      await with16.reset();
      assert.equal((await with16.listDocuments()).length, 3, 'no document dropped by the reset');
      assert.ok((await with16.search('penguins pebbles')).length > 0, 'full text right after the reset');
      assert.equal(with16.vectorDimensions, 16);
      assert.deepEqual(await with16.vectorCandidates(await queryVector(embedder16, 'penguins'), 3), [], 'rows without vectors are no vector candidates');
      // The same from the resident cache: the chunks table is in Lance's legacy format, which reads a missing vector as zeros.
      await (with16 as unknown as { vectors: VectorSearch }).vectors.warm();
      assert.deepEqual(await with16.vectorCandidates(await queryVector(embedder16, 'penguins'), 3), [], 'rows without vectors are no candidates of the resident cache either');
      const summary = await rebuildIndex({ store: with16, embedder: embedder16 });
      assert.equal(summary.added.length + summary.updated.length, 3, JSON.stringify(summary));
      const nearest = await with16.vectorCandidates(await queryVector(embedder16, 'Penguins propose with pebbles.'), 3);
      assert.equal(nearest.length, 3, 'every chunk has its vector after the rebuild run');
      await with16.close();

      // Resized, killed between the settings and the column swap: the next writer finishes the swap.
      const embedder32 = new HashingEmbedder(32);
      const killed = await openStore({ uri: database, embedder: embedder32 });
      killed.testHooks.afterVectorSettings = () => {
        throw new Error('killed here');
      };
      await assert.rejects(killed.reset(), /killed here/);
      await killed.close();
      const reader = await openStore({ uri: database, embedder: embedder32, readOnly: true });
      assert.equal(reader.hasVectors, false, 'a reader does not vector-search a column of the old width');
      assert.ok((await reader.search('crows faces')).length > 0, 'a reader still finds every document by full text');
      await reader.close();
      const writer = await openStore({ uri: database, embedder: embedder32 });
      assert.equal(writer.hasVectors, true, 'the first writer swapped the column to the new width');
      assert.equal((await writer.listDocuments()).length, 3);
      await rebuildIndex({ store: writer, embedder: embedder32 });
      assert.equal((await writer.vectorCandidates(await queryVector(embedder32, 'Crows remember faces for years.'), 3)).length, 3);
      await writer.close();

      // Removed: back to full text only, nothing dropped.
      const again = await openStore({ uri: database });
      await again.reset();
      assert.equal((await again.listDocuments()).length, 3);
      assert.equal(again.vectorDimensions, undefined);
      await rebuildIndex({ store: again });
      assert.ok((await again.search('otters sleeping')).length > 0);
      await again.close();
    } finally {
      folder.cleanup();
    }
  });
});
