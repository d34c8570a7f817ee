import * as assert from 'node:assert/strict';
import { Float64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { plainDocumentState, rowsFromColumns } from '../../../src/node/store/arrowRows';
import { currentGeneration, DocumentStateMap } from '../../../src/node/store/documentStateMap';
import { DOCUMENT_SUMMARY_COLUMNS, type DocumentState } from '../../../src/node/store/schema';

/** Documents-table rows as a query of DOCUMENT_SUMMARY_COLUMNS returns them, in one record batch per group. */
function documentsTable(...batches: Array<Array<Partial<DocumentState> & { id: string }>>): Table {
  const tables = batches.map(
    (rows) =>
      new Table(
        Object.fromEntries(
          DOCUMENT_SUMMARY_COLUMNS.map((name) => {
            const numeric = name === 'mtime_ms' || name === 'size';
            const values = rows.map((row, index) => (row as unknown as Record<string, unknown>)[name] ?? (numeric ? index * 10 : `${name} of ${row.id}`));
            return [name, vectorFromArray(values, numeric ? new Float64() : new Utf8())];
          }),
        ),
      ),
  );
  return tables.slice(1).reduce((joined, table) => joined.concat(table), tables[0]);
}

/** What StoreReader built before: every row made into a state, set in row order. */
function eagerStates(table: Table): Map<string, DocumentState> {
  const states = new Map<string, DocumentState>();
  for (const row of rowsFromColumns<DocumentState>(table)) {
    states.set(row.id, plainDocumentState(row));
  }
  return states;
}

describe('Document states made on demand', () => {
  const table = documentsTable(
    [{ id: 'a', generation: 'g1', title: '\uFEFFA title with a byte order mark' }, { id: 'b', generation: 'g1' }, { id: 'dup', generation: 'old' }],
    [{ id: 'c', generation: 'g2', metadata: '{"k":"見出し"}' }, { id: 'dup', generation: 'new', uri: 'file:///last-row' }, { id: 'd', generation: 'g3' }],
  );

  it('gives each document the state a full read gave, before anything is iterated', () => {
    const reference = eagerStates(table);
    const states = new DocumentStateMap(table);
    assert.equal(states.size, reference.size);
    for (const id of ['dup', 'c', 'a', 'missing']) {
      assert.equal(states.has(id), reference.has(id), id);
      assert.deepEqual(states.get(id), reference.get(id), id);
    }
    assert.equal(states.get('dup')?.generation, 'new', 'an id stored twice has its last row\'s state');
    assert.equal(states.get('a')?.title, 'A title with a byte order mark', 'a leading byte order mark dropped, as Arrow does');
  });

  it('iterates in the table\'s order with the same states, whether some were asked for first or not', () => {
    const reference = eagerStates(table);
    const untouched = new DocumentStateMap(table);
    assert.deepEqual([...untouched], [...reference]);
    const asked = new DocumentStateMap(table);
    const askedFirst = asked.get('d');
    asked.get('dup');
    assert.deepEqual([...asked.keys()], [...reference.keys()], 'the order of the rows, not of the questions');
    assert.deepEqual([...asked.values()], [...reference.values()]);
    assert.equal(asked.get('d'), askedFirst, 'a state is made once');
    const seen: string[] = [];
    asked.forEach((state, id, map) => {
      assert.equal(map, asked);
      assert.equal(state.id, id);
      seen.push(id);
    });
    assert.deepEqual(seen, ['a', 'b', 'dup', 'c', 'd']);
    assert.equal(asked.size, 5);
  });

  it('makes the rest at once after many single lookups, with the same states and order', () => {
    const ids = Array.from({ length: 600 }, (_, index) => `doc-${index}`);
    const big = documentsTable(ids.map((id) => ({ id })));
    const reference = eagerStates(big);
    const states = new DocumentStateMap(big);
    for (const id of [...ids].reverse()) {
      assert.deepEqual(states.get(id), reference.get(id), id);
    }
    assert.deepEqual([...states], [...reference]);
  });

  it('takes a write as a map filled at once would, and an empty table makes an empty map', () => {
    for (const before of [[], ['c'], ['a', 'dup', 'd']]) {
      const reference = eagerStates(table);
      const states = new DocumentStateMap(table);
      for (const id of before) {
        states.get(id);
      }
      const replaced = { ...states.get('b')!, generation: 'g9' };
      const added = { ...states.get('a')!, id: 'e', generation: 'g10' };
      for (const map of [reference, states] as Array<Map<string, DocumentState>>) {
        map.set('b', replaced);
        map.set('e', added);
        assert.equal(map.delete('c'), true);
        assert.equal(map.delete('missing'), false);
      }
      assert.deepEqual([...states], [...reference], `after asking for ${before.join(', ') || 'nothing'}`);
      assert.equal(states.size, reference.size);
      assert.equal(states.has('c'), false);
      assert.equal(states.get('b')?.generation, 'g9');
      states.clear();
      assert.equal(states.size, 0);
      assert.equal(states.get('a'), undefined);
    }
    const empty = new DocumentStateMap(documentsTable([]));
    assert.equal(empty.size, 0);
    assert.equal(empty.get('a'), undefined);
    assert.deepEqual([...empty], []);
  });

  it('gives current generations without making states, before and after writes, as a plain map does', () => {
    const reference = eagerStates(table);
    const states = new DocumentStateMap(table);
    const ids = ['a', 'b', 'dup', 'c', 'd', 'missing'];
    const generations = (map: Map<string, DocumentState>) => ids.map((id) => currentGeneration(map, id));
    assert.deepEqual(generations(states), generations(reference));
    assert.deepEqual(generations(states), ['g1', 'g1', 'new', 'g2', 'g3', undefined], 'an id stored twice: its last row\'s generation');
    assert.equal(states.generationOf('dup'), 'new');
    for (const map of [reference, states] as Array<Map<string, DocumentState>>) {
      map.set('b', { ...map.get('b')!, generation: 'g9' });
      map.delete('c');
    }
    assert.deepEqual(generations(states), generations(reference), 'after a write');
    assert.deepEqual(generations(states), ['g1', 'g9', 'new', undefined, 'g3', undefined]);
    const fresh = new DocumentStateMap(table);
    const expected = generations(eagerStates(table));
    for (let lookup = 0; lookup < 1000; lookup++) {
      assert.equal(fresh.generationOf(ids[lookup % ids.length]), expected[lookup % ids.length]);
    }
    assert.deepEqual([...fresh], [...eagerStates(table)], 'lookups of generations leave the map as it was');
  });
});
