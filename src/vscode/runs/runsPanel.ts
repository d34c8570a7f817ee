import * as vscode from 'vscode';
import { parseWebviewMessage, type HostToWebviewMessage } from '../../shared/runsProtocol';
import type { RenderReport, RunsStore } from './runsStore';
import type { SourceRange } from '../../core/model/document';

/** A random nonce for the webview's Content-Security-Policy. */
export function createNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let nonce = '';
  for (let index = 0; index < 32; index++) {
    nonce += alphabet.charAt(Math.floor(Math.random() * alphabet.length));
  }
  return nonce;
}

/**
 * The runs panel: one webview showing each answer's route, searches, code executions and citations.
 * Strict CSP (nonce script, styles and scripts only from the extension), ready handshake, ids-only messages.
 */
export class RunsPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private selectedRunId: string | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly renderEmitter = new vscode.EventEmitter<RenderReport>();
  /** Fires when the webview reports what it drew for a run. */
  readonly onDidRender = this.renderEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: RunsStore,
    /** Opens a chunk, selecting `shownRange` (what the run showed) when given, else the chunk's own range. */
    private readonly openChunk: (chunkId: string, shownRange?: SourceRange) => Promise<void>,
    private readonly log: (line: string) => void,
  ) {
    const changed = store.onDidChange(() => this.postState());
    this.subscriptions.push({ dispose: () => changed.dispose() });
  }

  /** Opens (or reveals) the panel, showing `runId` (default: the newest run). */
  show(runId?: string): void {
    this.selectedRunId = runId ?? this.selectedRunId;
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside);
      if (runId) {
        this.post({ type: 'select', runId });
      }
      return;
    }
    const mediaRoot = vscode.Uri.joinPath(this.extensionUri, 'media');
    const scriptRoot = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    const panel = vscode.window.createWebviewPanel('haiku.runs', vscode.l10n.t('Haiku Runs'), vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [mediaRoot, scriptRoot],
      retainContextWhenHidden: false,
    });
    this.panel = panel;
    this.ready = false;
    panel.iconPath = vscode.Uri.joinPath(mediaRoot, 'haiku.svg');
    panel.webview.html = this.html(panel.webview, mediaRoot, scriptRoot);
    panel.webview.onDidReceiveMessage((raw: unknown) => this.handleMessage(raw), undefined, this.subscriptions);
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
    }, undefined, this.subscriptions);
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** Handles one message from the webview (public so tests can drive the host side of the protocol). */
  async handleMessage(raw: unknown): Promise<void> {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.log('Runs panel: dropped a malformed message from the webview.');
      return;
    }
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.postState();
        break;
      case 'selectRun':
        this.selectedRunId = message.runId;
        break;
      case 'openChunk': {
        // Only chunks the run shows may be opened: the webview names ids, the host decides.
        const shown = this.store.shownChunk(message.runId, message.chunkId);
        if (shown) {
          await this.openChunk(message.chunkId, shown.sourceRange);
        } else {
          this.log(`Runs panel: run ${message.runId} does not show chunk ${message.chunkId}; not opened.`);
        }
        break;
      }
      case 'rendered':
        this.renderEmitter.fire({ runId: message.runId, ...message.counts });
        break;
    }
  }

  private postState(): void {
    this.post({ type: 'state', runs: this.store.all(), selectedRunId: this.selectedRunId });
  }

  private post(message: HostToWebviewMessage): void {
    if (this.panel && this.ready) {
      void this.panel.webview.postMessage(message);
    }
  }

  private html(webview: vscode.Webview, mediaRoot: vscode.Uri, scriptRoot: vscode.Uri): string {
    const nonce = createNonce();
    const styleUri = webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'runs.css'));
    const scriptUri = webview.asWebviewUri(vscode.Uri.joinPath(scriptRoot, 'runs.js'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${styleUri.toString()}">
<title>Haiku Runs</title>
</head>
<body>
<main id="root"></main>
<script nonce="${nonce}" src="${scriptUri.toString()}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.panel?.dispose();
    this.renderEmitter.dispose();
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }
}
