import * as assert from 'node:assert';
import * as path from 'node:path';
import { chunkDocument } from '../../../src/core/chunker';
import type { Chunk } from '../../../src/core/model/chunk';
import { NOISE_LABELS, type ConvertedDocument, type DocumentItem } from '../../../src/core/model/document';
import type { SearchResult, StoredItem } from '../../../src/core/model/search';
import { expandSearchResults } from '../../../src/core/search/contextExpansion';
import { corpusRoot, filesBelow, skipUnlessCorpusHas, corpusFile } from '../../support/paths';

/** Context expansion on real documents: converted, chunked, stored as items, then expanded. */
const BUDGET = 5000;

function loadConverter(): ((filePath: string) => Promise<ConvertedDocument>) | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- core tests load the node layer only here
    return (require('../../../src/node/convert/convertFile') as { convertFile: (filePath: string) => Promise<ConvertedDocument> }).convertFile;
  } catch {
    return undefined;
  }
}

interface Prepared {
  items: StoredItem[];
  chunks: Chunk[];
}

async function prepare(relativePath: string): Promise<Prepared> {
  const convertFile = loadConverter();
  if (!convertFile) {
    throw new Error('converters missing');
  }
  const document = await convertFile(corpusFile(relativePath));
  const chunks = chunkDocument({ id: relativePath, items: document.items });
  const chunkIdsByRef = new Map<string, string[]>();
  for (const chunk of chunks) {
    for (const ref of chunk.docItemRefs) {
      chunkIdsByRef.set(ref, [...(chunkIdsByRef.get(ref) ?? []), chunk.id]);
    }
  }
  const items = document.items.map((item) => ({ ...item, documentId: relativePath, chunkIds: chunkIdsByRef.get(item.selfRef) ?? [] }));
  return { items, chunks };
}

function resultOf(chunk: Chunk, score = 0.5): SearchResult {
  return {
    chunkId: chunk.id,
    documentId: chunk.documentId,
    uri: `file:///${chunk.documentId}`,
    title: 'Title',
    content: chunk.content,
    headings: chunk.headings,
    labels: chunk.labels,
    pageNumbers: chunk.pageNumbers,
    docItemRefs: chunk.docItemRefs,
    sourceRange: chunk.sourceRange,
    score,
    rank: 1,
  };
}

/** [first, last] positions of the section (bounded by any header or title) that starts with `heading`. */
function sectionNamed(items: readonly DocumentItem[], heading: string): [number, number] {
  const start = items.findIndex((item) => (item.label === 'section_header' || item.label === 'title') && item.text === heading);
  assert.ok(start >= 0, `section ${heading} exists`);
  let end = start + 1;
  while (end < items.length && items[end].label !== 'section_header' && items[end].label !== 'title') {
    end++;
  }
  return [items[start].position, items[end - 1].position];
}

function sectionText(items: readonly DocumentItem[], [first, last]: [number, number]): string {
  return items.filter((item) => item.position >= first && item.position <= last && !NOISE_LABELS.has(item.label) && item.text.length > 0).map((item) => item.text).join('\n\n');
}

function expand(prepared: Prepared, results: SearchResult[]): SearchResult[] {
  return expandSearchResults(results, new Map([[results[0].documentId, prepared.items]]), { maxContextChars: BUDGET });
}

describe('context expansion on corpus documents', function () {
  this.timeout(120_000);
  before(function () {
    // A converter that cannot load is a failure, never a silently skipped corpus check.
    assert.ok(loadConverter(), 'the converters could not be loaded (src/node/convert/convertFile)');
  });

  it('returns exactly the mid-size section of a match in Vite’s features guide', async () => {
    const prepared = await prepare('vite-docs/docs/guide/features.md');
    let merges = 0;
    for (const heading of ['Transpile Only', 'Client Types', 'HTML']) {
      const section = sectionNamed(prepared.items, heading);
      const expected = sectionText(prepared.items, section);
      assert.ok(expected.length >= BUDGET * 0.2 && expected.length <= BUDGET, `${heading}: ${expected.length} chars`);
      const inside = prepared.chunks.filter((chunk) => chunk.docItemRefs.some((ref) => {
        const position = prepared.items.find((item) => item.selfRef === ref)!.position;
        return position > section[0] && position <= section[1];
      }));
      assert.ok(inside.length >= 1);
      for (const chunk of inside) {
        const [expanded] = expand(prepared, [resultOf(chunk)]);
        assert.strictEqual(expanded.content, expected, `${heading}: chunk ${chunk.order}`);
        assert.strictEqual(expanded.chunkId, chunk.id);
        assert.deepStrictEqual(expanded.headings, chunk.headings);
        assert.strictEqual(expanded.sourceRange?.startLine, prepared.items[section[0]].sourceRange?.startLine);
      }
      if (inside.length >= 2) {
        const merged = expand(prepared, [resultOf(inside[0], 0.2), resultOf(inside[1], 0.4)]);
        assert.strictEqual(merged.length, 1);
        assert.deepStrictEqual(merged[0].mergedChunkIds, [inside[1].id, inside[0].id]);
        assert.strictEqual(merged[0].content, expected);
        merges++;
      }
    }
    assert.ok(merges >= 1, 'some section spans two chunks');
  });

  it('grows a match in a tiny section into its neighbours, within the budget', async () => {
    const prepared = await prepare('vite-docs/docs/guide/features.md');
    const section = sectionNamed(prepared.items, 'TypeScript');
    const chunk = prepared.chunks.find((candidate) => candidate.docItemRefs.includes(prepared.items[section[1]].selfRef))!;
    const [expanded] = expand(prepared, [resultOf(chunk)]);
    assert.ok(expanded.content.length > sectionText(prepared.items, section).length);
    assert.ok(expanded.content.length <= BUDGET);
    assert.ok(expanded.content.includes('Transpile Only'), 'reached the next section');
  });

  it('returns a table match in a small DOCX section as exactly that section', async () => {
    const prepared = await prepare('pdf-docx/docling/docx_rich_cells.docx');
    let checked = 0;
    for (const table of prepared.items.filter((item) => item.label === 'table')) {
      const header = [...prepared.items].reverse().find((item) => item.position < table.position && (item.label === 'section_header' || item.label === 'title'));
      if (!header) {
        continue;
      }
      const section = sectionNamed(prepared.items.slice(header.position), header.text);
      const expected = sectionText(prepared.items, section);
      if (expected.length >= BUDGET * 0.2) {
        continue;
      }
      const chunk = prepared.chunks.find((candidate) => candidate.docItemRefs.includes(table.selfRef))!;
      const [expanded] = expand(prepared, [resultOf({ ...chunk, docItemRefs: [table.selfRef], labels: ['table'] })]);
      assert.strictEqual(expanded.content, expected);
      checked++;
    }
    assert.ok(checked >= 3, `${checked} small table sections`);
  });

  it('leaves noise out of every expansion of a structured PDF and keeps pages consistent', async function () {
    skipUnlessCorpusHas(this, 'pdf-docx/docling/redp5110_sampled.pdf');
    const prepared = await prepare('pdf-docx/docling/redp5110_sampled.pdf');
    const byRef = new Map(prepared.items.map((item) => [item.selfRef, item]));
    assert.ok(prepared.items.some((item) => NOISE_LABELS.has(item.label)), 'the PDF has page footers or an index');
    for (const chunk of prepared.chunks) {
      const [expanded] = expand(prepared, [resultOf(chunk)]);
      assert.ok(expanded.content.length <= BUDGET);
      assert.ok(expanded.content.length >= Math.min(BUDGET, chunk.content.length));
      const visible = expanded.docItemRefs.map((ref) => byRef.get(ref)!);
      assert.ok(visible.every((item) => !NOISE_LABELS.has(item.label)), `chunk ${chunk.order}: noise swept in`);
      const chunkSurvives = chunk.docItemRefs.every((ref) => expanded.docItemRefs.includes(ref));
      const pages = [...new Set([...visible.flatMap((item) => item.pageNumbers), ...(chunkSurvives ? chunk.pageNumbers : [])])].sort((left, right) => left - right);
      assert.deepStrictEqual(expanded.pageNumbers, pages);
    }
  });

  it('keeps a match in a section larger than the budget inside that section', async () => {
    const convertFile = loadConverter()!;
    let checked = 0;
    for (const file of filesBelow(corpusRoot).filter((name) => name.endsWith('.md') && !name.endsWith('.groundtruth.md'))) {
      const items = (await convertFile(path.join(corpusRoot, file))).items;
      const headers = items.filter((item) => item.label === 'section_header' || item.label === 'title');
      const large = headers.map((header) => sectionNamed(items, header.text)).find((section) => sectionText(items, section).length > 2 * BUDGET);
      if (!large) {
        continue;
      }
      const prepared = await prepare(file);
      const middle = Math.floor((large[0] + large[1]) / 2);
      const chunk = prepared.chunks.find((candidate) => candidate.docItemRefs.includes(prepared.items[middle].selfRef));
      if (!chunk) {
        continue;
      }
      const [expanded] = expand(prepared, [resultOf(chunk)]);
      assert.ok(expanded.content.length <= BUDGET, `${file}: ${expanded.content.length}`);
      assert.ok(expanded.content.length >= Math.min(BUDGET, chunk.content.length));
      for (const ref of expanded.docItemRefs) {
        const position = prepared.items.find((item) => item.selfRef === ref)!.position;
        assert.ok(position >= large[0] && position <= large[1], `${file}: ${ref} outside the section`);
      }
      if (++checked === 3) {
        break;
      }
    }
    assert.ok(checked >= 1, 'the corpus has a section over twice the budget');
  });
});

describe('clipped expansion on corpus documents', function () {
  this.timeout(300_000);
  const SMALL_BUDGET = 700;

  it('never starts or ends inside a word, marks each cut with …, and stays within the budget', async () => {
    const guides = path.join(corpusRoot, 'vite-docs', 'docs', 'guide');
    const files = filesBelow(guides).filter((file) => file.endsWith('.md')).slice(0, 12).map((file) => path.join(guides, file));
    assert.ok(files.length >= 5);
    let clipped = 0;
    const misses: string[] = [];
    for (const file of files) {
      const prepared = await prepare(path.relative(corpusRoot, file));
      const whole = prepared.items.filter((item) => !NOISE_LABELS.has(item.label) && item.text.length > 0).map((item) => item.text).join('\n\n');
      for (const chunk of prepared.chunks) {
        const [expanded] = expandSearchResults([resultOf(chunk)], new Map([[chunk.documentId, prepared.items]]), { maxContextChars: SMALL_BUDGET });
        assert.ok(expanded.content.length <= SMALL_BUDGET, `${file}: ${expanded.content.length} chars`);
        const cutBefore = expanded.content.startsWith('…');
        const cutAfter = expanded.content.endsWith('…');
        if (!cutBefore && !cutAfter) {
          continue;
        }
        clipped++;
        const inner = expanded.content.slice(cutBefore ? 1 : 0, cutAfter ? -1 : undefined);
        const at = whole.indexOf(inner);
        if (at < 0) {
          continue;
        }
        const word = (character: string | undefined) => character !== undefined && /[\p{L}\p{N}_]/u.test(character);
        if (word(whole[at - 1]) && word(whole[at])) {
          misses.push(`${path.basename(file)} starts mid-word: "${whole.slice(Math.max(0, at - 10), at)}|${inner.slice(0, 20)}"`);
        }
        const end = at + inner.length;
        if (word(whole[end - 1]) && word(whole[end])) {
          misses.push(`${path.basename(file)} ends mid-word: "${inner.slice(-20)}|${whole.slice(end, end + 10)}"`);
        }
      }
    }
    assert.ok(clipped >= 20, `only ${clipped} clipped results`);
    assert.deepStrictEqual(misses.slice(0, 5), [], `${misses.length} of ${clipped} clipped results cut inside a word`);
  });
});
