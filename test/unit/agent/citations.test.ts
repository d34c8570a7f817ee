import * as assert from 'node:assert';
import { normalizeCitedId, repairChunkId, stringSimilarity } from '../../../src/core/agent/citations';
import { SearchBudget, toolAvailability } from '../../../src/core/agent/budget';
import { compactEarlierTurns, EARLIER_EVIDENCE_MARKER } from '../../../src/core/agent/contextManagement';

describe('agent: citation ids, budget units, request window', () => {
  it('similarity matches Python difflib ratios (reference values computed with difflib)', () => {
    assert.strictEqual(stringSimilarity('abcd', 'bcde'), 0.75);
    assert.strictEqual(stringSimilarity('kitten', 'sitting'), 0.6153846153846154);
    assert.strictEqual(stringSimilarity('133f11046ef5b11424c515d4a695', '133f1104ef5b11424c515d4a695'), 0.9818181818181818);
    assert.strictEqual(stringSimilarity('c0ffee00-1111-4222-8333-444455556666', 'beef0000-aaaa-4bbb-8ccc-dddddddddddd'), 0.2777777777777778);
    assert.strictEqual(stringSimilarity('', ''), 1);
  });

  it('normalises what models wrap ids in', () => {
    for (const raw of ['[abc123]', ' abc123 ', '"abc123"', '`abc123`', 'chunk_id: abc123', '([abc123])']) {
      assert.strictEqual(normalizeCitedId(raw), 'abc123', raw);
    }
  });

  it('repairs only unambiguous near misses at or above the threshold', () => {
    const known = ['133f11046ef5b11424c515d4a695', '1c38e0bff4bdbf1924e0581046a7'];
    assert.strictEqual(repairChunkId('133f1104ef5b11424c515d4a695', known), known[0]);
    assert.strictEqual(repairChunkId('ffffffffffffffffffffffffffff', known), undefined);
    // Equally close to two retrieved ids: ambiguous, not repaired.
    assert.strictEqual(repairChunkId('aaaaXbbbb', ['aaaaYbbbb', 'aaaaZbbbb']), undefined);
  });

  it('budget units: 1, 3 and 4 searches in one response; a later response starts a new unit', () => {
    const budget = new SearchBudget(3);
    assert.deepStrictEqual([budget.tryClaim(0)], [true]);
    assert.strictEqual(budget.used, 1);
    assert.deepStrictEqual([1, 1, 1].map((step) => budget.tryClaim(step)), [true, true, true]);
    assert.strictEqual(budget.used, 2);
    assert.deepStrictEqual([2, 2, 2, 2].map((step) => budget.tryClaim(step)), [true, true, true, false]);
    assert.strictEqual(budget.used, 3);
    assert.ok(budget.spent);
    assert.strictEqual(budget.tryClaim(3), false);
  });

  it('request window: full tools up to the limit, cite for two requests that call the tool set, then nothing', () => {
    const rag = new Set(['rag_search', 'rag_cite']);
    const steps = [['rag_search'], ['rag_search'], ['execute_code'], ['rag_cite'], [], ['rag_cite']];
    assert.deepStrictEqual(
      [0, 1, 2, 3, 4, 5, 6].map((step) => toolAvailability(step, steps, 2, rag)),
      ['all', 'all', 'cite-only', 'cite-only', 'cite-only', 'cite-only', 'none'],
    );
    assert.strictEqual(toolAvailability(500, steps, null, rag), 'all');
  });

  it('compaction leaves small and non-evidence results alone and never touches the input', () => {
    const history = [
      { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'a', toolName: 'rag_search', output: { type: 'text' as const, value: 'short' } }] },
      { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'b', toolName: 'other_tool', output: { type: 'text' as const, value: 'y'.repeat(900) } }] },
      { role: 'tool' as const, content: [{ type: 'tool-result' as const, toolCallId: 'c', toolName: 'execute_code', output: { type: 'json' as const, value: { out: 'z'.repeat(900) } } }] },
    ];
    const compacted = compactEarlierTurns(history);
    assert.strictEqual(compacted[0], history[0]);
    assert.strictEqual(compacted[1], history[1]);
    assert.deepStrictEqual(compacted[2], { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'execute_code', output: { type: 'text', value: EARLIER_EVIDENCE_MARKER } }] });
    assert.strictEqual(history[2].content[0].output.type, 'json');
  });
});
