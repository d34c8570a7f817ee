import type { DocumentItem, SectionNode } from './model/document';

/** The parts of an item the section tree needs (documents and stored items both fit). */
export type SectionSourceItem = Pick<DocumentItem, 'position' | 'selfRef' | 'label' | 'text' | 'headingLevel' | 'pageNumbers'>;

/**
 * Builds the section tree from `section_header` items with a level above 0.
 * A section ends at the next header of equal or shallower level (else after the last item);
 * nesting follows a level stack, so equal-level headers give a flat list and no headers an empty tree.
 * `chunkIdsByRef` fills each node with the de-duplicated, ordered chunk ids of the items in its range.
 */
export function buildSectionTree(items: readonly SectionSourceItem[], chunkIdsByRef?: ReadonlyMap<string, readonly string[]>): SectionNode[] {
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
      node.chunkIds = chunkIdsInRange(ordered, node.itemRange, chunkIdsByRef);
    }
    while (stack.length > 0 && stack[stack.length - 1].level >= node.level) {
      stack.pop();
    }
    (stack.length > 0 ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  });
  return roots;
}

function chunkIdsInRange(ordered: readonly SectionSourceItem[], [start, end]: [number, number], chunkIdsByRef: ReadonlyMap<string, readonly string[]>): string[] {
  const seen = new Set<string>();
  for (const item of ordered) {
    if (item.position >= start && item.position < end) {
      for (const chunkId of chunkIdsByRef.get(item.selfRef) ?? []) {
        seen.add(chunkId);
      }
    }
  }
  return [...seen];
}

/** Visits every node depth-first, parents before children. */
export function* walkSections(nodes: readonly SectionNode[]): Generator<SectionNode> {
  for (const node of nodes) {
    yield node;
    yield* walkSections(node.children);
  }
}
