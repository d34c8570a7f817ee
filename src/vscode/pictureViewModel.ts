import type { SectionNode } from '../core/model/document';
import type { StoredItem } from '../core/model/search';

/**
 * Figures as the views show them: labels, which section holds which figure, and the `haiku-picture:` URIs that
 * name a picture. Pure (no `vscode` import) so the unit tests cover it.
 */

/** Scheme of the read-only picture files VS Code's own image preview opens. */
export const PICTURE_SCHEME = 'haiku-picture';

const PICTURE_REF = /^#\/pictures\/(\d+)$/;
const FILE_EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

export type FigureItem = Pick<StoredItem, 'position' | 'selfRef' | 'label' | 'text' | 'pageNumbers'>;

/** The caption item right after the picture (as the converters place it), else the picture's alt text; '' when neither. */
export function figureCaption(picture: FigureItem, items: readonly FigureItem[]): string {
  const next = items.find((item) => item.position === picture.position + 1);
  const caption = next?.label === 'caption' ? next.text.trim() : '';
  return caption || picture.text.trim();
}

/** The caption, else the alt text, else "Figure on page N", else "Figure N" (its number in the document). */
export function figureLabel(picture: FigureItem, items: readonly FigureItem[]): string {
  const caption = figureCaption(picture, items);
  if (caption) {
    return caption;
  }
  if (picture.pageNumbers.length > 0) {
    return `Figure on page ${picture.pageNumbers[0]}`;
  }
  const index = PICTURE_REF.exec(picture.selfRef)?.[1];
  return index !== undefined ? `Figure ${Number(index) + 1}` : 'Figure';
}

/**
 * The picture items a tree level shows directly: inside `range` (a section's, or the whole document without one)
 * and outside every child section (those list their own figures).
 */
export function figuresDirectlyIn<T extends FigureItem>(items: readonly T[], range: readonly [number, number] | undefined, children: readonly SectionNode[]): T[] {
  return items.filter((item) => item.label === 'picture'
    && (range === undefined || (item.position >= range[0] && item.position < range[1]))
    && !children.some((child) => item.position >= child.itemRange[0] && item.position < child.itemRange[1]));
}

/** The figures of a section (its whole range, subsections included): what `haiku_readSection` lists. */
export function figuresOfSection<T extends FigureItem>(items: readonly T[], section: SectionNode): T[] {
  return figuresDirectlyIn(items, section.itemRange, []);
}

/**
 * The path of a picture's URI: `/<document id>/<picture number>/<file name>`. The ids sit in the path (not the
 * query) because the image preview replaces the query of the resource it loads; the file name, with the image's
 * extension, is what the editor tab shows and what picks the image preview. Undefined for a ref that is not a picture.
 */
export function picturePath(documentId: string, selfRef: string, documentPath: string, mimeType = 'image/png'): string | undefined {
  const index = PICTURE_REF.exec(selfRef)?.[1];
  if (index === undefined || !/^[A-Za-z0-9_-]+$/.test(documentId)) {
    return undefined;
  }
  const base = (documentPath.split('/').pop() ?? '').replace(/\.[^.]*$/, '').replace(/[^\p{L}\p{N} ._-]+/gu, '_') || 'document';
  return `/${documentId}/${index}/${base} figure ${Number(index) + 1}.${FILE_EXTENSIONS[mimeType] ?? 'png'}`;
}

/** The document id and picture ref a picture path names, or undefined for any other path. */
export function parsePicturePath(path: string): { documentId: string; selfRef: string } | undefined {
  const match = /^\/([A-Za-z0-9_-]+)\/(\d+)\/[^/]+$/.exec(path);
  return match ? { documentId: match[1], selfRef: `#/pictures/${match[2]}` } : undefined;
}

/** A `data:` URI for an image the runs webview shows (its CSP allows `data:` images only). */
export function imageDataUri(bytes: Uint8Array, mimeType: string): string {
  return `data:${mimeType};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

/** One line per figure for the language-model tools: ref, page, caption, and whether an image can be read. */
export function formatFigureList(figures: ReadonlyArray<FigureItem & Pick<StoredItem, 'picture'>>, items: readonly FigureItem[], readTool: string): string {
  if (figures.length === 0) {
    return '';
  }
  const lines = figures.map((figure) => {
    const page = figure.pageNumbers.length > 0 ? ` (p. ${figure.pageNumbers[0]})` : '';
    const image = figure.picture ? `${figure.picture.mimeType} ${figure.picture.width}×${figure.picture.height}` : 'no image stored';
    return `- ${figure.selfRef}${page}: ${figureCaption(figure, items) || '(no caption)'} [${image}]`;
  });
  return `Figures (${figures.length}; read the image with ${readTool} and the ref):\n${lines.join('\n')}`;
}
