import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HaikuConfig } from '../core/config';
import type { HaikuParticipant } from './chat/participant';
import { readTurnMetadata } from './chat/chatText';
import type { DocumentNavigator, JumpHighlight } from './documentNavigation';
import type { ExtensionKnowledgeBase } from './indexBackend';
import type { IndexJobReport, IndexService } from './indexService';
import type { PdfViewerEvent, PdfViewerProvider } from './pdfViewer/pdfViewerProvider';
import type { RunRoute } from '../shared/runsProtocol';
import type { RunsPanel } from './runs/runsPanel';
import type { RenderReport, RunsStore } from './runs/runsStore';
import type { SectionsViewNode, SectionsTreeProvider } from './sectionsTree';

/** What one `@haiku` request streamed and returned, as the user saw it. */
export interface ParticipantRequestRecord {
  runId: string;
  route: RunRoute;
  prompt: string;
  model: string;
  documentFilter: string | null;
  /** Targets of the anchors streamed into the answer (`uri#line` or `uri`; see `locationKey`). */
  anchors: string[];
  /** Targets of the references listed under the answer. */
  references: string[];
  /** The anchors' locations themselves (what a click opens: the file with this range selected). */
  anchorLocations: vscode.Location[];
  /** Commands of the buttons shown. */
  buttons: string[];
  /** The Open Chunk links streamed as trusted Markdown (an answer's `[n]`, a /search PDF hit): text and arguments. */
  chunkLinks: Array<{ text: string; chunkId: string; context?: { sourceRange?: unknown; docItemRefs?: string[] } }>;
  /** The error shown (`ChatResult.errorDetails`) and its code. */
  error?: { code: string; message: string };
  done: boolean;
}

/**
 * The handle the in-host test suites get, only when the extension runs under test
 * (`ExtensionMode.Test`): the live objects plus records of what the user saw (streamed chat parts, finished
 * index jobs, what the runs webview drew, highlights), kept here instead of in the production objects.
 */
export interface HaikuTestApi {
  /** Wall-clock time `activate` took (ms). */
  readonly activationMs: number;
  readonly indexService: IndexService;
  readonly runsStore: RunsStore;
  readonly runsPanel: RunsPanel;
  readonly sectionsTree: SectionsTreeProvider;
  readonly sectionsView: vscode.TreeView<SectionsViewNode>;
  readonly navigator: DocumentNavigator;
  readonly participantRequests: readonly ParticipantRequestRecord[];
  readonly indexJobs: readonly IndexJobReport[];
  readonly renderReports: readonly RenderReport[];
  /** How often the Sections view asked for children (the UI, not the tests, asks first). */
  readonly treeChildrenRequests: number;
  /** The last jump's highlight in a text editor: the chunk's own range (selected) and the shaded context. */
  readonly lastHighlight: JumpHighlight | undefined;
  /** Whether the last jump's highlight is still shown (edits and the next jump clear it). */
  readonly highlightShown: boolean;
  readonly pdfViewer: PdfViewerProvider;
  /** What the PDF viewers reported (loads, failures, and the page and boxes each jump drew). */
  readonly pdfViewerEvents: readonly PdfViewerEvent[];
  /** True once the heavy bundle (`dist/backend.js`: LanceDB, converters, the agent) was loaded into the host. */
  backendLoaded(): boolean;
  /** Where the index lives by default (the extension's storage folder), whether or not it exists yet. */
  readonly defaultDatabaseUri: string;
  knowledgeBase(): Promise<ExtensionKnowledgeBase>;
  config(): HaikuConfig;
}

/** The records of the test API. Created before the participant (which takes `observeStream`), attached after. */
export class TestRecorder {
  readonly participantRequests: ParticipantRequestRecord[] = [];
  readonly indexJobs: IndexJobReport[] = [];
  readonly renderReports: RenderReport[] = [];
  treeChildrenRequests = 0;
  lastHighlight: JumpHighlight | undefined;
  readonly pdfViewerEvents: PdfViewerEvent[] = [];
  highlightShown = false;
  private readonly pending = new Map<vscode.ChatRequest, ParticipantRequestRecord>();

  /** Wraps a response stream so the anchors, references and buttons it carries are recorded. */
  readonly observeStream = (request: vscode.ChatRequest, stream: vscode.ChatResponseStream): vscode.ChatResponseStream => {
    const entry: ParticipantRequestRecord = { runId: '', route: 'both', prompt: request.prompt, model: '', documentFilter: null, anchors: [], references: [], anchorLocations: [], buttons: [], chunkLinks: [], done: false };
    this.participantRequests.push(entry);
    this.pending.set(request, entry);
    // The host's stream is frozen (a Proxy may not change its methods): inherit from it, override three.
    const record = (list: string[], value: unknown): void => {
      list.push(value instanceof vscode.Location || value instanceof vscode.Uri ? locationKey(value) : String(value));
    };
    return Object.create(stream, {
      anchor: { value: (value: vscode.Uri | vscode.Location, title?: string) => {
        record(entry.anchors, value);
        if (value instanceof vscode.Location) {
          entry.anchorLocations.push(value);
        }
        stream.anchor(value, title);
      } },
      reference: { value: (value: vscode.Uri | vscode.Location, iconPath?: vscode.IconPath) => {
        record(entry.references, value);
        stream.reference(value, iconPath);
      } },
      markdown: { value: (value: string | vscode.MarkdownString) => {
        if (typeof value !== 'string') {
          entry.chunkLinks.push(...chunkLinksOf(value.value));
        }
        stream.markdown(value);
      } },
      button: { value: (command: vscode.Command) => {
        entry.buttons.push(command.command);
        stream.button(command);
      } },
    }) as vscode.ChatResponseStream;
  };

  attach(objects: {
    participant: HaikuParticipant; indexService: IndexService; runsPanel: RunsPanel; sectionsTree: SectionsTreeProvider; navigator: DocumentNavigator; pdfViewer: PdfViewerProvider;
  }): vscode.Disposable {
    return vscode.Disposable.from(
      objects.participant.onDidFinishRequest((report) => {
        const record = this.pending.get(report.request);
        this.pending.delete(report.request);
        if (!record) {
          return;
        }
        const metadata = readTurnMetadata(report.result.metadata);
        Object.assign(record, { runId: report.runId, route: report.route, model: report.model, documentFilter: report.documentFilter });
        if (report.result.errorDetails) {
          record.error = { code: metadata?.errorCode ?? 'failed', message: report.result.errorDetails.message };
        }
        record.done = true;
      }),
      objects.indexService.onDidFinishJob((job) => this.indexJobs.push(job)),
      objects.runsPanel.onDidRender((report) => this.renderReports.push(report)),
      objects.sectionsTree.onDidRequestChildren(() => this.treeChildrenRequests++),
      objects.navigator.onDidHighlight((highlight) => {
        this.lastHighlight = highlight;
        this.highlightShown = true;
      }),
      objects.navigator.onDidClearHighlight(() => {
        this.highlightShown = false;
      }),
      objects.pdfViewer.onDidReport((event) => this.pdfViewerEvents.push(event)),
    );
  }
}

/** `uri#line` (0-based start line) for a location, the URI itself for a whole document. */
/** The `command:haiku.openChunk?…` links of a Markdown text, their arguments decoded. */
function chunkLinksOf(markdown: string): ParticipantRequestRecord['chunkLinks'] {
  return [...markdown.matchAll(/\[((?:\\.|[^\]\\])*)\]\(command:haiku\.openChunk\?([^)\s]+)\)/g)].map((match) => {
    const [chunkId, context] = JSON.parse(decodeURIComponent(match[2])) as [string, ParticipantRequestRecord['chunkLinks'][number]['context']?];
    return { text: match[1].replace(/\\(.)/g, '$1'), chunkId, context };
  });
}

export function locationKey(value: vscode.Location | vscode.Uri): string {
  return value instanceof vscode.Location ? `${value.uri.toString()}#${value.range.start.line}` : value.toString();
}

/** True when this extension's backend bundle sits in the module cache of the extension host. */
export function backendBundleLoaded(extensionFolder: string): boolean {
  const bundle = path.join(extensionFolder, 'dist', 'backend.js');
  return require.cache[bundle] !== undefined || (fs.existsSync(bundle) && require.cache[fs.realpathSync(bundle)] !== undefined);
}
