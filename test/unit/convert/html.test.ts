import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertHtml } from '../../../src/node/convert/html';
import { buildSectionTree, walkSections } from '../../../src/core/toc';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { corpusRoot } from '../../support/paths';

const goDocs = path.join(corpusRoot, 'go-docs', 'doc');

/**
 * `<h2 id=…>…</h2>` headings found with a regular expression, tags stripped and entities of the corpus decoded.
 * Any heading end tag closes a heading, as in browsers (gc-guide.html has `<h3 …>…</h2>`).
 */
function headingsOf(html: string): { level: number; text: string }[] {
  return [...html.matchAll(/<h([1-6])[^>]*>([\s\S]*?)<\/h[1-6]>/g)].map((match) => ({
    level: Number(match[1]),
    text: match[2].replace(/<[^>]+>/g, '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;|&rsquo;/g, (entity) => (entity === '&#39;' ? "'" : '\u2019')).replace(/\s+/g, ' ').trim(),
  }));
}

function offsetOf(source: string, line: number, column: number): number {
  const lines = source.split('\n');
  return lines.slice(0, line).reduce((sum, text) => sum + text.length + 1, 0) + column;
}

function sliceRange(source: string, item: DocumentItem): string {
  const range = item.sourceRange!;
  return source.slice(offsetOf(source, range.startLine!, range.startColumn!), offsetOf(source, range.endLine!, range.endColumn!));
}

describe('convertHtml', function () {
  this.timeout(60_000);

  describe('Go GC guide (go-docs/doc/gc-guide.html)', () => {
    let source: string;
    let document: ConvertedDocument;

    before(async () => {
      source = fs.readFileSync(path.join(goDocs, 'gc-guide.html'), 'utf8');
      document = await convertHtml(source, { fileName: 'gc-guide.html' });
    });

    it('uses the Title of the JSON comment and renders Markdown content', () => {
      assert.equal(document.title, 'A Guide to the Go Garbage Collector');
      assert.equal(document.format, 'html');
      assert.ok(document.content.startsWith('## Introduction\n\n'), document.content.slice(0, 60));
    });

    it('has the headings of the page, same text, level and order', () => {
      const expected = headingsOf(source);
      assert.deepEqual(expected.map((heading) => heading.level).filter((level) => level === 2).length, 5);
      const headers = document.items.filter((item) => item.label === 'section_header');
      assert.deepEqual(headers.map((item) => [item.headingLevel, item.text]), expected.map((heading) => [heading.level, heading.text]));
    });

    it('nests h3 under h2 and h4 under h3', () => {
      const tree = buildSectionTree(document.items);
      assert.deepEqual(tree.map((node) => node.title), headingsOf(source).filter((heading) => heading.level === 2).map((heading) => heading.text));
      const introduction = tree[0];
      assert.equal(introduction.title, 'Introduction');
      assert.deepEqual(introduction.children.map((node) => node.title), ['Where Go Values Live', 'Tracing Garbage Collection']);
      for (const node of walkSections(tree)) {
        for (const child of node.children) {
          assert.equal(child.level, node.level + 1, `${child.title} under ${node.title}`);
          assert.ok(child.itemRange[0] > node.itemRange[0] && child.itemRange[1] <= node.itemRange[1]);
        }
      }
    });

    it('drops <style> and <script> and maps item ranges back to the tags', () => {
      assert.ok(document.items.every((item) => !item.text.includes('display: inline-block') && !item.text.includes('addEventListener')));
      const introduction = document.items.find((item) => item.text === 'Introduction')!;
      assert.equal(sliceRange(source, introduction), '<h2 id="Introduction">Introduction</h2>');
      const firstParagraph = document.items[introduction.position + 1];
      assert.equal(firstParagraph.label, 'paragraph');
      assert.ok(sliceRange(source, firstParagraph).startsWith('<p>'));
    });
  });

  it('keeps every heading of every Go HTML page, same text, level and order', async () => {
    const pages = ['articles/race_detector.html', 'code.html', 'contribute.html', 'diagnostics.html', 'effective_go.html', 'gc-guide.html', 'gdb.html', 'install/source.html'];
    for (const page of pages) {
      const source = fs.readFileSync(path.join(goDocs, page), 'utf8');
      const document = await convertHtml(source, { fileName: path.basename(page) });
      const headers = document.items.filter((item) => item.label === 'section_header');
      const expected = headingsOf(source.replace(/<!--[\s\S]*?-->/g, ''));
      assert.ok(expected.length > 0, page);
      assert.deepEqual(headers.map((item) => [item.headingLevel, item.text]), expected.map((heading) => [heading.level, heading.text]), page);
      assert.match(document.title, /^[A-Z]/, page);
    }
  });

  it('turns every <pre> of Effective Go into a code item and keeps its 16 h2 / 43 h3', async () => {
    const source = fs.readFileSync(path.join(goDocs, 'effective_go.html'), 'utf8');
    const document = await convertHtml(source, { fileName: 'effective_go.html' });
    const levels = document.items.filter((item) => item.label === 'section_header').map((item) => item.headingLevel);
    assert.equal(levels.filter((level) => level === 2).length, 16);
    assert.equal(levels.filter((level) => level === 3).length, 43);
    // One `<pre>` of the file is inside an HTML comment.
    assert.equal(document.items.filter((item) => item.label === 'code').length, (source.replace(/<!--[\s\S]*?-->/g, '').match(/<pre[\s>]/g) ?? []).length);
    assert.equal(document.title, 'Effective Go');
  });

  it('renders the <table> of install/source.html as a Markdown table', async () => {
    const source = fs.readFileSync(path.join(goDocs, 'install', 'source.html'), 'utf8');
    const document = await convertHtml(source, { fileName: 'source.html' });
    const tables = document.items.filter((item) => item.label === 'table');
    assert.equal(tables.length, (source.match(/<table/g) ?? []).length);
    const rows = tables[0].text.split('\n');
    assert.match(rows[1], /^\| - \| - (\| - )*\|$/);
    assert.equal(rows.length, (sliceRange(source, tables[0]).match(/<tr/g) ?? []).length + 1);
  });

  it('counts CRLF line ends once in source ranges', async () => {
    const document = await convertHtml('<h1>A</h1>\r\n\r\n<p>B\r\nC</p>', { fileName: 'crlf.html' });
    assert.deepEqual(document.items.map((item) => item.sourceRange), [
      { startLine: 0, startColumn: 0, endLine: 0, endColumn: 10 },
      { startLine: 2, startColumn: 0, endLine: 3, endColumn: 5 },
    ]);
  });

  it('labels mammoth-style footnotes as footnote items without the back link', async () => {
    const source = '<p>Claim<sup><a href="#footnote-1" id="footnote-ref-1">[1]</a></sup>.</p><ol><li id="footnote-1"><p>The source. <a href="#footnote-ref-1">\u2191</a></p></li></ol>';
    const document = await convertHtml(source, { fileName: 'notes.html' });
    assert.deepEqual(document.items.map((item) => [item.label, item.text, item.treeDepth]), [['paragraph', 'Claim[1].', 0], ['footnote', 'The source.', 0]]);
  });

  it('handles titles, lists, spans, figures, code languages and skipped elements', async () => {
    const source = [
      '<html><head><title>Page &amp; title</title><style>p { color: red }</style></head><body>',
      '<nav><a href="/">Home</a></nav>',
      '<h1>Heading</h1>',
      'Loose <b>text</b>',
      '<ul><li>one<ul><li>one.a</li></ul></li><li><p>two</p></li></ul>',
      '<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td colspan="2">wide | cell</td><td rowspan="2">tall</td></tr><tr><td>x</td><td>y</td></tr></table>',
      '<pre class="language-go"><code>func main() {\n}\n</code></pre>',
      '<figure><img src="a.png" alt="A chart"><figcaption>Figure 1: growth</figcaption></figure>',
      '<script>var hidden = 1;</script>',
      '</body></html>',
    ].join('\n');
    const document = await convertHtml(source, { fileName: 'page.html' });
    assert.equal(document.title, 'Page & title');
    assert.deepEqual(
      document.items.map((item) => [item.selfRef, item.label, item.text, item.treeDepth]),
      [
        ['#/texts/0', 'section_header', 'Heading', 0],
        ['#/texts/1', 'paragraph', 'Loose text', 0],
        ['#/texts/2', 'list_item', 'one', 1],
        ['#/texts/3', 'list_item', 'one.a', 2],
        ['#/texts/4', 'list_item', 'two', 1],
        ['#/tables/0', 'table', '| A | B | C |\n| - | - | - |\n| wide \\| cell | wide \\| cell | tall |\n| x | y | tall |', 0],
        ['#/texts/5', 'code', 'func main() {\n}', 0],
        ['#/pictures/0', 'picture', 'A chart', 0],
        ['#/texts/6', 'caption', 'Figure 1: growth', 0],
      ],
    );
    assert.equal(document.items[6].language, 'go');
    assert.deepEqual(document.items[0].sourceRange, { startLine: 2, startColumn: 0, endLine: 2, endColumn: 16 });
    assert.ok(document.content.includes('- one\n    - one.a\n- two'), document.content);
  });
});
