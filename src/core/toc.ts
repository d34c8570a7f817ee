import type { DocumentItem, SectionNode } from './model/document';

/** The parts of an item the section tree needs (documents and stored items both fit). */
export type SectionSourceItem = Pick<DocumentItem, 'position' | 'selfRef' | 'label' | 'text' | 'headingLevel' | 'pageNumbers'>;

/**
 * Builds the section tree from `section_header` items with a level above 0.
 * A section ends at the next header of equal or shallower level (else after the last item);
 * nesting follows a level stack, so equal-level headers give a flat list and no headers an empty tree.
 * `chunkIdsByRef` fills each node with the de-duplicated, ordered chunk ids of the items in its range.
 * Linear in the headers: the level stack that nests a header also closes the sections it ends (looking ahead
 * for each header's end made a 45,000-section document take over a minute).
 */
export function buildSectionTree(items: readonly SectionSourceItem[], chunkIdsByRef?: ReadonlyMap<string, readonly string[]>): SectionNode[] {
  const ordered = [...items].sort((left, right) => left.position - right.position);
  const end = ordered.length === 0 ? 0 : ordered[ordered.length - 1].position + 1;
  const roots: SectionNode[] = [];
  const stack: SectionNode[] = [];
  const all: SectionNode[] = [];
  for (const header of ordered) {
    if (header.label !== 'section_header' || !(header.headingLevel > 0)) {
      continue;
    }
    const node: SectionNode = {
      selfRef: header.selfRef,
      level: header.headingLevel,
      title: header.text,
      pageNumbers: [...header.pageNumbers],
      itemRange: [header.position, end],
      chunkIds: [],
      children: [],
    };
    // The sections this header pops are the ones it ends: the next header of equal or shallower level.
    while (stack.length > 0 && stack[stack.length - 1].level >= node.level) {
      stack.pop()!.itemRange[1] = header.position;
    }
    (stack.length > 0 ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
    all.push(node);
  }
  if (chunkIdsByRef) {
    const positions = ordered.map((item) => item.position);
    for (const node of all) {
      node.chunkIds = chunkIdsInRange(ordered, positions, node.itemRange, chunkIdsByRef);
    }
  }
  return roots;
}

/** The chunk ids of the items with a position in [start, end): a contiguous run of the ordered items. */
function chunkIdsInRange(ordered: readonly SectionSourceItem[], positions: readonly number[], [start, end]: [number, number], chunkIdsByRef: ReadonlyMap<string, readonly string[]>): string[] {
  const seen = new Set<string>();
  for (let index = firstIndexAtOrAfter(positions, start); index < ordered.length && ordered[index].position < end; index++) {
    for (const chunkId of chunkIdsByRef.get(ordered[index].selfRef) ?? []) {
      seen.add(chunkId);
    }
  }
  return [...seen];
}

/** The first index whose position is at least `position` (binary search over ascending positions). */
function firstIndexAtOrAfter(positions: readonly number[], position: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle] < position) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/** Visits every node depth-first, parents before children. */
export function* walkSections(nodes: readonly SectionNode[]): Generator<SectionNode> {
  // An explicit stack: nested `yield*` passes each node up through every level above it.
  const pending: SectionNode[] = [...nodes].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    yield node;
    for (let index = node.children.length - 1; index >= 0; index--) {
      pending.push(node.children[index]);
    }
  }
}
