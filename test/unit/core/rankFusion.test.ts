import * as assert from 'node:assert';
import { reciprocalRankFusion } from '../../../src/core/search/rankFusion';

describe('reciprocalRankFusion', () => {
  it('scores rank 1 in two rankings of weight 1 exactly 2/61 (1-based ranks, k = 60)', () => {
    const fused = reciprocalRankFusion([{ ids: ['a', 'b'] }, { ids: ['a', 'c'] }]);
    assert.strictEqual(fused[0].id, 'a');
    assert.strictEqual(fused[0].score, 1 / 61 + 1 / 61);
    assert.strictEqual(fused[0].score, 2 / 61);
    assert.deepStrictEqual(fused.slice(1), [{ id: 'b', score: 1 / 62 }, { id: 'c', score: 1 / 62 }]);
  });

  it('applies weights and a custom k', () => {
    const fused = reciprocalRankFusion([{ ids: ['a', 'b'], weight: 0.5 }, { ids: ['b', 'a'], weight: 2 }], { k: 10 });
    assert.deepStrictEqual(fused, [{ id: 'b', score: 0.5 / 12 + 2 / 11 }, { id: 'a', score: 0.5 / 11 + 2 / 12 }]);
  });

  it('breaks ties by best single rank, then by id, independent of input order', () => {
    // x: ranks 1 and 3 → 1/61 + 1/63; y: rank 2 in both → 2/62 (less); z and w tie exactly with equal best ranks.
    const fused = reciprocalRankFusion([{ ids: ['x', 'y', 'z'] }, { ids: ['w', 'y', 'x'] }]);
    assert.deepStrictEqual(fused.map((entry) => entry.id), ['x', 'y', 'w', 'z']);
    const tied = reciprocalRankFusion([{ ids: ['p', 'q'] }, { ids: ['q', 'p'] }]);
    assert.strictEqual(tied[0].score, tied[1].score);
    assert.deepStrictEqual(tied.map((entry) => entry.id), ['p', 'q']);
    const reversed = reciprocalRankFusion([{ ids: ['q', 'p'] }, { ids: ['p', 'q'] }]);
    assert.deepStrictEqual(reversed.map((entry) => entry.id), ['p', 'q']);
    // k = 0: n at rank 1 with weight 1 and m at rank 2 with weight 2 both score 1; n's single rank is better.
    const bestRankWins = reciprocalRankFusion([{ ids: ['a', 'm'], weight: 2 }, { ids: ['n'], weight: 1 }], { k: 0 });
    assert.deepStrictEqual(bestRankWins, [{ id: 'a', score: 2 }, { id: 'n', score: 1 }, { id: 'm', score: 1 }]);
  });

  it('counts an id repeated in one ranking once and handles empty input', () => {
    assert.deepStrictEqual(reciprocalRankFusion([{ ids: ['a', 'a'] }]), [{ id: 'a', score: 1 / 61 }]);
    assert.deepStrictEqual(reciprocalRankFusion([]), []);
    assert.deepStrictEqual(reciprocalRankFusion([{ ids: [] }, { ids: [] }]), []);
  });
});
