import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateRuns } from '../../../scripts/retrievalMetrics';
import { indexScifact, loadQrels, loadScifactCorpus, loadScifactQueries, restrictToCorpus, scifactRuns } from '../../../scripts/scifactCorpus';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { scifactRoot, scifactAvailable, skipUnlessScifact } from '../../support/paths';

/**
 * The evaluation path end to end on a SciFact subset (real files, our indexer, LanceDB on a temp folder):
 * judged documents must come out on top, and the document-level dedupe must hold.
 */
describe('SciFact evaluation pipeline (400-document subset)', function () {
  this.timeout(120_000);
  if (!scifactAvailable) {
    // The dataset is optional (a clone alone has none): say so instead of failing while the suite loads.
    it('needs the SciFact dataset', function () {
      skipUnlessScifact(this);
    });
    return;
  }
  let folder: string;
  let store: LanceStore;
  let scifactIds: Map<string, string>;
  const corpus = loadScifactCorpus(400);
  const qrels = restrictToCorpus(loadQrels(path.join(scifactRoot, 'qrels', 'train.tsv')), new Set(corpus.map((document) => document._id)));

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-scifact-test-'));
    store = await openStore({ uri: path.join(folder, 'index') });
    ({ scifactIdByDocumentId: scifactIds } = await indexScifact(store, corpus, { folder: path.join(folder, 'documents') }));
  });
  after(async () => {
    await store?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('indexes every document, more chunks than documents, and maps ids back', async () => {
    const stats = await store.stats();
    assert.strictEqual(stats.documents, 400);
    assert.ok(stats.chunks > 400, `${stats.chunks} chunks`);
    assert.deepStrictEqual(new Set(scifactIds.values()), new Set(corpus.map((document) => document._id)));
  });

  it('ranks judged documents well with full-text search (nDCG@10 ≥ 0.7) and lists each document once', async () => {
    assert.ok(qrels.size >= 50, `${qrels.size} judged queries in the subset`);
    const { runs } = await scifactRuns(store, scifactIds, qrels, loadScifactQueries(), { mode: 'fullText', depth: 300 });
    for (const ranked of runs.values()) {
      assert.strictEqual(new Set(ranked).size, ranked.length);
    }
    const metrics = evaluateRuns(runs, qrels);
    assert.strictEqual(metrics.emptyRuns, 0);
    assert.ok(metrics.ndcgAt10 >= 0.7, `nDCG@10 ${metrics.ndcgAt10}`);
    assert.ok(metrics.recallAt100 >= 0.9, `Recall@100 ${metrics.recallAt100}`);
  });
});
