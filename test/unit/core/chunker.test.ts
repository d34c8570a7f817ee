import * as assert from 'node:assert';
import { chunkDocument, chunkDocumentInParts, chunkDocumentWithinLimit, chunkItemsAsTheyCome, countChunkTokens } from '../../../src/core/chunker';
import { stableHash } from '../../../src/core/hash';
import { unionSourceRanges } from '../../../src/core/sourceRanges';
import { CHUNK_MAX_TOKENS } from '../../../src/core/limits';
import type { Chunk } from '../../../src/core/model/chunk';
import type { DocumentItem, ItemLabel } from '../../../src/core/model/document';

/** Builds items in reading order; `#/texts/N`-style refs per label family. */
function documentOf(specs: Array<[ItemLabel, string, number?]>): DocumentItem[] {
  const counters = new Map<string, number>();
  return specs.map(([label, text, headingLevel], position) => {
    const family = label === 'table' ? 'tables' : label === 'picture' ? 'pictures' : 'texts';
    const index = counters.get(family) ?? 0;
    counters.set(family, index + 1);
    return {
      position,
      selfRef: `#/${family}/${index}`,
      label,
      text,
      headingLevel: label === 'section_header' ? headingLevel ?? 1 : 0,
      pageNumbers: [],
      treeDepth: 0,
      sourceRange: { startLine: position * 2, startColumn: 0, endLine: position * 2 + 1, endColumn: text.length },
    };
  });
}

/** A sentence of roughly `words` tokens with a distinguishing number. */
function sentence(index: number, words = 12): string {
  return `Sentence number ${index} talks about ${Array.from({ length: words - 6 }, (_, word) => `topic${(index * 7 + word) % 50}`).join(' ')}.`;
}

function paragraphOfSentences(count: number, offset = 0): string {
  return Array.from({ length: count }, (_, index) => sentence(index + offset)).join(' ');
}

describe('chunkDocument', () => {
  it('merges small peers under one heading trail and records refs, labels, headings, pages and range', () => {
    const items = documentOf([
      ['title', 'Guide'],
      ['section_header', 'Install', 1],
      ['paragraph', 'Run the installer.'],
      ['list_item', 'Step one.'],
      ['list_item', 'Step two.'],
      ['section_header', 'Usage', 1],
      ['paragraph', 'Call the tool.'],
    ]);
    items[2].pageNumbers = [2];
    items[3].pageNumbers = [1, 2];
    const chunks = chunkDocument({ id: 'doc', items });
    assert.strictEqual(chunks.length, 2);
    assert.deepStrictEqual(chunks[0].headings, ['Guide', 'Install']);
    assert.strictEqual(chunks[0].content, 'Run the installer.\n\nStep one.\n\nStep two.');
    assert.deepStrictEqual(chunks[0].docItemRefs, ['#/texts/0', '#/texts/1', '#/texts/2', '#/texts/3', '#/texts/4']);
    assert.deepStrictEqual(chunks[0].labels, ['title', 'section_header', 'paragraph', 'list_item', 'list_item']);
    assert.deepStrictEqual(chunks[0].pageNumbers, [1, 2]);
    assert.deepStrictEqual(chunks[0].sourceRange, { startLine: 0, startColumn: 0, endLine: 9, endColumn: 9 });
    assert.strictEqual(chunks[0].searchText, 'Guide\nInstall\nRun the installer.\n\nStep one.\n\nStep two.');
    assert.deepStrictEqual(chunks[1].headings, ['Guide', 'Usage']);
    assert.deepStrictEqual(chunks[1].docItemRefs, ['#/texts/5', '#/texts/6']);
    assert.deepStrictEqual(chunks.map((chunk) => chunk.order), [0, 1]);
  });

  it('nests heading levels: a deeper header extends the trail, a shallower one cuts it', () => {
    const chunks = chunkDocument({
      id: 'doc',
      items: documentOf([
        ['section_header', 'A', 1], ['paragraph', 'a text'],
        ['section_header', 'A.1', 2], ['paragraph', 'a1 text'],
        ['section_header', 'A.1.1', 3], ['paragraph', 'a11 text'],
        ['section_header', 'A.2', 2], ['paragraph', 'a2 text'],
        ['section_header', 'B', 1], ['paragraph', 'b text'],
      ]),
    });
    assert.deepStrictEqual(chunks.map((chunk) => chunk.headings), [['A'], ['A', 'A.1'], ['A', 'A.1', 'A.1.1'], ['A', 'A.2'], ['B']]);
    assert.deepStrictEqual(chunks.map((chunk) => chunk.content), ['a text', 'a1 text', 'a11 text', 'a2 text', 'b text']);
  });

  it('puts a header with a subsection but no own text into the first chunk below it', () => {
    const chunks = chunkDocument({ id: 'doc', items: documentOf([['section_header', 'Top', 1], ['section_header', 'Sub', 2], ['paragraph', 'body']]) });
    assert.strictEqual(chunks.length, 1);
    assert.deepStrictEqual(chunks[0].headings, ['Top', 'Sub']);
    assert.deepStrictEqual(chunks[0].docItemRefs, ['#/texts/0', '#/texts/1', '#/texts/2']);
  });

  it('turns headers of empty sections into chunks of their own text', () => {
    const chunks = chunkDocument({
      id: 'doc',
      items: documentOf([['title', 'Only a title']]),
    });
    assert.strictEqual(chunks.length, 1);
    assert.strictEqual(chunks[0].content, 'Only a title');
    assert.deepStrictEqual(chunks[0].headings, []);
    const empties = chunkDocument({ id: 'doc', items: documentOf([['section_header', 'A', 1], ['section_header', 'B', 2], ['section_header', 'C', 1], ['paragraph', 'c body']]) });
    assert.deepStrictEqual(empties.map((chunk) => [chunk.headings, chunk.content, chunk.docItemRefs]), [
      [[], 'A\n\nB', ['#/texts/0', '#/texts/1']],
      [['C'], 'c body', ['#/texts/2', '#/texts/3']],
    ]);
  });

  it('leaves noise items out and keeps refs of text-less pictures', () => {
    const chunks = chunkDocument({
      id: 'doc',
      items: documentOf([
        ['page_header', 'ACME confidential'],
        ['section_header', 'Figures', 1],
        ['paragraph', 'See below.'],
        ['picture', ''],
        ['footnote', '1. a footnote'],
        ['page_footer', 'Page 3'],
        ['paragraph', 'After the figure.'],
        ['document_index', 'Index ... 4'],
      ]),
    });
    assert.strictEqual(chunks.length, 1);
    assert.strictEqual(chunks[0].content, 'See below.\n\nAfter the figure.');
    assert.deepStrictEqual(chunks[0].labels, ['section_header', 'paragraph', 'picture', 'paragraph']);
    assert.ok(!chunks.some((chunk) => /confidential|footnote|Page 3|Index/.test(chunk.searchText)));
  });

  it('never exceeds the token limit and keeps fitting tables and code whole', () => {
    const table = ['| name | value |', '| --- | --- |', ...Array.from({ length: 20 }, (_, row) => `| row${row} | ${row * 3} |`)].join('\n');
    const code = Array.from({ length: 25 }, (_, line) => `const value${line} = compute(${line});`).join('\n');
    assert.ok(countChunkTokens(table) < CHUNK_MAX_TOKENS && countChunkTokens(table) > 100, 'table fixture sized to need its own chunk');
    assert.ok(countChunkTokens(code) < CHUNK_MAX_TOKENS && countChunkTokens(code) > 100, 'code fixture sized to need its own chunk');
    const chunks = chunkDocument({
      id: 'doc',
      items: documentOf([['section_header', 'Data', 1], ['paragraph', paragraphOfSentences(8)], ['table', table], ['code', code], ['paragraph', paragraphOfSentences(6, 50)]]),
    });
    for (const chunk of chunks) {
      assert.ok(countChunkTokens(chunk.searchText) <= CHUNK_MAX_TOKENS, `chunk ${chunk.order} has ${countChunkTokens(chunk.searchText)} tokens`);
      assert.ok(chunk.tokenCount >= countChunkTokens(chunk.searchText), 'tokenCount never under-reports');
    }
    assert.ok(chunks.some((chunk) => chunk.content.includes(table)), 'table kept whole');
    assert.ok(chunks.some((chunk) => chunk.content.includes(code)), 'code kept whole');
  });

  it('splits an oversized paragraph at sentence boundaries, each part within the limit, no overlap', () => {
    const text = paragraphOfSentences(80);
    assert.ok(countChunkTokens(text) > 3 * CHUNK_MAX_TOKENS);
    const chunks = chunkDocument({ id: 'doc', items: documentOf([['section_header', 'Long', 1], ['paragraph', text]]) });
    assert.ok(chunks.length >= 4);
    for (const chunk of chunks) {
      assert.ok(countChunkTokens(chunk.searchText) <= CHUNK_MAX_TOKENS);
      assert.match(chunk.content, /^Sentence number \d+ .*\.$/s, 'parts start and end at sentence boundaries');
      assert.deepStrictEqual(chunk.docItemRefs.slice(-1), ['#/texts/1']);
    }
    assert.strictEqual(chunks.map((chunk) => chunk.content).join(' '), text, 'parts cover the text exactly once, in order');
  });

  it('balances the parts of a split item instead of leaving a small tail', () => {
    const text = paragraphOfSentences(15);
    const total = countChunkTokens(text);
    assert.ok(total > CHUNK_MAX_TOKENS && total < 1.5 * CHUNK_MAX_TOKENS, `${total} tokens`);
    const chunks = chunkDocument({ id: 'doc', items: documentOf([['paragraph', text]]) });
    assert.strictEqual(chunks.length, 2);
    for (const chunk of chunks) {
      assert.ok(Math.abs(countChunkTokens(chunk.content) - total / 2) < 30, `${countChunkTokens(chunk.content)} of ${total}`);
    }
  });

  it('splits oversized code at line boundaries and an unbroken run between characters', () => {
    const code = Array.from({ length: 120 }, (_, line) => `    result${line} = transform(input${line}, options);`).join('\n');
    const codeChunks = chunkDocument({ id: 'doc', items: documentOf([['code', code]]) });
    assert.ok(codeChunks.length > 1);
    for (const chunk of codeChunks) {
      assert.ok(chunk.tokenCount <= CHUNK_MAX_TOKENS && countChunkTokens(chunk.content) <= CHUNK_MAX_TOKENS);
      assert.match(chunk.content, /^ {4}result\d+ = .*;$/s, 'whole lines, indentation kept');
    }
    assert.strictEqual(codeChunks.map((chunk) => chunk.content).join('\n'), code);
    const blob = 'QUJD'.repeat(2000);
    const blobChunks = chunkDocument({ id: 'doc', items: documentOf([['paragraph', `Data: ${blob} end.`]]) });
    for (const chunk of blobChunks) {
      assert.ok(countChunkTokens(chunk.content) <= CHUNK_MAX_TOKENS);
    }
    assert.strictEqual(blobChunks.map((chunk) => chunk.content).join('').replace(/\s+/g, ''), `Data:${blob}end.`);
  });

  it('counts the heading trail in the limit', () => {
    const longHeading = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    const chunks = chunkDocument({ id: 'doc', items: documentOf([['section_header', longHeading, 1], ['paragraph', paragraphOfSentences(30)]]) });
    for (const chunk of chunks) {
      assert.ok(countChunkTokens(chunk.searchText) <= CHUNK_MAX_TOKENS);
    }
    assert.ok(chunks.length > 2);
  });

  it('honours maxTokens', () => {
    const chunks = chunkDocument({ id: 'doc', items: documentOf([['paragraph', paragraphOfSentences(20)]]) }, { maxTokens: 64 });
    assert.ok(chunks.length >= 5);
    assert.ok(chunks.every((chunk) => countChunkTokens(chunk.content) <= 64));
  });

  it('keeps ids when an unrelated item changes and gives identical texts distinct ids', () => {
    const original = documentOf([
      ['section_header', 'One', 1], ['paragraph', 'First section text.'],
      ['section_header', 'Two', 1], ['paragraph', 'Repeated paragraph.'],
      ['section_header', 'Three', 1], ['paragraph', 'Third section text.'],
    ]);
    const edited = original.map((item) => (item.text === 'Third section text.' ? { ...item, text: 'Third section, rewritten.' } : item));
    const before = chunkDocument({ id: 'doc', items: original });
    const after = chunkDocument({ id: 'doc', items: edited });
    assert.strictEqual(after[0].id, before[0].id);
    assert.strictEqual(after[1].id, before[1].id);
    assert.notStrictEqual(after[2].id, before[2].id);
    assert.notStrictEqual(chunkDocument({ id: 'other', items: original })[0].id, before[0].id, 'ids depend on the document');
    const repeated = chunkDocument({ id: 'doc', items: documentOf([['paragraph', 'Same.'], ['table', '| a |\n| - |\n| 1 |'], ['paragraph', 'x'.repeat(1)], ['section_header', 'S', 1], ['paragraph', 'Same.'], ['section_header', 'T', 1], ['paragraph', 'Same.']]) });
    const ids = repeated.map((chunk) => chunk.id);
    assert.strictEqual(new Set(ids).size, ids.length);
    const twins = chunkDocument({ id: 'doc', items: documentOf([['section_header', 'S', 1], ['paragraph', 'Same.'], ['section_header', 'S', 1], ['paragraph', 'Same.']]) });
    assert.strictEqual(twins[0].searchText, twins[1].searchText);
    assert.notStrictEqual(twins[0].id, twins[1].id);
  });

  it('unions source ranges (earliest start, latest end, first page)', () => {
    const ranges = [{ startLine: 4, startColumn: 2, endLine: 5, endColumn: 1 }, undefined, { startLine: 4, startColumn: 0, endLine: 5, endColumn: 7 }];
    assert.deepStrictEqual(unionSourceRanges(ranges), { startLine: 4, startColumn: 0, endLine: 5, endColumn: 7 });
    assert.deepStrictEqual(unionSourceRanges([{ page: 3 }, { page: 2 }]), { page: 2 });
    assert.strictEqual(unionSourceRanges([undefined]), undefined);
  });

  it('chunks nothing from an empty or all-noise document', () => {
    assert.deepStrictEqual(chunkDocument({ id: 'doc', items: [] }), []);
    assert.deepStrictEqual(chunkDocument({ id: 'doc', items: documentOf([['page_header', 'Header'], ['page_footer', '1']]) }), []);
  });

  it('makes the same chunks when they are taken in parts (a big document), repeated texts numbered alike', () => {
    const specs: Array<[ItemLabel, string, number?]> = [['title', 'Spec', 1]];
    for (let section = 0; section < 60; section++) {
      // Every fifth section repeats the same heading and text: same search text, told apart by its occurrence.
      const repeated = section % 5 === 0;
      specs.push(['section_header', repeated ? 'Repeated' : `Section ${section}`, 2]);
      specs.push(['paragraph', repeated ? 'The same words again.' : `Words of section ${section}. `.repeat(1 + (section % 40))]);
    }
    const document = { id: 'doc', items: documentOf(specs) };
    const whole = chunkDocumentWithinLimit(document).chunks;
    const repeats = whole.filter((chunk) => chunk.content === 'The same words again.');
    assert.strictEqual(repeats.length, 12);
    // The first keeps the id a lone text has; later ones count how many came before.
    assert.strictEqual(repeats[0].id, stableHash(`doc\u0000${repeats[0].searchText}\u00000`));
    assert.strictEqual(repeats[3].id, stableHash(`doc\u0000${repeats[3].searchText}\u00003`));
    assert.strictEqual(new Set(whole.map((chunk) => chunk.id)).size, whole.length);
    for (const maxChars of [1, 500, 5_000, Number.MAX_SAFE_INTEGER]) {
      const inParts = chunkDocumentInParts(document);
      assert.strictEqual(inParts.count, whole.length);
      const taken = [];
      for (let part = inParts.take(maxChars); part.length > 0; part = inParts.take(maxChars)) {
        taken.push(...part);
      }
      assert.deepStrictEqual(taken, whole, `parts of ${maxChars} characters`);
    }
    const cut = chunkDocumentInParts(document, { maxChunks: 7 });
    assert.strictEqual(cut.truncated, true);
    assert.deepStrictEqual(cut.take(Number.MAX_SAFE_INTEGER), whole.slice(0, 7));
  });

  it('makes the chunks completed so far as items come, the same chunks in the same order as one pass, truncation included', () => {
    const specs: Array<[ItemLabel, string, number?]> = [['title', 'Handbook', 0]];
    for (let section = 1; section <= 60; section++) {
      specs.push(['section_header', section % 5 === 0 ? 'Repeated' : `Section ${section}`, 2 + (section % 2)]);
      // Long paragraphs split over several chunks; the last of a section stays open until the next heading.
      specs.push(['paragraph', section % 5 === 0 ? 'The same words again.' : `Words of section ${section}. `.repeat(1 + ((section * 37) % 300))]);
      if (section % 7 === 0) {
        specs.push(['list_item', `A point of section ${section}.`, 0]);
      }
    }
    const items = documentOf(specs);
    for (const maxChunks of [Number.MAX_SAFE_INTEGER, 9]) {
      const whole = chunkDocumentWithinLimit({ id: 'doc', items }, { maxChunks });
      for (const partLength of [1, 3, 17, items.length]) {
        const chunking = chunkItemsAsTheyCome('doc', { maxChunks });
        const made: Chunk[] = [];
        let earlyParts = 0;
        for (let start = 0; start < items.length; start += partLength) {
          chunking.add(items.slice(start, start + partLength));
          const ready = chunking.ready();
          earlyParts += ready.length > 0 ? 1 : 0;
          made.push(...ready);
        }
        const rest = chunking.finish();
        for (let part = rest.take(2_000); part.length > 0; part = rest.take(2_000)) {
          made.push(...part);
        }
        assert.deepStrictEqual(made, whole.chunks, `parts of ${partLength} items, at most ${maxChunks} chunks`);
        assert.strictEqual(rest.truncated, whole.truncated);
        assert.strictEqual(rest.count, whole.chunks.length);
        if (partLength < items.length && whole.chunks.length > 20) {
          assert.ok(earlyParts > 1, `chunks came before the end (parts of ${partLength} items)`);
        }
      }
    }
  });
});
