import * as vscode from 'vscode';
import type { LanguageModel } from 'ai';
import type { AgentEvent } from '../../core/agent/agentEvents';
import { createConversationState, type Citation, type ConversationState } from '../../core/agent/conversationState';
import type { SandboxFactory } from '../../core/agent/agentRun';
import type { HaikuConfig } from '../../core/config';
import { errorMessage } from '../../core/errors';
import { haikuErrorCode } from '../backendModule';
import type { DocumentSummary, SearchResult } from '../../core/model/search';
import type { RunRoute } from '../../shared/runsProtocol';
import { locationLabel } from '../citationFormat';
import { COMMANDS, PARTICIPANT_ID } from '../contributionIds';
import type { DocumentNavigator } from '../documentNavigation';
import { renderingUri } from '../documentNavigation';
import type { ExtensionKnowledgeBase } from '../indexBackend';
import type { IndexService } from '../indexService';
import { languageModelFromChat } from '../languageModelAdapter';
import { hitView, RunRecorder } from '../runs/runRecorder';
import type { RunsStore } from '../runs/runsStore';
import { findChunkInRendering, opensAsRendering } from '../sectionLocate';
import { chatErrorView, indexNotReadyView, type ChatErrorView } from './chatErrors';
import {
  agentModeFor,
  CitationMarkerSplitter,
  documentFilterFor,
  followupPrompts,
  historyMessages,
  METADATA_KEY,
  readTurnMetadata,
  routeFor,
  type HaikuTurnMetadata,
} from './chatText';

/** What the participant needs from the rest of the extension (lazy modules come in as loaders). */
export interface ParticipantDependencies {
  indexService: IndexService;
  runsStore: RunsStore;
  navigator: DocumentNavigator;
  getConfig: () => HaikuConfig;
  /** The configured OpenAI-compatible model, when `haiku.model.baseUrl`/`name` are set. */
  configuredModel: () => Promise<{ model: LanguageModel; description: string } | undefined>;
  /** Loads the agent lazily (the AI SDK and the tools are heavy). */
  loadAgent: () => Promise<typeof import('../../core/agent/runAgent')>;
  /** The sandbox factory for the analysis tools (undefined: analysis unavailable). */
  loadSandboxFactory: () => Promise<SandboxFactory | undefined>;
  relativePathOf: (uri: string) => string;
  /** Replaces large evidence in an answer's messages by a marker before they are stored in chat metadata. */
  compactHistory: (messages: import('ai').ModelMessage[]) => import('ai').ModelMessage[];
  log: vscode.LogOutputChannel;
}

/** Everything the handler recorded about each request (tests read it). */
export interface ParticipantRequestRecord {
  runId: string;
  route: RunRoute;
  prompt: string;
  model: string;
  documentFilter: string | null;
  anchors: string[];
  references: string[];
  buttons: string[];
  error?: ChatErrorView;
  done: boolean;
}

let runCounter = 0;
function newRunId(): string {
  runCounter += 1;
  return `run-${Date.now().toString(36)}-${runCounter}`;
}

/** A location the chat can open for a chunk: the source range, or the rendering's lines for PDF/DOCX. */
async function chunkLocation(knowledgeBase: ExtensionKnowledgeBase, chunk: { documentId: string; uri: string; content: string; headings: string[]; sourceRange?: Citation['sourceRange'] }, documents: Map<string, DocumentSummary | undefined>): Promise<vscode.Location | vscode.Uri> {
  if (!documents.has(chunk.documentId)) {
    documents.set(chunk.documentId, await knowledgeBase.getDocument(chunk.documentId));
  }
  const document = documents.get(chunk.documentId);
  if (document && opensAsRendering(document.format)) {
    const content = (await knowledgeBase.getDocumentContent(document.id)) ?? '';
    const span = findChunkInRendering(content, chunk.content, chunk.headings);
    const uri = renderingUri(document);
    return span ? new vscode.Location(uri, new vscode.Range(span.startLine, 0, span.endLine, 0)) : uri;
  }
  const uri = vscode.Uri.parse(chunk.uri);
  const range = chunk.sourceRange;
  if (range?.startLine === undefined) {
    return uri;
  }
  return new vscode.Location(uri, new vscode.Range(range.startLine, range.startColumn ?? 0, range.endLine ?? range.startLine, range.endColumn ?? 0));
}

/** Files and folders attached with `#` (Uri or Location values), as filter inputs. */
async function attachmentsOf(request: vscode.ChatRequest): Promise<Array<{ uri: string; isFolder: boolean }>> {
  const attachments: Array<{ uri: string; isFolder: boolean }> = [];
  for (const reference of request.references) {
    const value = reference.value;
    const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
    if (!uri || uri.scheme !== 'file') {
      continue;
    }
    let isFolder = false;
    try {
      isFolder = (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.Directory;
    } catch {
      // A vanished file still filters (to nothing), which the answer then says.
    }
    attachments.push({ uri: uri.toString(), isFolder });
  }
  return attachments;
}

function languageModelErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    if (current instanceof vscode.LanguageModelError) {
      return current.code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export class HaikuParticipant implements vscode.Disposable {
  readonly requests: ParticipantRequestRecord[] = [];
  private readonly participant: vscode.ChatParticipant;

  constructor(extensionUri: vscode.Uri, private readonly dependencies: ParticipantDependencies) {
    this.participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) => this.handle(request, context, stream, token));
    this.participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    this.participant.followupProvider = {
      provideFollowups: (result) => {
        const metadata = readTurnMetadata(result.metadata);
        return metadata ? followupPrompts(metadata).map((followup) => ({ prompt: followup.prompt, label: followup.label, command: followup.command })) : [];
      },
    };
  }

  async handle(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const { indexService, runsStore, log } = this.dependencies;
    const route = routeFor(request.command);
    const runId = newRunId();
    const record: ParticipantRequestRecord = { runId, route, prompt: request.prompt, model: `${request.model.vendor}/${request.model.id}`, documentFilter: null, anchors: [], references: [], buttons: [], done: false };
    this.requests.push(record);
    const abort = new AbortController();
    const cancellation = token.onCancellationRequested(() => abort.abort());
    const metadata: HaikuTurnMetadata = { runId, route, question: request.prompt, citedTitles: [] };
    const fail = (view: ChatErrorView): vscode.ChatResult => {
      record.error = view;
      stream.markdown(view.message);
      if (view.button) {
        stream.button(view.button);
        record.buttons.push(view.button.command);
      }
      metadata.errorCode = view.code;
      return { metadata: { [METADATA_KEY]: metadata } };
    };
    try {
      if (request.prompt.trim() === '') {
        return fail({ code: 'empty_question', message: 'Ask a question about the workspace documents, e.g. `@haiku what does the guide say about caching?`' });
      }
      const notReady = indexNotReadyView(indexService.current);
      if (notReady) {
        return fail(notReady);
      }
      const knowledgeBase = await indexService.knowledgeBase();
      // Conversation state and history from earlier @haiku turns.
      const turns: Array<{ question: string; metadata: HaikuTurnMetadata | undefined; answerText: string }> = [];
      let previousState: ConversationState | undefined;
      let pendingQuestion: string | undefined;
      for (const turn of context.history) {
        if (turn instanceof vscode.ChatRequestTurn) {
          pendingQuestion = turn.prompt;
        } else if (turn instanceof vscode.ChatResponseTurn) {
          const turnMetadata = readTurnMetadata(turn.result.metadata);
          if (turnMetadata?.state) {
            previousState = turnMetadata.state;
          }
          const answerText = turn.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
          turns.push({ question: pendingQuestion ?? turnMetadata?.question ?? '', metadata: turnMetadata, answerText });
          pendingQuestion = undefined;
        }
      }
      const attachmentFilter = documentFilterFor(await attachmentsOf(request));
      const documentFilter = attachmentFilter ?? previousState?.documentFilter ?? null;
      record.documentFilter = documentFilter;
      if (route === 'search') {
        // /search asks no model, but the conversation's scope and citation index still carry past it.
        metadata.state = previousState ? { ...previousState, documentFilter } : createConversationState(documentFilter);
        return await this.search(request.prompt, documentFilter, knowledgeBase, stream, record, metadata, abort.signal);
      }
      return await this.answer({ request, route, knowledgeBase, stream, record, metadata, previousState, attachmentFilter, history: historyMessages(turns), abortSignal: abort.signal });
    } catch (error) {
      log.error(`@haiku (${route}) failed: ${errorMessage(error)}`);
      const view = chatErrorView({ languageModelErrorCode: languageModelErrorCode(error), haikuErrorCode: haikuErrorCode(error), message: errorMessage(error) });
      const run = runsStore.get(runId);
      if (run) {
        run.status = view.code === 'cancelled' ? 'cancelled' : 'failed';
        run.error = view.message;
        runsStore.put(run);
      }
      return fail(view);
    } finally {
      record.done = true;
      cancellation.dispose();
    }
  }

  private async search(query: string, documentFilter: string | null, knowledgeBase: ExtensionKnowledgeBase, stream: vscode.ChatResponseStream, record: ParticipantRequestRecord, metadata: HaikuTurnMetadata, abortSignal: AbortSignal): Promise<vscode.ChatResult> {
    const { runsStore, relativePathOf, getConfig } = this.dependencies;
    stream.progress('Searching…');
    const recorder = new RunRecorder({ id: record.runId, question: query, route: 'search', model: '' }, relativePathOf);
    const results: SearchResult[] = await knowledgeBase.search(query, { limit: getConfig().search.limit, filter: documentFilter ?? undefined, expand: false, abortSignal });
    recorder.addSearch('search', query, results);
    if (results.length === 0) {
      stream.markdown(`No hits for **${escapeMarkdown(query)}**${documentFilter ? ' in the attached documents' : ''}.`);
    }
    const formats = new Map<string, DocumentSummary | undefined>();
    for (const result of results) {
      const location = await chunkLocation(knowledgeBase, result, formats);
      const trail = result.headings.length > 0 ? result.headings.map(escapeMarkdown).join(' › ') : escapeMarkdown(result.title);
      stream.markdown(`\n\n**${result.rank}.** `);
      stream.anchor(location, `${relativePathOf(result.uri)} ${locationLabel(result.sourceRange, result.pageNumbers)}`.trim());
      record.anchors.push(result.chunkId);
      stream.markdown(` — ${trail} (score ${result.score.toFixed(3)})\n\n`);
      stream.markdown(quote(result.content));
      stream.reference(location);
      record.references.push(result.chunkId);
    }
    metadata.citedTitles = [...new Set(results.map((result) => result.title))];
    runsStore.put(recorder.finish('done'));
    this.showRunButton(stream, record);
    return { metadata: { [METADATA_KEY]: metadata } };
  }

  private async answer(options: {
    request: vscode.ChatRequest;
    route: RunRoute;
    knowledgeBase: ExtensionKnowledgeBase;
    stream: vscode.ChatResponseStream;
    record: ParticipantRequestRecord;
    metadata: HaikuTurnMetadata;
    previousState: ConversationState | undefined;
    attachmentFilter: string | undefined;
    history: import('ai').ModelMessage[];
    abortSignal: AbortSignal;
  }): Promise<vscode.ChatResult> {
    const { request, route, knowledgeBase, stream, record, metadata, abortSignal } = options;
    const { runsStore, relativePathOf, getConfig, log } = this.dependencies;
    const config = getConfig();
    const [agent, createSandbox, configured] = await Promise.all([
      this.dependencies.loadAgent(),
      route === 'ask' ? Promise.resolve(undefined) : this.dependencies.loadSandboxFactory(),
      this.dependencies.configuredModel(),
    ]);
    if (route === 'analyze' && !createSandbox) {
      return { metadata: { [METADATA_KEY]: { ...metadata, errorCode: 'no_sandbox' } }, errorDetails: { message: 'The analysis sandbox is not available in this build of Haiku. Use /ask instead.' } };
    }
    const model: LanguageModel = configured?.model ?? languageModelFromChat(request.model, { justification: 'Haiku answers questions about your workspace documents with citations.' });
    const modelName = configured?.description ?? `${request.model.vendor}/${request.model.id}`;
    record.model = modelName;
    const recorder = new RunRecorder({ id: record.runId, question: request.prompt, route, model: modelName }, relativePathOf, undefined);
    runsStore.put(recorder.run);
    const citations = new Map<number, Citation>();
    const formats = new Map<string, DocumentSummary | undefined>();
    const locations = new Map<number, vscode.Location | vscode.Uri>();
    const splitter = new CitationMarkerSplitter((index) => citations.has(index));
    // Text and anchors must reach the stream in order; locations resolve asynchronously.
    let output = Promise.resolve();
    const emitSegments = (segments: ReturnType<CitationMarkerSplitter['push']>): void => {
      output = output.then(async () => {
        for (const segment of segments) {
          if (segment.kind === 'text') {
            stream.markdown(segment.text);
          } else {
            const citation = citations.get(segment.index);
            if (!citation) {
              stream.markdown(`[${segment.index}]`);
              continue;
            }
            const location = locations.get(segment.index) ?? await chunkLocation(knowledgeBase, citation, formats);
            locations.set(segment.index, location);
            stream.anchor(location, `[${segment.index}]`);
            record.anchors.push(citation.chunkId);
          }
        }
      }).catch((error: unknown) => log.warn(`Streaming the answer: ${errorMessage(error)}`));
    };
    const onEvent = (event: AgentEvent): void => {
      switch (event.type) {
        case 'search-started':
          stream.progress(`Searching: ${event.query}`);
          break;
        case 'execution-started':
          stream.progress('Running analysis…');
          break;
        case 'citation-added':
          citations.set(event.citation.index, event.citation);
          break;
        case 'text-delta':
          emitSegments(splitter.push(event.text));
          break;
      }
      // The agent's per-question state lives inside runAgent: searches are recorded now and get their hits
      // from the returned state at the end.
      if (recorder.apply(event)) {
        runsStore.put(recorder.run);
      }
    };
    const settings = agent.agentSettingsFromConfig(config);
    if (!configured) {
      // The chat's model decides its own sampling.
      settings.temperature = undefined;
    }
    const state = options.previousState ? structuredClone(options.previousState) : undefined;
    const answerPromise = agent.runAgent({
      model,
      modelDescription: configured ? { name: configured.description, baseUrl: config.qa.model.baseUrl } : { name: request.model.name },
      knowledgeBase,
      question: request.prompt,
      mode: agentModeFor(route),
      history: options.history,
      state,
      documentFilter: options.attachmentFilter,
      settings,
      createSandbox,
      abortSignal,
      onEvent,
    });
    const answer = await answerPromise;
    emitSegments(splitter.flush());
    await output;
    for (const citation of answer.citations) {
      citations.set(citation.index, citation);
      recorder.addCitation(citation);
      const location = locations.get(citation.index) ?? await chunkLocation(knowledgeBase, citation, formats);
      stream.reference(location);
      record.references.push(citation.chunkId);
    }
    // Search steps were recorded without hits (see above): fill them from the question's state.
    for (const step of recorder.run.steps) {
      if (step.kind === 'search' && step.hits.length === 0) {
        step.hits = (answer.state.searches[step.query] ?? []).map((result) => hitView(result, relativePathOf));
      }
    }
    runsStore.put(recorder.finish('done', { answer: answer.answer }));
    if (answer.citationStatus === 'missing' && answer.citations.length === 0) {
      stream.markdown('\n\n*No citation was registered for this answer: check it against the sources.*');
    }
    this.showRunButton(stream, record);
    metadata.state = answer.state;
    metadata.responseMessages = this.dependencies.compactHistory(answer.responseMessages);
    metadata.citedTitles = [...new Set(answer.citations.map((citation) => citation.title))];
    return { metadata: { [METADATA_KEY]: metadata } };
  }

  private showRunButton(stream: vscode.ChatResponseStream, record: ParticipantRequestRecord): void {
    stream.button({ command: COMMANDS.showRuns, title: 'Show run', arguments: [record.runId] });
    record.buttons.push(COMMANDS.showRuns);
  }

  dispose(): void {
    this.participant.dispose();
  }
}

function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, '\\$1');
}

function quote(content: string): string {
  const lines = content.trim().split('\n').slice(0, 12);
  return `${lines.map((line) => `> ${line}`).join('\n')}\n`;
}
