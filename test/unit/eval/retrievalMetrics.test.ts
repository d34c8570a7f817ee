import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluateRuns, ndcgAtK, parseQrels, recallAtK } from '../../../scripts/retrievalMetrics';
import { scifactRoot, skipUnlessScifact } from '../../support/paths';

const close = (actual: number, expected: number): void => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

describe('retrieval metrics (trec_eval definitions)', () => {
  it('computes nDCG@10 with binary gains and IDCG from the judgments', () => {
    const judged = new Map([['a', 1], ['b', 1]]);
    // Relevant at ranks 2 and 4: (1/log2 3 + 1/log2 5) / (1 + 1/log2 3).
    close(ndcgAtK(['x', 'a', 'y', 'b'], judged, 10), (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)));
    close(ndcgAtK(['a', 'b'], judged, 10), 1);
    // Only the top k counts; a relevant document at rank 11 adds nothing.
    close(ndcgAtK([...'cdefghijkl'].concat('a'), judged, 10), 0);
    // IDCG is capped at k judged documents.
    const many = new Map([...'abcdefghijkl'].map((id) => [id, 1]));
    close(ndcgAtK([...'abcdefghij'], many, 10), 1);
  });

  it('uses graded gains as given', () => {
    const judged = new Map([['a', 2], ['b', 1]]);
    close(ndcgAtK(['b', 'a'], judged, 10), (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)));
  });

  it('computes Recall@k over the relevant documents', () => {
    const judged = new Map([['a', 1], ['b', 1], ['c', 0]]);
    close(recallAtK(['a', 'x', 'c'], judged, 100), 0.5);
    close(recallAtK(['x', 'a'], judged, 1), 0);
  });

  it('averages over every judged query, counting missing runs as 0, and dedupes documents', () => {
    const qrels = parseQrels('query-id\tcorpus-id\tscore\r\n1\ta\t1\r\n2\tb\t1\r\n');
    const result = evaluateRuns(new Map([['1', ['a', 'a', 'x']]]), qrels);
    close(result.ndcgAt10, 0.5);
    close(result.recallAt100, 0.5);
    assert.strictEqual(result.queries, 2);
    assert.strictEqual(result.emptyRuns, 1);
  });

  it('reads the SciFact train qrels (CRLF) with the documented counts', function () {
    skipUnlessScifact(this);
    const qrels = parseQrels(fs.readFileSync(path.join(scifactRoot, 'qrels', 'train.tsv'), 'utf8'));
    assert.strictEqual(qrels.size, 809);
    assert.strictEqual([...qrels.values()].reduce((sum, judged) => sum + judged.size, 0), 919);
    assert.ok([...qrels.keys()].every((id) => !id.includes('\r')));
  });
});
