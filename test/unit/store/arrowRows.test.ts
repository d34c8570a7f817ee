import * as assert from 'node:assert/strict';
import { Float64, Int32, LargeUtf8, makeVector, tableFromArrays, Utf8, vectorFromArray } from 'apache-arrow';
import { columnValues, rowsFromColumns } from '../../../src/node/store/arrowRows';

/** What Arrow's own per-cell `get` gives, the reference `columnValues` must equal. */
function cellByCell(vector: { length: number; get(index: number): unknown }): unknown[] {
  return Array.from({ length: vector.length }, (_, index) => vector.get(index));
}

describe('Arrow columns as plain arrays', () => {
  it('decodes text as Arrow does: nulls, a leading byte order mark, repeats, an empty text after a null, other scripts', () => {
    const texts = ['doc-1', 'doc-1', null, '', '', '\uFEFFheading', '\uFEFFheading', 'Überschrift 見出し 🙂', 'x'.repeat(200), 'x'.repeat(200), 'doc-1'];
    const vector = vectorFromArray(texts, new Utf8());
    assert.deepEqual(columnValues(vector), cellByCell(vector));
    assert.deepEqual(columnValues(vector), texts.map((text) => (text?.startsWith('\uFEFF') ? text.slice(1) : text)));
  });

  it('reads every batch of a column split across record batches', () => {
    const first = vectorFromArray(['a', 'b', null], new Utf8());
    const second = vectorFromArray(['b', 'b', 'c'], new Utf8());
    const joined = first.concat(second);
    assert.equal(joined.data.length, 2);
    assert.deepEqual(columnValues(joined), ['a', 'b', null, 'b', 'b', 'c']);
  });

  it('reads numbers, with their nulls, and other types through Arrow', () => {
    const integers = vectorFromArray([1, null, -3], new Int32());
    const floats = vectorFromArray([0.5, 2, null], new Float64());
    const large = makeVector(vectorFromArray(['big', null], new LargeUtf8()).data[0]);
    for (const vector of [integers, floats, large]) {
      assert.deepEqual(columnValues(vector), cellByCell(vector));
    }
    assert.deepEqual(columnValues(integers), [1, null, -3]);
  });

  it('reads a slice, whose null bits start inside a byte', () => {
    const texts = vectorFromArray(['a', null, 'b', 'b', null, '', 'c', null, 'd', 'e'], new Utf8()).slice(3);
    const numbers = vectorFromArray([1, null, 2, 3, null, 4, 5, null, 6], new Int32()).slice(3);
    assert.equal(texts.data[0].offset, 3);
    for (const vector of [texts, numbers]) {
      assert.deepEqual(columnValues(vector), cellByCell(vector));
    }
  });

  it('makes rows with every column', () => {
    const table = tableFromArrays({ id: ['a', 'b'], order: Int32Array.from([2, 1]) });
    assert.deepEqual(rowsFromColumns(table), [
      { id: 'a', order: 2 },
      { id: 'b', order: 1 },
    ]);
  });
});
