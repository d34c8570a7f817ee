import * as assert from 'node:assert/strict';
import { convertText } from '../../../src/node/convert/text';

describe('convertText', () => {
  it('splits plain text into paragraphs on blank lines, without sections', () => {
    const source = 'First paragraph\nstill first.\n\n\nSecond\r\n\r\nThird\n===\n';
    const document = convertText(source, { fileName: 'notes.txt' });
    assert.equal(document.format, 'text');
    assert.equal(document.title, 'notes.txt');
    assert.equal(document.content, source);
    assert.deepEqual(
      document.items.map((item) => [item.label, item.text, item.sourceRange]),
      [
        ['paragraph', 'First paragraph\nstill first.', { startLine: 0, startColumn: 0, endLine: 1, endColumn: 12 }],
        ['paragraph', 'Second', { startLine: 4, startColumn: 0, endLine: 4, endColumn: 6 }],
        // Plain text has no headings: an rst-style underline stays text.
        ['paragraph', 'Third\n===', { startLine: 6, startColumn: 0, endLine: 7, endColumn: 3 }],
      ],
    );
    assert.deepEqual(document.items.map((item) => item.selfRef), ['#/texts/0', '#/texts/1', '#/texts/2']);
  });

  it('detects reStructuredText titles, levels in order of first appearance', () => {
    const source = ['=========', 'Guide', '=========', '', 'Intro text.', '', 'Install', '-------', '', 'Run it.', '', 'Linux', '~~~~~', 'apt.', '', 'Usage', '-----', '', 'Not a title', '--', ''].join('\n');
    const document = convertText(source, { fileName: 'guide.rst', restructuredText: true });
    assert.equal(document.title, 'Guide');
    assert.deepEqual(
      document.items.map((item) => [item.label, item.headingLevel, item.text]),
      [
        ['section_header', 1, 'Guide'],
        ['paragraph', 0, 'Intro text.'],
        ['section_header', 2, 'Install'],
        ['paragraph', 0, 'Run it.'],
        ['section_header', 3, 'Linux'],
        ['paragraph', 0, 'apt.'],
        ['section_header', 2, 'Usage'],
        ['paragraph', 0, 'Not a title\n--'],
      ],
    );
    assert.deepEqual(document.items[0].sourceRange, { startLine: 0, startColumn: 0, endLine: 2, endColumn: 9 });
  });
});
