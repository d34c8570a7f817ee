import type { ConvertedDocument, SourceRange } from '../../core/model/document';
import { ConversionError, isHaikuError, throwIfAborted } from '../../core/errors';
import { DocumentBuilder, markdownTable } from './documentBuilder';
import type { PictureProcessing } from './convertFile';
import { isEncryptedOoxml, isOleCompoundFile, spannedGrid, type SourceCell } from './officeXml';
import { PictureCollector } from './pictures/pictureCollector';
import { readOdpSlides } from './odp';
import { readPptxSlides } from './pptx';
import { openZipArchive } from './zipArchive';

export interface PresentationConvertOptions {
  fileName: string;
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  format: 'pptx' | 'odp';
}

/** One slide as a reader (PPTX or ODP) found it, in reading order. */
export interface SlideContent {
  /** The title placeholder's text, when the slide has one. */
  title?: string;
  blocks: SlideBlock[];
  /** Speaker notes, one paragraph each. */
  notes: string[];
  comments: SlideComment[];
}

export interface SlideComment {
  author?: string;
  /** When it was written, as the file stores it (ISO 8601). */
  date?: string;
  text: string;
}

/** A chart's kind ("Bar chart"), title and data: a header row (series names), then one row per category. */
export interface ChartData {
  chartKind: string;
  title?: string;
  rows?: string[][];
}

export type SlideBlock =
  /** A subtitle: a heading under the slide's. */
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list_item'; text: string; ordered: boolean; depth: number }
  | { kind: 'table'; rows: SourceCell[][] }
  /** `bytes` undefined: a linked or unreadable picture; `problem` says why when it is a defect worth a warning. */
  | { kind: 'picture'; description: string; bytes?: Uint8Array; problem?: string }
  | ({ kind: 'chart' } & ChartData);

/**
 * Converts PPTX and ODP slides: one section per slide, headed by its title (else "Slide n"), with its text
 * frames, lists, tables, pictures and charts in reading order, then its speaker notes and comments as labelled
 * paragraphs. Every item carries its slide (`sourceRange.slide`, shown as "slide n", and `pageNumbers`).
 */
export async function convertPresentation(bytes: Uint8Array, options: PresentationConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const isPptx = options.format === 'pptx';
  if (isOleCompoundFile(bytes)) {
    if (!isPptx) {
      throw new ConversionError('corrupt_file', options.filePath, 'is an OLE compound file (a legacy binary or password-protected file), not an ODP presentation. Save it as .odp in LibreOffice Impress or exclude it.');
    }
    if (isEncryptedOoxml(bytes)) {
      throw new ConversionError('encrypted_file', options.filePath, 'is password-protected. Remove the password in PowerPoint (File > Info > Protect Presentation) or exclude the file.');
    }
    throw new ConversionError('corrupt_file', options.filePath, 'is a legacy binary PowerPoint file (.ppt), not PPTX. Save it as .pptx in PowerPoint or LibreOffice Impress.');
  }
  const repair = isPptx ? 'Re-save it from PowerPoint' : 'Re-save it from LibreOffice Impress';
  const archive = await openZipArchive(bytes, {
    filePath: options.filePath,
    kind: isPptx ? 'a PPTX presentation' : 'an ODP presentation',
    repair,
    abortSignal: options.abortSignal,
  });
  if (isPptx ? !archive.has('ppt/presentation.xml') : !archive.has('content.xml')) {
    throw new ConversionError(
      'corrupt_file',
      options.filePath,
      `is a zip archive but not ${isPptx ? 'a PPTX presentation (no ppt/presentation.xml)' : 'an ODP presentation (no content.xml)'}. ${repair} or exclude it from indexing.`,
    );
  }
  const builder = new DocumentBuilder();
  const writer = new SlideWriter(builder, options.pictures !== 'none');
  const warn = (message: string) => builder.warn(message);
  const slides = isPptx ? readPptxSlides(archive, warn, options.abortSignal) : readOdpSlides(archive, warn, options.abortSignal);
  let firstTitle: string | undefined;
  let number = 0;
  try {
    for await (const slide of slides) {
      number++;
      firstTitle ??= number === 1 ? slide.title : undefined;
      await writer.write(slide, number);
      if (builder.full) {
        break;
      }
    }
  } catch (error) {
    if (isHaikuError(error)) {
      throw error;
    }
    // Malformed markup deep enough to exhaust the stack, or a structure no reader expects: a clear refusal, not a crash.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConversionError('corrupt_file', options.filePath, `could not be read at slide ${number + 1} (${reason}). ${repair} or exclude it from indexing.`, { cause: error });
  }
  if (number === 0) {
    builder.warn('The presentation has no slides.');
  }
  return {
    format: options.format,
    title: firstTitle ?? options.fileName,
    items: builder.items,
    content: builder.toMarkdown(),
    warnings: [...builder.allWarnings(), ...writer.pictures.warnings()],
  };
}

/** Where an item sits: its slide, as a named range and as a page number. */
interface SlidePlace {
  sourceRange: SourceRange;
  pageNumbers: number[];
}

/** Turns slides into items, each carrying its slide number. */
class SlideWriter {
  readonly pictures = new PictureCollector();

  constructor(
    private readonly builder: DocumentBuilder,
    private readonly keepPictures: boolean,
  ) {}

  async write(slide: SlideContent, number: number): Promise<void> {
    // A fresh range per item: items never share a mutable object.
    const at = (): SlidePlace => ({ sourceRange: { slide: number }, pageNumbers: [number] });
    this.builder.add({ label: 'section_header', headingLevel: 1, text: slide.title ?? `Slide ${number}`, ...at() });
    for (const block of slide.blocks) {
      switch (block.kind) {
        case 'heading':
          this.builder.add({ label: 'section_header', headingLevel: 2, text: block.text, ...at() });
          break;
        case 'paragraph':
          this.builder.add({ label: 'paragraph', text: block.text, ...at() });
          break;
        case 'list_item':
          this.builder.add({ label: 'list_item', text: block.text, treeDepth: block.depth, ...at() }, { ordered: block.ordered });
          break;
        case 'table':
          this.addTable(block.rows, at());
          break;
        case 'picture':
          await this.addPicture(block, at());
          break;
        case 'chart':
          // As docling: the chart as a picture, its title as the caption, its data as a table.
          this.builder.add({ label: 'picture', text: block.chartKind, ...at() });
          if (block.title) {
            this.builder.add({ label: 'caption', text: block.title, ...at() });
          }
          if (block.rows) {
            this.addTable(block.rows.map((row) => row.map((text) => ({ text, columnSpan: 1, rowSpan: 1, covered: false }))), at());
          }
          break;
      }
    }
    if (slide.notes.length > 0) {
      this.builder.add({ label: 'paragraph', text: `Speaker notes: ${slide.notes.join('\n')}`, ...at() });
    }
    for (const comment of slide.comments) {
      const day = /^\d{4}-\d{2}-\d{2}/.exec(comment.date ?? '')?.[0];
      this.builder.add({ label: 'paragraph', text: `Comment${comment.author ? ` by ${comment.author}` : ''}${day ? ` (${day})` : ''}: ${comment.text}`, ...at() });
    }
  }

  private addTable(rows: SourceCell[][], at: SlidePlace): void {
    const { grid, truncated } = spannedGrid(rows);
    if (truncated) {
      this.builder.warn(`A table on slide ${at.pageNumbers[0]} has more cells than are indexed; only its first rows are kept.`);
    }
    if (grid.some((row) => row.some((cell) => cell.trim()))) {
      this.builder.add({ label: 'table', text: markdownTable(grid), ...at });
    }
  }

  private async addPicture(block: Extract<SlideBlock, { kind: 'picture' }>, at: SlidePlace): Promise<void> {
    if (block.problem) {
      this.builder.warn(`Slide ${at.pageNumbers[0]}: ${block.problem}; the picture is kept without its image.`);
    }
    let picture;
    if (this.keepPictures && block.bytes) {
      try {
        picture = (await this.pictures.addEncodedScaled(block.bytes)).picture;
      } catch {
        this.pictures.addFailure('undecodable');
      }
    }
    this.builder.add({ label: 'picture', text: block.description, picture, ...at });
  }
}
