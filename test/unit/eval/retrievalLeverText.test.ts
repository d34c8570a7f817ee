import * as assert from 'node:assert';
import { documentFrequencies, foldPlural, normaliseQuestion, queryTerms, relevanceModelTerms, tokenize } from '../../../scripts/retrievalLeverText';

describe('retrieval lever text helpers', () => {
  it('tokenizes like LanceDB simple: lowercase, accents folded, split on non-alphanumerics', () => {
    assert.deepStrictEqual(tokenize('0-dimensional Biomaterials, naïve T-cells (SIDS)!'), ['0', 'dimensional', 'biomaterials', 'naive', 't', 'cells', 'sids']);
  });

  it('strips question words from questions only, and keeps a query that would become empty', () => {
    assert.strictEqual(normaliseQuestion('What does p53 regulate in tumour cells?'), 'p53 regulate in tumour cells');
    assert.strictEqual(normaliseQuestion('How is insulin resistance measured'), 'insulin resistance measured');
    assert.strictEqual(normaliseQuestion('Insulin resistance is measured by clamps.'), 'Insulin resistance is measured by clamps.');
    assert.strictEqual(normaliseQuestion('What is?'), 'What is?');
  });

  it('folds plurals for counting only', () => {
    assert.deepStrictEqual(['cells', 'therapies', 'virus', 'analysis', 'class', 'gas'].map(foldPlural), ['cell', 'therapy', 'virus', 'analysis', 'class', 'gas']);
  });

  it('weights feedback terms by document score and frequency, skips stop words, numbers and corpus-common terms', () => {
    const documents = [
      { text: 'Insulin insulin insulin receptor signalling in the liver 2010', score: 3 },
      { text: 'Receptor receptors of the liver cells', score: 1 },
    ];
    const corpus = [...documents.map((document) => document.text), 'cells everywhere', 'cells again', 'cells once more', 'unrelated text'];
    const frequencies = documentFrequencies(corpus);
    const terms = relevanceModelTerms(documents, { terms: 3, maxDocumentFrequency: 0.5, ...frequencies });
    // insulin: 0.75·3/9 = 0.25; receptor: 0.75·1/9 + 0.25·2/6 ≈ 0.167; liver: 0.75/9 + 0.25/6 ≈ 0.125.
    assert.deepStrictEqual(terms.map((entry) => entry.term), ['insulin', 'receptor', 'liver']);
    assert.ok(Math.abs(terms.reduce((sum, entry) => sum + entry.weight, 0) - 1) < 1e-9);
    assert.ok(!terms.some((entry) => ['the', 'in', 'of', '2010', 'cells'].includes(entry.term)), 'stop words, numbers and terms in over half the corpus are never chosen');
  });

  it('counts query terms as the index keeps them (stop words out, duplicates once)', () => {
    assert.deepStrictEqual(queryTerms('The role of p53 in the p53 pathway'), ['role', 'p53', 'pathway']);
  });
});
