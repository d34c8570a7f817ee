import * as assert from 'node:assert';
import { SANDBOX_READ_AHEAD_MAX_FILES } from '../../../src/core/limits';
import { filesWithinRoom, ReadAheadPlanner } from '../../../src/node/sandbox/readAhead';

describe('sandbox read-ahead planner', () => {
  const ids = Array.from({ length: 100 }, (_, index) => `d${index}`);
  const toc = (index: number): string => `/documents/d${index}/toc.json`;

  /** Reads every document's file in order the way the worker does: only files not sent ahead cross. */
  function sequentialScan(planner: ReadAheadPlanner, name: string): number[] {
    const crossings: number[] = [];
    let next = 0;
    while (next < ids.length) {
      crossings.push(next);
      const planned = planner.plan(`/documents/d${next}/${name}`, ids);
      planner.sent(`/documents/d${next}/${name}`, planned.length);
      next += 1 + planned.length;
    }
    return crossings;
  }

  it('grows the window while one file name is read in listing order, up to the maximum', () => {
    const planner = new ReadAheadPlanner();
    assert.deepStrictEqual(planner.plan(toc(0), ids), [], 'the first read sends nothing ahead');
    assert.deepStrictEqual(planner.plan(toc(1), ids), [toc(2), toc(3), toc(4), toc(5)]);
    planner.sent(toc(1), 4);
    assert.strictEqual(planner.plan(toc(6), ids).length, 16);
    const crossings = sequentialScan(new ReadAheadPlanner(), 'items.jsonl');
    assert.ok(crossings.length <= 6, `100 sequential reads crossed ${crossings.length} times`);
    const windows = crossings.slice(1).map((start, index) => start - crossings[index] - 1);
    assert.ok(Math.max(...windows) <= SANDBOX_READ_AHEAD_MAX_FILES);
  });

  it('keeps a window per file name, so alternating toc.json and items.jsonl reads both get read-ahead', () => {
    const planner = new ReadAheadPlanner();
    for (let index = 0; index < 3; index++) {
      planner.plan(toc(index), ids);
      planner.plan(`/documents/d${index}/items.jsonl`, ids);
    }
    // Windows 0, 4, 16, then the maximum, for each name.
    assert.strictEqual(planner.plan(toc(3), ids).length, SANDBOX_READ_AHEAD_MAX_FILES);
    assert.strictEqual(planner.plan('/documents/d3/items.jsonl', ids).length, SANDBOX_READ_AHEAD_MAX_FILES);
  });

  it('sends nothing ahead for reads out of listing order, unknown documents or other path spellings', () => {
    const planner = new ReadAheadPlanner();
    for (const index of [5, 3, 9, 1, 2, 0]) {
      const expected = index === 2 ? [toc(3), toc(4), toc(5), toc(6)] : [];
      assert.deepStrictEqual(planner.plan(toc(index), ids), expected, `read of d${index}`);
    }
    assert.deepStrictEqual(planner.plan('/documents/unknown/toc.json', ids), []);
    assert.deepStrictEqual(planner.plan('/documents/d4/toc.json/', ids), []);
    assert.deepStrictEqual(planner.plan('documents/d4/toc.json', ids), []);
    assert.deepStrictEqual(planner.plan('/documents', ids), []);
  });

  it('a read right after the files sent ahead continues the sequence; a file not sent is read again', () => {
    const planner = new ReadAheadPlanner();
    planner.plan(toc(0), ids);
    planner.plan(toc(1), ids);
    planner.sent(toc(1), 4);
    assert.strictEqual(planner.plan(toc(6), ids).length, 16);
    planner.sent(toc(6), 1);
    // Only d7 was sent (the batch was full): d8 is the next read, still in sequence.
    assert.strictEqual(planner.plan(toc(8), ids).length, SANDBOX_READ_AHEAD_MAX_FILES);
  });

  it('splits a batch over the room: files in order up to the first that does not fit or failed', () => {
    const paths = ['a', 'b', 'c', 'd'];
    assert.deepStrictEqual(filesWithinRoom(paths, ['12', '345', '6', '7'], 5), [['a', '12'], ['b', '345']]);
    assert.deepStrictEqual(filesWithinRoom(paths, ['12', undefined, '6', '7'], 100), [['a', '12']]);
    assert.deepStrictEqual(filesWithinRoom(paths, ['123456', '1'], 5), []);
    assert.deepStrictEqual(filesWithinRoom(paths, ['', '', ''], 0), [['a', ''], ['b', ''], ['c', '']]);
  });
});
