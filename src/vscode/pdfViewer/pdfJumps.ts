import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { ChunkRecord, DocumentSummary } from '../../core/model/search';
import { COMMANDS, PDF_VIEWER_TYPE } from '../contributionIds';
import { renderingUri, type DocumentNavigator, type JumpContext } from '../documentNavigation';
import type { ExtensionKnowledgeBase } from '../indexBackend';
import { planPdfHighlight } from './pdfHighlightPlan';
import { PdfViewerProvider, type PdfViewerEvent } from './pdfViewerProvider';

/** How long the viewer's fallback notes stay in the status bar (ms). */
const STATUS_MESSAGE_MS = 8000;

/**
 * Wires the PDF viewer into jumps: chunks of PDFs open on their page with their boxes drawn, sections on their
 * header's page; a PDF the viewer cannot open (encrypted, broken) falls back to its text rendering, and missing
 * boxes or a missing text layer are said in the status bar. Also the "Open as Text" and "Open in Haiku PDF Viewer"
 * commands.
 */
export function registerPdfViewer(
  extensionUri: vscode.Uri,
  navigator: DocumentNavigator,
  knowledgeBase: () => Promise<ExtensionKnowledgeBase>,
  log: vscode.LogOutputChannel,
): { provider: PdfViewerProvider; disposable: vscode.Disposable } {
  const provider = new PdfViewerProvider(extensionUri);
  /** The last jump per file, to open its text rendering when the viewer cannot show the PDF. */
  const lastJump = new Map<string, { chunk?: ChunkRecord; document: DocumentSummary; context?: JumpContext }>();
  const status = (text: string): void => {
    vscode.window.setStatusBarMessage(text, STATUS_MESSAGE_MS);
  };

  navigator.setPdfOpener({
    openChunk: async (chunk, document, context) => {
      const items = await (await knowledgeBase()).getDocumentItems(document.id);
      const plan = planPdfHighlight(items, chunk, context?.docItemRefs ?? []);
      lastJump.set(vscode.Uri.parse(document.uri).toString(), { chunk, document, context });
      await provider.show(vscode.Uri.parse(document.uri), plan);
      if (plan.missingBoxes) {
        status(vscode.l10n.t('Haiku: this passage has no recorded position on the page (index built before boxes were kept?); showing page {0}. Rebuild the index to get highlights.', plan.page));
      }
      return true;
    },
    openSection: async (document, section) => {
      const items = await (await knowledgeBase()).getDocumentItems(document.id);
      const header = items.find((item) => item.selfRef === section.selfRef);
      const plan = planPdfHighlight(items, { docItemRefs: header ? [header.selfRef] : [], pageNumbers: section.page !== undefined ? [section.page] : [] });
      lastJump.set(vscode.Uri.parse(document.uri).toString(), { document });
      await provider.show(vscode.Uri.parse(document.uri), plan);
      return true;
    },
  });

  const onReport = async (event: PdfViewerEvent): Promise<void> => {
    const jump = lastJump.get(event.uri);
    if (event.kind === 'loadFailed') {
      status(event.reason === 'password'
        ? vscode.l10n.t('Haiku: the PDF is encrypted and its password is not known; showing its text instead.')
        : vscode.l10n.t('Haiku: the PDF viewer could not open this file ({0}); showing its text instead.', event.message));
      if (jump) {
        lastJump.delete(event.uri);
        await (jump.chunk ? navigator.openChunkRecord(jump.chunk, jump.document, jump.context, { asText: true }) : vscode.window.showTextDocument(renderingUri(jump.document)));
      }
    } else if (event.kind === 'problem') {
      log.warn(`PDF viewer (${event.uri}): ${event.message}`);
    } else if (event.kind === 'loaded' && !event.hasText) {
      status(vscode.l10n.t('Haiku: this PDF page has no text layer (a scan?): text cannot be selected or searched here.'));
    }
  };

  const openAsText = async (uri?: vscode.Uri): Promise<void> => {
    const target = uri ?? activePdfViewerUri();
    if (!target) {
      return;
    }
    const documents = await (await knowledgeBase()).listDocuments();
    const document = documents.find((candidate) => candidate.uri === target.toString());
    if (!document) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} is not in the Haiku index yet, so it has no text rendering. Build the index, then try again.', target.path.slice(target.path.lastIndexOf('/') + 1)));
      return;
    }
    await vscode.window.showTextDocument(renderingUri(document), { preview: true });
  };

  const disposable = vscode.Disposable.from(
    provider,
    vscode.window.registerCustomEditorProvider(PDF_VIEWER_TYPE, provider, { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: false }),
    provider.onDidReport((event) => void onReport(event).catch((error: unknown) => log.warn(`PDF viewer fallback: ${errorMessage(error)}`))),
    vscode.commands.registerCommand(COMMANDS.openPdfAsText, (uri?: vscode.Uri) => openAsText(uri)),
    vscode.commands.registerCommand(COMMANDS.openPdfViewer, async (uri?: vscode.Uri) => {
      if (uri) {
        await vscode.commands.executeCommand('vscode.openWith', uri, PDF_VIEWER_TYPE);
      }
    }),
  );
  return { provider, disposable };
}

/** The file of the active PDF viewer tab, if one is active. */
function activePdfViewerUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom && input.viewType === PDF_VIEWER_TYPE ? input.uri : undefined;
}
