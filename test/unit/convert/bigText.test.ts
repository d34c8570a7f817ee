import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkDocument } from '../../../src/core/chunker';
import { ConversionError } from '../../../src/core/errors';
import { MARKDOWN_SEGMENT_CHARS } from '../../../src/core/limits';
import { createConversionPool } from '../../../src/node/convert/conversionPool';
import { convertFile } from '../../../src/node/convert/convertFile';
import { convertMarkdown } from '../../../src/node/convert/markdown';

/** Never reached: the whole text is one segment. */
const WHOLE = Number.MAX_SAFE_INTEGER;

/**
 * Sections that put every construct a cut before a heading could get wrong right before the next heading: a fence and
 * a `<pre>` block holding blank lines and `#` lines, a list, a block quote, a table, footnotes, link references used
 * before and after their definitions, CRLF lines, and (last) a fence never closed, which runs to the end of the file.
 */
function trickyMarkdown(sections: number): string {
  const parts = ['---\ntitle: Big specification\nversion: 3\n---\n', '# Big specification\n\nSee [the glossary] and [Early][early] first.\n'];
  for (let index = 0; index < sections; index++) {
    const body = [
      `## ${index}. Section about widgets ${index}\n`,
      `Paragraph ${index} says that widgets follow [rule ${index}] and [the glossary]; a footnote[^n${index}] and \`code ${index}\`.\nIt continues on a second line.\n`,
    ];
    switch (index % 7) {
      case 0:
        body.push('```js\nconst a = 1;\n\n# not a heading: inside a fence\n\nconst b = 2;\n```\n');
        break;
      case 1:
        body.push('<pre>\n\n# not a heading: inside pre\n\n</pre>\n');
        break;
      case 2:
        body.push(`- item one of ${index}\n- item two\n\n  continued item\n\n1. first\n2. second\n`);
        break;
      case 3:
        body.push(`> A quote in section ${index}\n> on two lines\n\n| key | value |\n|---|---|\n| id | ${index} |\n`);
        break;
      case 4:
        body.push(`Windows lines in section ${index}\r\nsecond CRLF line\r\n\r\n[rule ${index}]: https://example.com/rules/${index}\r\n`);
        break;
      case 5:
        body.push(`[^n${index}]: The footnote of section ${index}.\n\n![A figure ${index}](figure-${index}.png)\n`);
        break;
      default:
        body.push('~~~\nfence of tildes\n\n# still code\n~~~~\n\n<!--\n\n# inside a comment\n\n-->\n');
    }
    parts.push(body.join('\n'));
  }
  parts.push('[the glossary]: /glossary "Glossary"\n[early]: /early\n');
  parts.push('## The end\n\n```\nan unclosed fence\n\n# swallowed by the fence\n\nto the end of the file\n');
  return parts.join('\n');
}

describe('big text files: Markdown converted in segments', () => {
  let folder: string;
  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-big-text-'));
  });
  after(() => {
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('gives the same items, source ranges and chunk boundaries in segments as whole, wherever the cuts fall', async () => {
    const text = trickyMarkdown(120);
    const whole = await convertMarkdown(text, { fileName: 'spec.md', segmentChars: WHOLE });
    const wholeChunks = chunkDocument({ id: 'spec', items: whole.items });
    assert.ok(whole.items.length > 400, `${whole.items.length} items`);
    // The references resolve (link text, not the brackets), also where the definition comes later.
    assert.ok(whole.items.some((item) => item.text.includes('See the glossary and Early first.')));
    assert.ok(whole.items.some((item) => item.text.includes('widgets follow rule 4 and the glossary')));
    for (const segmentChars of [1, 200, 5_000, 40_000]) {
      const segmented = await convertMarkdown(text, { fileName: 'spec.md', segmentChars });
      assert.equal(segmented.title, whole.title);
      assert.deepEqual(segmented.items, whole.items, `segments of ${segmentChars} characters`);
      assert.deepEqual(chunkDocument({ id: 'spec', items: segmented.items }), wholeChunks, `chunks, segments of ${segmentChars} characters`);
    }
  });

  it('keeps a fence opened before a cut open after it, as one parse does', async () => {
    const text = `# One\n\n\`\`\`\ncode\n\n# Two\n\nmore code\n\`\`\`\n\n# Three\n\ntext\n`;
    const segmented = await convertMarkdown(text, { fileName: 'fence.md', segmentChars: 1 });
    assert.deepEqual(segmented.items.map((item) => [item.label, item.text]), [['section_header', 'One'], ['code', 'code\n\n# Two\n\nmore code'], ['section_header', 'Three'], ['paragraph', 'text']]);
    assert.deepEqual(segmented.items[2].sourceRange, { startLine: 10, startColumn: 0, endLine: 10, endColumn: 7 });
  });

  it(`segments a file over ${MARKDOWN_SEGMENT_CHARS.toLocaleString('en-US')} characters by default, with the items of one parse`, async () => {
    const text = trickyMarkdown(Math.ceil((2.5 * MARKDOWN_SEGMENT_CHARS) / (trickyMarkdown(100).length / 100)));
    assert.ok(text.length > 2 * MARKDOWN_SEGMENT_CHARS, `${text.length} characters`);
    const file = path.join(folder, 'default.md');
    fs.writeFileSync(file, text);
    const converted = await convertFile(file);
    const whole = await convertMarkdown(text, { fileName: 'default.md', segmentChars: WHOLE });
    assert.deepEqual(converted.items, whole.items);
    // The last heading before the unclosed fence, counted from the file's first line.
    const lines = text.split(/\r\n|\r|\n/);
    const end = converted.items.find((item) => item.text === 'The end');
    assert.equal(lines[end!.sourceRange!.startLine!], '## The end');
  });

  it('indexes a Markdown file over the 10 MiB that text files were once limited to (not refused), through a conversion worker', async function () {
    this.timeout(300_000);
    const file = path.join(folder, 'twelve.md');
    const section = (index: number) => `## Part ${index}\n\n${'Widgets follow the rules of this part, as the specification says. '.repeat(12)}\n\n`;
    const descriptor = fs.openSync(file, 'w');
    let written = 0;
    for (let index = 0; written < 12 * 1024 * 1024; index++) {
      written += fs.writeSync(descriptor, section(index));
    }
    fs.closeSync(descriptor);
    const pool = createConversionPool({ size: 1 });
    try {
      const prepared = await pool.prepare(file, { rootPath: folder, sizeBytes: written });
      assert.ok(prepared.chunks.length > 10_000, `${prepared.chunks.length} chunks`);
      const last = prepared.document.items[prepared.document.items.length - 1];
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      assert.equal(lines[last.sourceRange!.startLine!], section(0).split('\n')[2]);
      // Over the file size limit is still refused, with the limit named.
      const refused = await pool.prepare(file, { rootPath: folder, maxBytes: 10 * 1024 * 1024 }).then(() => undefined, (error: unknown) => error);
      assert.ok(refused instanceof ConversionError && refused.code === 'file_too_large', String(refused));
      assert.match(refused.message, /over the 10\.0 MiB limit/);
    } finally {
      await pool.dispose();
    }
  });
});
