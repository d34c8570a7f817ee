import type { PageBox } from '../../core/model/document';
import type { StoredItem } from '../../core/model/search';

/** What a jump to a PDF chunk draws, from the stored items' boxes (pure, unit-tested). */
export interface PdfHighlightPlan {
  /** 1-based page to open at. */
  page: number;
  chunkBoxes: PageBox[];
  contextBoxes: PageBox[];
  /** True when the chunk's own items have no recorded boxes (the jump shows the page only). */
  missingBoxes: boolean;
}

/**
 * The chunk's own items' boxes (strong), the boxes of the context items the model also saw (faint, without the
 * chunk's own), and the page to show: the chunk's first boxed page, else its first page number, else page 1.
 */
export function planPdfHighlight(
  items: ReadonlyArray<Pick<StoredItem, 'selfRef' | 'boxes' | 'pageNumbers'>>,
  chunk: { docItemRefs: readonly string[]; pageNumbers: readonly number[] },
  contextRefs: readonly string[] = [],
): PdfHighlightPlan {
  const byRef = new Map(items.map((item) => [item.selfRef, item]));
  const own = new Set(chunk.docItemRefs);
  const boxesOf = (refs: Iterable<string>): PageBox[] => [...refs].flatMap((ref) => byRef.get(ref)?.boxes ?? []);
  const chunkBoxes = boxesOf(own);
  const contextBoxes = boxesOf(contextRefs.filter((ref) => !own.has(ref)));
  const ownPages = chunk.docItemRefs.flatMap((ref) => byRef.get(ref)?.pageNumbers ?? []);
  const pages = [...chunkBoxes.map((box) => box.page), ...chunk.pageNumbers, ...ownPages];
  return { page: pages.length > 0 ? Math.min(...(chunkBoxes.length > 0 ? chunkBoxes.map((box) => box.page) : pages)) : 1, chunkBoxes, contextBoxes, missingBoxes: chunkBoxes.length === 0 };
}
