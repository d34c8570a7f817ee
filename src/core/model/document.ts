/** The structured document model every converter produces and every later stage consumes. */

/** What an item is. Mirrors Docling's labels so the specification's rules apply unchanged. */
export type ItemLabel =
  | 'title'
  | 'section_header'
  | 'paragraph'
  | 'list_item'
  | 'table'
  | 'code'
  | 'picture'
  | 'caption'
  | 'formula'
  | 'footnote'
  | 'page_header'
  | 'page_footer'
  | 'document_index';

/** Labels that are furniture, not content: skipped by context expansion and chunk-coverage checks. */
export const NOISE_LABELS: ReadonlySet<ItemLabel> = new Set<ItemLabel>(['footnote', 'page_header', 'page_footer', 'document_index']);

/** The file formats Haiku converts. */
export type DocumentFormat =
  | 'markdown'
  | 'html'
  | 'pdf'
  | 'docx'
  | 'text'
  | 'csv'
  | 'notebook'
  | 'asciidoc'
  | 'code'
  | 'pptx'
  | 'odp'
  | 'xlsx'
  | 'ods'
  | 'latex'
  | 'odt'
  | 'image';

/**
 * Where an item came from, so the editor can jump to it and a reader can name the place.
 * Text formats: 0-based lines and columns as VS Code's `Range` uses them; the end is exclusive.
 * PDF: `page` (1-based) only. DOCX has neither (the editor opens a rendering of the converted document).
 * Slides, sheets and notebook cells carry their own names (`slide`, `sheet` + `cells`, `cell`), which labels
 * prefer over lines and pages (see `namedLocation`).
 */
export interface SourceRange {
  startLine?: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
  page?: number;
  /** Presentations (PPTX, ODP): the 1-based slide number. */
  slide?: number;
  /** Spreadsheets (XLSX, ODS, CSV): the sheet's name. */
  sheet?: string;
  /** Spreadsheets: the A1-style cell range the item covers on its sheet (`B2:D9`). */
  cells?: string;
  /** Notebooks: the 0-based index of the cell (named 1-based, "cell 3"). */
  cell?: number;
}

export interface DocumentItem {
  /** Index in reading order, 0..n-1 and contiguous. */
  position: number;
  /** Stable JSON-pointer-like reference (`#/texts/3`, `#/tables/0`, `#/pictures/1`), unique within the document. */
  selfRef: string;
  label: ItemLabel;
  /** The item's own text; tables rendered as Markdown tables, code without fences. */
  text: string;
  /** 1..6 for `section_header`, 0 for everything else (a `title` is 0 too). */
  headingLevel: number;
  /** Sorted distinct 1-based page numbers (PDF); empty for formats without pages. */
  pageNumbers: number[];
  /** Nesting depth (list items inside lists); 0 at the top. */
  treeDepth: number;
  sourceRange?: SourceRange;
  /** Code blocks: the fence's language, when known. */
  language?: string;
  /** Picture items whose image was extracted (see `PictureData`); absent for captions-only pictures. */
  picture?: PictureData;
  /** PDF items: where they are drawn, one box per line or fragment (may span pages and columns). */
  boxes?: PageBox[];
}

/** An extracted picture. Bytes are stored once per document: items with the same `digest` share them. */
export interface PictureData {
  /** The encoded image; absent on an item whose identical bytes another item of the document holds. */
  bytes?: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** Pixel size of `bytes` (after any downscaling). */
  width: number;
  height: number;
  /** sha256 hex of the bytes. */
  digest: string;
}

/** A rectangle on a PDF page in PDF user space (points, origin at the page's bottom-left, before rotation). */
export interface PageBox {
  /** 1-based page number. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a converter returns: the document minus its identity. */
export interface ConvertedDocument {
  format: DocumentFormat;
  title: string;
  items: DocumentItem[];
  /** A Markdown rendering of the whole document (the sandbox's `content.txt`). */
  content: string;
  /** PDF page count. */
  pageCount?: number;
  /** Non-fatal problems found while converting (e.g. "no text layer on page 3"). */
  warnings: string[];
}

export interface HaikuDocument extends ConvertedDocument {
  /** Stable for the file's workspace-relative path (see `documentIdForPath`). */
  id: string;
  /** `file://` URI (or any URI the store was given). */
  uri: string;
  /** Path relative to the indexed root, with forward slashes. */
  relativePath: string;
  /** sha256 hex of the file's bytes. */
  contentHash: string;
}

/** A node of a document's section tree, built from `section_header` items. */
export interface SectionNode {
  selfRef: string;
  level: number;
  title: string;
  pageNumbers: number[];
  /** [start, end) positions of the items in this section, header included. */
  itemRange: [number, number];
  /** Chunk ids under this section (filled once chunks exist). */
  chunkIds: string[];
  children: SectionNode[];
}
