import * as assert from 'node:assert/strict';
import { cellRangeText, columnLetters, namedLocation, unionSourceRanges } from '../../../src/core/sourceRanges';
import { locationText } from '../../../src/core/documents/documentAccess';
import { locationLabel } from '../../../src/vscode/citationFormat';

describe('source ranges: slides, sheets and notebook cells by their own names', () => {
  it('names slides, sheet ranges and notebook cells (1-based), nothing for lines and pages', () => {
    assert.equal(namedLocation({ slide: 3 }), 'slide 3');
    assert.equal(namedLocation({ sheet: 'Q1 Sales', cells: 'B2:D9' }), 'sheet Q1 Sales, B2:D9');
    assert.equal(namedLocation({ sheet: 'Empty' }), 'sheet Empty');
    assert.equal(namedLocation({ startLine: 40, endLine: 52, cell: 0 }), 'cell 1');
    assert.equal(namedLocation({ startLine: 4 }), undefined);
    assert.equal(namedLocation({ page: 2 }), undefined);
    assert.equal(namedLocation(undefined), undefined);
  });

  it('every front end prefers the named place over pages and lines', () => {
    assert.equal(locationText('deck.pptx', { slide: 7 }, [7]), 'deck.pptx (slide 7)');
    assert.equal(locationText('book.xlsx', { sheet: 'Data', cells: 'A1:C20' }, []), 'book.xlsx (sheet Data, A1:C20)');
    assert.equal(locationText('nb.ipynb', { startLine: 10, cell: 4 }, []), 'nb.ipynb (cell 5)');
    assert.equal(locationText('a.md', { startLine: 10 }, []), 'a.md:11');
    assert.equal(locationText('a.pdf', undefined, [2]), 'a.pdf (page 2)');
    assert.equal(locationLabel({ slide: 2 }, [2]), 'slide 2');
    assert.equal(locationLabel({ page: 2 }, [2]), 'p. 2');
  });

  it('a chunk over several items keeps the first slide and cell, and the rectangle of one sheet\'s ranges', () => {
    assert.deepEqual(unionSourceRanges([{ slide: 4 }, { slide: 3 }]), { slide: 3 });
    assert.deepEqual(unionSourceRanges([{ sheet: 'S', cells: 'B2:C3' }, { sheet: 'S', cells: 'A5:D6' }]), { sheet: 'S', cells: 'A2:D6' });
    assert.deepEqual(unionSourceRanges([{ sheet: 'S', cells: 'B2' }, { sheet: 'T', cells: 'A1:A9' }]), { sheet: 'S', cells: 'B2' });
    const cells = unionSourceRanges([{ startLine: 5, endLine: 9, endColumn: 0, cell: 2 }, { startLine: 10, endLine: 12, endColumn: 3, cell: 3 }]);
    assert.deepEqual(cells, { startLine: 5, startColumn: 0, endLine: 12, endColumn: 3, cell: 2 });
  });

  it('writes A1 ranges with multi-letter columns', () => {
    assert.equal(columnLetters(1), 'A');
    assert.equal(columnLetters(26), 'Z');
    assert.equal(columnLetters(27), 'AA');
    assert.equal(columnLetters(703), 'AAA');
    assert.equal(cellRangeText(1, 1, 1, 1), 'A1');
    assert.equal(cellRangeText(2, 2, 9, 28), 'B2:AB9');
  });
});
