import type { ItemLabel } from '../model/document';

/** Prefix of picture self refs (Docling's numbering: `#/pictures/N`). */
const PICTURE_REF_PREFIX = '#/pictures/';

/**
 * The pictures a result shows: its picture items, plus the picture just before each caption it holds (a caption at
 * position p describes the picture at p − 1, as haiku.rag's reference says), in reading order without repeats.
 * Without `items` only the picture items among `refs` count.
 */
export function pictureRefsOf(refs: readonly string[], items?: ReadonlyArray<{ position: number; selfRef: string; label: ItemLabel }>): string[] {
  const found = new Set(refs.filter((ref) => ref.startsWith(PICTURE_REF_PREFIX)));
  if (items) {
    const byRef = new Map(items.map((item) => [item.selfRef, item]));
    const byPosition = new Map(items.map((item) => [item.position, item]));
    for (const ref of refs) {
      const item = byRef.get(ref);
      const before = item?.label === 'caption' ? byPosition.get(item.position - 1) : undefined;
      if (before?.label === 'picture') {
        found.add(before.selfRef);
      }
    }
  }
  const order = new Map(items?.map((item) => [item.selfRef, item.position]) ?? []);
  return [...found].sort((left, right) => (order.get(left) ?? 0) - (order.get(right) ?? 0));
}
