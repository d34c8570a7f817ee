import * as assert from 'node:assert/strict';
import type { SectionNode } from '../../../src/core/model/document';
import { itemsJsonl } from '../../../src/core/analysis/virtualFileSystem';
import { buildSectionTree, walkSections, type SectionSourceItem } from '../../../src/core/toc';

/** The section tree as it was built before (a look-ahead per header, every item per node): the reference. */
function referenceSectionTree(items: readonly SectionSourceItem[], chunkIdsByRef?: ReadonlyMap<string, readonly string[]>): SectionNode[] {
  const ordered = [...items].sort((left, right) => left.position - right.position);
  const end = ordered.length === 0 ? 0 : ordered[ordered.length - 1].position + 1;
  const headers = ordered.filter((item) => item.label === 'section_header' && item.headingLevel > 0);
  const roots: SectionNode[] = [];
  const stack: SectionNode[] = [];
  headers.forEach((header, index) => {
    const next = headers.slice(index + 1).find((candidate) => candidate.headingLevel <= header.headingLevel);
    const node: SectionNode = {
      selfRef: header.selfRef,
      level: header.headingLevel,
      title: header.text,
      pageNumbers: [...header.pageNumbers],
      itemRange: [header.position, next ? next.position : end],
      chunkIds: [],
      children: [],
    };
    if (chunkIdsByRef) {
      const seen = new Set<string>();
      for (const item of ordered) {
        if (item.position >= node.itemRange[0] && item.position < node.itemRange[1]) {
          for (const chunkId of chunkIdsByRef.get(item.selfRef) ?? []) {
            seen.add(chunkId);
          }
        }
      }
      node.chunkIds = [...seen];
    }
    while (stack.length > 0 && stack[stack.length - 1].level >= node.level) {
      stack.pop();
    }
    (stack.length > 0 ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  });
  return roots;
}

/** A small deterministic generator (mulberry32), so a failing case can be replayed from its seed. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function randomDocument(random: () => number): { items: SectionSourceItem[]; chunkIdsByRef: Map<string, string[]> } {
  const count = Math.floor(random() * 30);
  const items: SectionSourceItem[] = [];
  const chunkIdsByRef = new Map<string, string[]>();
  let chunk = 0;
  for (let position = 0; position < count; position++) {
    const isHeader = random() < 0.4;
    const selfRef = `#/texts/${position}`;
    const headingLevel = isHeader ? Math.floor(random() * 7) : 0;
    const pageNumbers = random() < 0.3 ? [1 + Math.floor(random() * 3)] : [];
    items.push({ position, selfRef, label: isHeader ? 'section_header' : 'paragraph', text: `item ${position}`, headingLevel, pageNumbers });
    // Chunks span several items and items several chunks, as the chunker makes them.
    const ids: string[] = [];
    for (let taken = Math.floor(random() * 3); taken > 0; taken--) {
      if (random() < 0.5) {
        chunk++;
      }
      ids.push(`c${chunk}`);
    }
    if (ids.length > 0 || random() < 0.5) {
      chunkIdsByRef.set(selfRef, [...new Set(ids)]);
    }
  }
  // Shuffled: the tree sorts by position itself.
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other], items[index]];
  }
  return { items, chunkIdsByRef };
}

describe('buildSectionTree at scale', () => {
  it('builds the same tree as the look-ahead algorithm on random documents', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const { items, chunkIdsByRef } = randomDocument(randomSource(seed));
      assert.deepEqual(buildSectionTree(items), referenceSectionTree(items), `seed ${seed}, without chunk ids`);
      assert.deepEqual(buildSectionTree(items, chunkIdsByRef), referenceSectionTree(items, chunkIdsByRef), `seed ${seed}, with chunk ids`);
    }
  });

  it('builds a 45,000-section document with chunk ids within 2 s', () => {
    const items: SectionSourceItem[] = [];
    const chunkIdsByRef = new Map<string, string[]>();
    for (let section = 0; section < 45_000; section++) {
      const headerPosition = items.length;
      // Levels 1-3 cycle, so sections nest and end at headers of every kind.
      items.push({ position: headerPosition, selfRef: `#/texts/${headerPosition}`, label: 'section_header', text: `Section ${section}`, headingLevel: 1 + (section % 3), pageNumbers: [] });
      items.push({ position: headerPosition + 1, selfRef: `#/texts/${headerPosition + 1}`, label: 'paragraph', text: `Body ${section}`, headingLevel: 0, pageNumbers: [] });
      chunkIdsByRef.set(`#/texts/${headerPosition}`, [`chunk-${section}`]);
      chunkIdsByRef.set(`#/texts/${headerPosition + 1}`, [`chunk-${section}`]);
    }
    const started = performance.now();
    const tree = buildSectionTree(items, chunkIdsByRef);
    const elapsed = performance.now() - started;
    console.log(`      45,000 sections (90,000 items) in ${Math.round(elapsed)} ms`);
    const nodes = [...walkSections(tree)];
    assert.equal(nodes.length, 45_000);
    assert.equal(tree.length, 15_000);
    assert.deepEqual(tree[0].itemRange, [0, 6]);
    assert.deepEqual(tree[0].chunkIds, ['chunk-0', 'chunk-1', 'chunk-2']);
    assert.ok(elapsed <= 2000, `45,000 sections took ${Math.round(elapsed)} ms (limit 2000)`);
  });
});

describe('items.jsonl of a very large document', () => {
  it('is written for 250,000 items (spreading their positions into Math.max overflowed the stack)', () => {
    const items = Array.from({ length: 250_000 }, (_, position) => ({
      documentId: 'd',
      position,
      selfRef: `#/texts/${position}`,
      label: 'paragraph' as const,
      text: `Line ${position}`,
      headingLevel: 0,
      pageNumbers: [],
      treeDepth: 0,
      chunkIds: [],
    }));
    const lines = itemsJsonl(items).split('\n');
    assert.equal(lines.length, 250_000);
    assert.equal(JSON.parse(lines[249_999]).text, 'Line 249999');
  });
});
