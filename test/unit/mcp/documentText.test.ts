import * as assert from 'node:assert/strict';
import type { SectionNode } from '../../../src/core/model/document';
import { lookUpSection } from '../../../src/core/documents/documentAccess';
import { locationJson, whereText } from '../../../src/node/mcp/documentText';

function section(title: string, children: SectionNode[] = []): SectionNode {
  return { selfRef: `#/${title}`, level: 1, title, pageNumbers: [], itemRange: [0, 1], chunkIds: [], children };
}

describe('MCP document text', () => {
  it('turns 0-based, end-exclusive source ranges into 1-based inclusive lines, else pages', () => {
    assert.equal(whereText([{ startLine: 4, endLine: 4, endColumn: 10 }], []), 'line 5');
    assert.equal(whereText([{ startLine: 4, endLine: 6, endColumn: 0 }], []), 'lines 5-6', 'an end at column 0 stops at the previous line');
    assert.equal(whereText([{ startLine: 0, endLine: 1, endColumn: 3 }, undefined, { startLine: 9, endLine: 11, endColumn: 2 }], []), 'lines 1-12');
    assert.equal(whereText([{ page: 3 }], [3]), 'p. 3');
    assert.equal(whereText([undefined], [5, 2, 4]), 'pp. 2-5');
    assert.equal(whereText([undefined], []), '');
    assert.deepEqual(locationJson([{ startLine: 4, endLine: 6, endColumn: 0 }], []), { start_line: 5, end_line: 6, pages: [], place: null });
    assert.deepEqual(locationJson([{ page: 2 }], [3]), { start_line: null, end_line: null, pages: [2, 3], place: null });
    assert.deepEqual(locationJson([{ slide: 4 }, { slide: 5 }], [4, 5]), { start_line: null, end_line: null, pages: [4, 5], place: 'slide 4' });
    assert.equal(whereText([{ sheet: 'Sales', cells: 'A1:C4' }], []), 'sheet Sales, A1:C4');
    assert.equal(whereText([{ startLine: 10, endLine: 20, cell: 2 }], []), 'cell 3');
  });

  it('finds a section by title, by trail, or by a unique part of a title, and names the candidates otherwise', () => {
    const tree = [section('Guide', [section('Install'), section('Configure', [section('Install')])]), section('Reference')];
    assert.equal(lookUpSection(tree, '  install ').section, tree[0].children[0], 'the first exact title in reading order');
    assert.equal(lookUpSection(tree, 'Configure > Install').section, tree[0].children[1].children[0]);
    assert.equal(lookUpSection(tree, 'refer').section, tree[1]);
    assert.deepEqual(lookUpSection(tree, 'n'), { ambiguous: ['Install', 'Configure', 'Install', 'Reference'] });
    assert.deepEqual(lookUpSection(tree, 'Missing'), { ambiguous: [] });
  });
});
