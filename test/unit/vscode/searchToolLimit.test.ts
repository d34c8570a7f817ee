import * as assert from 'node:assert';
import { TOOL_SEARCH_MAX_LIMIT } from '../../../src/core/limits';
import { searchToolLimit } from '../../../src/vscode/tools/toolFormatting';

describe('haiku_search limit', () => {
  it('uses haiku.search.limit when the model gives none, and keeps any limit between 1 and the tool maximum', () => {
    assert.strictEqual(searchToolLimit(undefined, 8), 8);
    assert.strictEqual(searchToolLimit('7', 8), 8);
    assert.strictEqual(searchToolLimit(3, 8), 3);
    assert.strictEqual(searchToolLimit(2.9, 8), 2);
    assert.strictEqual(searchToolLimit(0, 8), 1);
    assert.strictEqual(searchToolLimit(10_000, 8), TOOL_SEARCH_MAX_LIMIT);
    assert.strictEqual(searchToolLimit(undefined, 10_000), TOOL_SEARCH_MAX_LIMIT);
  });
});
