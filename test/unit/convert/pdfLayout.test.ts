import * as assert from 'node:assert/strict';
import { layoutPage, type PdfTextRun } from '../../../src/node/convert/pdfLayout';
import { joinLines } from '../../../src/node/convert/pdfStructure';

/** A run whose width is estimated at half the font size per character. */
function run(text: string, x: number, baseline: number, fontSize = 10, style: Partial<PdfTextRun> = {}): PdfTextRun {
  return { text, x, baseline, width: text.length * fontSize * 0.5, fontSize, bold: false, italic: false, monospace: false, ...style };
}

/** `count` lines of prose in a column starting at `x`, 12 pt apart, each `words` words long. */
function column(label: string, x: number, top: number, count: number): PdfTextRun[] {
  return Array.from({ length: count }, (_, index) => run(`${label} line ${index} with enough words to look like prose`, x, top + index * 12));
}

describe('PDF page layout', () => {
  it('reads two columns with aligned baselines column by column, under a full-width title', () => {
    // Content stream order interleaves the columns row by row, as some producers write them.
    const left = column('left', 72, 200, 6);
    // A 12 pt gutter; pieces closer than 0.8 em in stream order are read as one line.
    const right = column('right', 324, 200, 6);
    const runs = [run('A Title Spanning The Page Width Entirely', 72, 150, 18), ...left.flatMap((item, index) => [item, right[index]])];
    const lines = layoutPage(1, runs).map((line) => line.text);
    assert.equal(lines[0], 'A Title Spanning The Page Width Entirely');
    assert.deepEqual(lines.slice(1), [...left, ...right].map((item) => item.text));
  });

  it('keeps a section number with its title across a wide gap, and superscripts in their line', () => {
    const lines = layoutPage(1, [
      run('5.1', 72, 100, 10, { bold: true }),
      run('Hyper Parameter Optimization', 98, 100, 10, { bold: true }),
      run('Text with a footnote', 72, 130),
      run('1', 172, 126, 7),
      run('and more text after it.', 178, 130),
    ]);
    assert.deepEqual(lines.map((line) => line.text), ['5.1 Hyper Parameter Optimization', 'Text with a footnote1 and more text after it.']);
    assert.equal(lines[0].bold, true);
    assert.equal(lines[1].fontSize, 10);
  });

  it('splits runs of very different sizes on one baseline ("Chapter 1." beside a 26 pt title)', () => {
    const lines = layoutPage(1, [run('Chapter 1.', 81, 270, 7), run('Securing and protecting data', 136, 270, 26)]);
    assert.deepEqual(lines.map((line) => [line.text, line.fontSize]), [['Chapter 1.', 7], ['Securing and protecting data', 26]]);
  });

  it('keeps list bullets with their rows instead of reading the bullet column first', () => {
    const runs = [0, 1, 2].flatMap((index) => [run('•', 90, 100 + index * 14, 10), run(`Item number ${index} of the list`, 108, 100 + index * 14, 12)]);
    assert.deepEqual(layoutPage(1, runs).map((line) => line.text), ['• Item number 0 of the list', '• Item number 1 of the list', '• Item number 2 of the list']);
  });

  it('turns an aligned grid into one table line, joining wrapped cells', () => {
    const runs = [
      run('Name', 72, 100, 9, { bold: true }), run('Type', 200, 100, 9, { bold: true }), run('Description', 300, 100, 9, { bold: true }),
      run('CLIENT_HOST', 72, 120, 9), run('VARCHAR(255)', 200, 120, 9), run('Host name of the client as', 300, 120, 9),
      run('returned by the system', 300, 131, 9),
      run('CLIENT_PORT', 72, 151, 9), run('INTEGER', 200, 151, 9), run('Port of the client', 300, 151, 9),
      run('A paragraph after the table, far below it.', 72, 220, 10),
    ];
    const lines = layoutPage(1, runs);
    assert.equal(lines.length, 2);
    assert.deepEqual(lines[0].table, [
      ['Name', 'Type', 'Description'],
      ['CLIENT_HOST', 'VARCHAR(255)', 'Host name of the client as returned by the system'],
      ['CLIENT_PORT', 'INTEGER', 'Port of the client'],
    ]);
    assert.equal(lines[1].text, 'A paragraph after the table, far below it.');
  });

  it('does not take two columns of prose for a table', () => {
    const lines = layoutPage(1, [...column('left', 72, 200, 5), ...column('right', 324, 200, 5)]);
    assert.ok(lines.every((line) => line.table === undefined));
  });

  it('joins hyphenated line ends only before a lower-case continuation', () => {
    assert.equal(joinLines(['consectetuer adip-', 'iscing elit.']), 'consectetuer adipiscing elit.');
    assert.equal(joinLines(['the IBM DB2-', 'Server']), 'the IBM DB2- Server');
    assert.equal(joinLines(['first line', '', 'second line']), 'first line second line');
  });
});
