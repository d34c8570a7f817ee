import * as assert from 'node:assert';
import { documentIdForPath, stableHash } from '../../../src/core/hash';

describe('stableHash', () => {
  it('gives the ids of earlier versions, so chunk and document ids survive an upgrade', () => {
    // Values of the two-pass implementation the one-pass loop replaced.
    assert.strictEqual(stableHash(''), '0a37048573decb0dc0cfa5aed872');
    assert.strictEqual(stableHash('hello'), '19bac6f7259f57188cb2aceeb736');
    assert.strictEqual(stableHash('doc\u0000Title\nchapter é 中文 😀\u00000'), '1c50adb3a773fc097e54bf855e8e');
    assert.strictEqual(documentIdForPath('notes/guide.md'), 'd1e788cae222461086e0d');
    assert.strictEqual(documentIdForPath('notes\\guide.md'), 'd1e788cae222461086e0d', 'Windows separators give the same id');
  });
});
