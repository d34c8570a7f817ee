import * as vscode from 'vscode';
import type { ChunkRecord, DocumentSummary } from '../core/model/search';
import type { SourceRange } from '../core/model/document';
import { HaikuError } from '../core/errors';
import { editorRange } from './citationFormat';
import { DOCUMENT_SCHEME } from './contributionIds';
import type { ExtensionKnowledgeBase } from './indexBackend';
import { findChunkInRendering, findHeadingLine, opensAsRendering } from './sectionLocate';

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

/**
 * Opens documents at chunks and sections: text sources at the chunk's range (selection plus a highlight
 * decoration), PDFs and DOCX as their Markdown rendering with the chunk's lines revealed.
 */
export class DocumentNavigator implements vscode.Disposable {
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
    borderColor: new vscode.ThemeColor('editor.findMatchBorder'),
    borderStyle: 'solid',
    borderWidth: '1px',
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.findMatchForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private readonly highlightEmitter = new vscode.EventEmitter<{ uri: string; range: vscode.Range }>();
  /** Fires when a range of a document was selected and highlighted. */
  readonly onDidHighlight = this.highlightEmitter.event;

  constructor(private readonly knowledgeBase: () => Promise<ExtensionKnowledgeBase>) {}

  /** Opens a chunk's source, selecting `shownRange` (e.g. the expanded context a run showed) when given. */
  async openChunk(chunkId: string, shownRange?: SourceRange): Promise<vscode.TextEditor> {
    const knowledgeBase = await this.knowledgeBase();
    const [chunk] = await knowledgeBase.getChunks([chunkId]);
    if (!chunk) {
      throw new HaikuError('not_found', vscode.l10n.t('The cited chunk {0} is no longer in the index (its document changed or was removed). Ask again to get fresh citations.', chunkId));
    }
    const document = await knowledgeBase.getDocument(chunk.documentId);
    return this.openChunkRecord(shownRange ? { ...chunk, sourceRange: shownRange } : chunk, document);
  }

  async openChunkRecord(chunk: ChunkRecord, document: DocumentSummary | undefined): Promise<vscode.TextEditor> {
    if (document && opensAsRendering(document.format)) {
      const uri = renderingUri(document);
      const textDocument = await vscode.workspace.openTextDocument(uri);
      const span = findChunkInRendering(textDocument.getText(), chunk.content, chunk.headings);
      const range = span ? new vscode.Range(span.startLine, 0, span.endLine, textDocument.lineAt(Math.min(span.endLine, textDocument.lineCount - 1)).text.length) : new vscode.Range(0, 0, 0, 0);
      return this.showRange(textDocument, range);
    }
    const textDocument = await vscode.workspace.openTextDocument(vscode.Uri.parse(chunk.uri));
    const source = editorRange(chunk.sourceRange);
    const range = source
      ? textDocument.validateRange(new vscode.Range(source.startLine, source.startColumn, source.endLine, source.endColumn))
      : new vscode.Range(0, 0, 0, 0);
    return this.showRange(textDocument, range);
  }

  /** Opens a document at a section header, by the header's source line or (renderings) its Markdown heading. */
  async openSection(document: DocumentSummary, section: { title: string; startLine?: number }): Promise<vscode.TextEditor> {
    if (opensAsRendering(document.format) || section.startLine === undefined) {
      const uri = opensAsRendering(document.format) ? renderingUri(document) : vscode.Uri.parse(document.uri);
      const textDocument = await vscode.workspace.openTextDocument(uri);
      const line = findHeadingLine(textDocument.getText(), section.title) ?? 0;
      return this.showRange(textDocument, textDocument.lineAt(line).range);
    }
    const textDocument = await vscode.workspace.openTextDocument(vscode.Uri.parse(document.uri));
    const line = Math.min(section.startLine, textDocument.lineCount - 1);
    return this.showRange(textDocument, textDocument.lineAt(line).range);
  }

  private async showRange(textDocument: vscode.TextDocument, range: vscode.Range): Promise<vscode.TextEditor> {
    const editor = await vscode.window.showTextDocument(textDocument, { preview: true, selection: range });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    editor.setDecorations(this.decoration, [range]);
    this.highlightEmitter.fire({ uri: textDocument.uri.toString(), range });
    return editor;
  }

  dispose(): void {
    this.decoration.dispose();
    this.highlightEmitter.dispose();
  }
}
