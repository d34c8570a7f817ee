import * as vscode from 'vscode';
import { PDF_VIEWER_TYPE } from '../contributionIds';
import { createNonce, webviewDocument } from '../webviewDocument';
import { parsePdfWebviewMessage, type PdfHighlight, type PdfHighlightReport, type PdfHostToWebviewMessage, type PdfLoadFailure } from '../../shared/pdfViewerProtocol';

/** What a viewer reported, with the file it shows (the test API records these; the host reacts to failures). */
export type PdfViewerEvent =
  | { kind: 'loaded'; uri: string; pageCount: number; hasText: boolean }
  | { kind: 'loadFailed'; uri: string; reason: PdfLoadFailure; message: string }
  | { kind: 'highlighted'; uri: string; report: PdfHighlightReport }
  | { kind: 'resolved' | 'disposed' | 'ready' | 'problem'; uri: string; message?: string };

interface ViewerSession {
  panel: vscode.WebviewPanel;
  loaded: boolean;
  /** Shown once the document has loaded (a jump that arrived while it was loading). */
  pendingHighlight?: PdfHighlight;
  pendingPage?: number;
}

/**
 * "Haiku PDF Viewer": a read-only custom editor for `*.pdf` (an option, never the default) rendering pages with
 * pdf.js in a webview. The CSP allows scripts by nonce only, styles, images and fonts from the webview's resource
 * origin, fetches from that origin only (the PDF itself, pdf.js's worker script, fonts, CMaps; the resource roots are
 * the extension's `dist/` and the PDF's folder), and workers from `blob:` only (the worker script is fetched and
 * started from a blob: a webview cannot start one from its resource origin). No network.
 */
export class PdfViewerProvider implements vscode.CustomReadonlyEditorProvider {
  private readonly sessions = new Map<string, ViewerSession>();
  private readonly opening = new Map<string, { highlight?: PdfHighlight; page?: number }>();
  private readonly eventEmitter = new vscode.EventEmitter<PdfViewerEvent>();
  /** Fires for each load, failure and drawn highlight a viewer reports. */
  readonly onDidReport = this.eventEmitter.event;
  private nextJumpId = 1;

  constructor(private readonly extensionUri: vscode.Uri) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const key = document.uri.toString();
    const scriptRoot = vscode.Uri.joinPath(this.extensionUri, 'dist');
    // The viewer's scripts, and the PDF's own folder so the webview can fetch the file (nothing else).
    panel.webview.options = { enableScripts: true, localResourceRoots: [scriptRoot, vscode.Uri.joinPath(document.uri, '..')] };
    panel.webview.html = this.html(panel.webview, scriptRoot);
    const start = this.opening.get(key) ?? {};
    this.opening.delete(key);
    const session: ViewerSession = { panel, loaded: false, pendingHighlight: start.highlight, pendingPage: start.page };
    this.sessions.set(key, session);
    this.eventEmitter.fire({ kind: 'resolved', uri: key });
    panel.onDidDispose(() => {
      this.eventEmitter.fire({ kind: 'disposed', uri: key });
      if (this.sessions.get(key) === session) {
        this.sessions.delete(key);
      }
    });
    panel.webview.onDidReceiveMessage(async (raw: unknown) => {
      const message = parsePdfWebviewMessage(raw);
      switch (message?.type) {
        case 'problem':
          this.eventEmitter.fire({ kind: 'problem', uri: key, message: message.message });
          break;
        case 'ready': {
          this.eventEmitter.fire({ kind: 'ready', uri: key });
          const title = document.uri.path.slice(document.uri.path.lastIndexOf('/') + 1);
          await this.post(session, { type: 'open', url: panel.webview.asWebviewUri(document.uri).toString(), title, highlight: session.pendingHighlight, page: session.pendingPage });
          session.pendingHighlight = undefined;
          session.pendingPage = undefined;
          break;
        }
        case 'loaded':
          session.loaded = true;
          this.eventEmitter.fire({ kind: 'loaded', uri: key, pageCount: message.pageCount, hasText: message.hasText });
          // A jump that arrived after the document was sent but before it loaded.
          if (session.pendingHighlight) {
            await this.post(session, { type: 'highlight', highlight: session.pendingHighlight });
            session.pendingHighlight = undefined;
          }
          break;
        case 'loadFailed':
          this.eventEmitter.fire({ kind: 'loadFailed', uri: key, reason: message.reason, message: message.message });
          break;
        case 'highlighted':
          this.eventEmitter.fire({ kind: 'highlighted', uri: key, report: message.report });
          break;
      }
    });
  }

  /**
   * Opens `uri` in the viewer (or reveals the open one) at the highlight's page with its boxes drawn. Returns the
   * jump id the viewer's `highlighted` report will carry.
   */
  async show(uri: vscode.Uri, target: { page: number; chunkBoxes?: PdfHighlight['chunkBoxes']; contextBoxes?: PdfHighlight['contextBoxes'] }): Promise<number> {
    const highlight: PdfHighlight = { jumpId: this.nextJumpId++, page: target.page, chunkBoxes: target.chunkBoxes ?? [], contextBoxes: target.contextBoxes ?? [] };
    const key = uri.toString();
    const session = this.sessions.get(key);
    if (session) {
      session.panel.reveal(undefined, false);
      if (session.loaded) {
        await this.post(session, { type: 'highlight', highlight });
      } else {
        session.pendingHighlight = highlight;
      }
      return highlight.jumpId;
    }
    this.opening.set(key, { highlight });
    await vscode.commands.executeCommand('vscode.openWith', uri, PDF_VIEWER_TYPE, { preview: true });
    return highlight.jumpId;
  }

  private async post(session: ViewerSession, message: PdfHostToWebviewMessage): Promise<void> {
    await session.panel.webview.postMessage(message);
  }

  private html(webview: vscode.Webview, scriptRoot: vscode.Uri): string {
    const nonce = createNonce();
    const resource = (...segments: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(scriptRoot, ...segments)).toString();
    return webviewDocument({
      csp: [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src ${webview.cspSource} 'nonce-${nonce}'`,
        `img-src ${webview.cspSource} data: blob:`,
        `font-src ${webview.cspSource} data:`,
        `connect-src ${webview.cspSource}`,
        'worker-src blob:',
      ],
      title: 'PDF',
      head: `<link rel="stylesheet" href="${resource('webview', 'pdf', 'pdf_viewer.css')}">
<style nonce="${nonce}">
  body { margin: 0; padding: 0; background: var(--vscode-editor-background); color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
  #toolbar { position: absolute; top: 0; left: 0; right: 0; height: 34px; display: flex; gap: 6px; align-items: center; padding: 0 8px; box-sizing: border-box; border-bottom: 1px solid var(--vscode-panel-border); background: var(--vscode-editorWidget-background); }
  #toolbar button, #toolbar select, #toolbar input { background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); border-radius: 2px; padding: 2px 6px; font: inherit; }
  #pageNumber { width: 4em; }
  #findInput { width: 14em; }
  #status { color: var(--vscode-descriptionForeground); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .spacer { flex: 1; }
  #viewerContainer { position: absolute; top: 34px; left: 0; right: 0; bottom: 0; overflow: auto; background: var(--vscode-editorGroup-emptyBackground, #525659); }
  .haiku-highlights { position: absolute; inset: 0; pointer-events: none; z-index: 3; }
  .haiku-highlights > div { position: absolute; box-sizing: border-box; }
  .haiku-context { background: rgba(255, 215, 0, 0.18); }
  .haiku-chunk { background: rgba(255, 140, 0, 0.30); border: 2px solid rgba(255, 110, 0, 0.95); }
</style>`,
      bodyAttributes: ` data-worker="${resource('webview', 'pdf', 'pdf.worker.mjs')}" data-fonts="${resource('standard_fonts')}/" data-cmaps="${resource('webview', 'pdf', 'cmaps')}/" data-wasm="${resource('webview', 'pdf', 'wasm')}/"`,
      body: `<div id="toolbar">
  <button id="previous" title="Previous page">▲</button>
  <button id="next" title="Next page">▼</button>
  <input id="pageNumber" type="number" min="1" value="1" aria-label="Page"><span id="pageCount"></span>
  <button id="zoomOut" title="Zoom out">−</button>
  <button id="zoomIn" title="Zoom in">+</button>
  <select id="zoom" aria-label="Zoom">
    <option value="page-width" selected>Page width</option>
    <option value="page-fit">Whole page</option>
    <option value="auto">Automatic</option>
    <option value="0.5">50%</option>
    <option value="1">100%</option>
    <option value="1.5">150%</option>
    <option value="2">200%</option>
  </select>
  <input id="findInput" type="search" placeholder="Find in document" aria-label="Find in document">
  <button id="findPrevious" title="Previous match">↑</button>
  <button id="findNext" title="Next match">↓</button>
  <span id="findResult"></span>
  <span class="spacer"></span>
  <span id="status"></span>
</div>
<div id="viewerContainer"><div id="viewer" class="pdfViewer"></div></div>
<script nonce="${nonce}">
  // Before pdf.js loads: errors while its modules initialise still reach the host.
  window.haikuVscodeApi = acquireVsCodeApi();
  window.addEventListener('error', (event) => window.haikuVscodeApi.postMessage({ type: 'problem', message: event.message + ' (' + event.filename + ':' + event.lineno + ')' }));
</script>
<script nonce="${nonce}" src="${resource('webview', 'pdfViewer.js')}"></script>`,
    });
  }

  dispose(): void {
    this.eventEmitter.dispose();
  }
}
