import * as vscode from 'vscode';
import type { ChunkRecord, DocumentSummary } from '../core/model/search';
import type { SourceRange } from '../core/model/document';
import { HaikuError } from '../core/errors';
import { contextAround, editorRange } from './citationFormat';
import { DOCUMENT_SCHEME } from './contributionIds';
import type { ExtensionKnowledgeBase } from './indexBackend';
import { findChunkInRendering, findHeadingLine, type ChunkPlacement } from '../core/renderingLocate';
import { opensAsRendering } from './sectionLocate';

/** `haiku-doc:/<relative path>.md?<document id>`: the Markdown rendering of a PDF or DOCX document. */
export function renderingUri(document: Pick<DocumentSummary, 'id' | 'relativePath'>): vscode.Uri {
  return vscode.Uri.from({ scheme: DOCUMENT_SCHEME, path: `/${document.relativePath}.md`, query: document.id });
}

/** Serves the stored Markdown rendering of converted documents, read-only. */
export class DocumentRenderingProvider implements vscode.TextDocumentContentProvider {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly knowledgeBase: () => Promise<ExtensionKnowledgeBase>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const knowledgeBase = await this.knowledgeBase();
    const content = await knowledgeBase.getDocumentContent(uri.query);
    return content ?? `This document is no longer in the Haiku index (${uri.path.slice(1)}). Rebuild the index or open the file itself.`;
  }

  /** Tells open renderings to reload (after re-indexing). */
  refresh(uri: vscode.Uri): void {
    this.changeEmitter.fire(uri);
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}

/** What a jump showed: the chunk's own range (selected) and the expanded context around it (shaded). */
export interface JumpHighlight {
  uri: string;
  range: vscode.Range;
  contextRanges: vscode.Range[];
}

/** What the chunk's jump shades around it: the expanded context the model saw, by range and (PDF) by items. */
export interface JumpContext {
  sourceRange?: SourceRange;
  docItemRefs?: readonly string[];
}

/** Opens PDF chunks and sections on their page (the PDF viewer); false when it cannot, so the text rendering opens. */
export interface PdfOpener {
  openChunk(chunk: ChunkRecord, document: DocumentSummary, context: JumpContext | undefined): Promise<boolean>;
  openSection(document: DocumentSummary, section: { selfRef?: string; page?: number }): Promise<boolean>;
}

/** At most this many chat locations are remembered for shading their context when the user opens them. */
const EXPECTED_JUMPS_KEPT = 200;

/**
 * Opens documents at chunks and sections: text sources with the chunk's own range selected and strongly
 * highlighted, the rest of the expanded context faintly; PDFs on their page in the PDF viewer (when the viewer is
 * registered), other renderings as their Markdown with the chunk's lines revealed. Highlights clear on the next
 * edit of the document or the next jump. Chat locations open through VS Code itself: `expectJump` remembers their
 * context so the shading follows when the editor shows exactly that selection.
 */
export class DocumentNavigator implements vscode.Disposable {
  private readonly chunkDecoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('haiku.chunkHighlightBackground'),
    borderColor: new vscode.ThemeColor('haiku.chunkHighlightBorder'),
    borderStyle: 'solid',
    borderWidth: '1px',
    overviewRulerColor: new vscode.ThemeColor('haiku.chunkHighlightBorder'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private readonly contextDecoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('haiku.contextHighlightBackground'),
    isWholeLine: true,
  });
  private readonly highlightEmitter = new vscode.EventEmitter<JumpHighlight>();
  /** Fires when a range of a document was selected and highlighted. */
  readonly onDidHighlight = this.highlightEmitter.event;
  private readonly clearEmitter = new vscode.EventEmitter<void>();
  /** Fires when a jump's highlight was removed (an edit, or the next jump). */
  readonly onDidClearHighlight = this.clearEmitter.event;
  private current: { uri: string; editors: vscode.TextEditor[] } | undefined;
  private readonly expected = new Map<string, vscode.Range[]>();
  private readonly subscriptions: vscode.Disposable[];
  private pdfOpener: PdfOpener | undefined;

  constructor(private readonly knowledgeBase: () => Promise<ExtensionKnowledgeBase>) {
    this.subscriptions = [
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0 && this.current?.uri === event.document.uri.toString()) {
          this.clear();
        }
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => this.applyExpected(event.textEditor)),
      vscode.window.onDidChangeActiveTextEditor((editor) => editor && this.applyExpected(editor)),
    ];
  }

  /** Lets PDF chunks open on their page (the viewer lives in its own module; this is the only hook). */
  setPdfOpener(opener: PdfOpener): void {
    this.pdfOpener = opener;
  }

  /** Opens a chunk's source: its own range selected, `context` (e.g. the expanded range a run showed) shaded. */
  async openChunk(chunkId: string, context?: SourceRange | JumpContext): Promise<vscode.TextEditor | undefined> {
    const knowledgeBase = await this.knowledgeBase();
    const [chunk] = await knowledgeBase.getChunks([chunkId]);
    if (!chunk) {
      throw new HaikuError('not_found', vscode.l10n.t('The cited chunk {0} is no longer in the index (its document changed or was removed). Ask again to get fresh citations.', chunkId));
    }
    const document = await knowledgeBase.getDocument(chunk.documentId);
    const jumpContext: JumpContext | undefined = context && ('sourceRange' in context || 'docItemRefs' in context) ? context as JumpContext : context ? { sourceRange: context as SourceRange } : undefined;
    return this.openChunkRecord(chunk, document, jumpContext);
  }

  /** `asText`: the Markdown rendering even for a PDF (the viewer's fallback and "Open as Text"). */
  async openChunkRecord(chunk: ChunkRecord, document: DocumentSummary | undefined, context?: JumpContext, options: { asText?: boolean } = {}): Promise<vscode.TextEditor | undefined> {
    if (document?.format === 'pdf' && !options.asText && this.pdfOpener && await this.pdfOpener.openChunk(chunk, document, context)) {
      this.clear();
      return undefined;
    }
    if (document?.format === 'notebook' && !options.asText && chunk.sourceRange?.cell !== undefined && await this.openNotebookCell(vscode.Uri.parse(chunk.uri), chunk.sourceRange.cell)) {
      this.clear();
      return undefined;
    }
    if (document && opensAsRendering(document.format)) {
      const textDocument = await vscode.workspace.openTextDocument(renderingUri(document));
      // The items place the chunk among repeated sentences (its own occurrence, not the first).
      const items = await (await this.knowledgeBase()).getDocumentItems(document.id);
      const range = renderingRange(textDocument, chunk, items) ?? new vscode.Range(0, 0, 0, 0);
      return this.showRange(textDocument, range, []);
    }
    const textDocument = await vscode.workspace.openTextDocument(vscode.Uri.parse(chunk.uri));
    const source = editorRange(chunk.sourceRange);
    const range = source
      ? textDocument.validateRange(new vscode.Range(source.startLine, source.startColumn, source.endLine, source.endColumn))
      : new vscode.Range(0, 0, 0, 0);
    return this.showRange(textDocument, range, contextRanges(textDocument, range, context?.sourceRange));
  }

  /**
   * Opens a notebook in the notebook editor with the chunk's cell selected and scrolled into view. False when no
   * notebook editor can open the file (no `.ipynb` serializer, or the cell is gone): the caller opens its JSON.
   */
  private async openNotebookCell(uri: vscode.Uri, cell: number): Promise<boolean> {
    try {
      const notebook = await vscode.workspace.openNotebookDocument(uri);
      if (cell >= notebook.cellCount) {
        return false;
      }
      const range = new vscode.NotebookRange(cell, cell + 1);
      const editor = await vscode.window.showNotebookDocument(notebook, { preview: true, selections: [range] });
      editor.revealRange(range, vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Opens a document at a section header: by the header's source line, on its page in the PDF viewer, or (other
   * renderings) at its Markdown heading.
   */
  async openSection(document: DocumentSummary, section: { title: string; startLine?: number; selfRef?: string; page?: number }): Promise<vscode.TextEditor | undefined> {
    if (document.format === 'pdf' && this.pdfOpener && await this.pdfOpener.openSection(document, section)) {
      this.clear();
      return undefined;
    }
    if (opensAsRendering(document.format) || section.startLine === undefined) {
      const uri = opensAsRendering(document.format) ? renderingUri(document) : vscode.Uri.parse(document.uri);
      const textDocument = await vscode.workspace.openTextDocument(uri);
      const line = findHeadingLine(textDocument.getText(), section.title) ?? 0;
      return this.showRange(textDocument, textDocument.lineAt(line).range, []);
    }
    const textDocument = await vscode.workspace.openTextDocument(vscode.Uri.parse(document.uri));
    const line = Math.min(section.startLine, textDocument.lineCount - 1);
    return this.showRange(textDocument, textDocument.lineAt(line).range, []);
  }

  /**
   * Remembers that `location` (a chat anchor or reference: the chunk's own range) stands inside `context`, so
   * opening it from the chat shades the context too.
   */
  expectJump(location: vscode.Location, context: SourceRange | undefined): void {
    const source = editorRange(context);
    if (!source) {
      return;
    }
    const contextRange = new vscode.Range(source.startLine, source.startColumn, source.endLine, source.endColumn);
    this.expected.delete(jumpKey(location.uri, location.range));
    this.expected.set(jumpKey(location.uri, location.range), [contextRange]);
    while (this.expected.size > EXPECTED_JUMPS_KEPT) {
      this.expected.delete(this.expected.keys().next().value!);
    }
  }

  private applyExpected(editor: vscode.TextEditor): void {
    // A dirty document moved on since the chat's ranges were made (and an edit must not bring the shading back).
    const context = editor.document.isDirty ? undefined : this.expected.get(jumpKey(editor.document.uri, editor.selection));
    if (!context || (this.current?.uri === editor.document.uri.toString() && this.current.editors.includes(editor))) {
      return;
    }
    const range = new vscode.Range(editor.selection.start, editor.selection.end);
    this.decorate(editor, range, contextRanges(editor.document, range, undefined, context));
  }

  private async showRange(textDocument: vscode.TextDocument, range: vscode.Range, context: vscode.Range[]): Promise<vscode.TextEditor> {
    const editor = await vscode.window.showTextDocument(textDocument, { preview: true, selection: range });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    this.decorate(editor, range, context);
    return editor;
  }

  private decorate(editor: vscode.TextEditor, range: vscode.Range, context: vscode.Range[]): void {
    this.clear();
    editor.setDecorations(this.chunkDecoration, [range]);
    editor.setDecorations(this.contextDecoration, context);
    this.current = { uri: editor.document.uri.toString(), editors: [editor] };
    this.highlightEmitter.fire({ uri: editor.document.uri.toString(), range, contextRanges: context });
  }

  /** Removes the last jump's highlights (next edit, next jump, or a jump that opened elsewhere). */
  clear(): void {
    if (!this.current) {
      return;
    }
    for (const editor of this.current.editors) {
      editor.setDecorations(this.chunkDecoration, []);
      editor.setDecorations(this.contextDecoration, []);
    }
    this.current = undefined;
    this.clearEmitter.fire();
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.chunkDecoration.dispose();
    this.contextDecoration.dispose();
    this.highlightEmitter.dispose();
    this.clearEmitter.dispose();
  }
}

function jumpKey(uri: vscode.Uri, range: vscode.Range): string {
  return `${uri.toString()}#${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`;
}

/** The lines of a rendering that hold the chunk (its own content, not the expanded context). */
function renderingRange(textDocument: vscode.TextDocument, chunk: Pick<ChunkRecord, 'content' | 'headings' | 'docItemRefs'>, items: ChunkPlacement['items']): vscode.Range | undefined {
  const span = findChunkInRendering(textDocument.getText(), chunk.content, chunk.headings, { docItemRefs: chunk.docItemRefs, items });
  return span ? new vscode.Range(span.startLine, 0, span.endLine, textDocument.lineAt(Math.min(span.endLine, textDocument.lineCount - 1)).text.length) : undefined;
}

/** The context lines around the chunk's own range, valid in the document (the chunk itself is not shaded). */
function contextRanges(textDocument: vscode.TextDocument, range: vscode.Range, context: SourceRange | undefined, given?: vscode.Range[]): vscode.Range[] {
  const source = editorRange(context);
  const outer = given ?? (source ? [new vscode.Range(source.startLine, source.startColumn, source.endLine, source.endColumn)] : []);
  return outer.flatMap((candidate) => contextAround(
    { startLine: candidate.start.line, endLine: candidate.end.line, endColumn: candidate.end.character },
    { startLine: range.start.line, endLine: range.end.line, endColumn: range.end.character },
  ).map((lines) => textDocument.validateRange(new vscode.Range(lines.startLine, 0, lines.endLine, Number.MAX_SAFE_INTEGER))));
}
