import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertMarkdown, plainMarkdown } from '../../../src/node/convert/markdown';
import { buildSectionTree, walkSections } from '../../../src/core/toc';
import type { ConvertedDocument, DocumentItem, SectionNode } from '../../../src/core/model/document';
import { corpusRoot, filesBelow } from '../../support/paths';

const modPath = path.join(corpusRoot, 'go-docs', 'ref', 'mod.md');
const cliPath = path.join(corpusRoot, 'vite-docs', 'docs', 'guide', 'cli.md');

/** ATX headings outside fenced code, found line by line without any Markdown library. */
function headingsOf(source: string): { level: number; text: string; line: number }[] {
  const headings: { level: number; text: string; line: number }[] = [];
  let fence: string | undefined;
  source.split('\n').forEach((line, index) => {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (fence === undefined) {
        fence = fenceMatch[1][0];
      } else if (fenceMatch[1][0] === fence) {
        fence = undefined;
      }
      return;
    }
    const heading = fence === undefined ? /^(#{1,6})\s+(.*?)\s*$/.exec(line) : null;
    if (heading) {
      const text = heading[2].replace(/\s*\{#[^}]*\}$/, '').replace(/`/g, '');
      headings.push({ level: heading[1].length, text, line: index });
    }
  });
  return headings;
}

function sliceRange(source: string, item: DocumentItem): string {
  const lines = source.split('\n');
  const range = item.sourceRange!;
  if (range.startLine === range.endLine) {
    return lines[range.startLine!].slice(range.startColumn, range.endColumn);
  }
  return [lines[range.startLine!].slice(range.startColumn), ...lines.slice(range.startLine! + 1, range.endLine), lines[range.endLine!].slice(0, range.endColumn)].join('\n');
}

function findSection(tree: readonly SectionNode[], title: string): SectionNode {
  const found = [...walkSections(tree)].find((node) => node.title === title);
  assert.ok(found, `section "${title}" not in the tree`);
  return found;
}

function parentOf(tree: readonly SectionNode[], child: SectionNode): SectionNode | undefined {
  return [...walkSections(tree)].find((node) => node.children.includes(child));
}

describe('convertMarkdown', function () {
  this.timeout(60_000);

  describe('Go modules reference (go-docs/ref/mod.md)', () => {
    let source: string;
    let document: ConvertedDocument;
    let tree: SectionNode[];

    before(async () => {
      source = fs.readFileSync(modPath, 'utf8');
      document = await convertMarkdown(source, { fileName: 'mod.md' });
      tree = buildSectionTree(document.items);
    });

    it('takes the title from the JSON front-matter comment', () => {
      assert.equal(document.title, 'Go Modules Reference');
      assert.equal(document.format, 'markdown');
      assert.equal(document.content, source);
    });

    it('has one section_header per heading line, same text, level and order', () => {
      const expected = headingsOf(source);
      assert.equal(expected.filter((heading) => heading.level === 2).length, 16);
      assert.equal(expected.filter((heading) => heading.level === 3).length, 75);
      const headers = document.items.filter((item) => item.label === 'section_header');
      assert.deepEqual(
        headers.map((item) => [item.headingLevel, item.text]),
        expected.map((heading) => [heading.level, heading.text]),
      );
      assert.deepEqual(headers.map((item) => item.sourceRange?.startLine), expected.map((heading) => heading.line));
    });

    it('builds the section tree the headings imply', () => {
      assert.equal(tree.length, 16);
      assert.deepEqual(tree.slice(0, 3).map((node) => node.title), ['Introduction', 'Modules, packages, and versions', 'go.mod files']);
      const modulesOverview = findSection(tree, 'Modules, packages, and versions');
      assert.deepEqual(modulesOverview.children.map((node) => node.title), ['Module paths', 'Versions', 'Pseudo-versions', 'Major version suffixes', 'Resolving a package to a module']);
      const deprecation = findSection(tree, 'Deprecation');
      assert.equal(deprecation.level, 4);
      assert.equal(parentOf(tree, deprecation)?.title, 'module directive');
      assert.equal(parentOf(tree, parentOf(tree, deprecation)!)?.title, 'go.mod files');
      const allThirdLevel = tree.flatMap((node) => node.children).filter((node) => node.level === 3);
      assert.equal(allThirdLevel.length, 75);
    });

    it('gives each section the item range up to the next header of its level or above', () => {
      const headers = document.items.filter((item) => item.label === 'section_header');
      for (const node of walkSections(tree)) {
        const index = headers.findIndex((item) => item.selfRef === node.selfRef);
        const next = headers.slice(index + 1).find((item) => item.headingLevel <= node.level);
        assert.equal(node.itemRange[0], headers[index].position);
        assert.equal(node.itemRange[1], next ? next.position : document.items.length);
      }
      // "Introduction" holds its header and the two paragraphs that follow it.
      assert.deepEqual(findSection(tree, 'Introduction').itemRange, [0, 3]);
    });

    it('turns the inline HTML tables into table items with a header row', () => {
      const tables = document.items.filter((item) => item.label === 'table');
      assert.equal(tables.length, (source.match(/^<table/gm) ?? []).length);
      assert.equal(tables.length, 6);
      assert.ok(tables[0].text.startsWith('| Command | Behavior |\n| - | - |\n'), tables[0].text.slice(0, 80));
      // The table's range starts at its <table> line in the Markdown source.
      assert.ok(sliceRange(source, tables[0]).startsWith('<table'));
    });

    it('keeps fenced code blocks with their language', () => {
      const code = document.items.filter((item) => item.label === 'code');
      const fences = (source.match(/^```/gm) ?? []).length / 2;
      assert.equal(code.length, fences);
      assert.equal(code.length, 103);
      // mod.md's fences carry no info string.
      assert.ok(code.every((item) => item.language === undefined));
      assert.ok(code.every((item) => !item.text.startsWith('```')));
    });

    it('slices the heading line from the source with a heading item range', () => {
      for (const item of document.items.filter((candidate) => candidate.label === 'section_header')) {
        const line = source.split('\n')[item.sourceRange!.startLine!];
        assert.equal(sliceRange(source, item), line, item.text);
        assert.ok(line.includes(item.text.split(' ')[0]));
      }
    });
  });

  describe('Vite CLI page (vite-docs/docs/guide/cli.md)', () => {
    let source: string;
    let document: ConvertedDocument;

    before(async () => {
      source = fs.readFileSync(cliPath, 'utf8');
      document = await convertMarkdown(source, { fileName: 'cli.md' });
    });

    it('turns each pipe table into one table item with every row', () => {
      const tables = document.items.filter((item) => item.label === 'table');
      // 72 pipe-table lines in the file, in 4 tables (20 + 24 + 12 + 16 lines, header and delimiter included).
      const blocks = source.split(/\n(?!\|)/).map((block) => block.split('\n').filter((line) => line.startsWith('|')).length).filter((count) => count > 0);
      assert.deepEqual(blocks, [20, 24, 12, 16]);
      assert.deepEqual(tables.map((table) => table.text.split('\n').length), blocks);
      assert.equal(tables.reduce((sum, table) => sum + table.text.split('\n').length, 0), 72);
      assert.ok(tables[0].text.includes('| `--host [host]` | Specify hostname (`string`) |') || tables[0].text.includes('| --host [host] | Specify hostname (string) |'), tables[0].text.slice(0, 300));
      for (const table of tables) {
        assert.ok(sliceRange(source, table).startsWith('| Options'));
      }
    });

    it('keeps the fence language of code blocks', () => {
      const code = document.items.filter((item) => item.label === 'code');
      assert.ok(code.length >= 4);
      assert.ok(code.every((item) => item.language === 'bash'));
      assert.equal(code[0].text, 'vite [root]');
    });

    it('takes the first h1 as title and keeps it as a section header', () => {
      assert.equal(document.title, 'Command Line Interface');
      assert.equal(document.items[0].label, 'section_header');
      assert.equal(document.items[0].headingLevel, 1);
    });
  });

  it('has one section_header per ATX heading line in every Markdown file of the corpus', async () => {
    const files = filesBelow(corpusRoot).filter((file) => file.endsWith('.md') && !/\.groundtruth\.md$|(^|\/)(README|COPYRIGHT-content)\.md$/.test(file));
    assert.ok(files.length >= 64, `found ${files.length}`);
    for (const file of files) {
      const source = fs.readFileSync(path.join(corpusRoot, file), 'utf8');
      const document = await convertMarkdown(source, { fileName: path.basename(file) });
      const headers = document.items.filter((item) => item.label === 'section_header');
      assert.deepEqual(headers.map((item) => item.sourceRange?.startLine), headingsOf(source).map((heading) => heading.line), file);
    }
  });

  it('keeps VitePress ::: containers as text (vite-docs/docs/guide/features.md)', async () => {
    const source = fs.readFileSync(path.join(corpusRoot, 'vite-docs', 'docs', 'guide', 'features.md'), 'utf8');
    const document = await convertMarkdown(source, { fileName: 'features.md' });
    const tip = document.items.find((item) => item.text.startsWith('::: tip skipLibCheck'));
    assert.ok(tip, 'the ::: tip container text is an item');
    assert.equal(tip.label, 'paragraph');
    assert.ok(tip.text.includes('"skipLibCheck": true'));
  });

  it('drops YAML front matter from the items and uses its title (go-docs/doc/go1.md)', async () => {
    const source = fs.readFileSync(path.join(corpusRoot, 'go-docs', 'doc', 'go1.md'), 'utf8');
    assert.ok(source.startsWith('---\n'));
    const document = await convertMarkdown(source, { fileName: 'go1.md' });
    assert.equal(document.title, 'Go 1 Release Notes');
    assert.equal(document.items[0].label, 'section_header');
    assert.equal(document.items[0].text, 'Introduction to Go 1');
    assert.ok(document.items.every((item) => !/^(template|title):/m.test(item.text)));
  });

  it('handles nested lists, hard breaks, images, task items and missing titles', async () => {
    const source = [
      'Intro line one  ',
      'line two',
      '',
      '- top',
      '  - nested **bold**',
      '    1. deeper',
      '- [x] done',
      '',
      '![A duck](duck.png)',
      '',
      '```ts twoslash',
      'const x = 1;',
      '```',
      '',
    ].join('\n');
    const document = await convertMarkdown(source, { fileName: 'notes.md' });
    assert.equal(document.title, 'notes.md');
    assert.deepEqual(
      document.items.map((item) => [item.label, item.text, item.treeDepth]),
      [
        ['paragraph', 'Intro line one\nline two', 0],
        ['list_item', 'top', 1],
        ['list_item', 'nested bold', 2],
        ['list_item', 'deeper', 3],
        ['list_item', '[x] done', 1],
        ['picture', 'A duck', 0],
        ['code', 'const x = 1;', 0],
      ],
    );
    assert.equal(document.items[6].language, 'ts');
    assert.deepEqual(document.items.map((item) => item.selfRef), ['#/texts/0', '#/texts/1', '#/texts/2', '#/texts/3', '#/texts/4', '#/pictures/0', '#/texts/5']);
    assert.deepEqual(document.items[2].sourceRange, { startLine: 4, startColumn: 2, endLine: 4, endColumn: 19 });
  });

  it('gives the items and ranges micromark gave for front matter, CRLF, code spans, footnotes, tasks, tables, HTML, images and setext headings', async () => {
    const source = [
      '---', 'title: "Front matter title"', 'tags: [a]', '---', '',
      '# Heading {#anchor}', '', 'A `code', 'span` and a note[^1] <b>bold</b> &amp; more.', '',
      '> quoted *text*', '', '- [ ] open task', '- [x] done task', '', '1. first', '', '   second paragraph', '',
      '| A | B |', '|---|---|', '| 1 | 2 \\| 3 |', '', '    indented code', '', '[^1]: The footnote text.', '',
      '<div>', '<p>html block</p>', '</div>', '', '![Alt *text*](a.png) ![Second](b.png)', '',
      'Setext heading', '---', '', '~~~js title', 'let x;', '~~~', '',
    ].join('\r\n');
    const document = await convertMarkdown(source, { fileName: 'x.md' });
    assert.equal(document.title, 'Front matter title');
    const range = (startLine: number, startColumn: number, endLine: number, endColumn: number) => ({ startLine, startColumn, endLine, endColumn });
    assert.deepEqual(document.items.map((item) => [item.label, item.text, item.sourceRange]), [
      ['section_header', 'Heading', range(5, 0, 5, 19)],
      // A code span keeps its line end (mdast did; CommonMark would make it a space).
      ['paragraph', 'A code\nspan and a note bold & more.', range(7, 0, 8, 44)],
      ['paragraph', 'quoted text', range(10, 2, 10, 15)],
      ['list_item', '[ ] open task', range(12, 0, 12, 15)],
      ['list_item', '[x] done task', range(13, 0, 13, 15)],
      ['list_item', 'first', range(15, 0, 15, 8)],
      ['paragraph', 'second paragraph', range(17, 3, 17, 19)],
      ['table', '| A | B |\n| - | - |\n| 1 | 2 \\| 3 |', range(19, 0, 21, 14)],
      ['code', 'indented code', range(23, 0, 23, 17)],
      ['footnote', '[^1]: The footnote text.', range(25, 0, 25, 24)],
      ['paragraph', 'html block', range(28, 0, 28, 17)],
      ['picture', 'Alt text', range(31, 0, 31, 20)],
      ['picture', 'Second', range(31, 21, 31, 37)],
      ['section_header', 'Setext heading', range(33, 0, 34, 3)],
      ['code', 'let x;', range(36, 0, 38, 3)],
    ]);
    assert.equal(document.items[14].language, 'js');
  });

  it('reads plain headings and paragraphs without markdown-it, with the same items and ranges', async () => {
    const source = '# Structural homeostasis [1]\n\nDendrites grew (P < 0.05 & n = 12) [2, 3].\nA second line: x > y!\n## Methods\nFigure 2: a caption-like paragraph.\n';
    assert.ok(plainMarkdown(source), 'a plain document');
    const document = await convertMarkdown(source, { fileName: 'x.md' });
    const range = (startLine: number, startColumn: number, endLine: number, endColumn: number) => ({ startLine, startColumn, endLine, endColumn });
    assert.equal(document.title, 'Structural homeostasis [1]');
    assert.equal(document.content, source);
    assert.deepEqual(document.items.map((item) => [item.label, item.text, item.headingLevel, item.sourceRange]), [
      ['section_header', 'Structural homeostasis [1]', 1, range(0, 0, 0, 28)],
      ['paragraph', 'Dendrites grew (P < 0.05 & n = 12) [2, 3].\nA second line: x > y!', 0, range(2, 0, 3, 21)],
      ['section_header', 'Methods', 2, range(4, 0, 4, 10)],
      ['paragraph', 'Figure 2: a caption-like paragraph.', 0, range(5, 0, 5, 35)],
    ]);
    // The segmented parse (markdown-it, one segment per heading) gives the same document.
    assert.deepEqual(await convertMarkdown(source, { fileName: 'x.md', segmentChars: 0 }), document);
  });

  it('leaves documents that markup could read otherwise to markdown-it', async () => {
    const marked = [
      'a *b*', 'a _b_', 'a `b`', 'a ~~b~~', 'a \\*', 'a | b', '[x](y)', 'a [^1] b', '![alt](x.png)', 'a <b>c</b>', 'a <http://x.y>', 'a <0@x.y>', 'a &amp; b', 'a &#35; b',
      '  indented', 'trailing  ', '- item', '1. item', '2) item', '> quote', '---\ntitle: x\n---', 'Setext\n===', '# Closed #', '#NoSpace', '#  Two spaces', '####### seven', '[ref]: /url', 'a\r\nb', 'a\tb',
    ];
    for (const source of marked) {
      assert.equal(plainMarkdown(source), undefined, JSON.stringify(source));
    }
    // What markdown-it makes of one of them: emphasis marks are not text.
    assert.deepEqual((await convertMarkdown('# T\n\na *b* [1](u)', { fileName: 'x.md' })).items.map((item) => item.text), ['T', 'a b 1']);
  });

  it('stops when the abort signal has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(convertMarkdown('# x', { fileName: 'x.md', abortSignal: controller.signal }), (error: Error & { code?: string }) => error.code === 'cancelled');
  });
});
