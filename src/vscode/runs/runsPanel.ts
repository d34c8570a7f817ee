import * as vscode from 'vscode';
import { pictureKey, parseWebviewMessage, runPictures, type HostToWebviewMessage, type RunThumbnail } from '../../shared/runsProtocol';
import type { RenderReport, RunsStore } from './runsStore';
import { createNonce, webviewDocument } from '../webviewDocument';
import type { SourceRange } from '../../core/model/document';
import { RUNS_THUMBNAIL_MAX_BYTES } from '../../core/limits';
import { imageDataUri } from '../pictureViewModel';
import type { PictureTarget } from '../pictureView';

/** What the panel needs of pictures: their bytes (from the index) and a way to open one. */
export interface RunsPanelPictures {
  bytes(documentId: string, selfRef: string): Promise<{ bytes: Uint8Array; mimeType: string; width: number; height: number } | undefined>;
  open(target: PictureTarget): Promise<void>;
}

/** Thumbnails kept between posts (a run re-posts its state on every step). */
const THUMBNAIL_CACHE_ENTRIES = 64;

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
  private readonly thumbnailCache = new Map<string, RunThumbnail>();
  /** Keys of the thumbnails the current webview already holds. */
  private readonly sentThumbnails = new Set<string>();
  /** Fires when the webview reports what it drew for a run. */
  readonly onDidRender = this.renderEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: RunsStore,
    /** Opens a chunk, selecting `shownRange` (what the run showed) when given, else the chunk's own range. */
    private readonly openChunk: (chunkId: string, shownRange?: SourceRange) => Promise<void>,
    private readonly log: (line: string) => void,
    private readonly pictures?: RunsPanelPictures,
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
      this.sentThumbnails.clear();
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
        // A new webview (first open, or shown again after being hidden) holds no thumbnails yet.
        this.ready = true;
        this.sentThumbnails.clear();
        this.postState();
        break;
      case 'selectRun':
        this.selectedRunId = message.runId;
        await this.postThumbnails(message.runId);
        break;
      case 'openPicture': {
        const shown = this.store.shownPicture(message.runId, message.documentId, message.selfRef);
        if (shown && this.pictures) {
          const mimeType = this.thumbnailCache.get(pictureKey(shown.documentId, shown.selfRef))?.mimeType;
          await this.pictures.open({ documentId: shown.documentId, selfRef: shown.selfRef, documentPath: shown.relativePath, mimeType });
        } else {
          this.log(`Runs panel: run ${message.runId} does not show picture ${message.selfRef} of ${message.documentId}; not opened.`);
        }
        break;
      }
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
    const shown = this.selectedRunId ?? this.store.latest()?.id;
    if (shown) {
      void this.postThumbnails(shown).catch((error: unknown) => this.log(`Runs panel: could not read the pictures of run ${shown}: ${String(error)}`));
    }
  }

  /** Drops the cached thumbnails (the index changed: a re-indexed document may show other pictures under the same refs). */
  forgetThumbnails(): void {
    this.thumbnailCache.clear();
  }

  /** Sends the thumbnails of a run's pictures the webview does not hold yet, read from the index. */
  private async postThumbnails(runId: string): Promise<void> {
    const run = this.store.get(runId);
    if (!run || !this.pictures || !this.panel || !this.ready) {
      return;
    }
    const thumbnails: Record<string, RunThumbnail> = {};
    for (const picture of runPictures(run)) {
      const key = pictureKey(picture.documentId, picture.selfRef);
      if (this.sentThumbnails.has(key)) {
        continue;
      }
      const thumbnail = this.thumbnailCache.get(key) ?? await this.readThumbnail(picture.documentId, picture.selfRef);
      if (thumbnail) {
        thumbnails[key] = thumbnail;
        this.sentThumbnails.add(key);
      }
    }
    if (Object.keys(thumbnails).length > 0) {
      this.post({ type: 'thumbnails', runId, thumbnails });
    }
  }

  private async readThumbnail(documentId: string, selfRef: string): Promise<RunThumbnail | undefined> {
    const image = await this.pictures?.bytes(documentId, selfRef);
    if (!image) {
      return undefined;
    }
    const thumbnail: RunThumbnail = {
      mimeType: image.mimeType,
      width: image.width,
      height: image.height,
      // A huge image would bloat every message: shown as a link that opens it instead.
      dataUri: image.bytes.byteLength <= RUNS_THUMBNAIL_MAX_BYTES ? imageDataUri(image.bytes, image.mimeType) : undefined,
    };
    this.thumbnailCache.set(pictureKey(documentId, selfRef), thumbnail);
    while (this.thumbnailCache.size > THUMBNAIL_CACHE_ENTRIES) {
      this.thumbnailCache.delete(this.thumbnailCache.keys().next().value!);
    }
    return thumbnail;
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
    return webviewDocument({
      csp: [
        "default-src 'none'",
        `style-src ${webview.cspSource}`,
        `script-src 'nonce-${nonce}'`,
        // Thumbnails arrive as data URIs of bounded size (see postThumbnails); nothing else is loaded.
        `img-src ${webview.cspSource} data:`,
        `font-src ${webview.cspSource}`,
      ],
      title: 'Haiku Runs',
      head: `<link rel="stylesheet" href="${styleUri.toString()}">`,
      body: `<main id="root"></main>
<script nonce="${nonce}" src="${scriptUri.toString()}"></script>`,
    });
  }

  dispose(): void {
    this.panel?.dispose();
    this.renderEmitter.dispose();
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }
}
