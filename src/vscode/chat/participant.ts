import * as vscode from 'vscode';
import type { LanguageModel, ModelMessage } from 'ai';
import type { AgentEvent } from '../../core/agent/agentEvents';
import type { AgentAnswer } from '../../core/agent/runAgent';
import { createConversationState, type Citation, type ConversationState } from '../../core/agent/conversationState';
import type { SandboxFactory } from '../../core/agent/agentRun';
import type { HaikuConfig } from '../../core/config';
import { errorMessage, errorRemedy } from '../../core/errors';
import { compileDocumentFilter } from '../../core/search/documentFilter';
import { haikuErrorCode } from '../backendModule';
import type { DocumentSummary, SearchResult } from '../../core/model/search';
import type { RunRoute } from '../../shared/runsProtocol';
import { editorRange, locationLabel, openChunkLink, ownRange } from '../citationFormat';
import { COMMANDS, MODEL_VENDOR, PARTICIPANT_ID, SEARCH_ONLY_MODEL_ID } from '../contributionIds';
import type { DocumentNavigator } from '../documentNavigation';
import { renderingUri } from '../documentNavigation';
import type { ExtensionKnowledgeBase } from '../indexBackend';
import type { IndexService } from '../indexService';
import { chatModelVision, languageModelFromChat } from '../languageModelAdapter';
import { citedPictureUris } from '../pictureView';
import type { ResolvedModel } from '../analysisModel';
import { hitView, RunRecorder } from '../runs/runRecorder';
import type { RunsStore } from '../runs/runsStore';
import { findChunkInRendering, opensAsRendering } from '../sectionLocate';
import { chatErrorView, indexNotReadyView, noModelView, type ChatErrorView, type ChatGuidanceView } from './chatErrors';
import {
  agentModeFor,
  AnswerCitationNumbers,
  attachedDocumentIds,
  CitationMarkerSplitter,
  type AnswerSegment,
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
  /** The model `haiku.analysis.model.*` names for `/analyze` (undefined: the question model answers). */
  analysisModel?: () => Promise<ResolvedModel | undefined>;
  /** Loads the agent lazily (the AI SDK and the tools are heavy). */
  loadAgent: () => Promise<typeof import('../../core/agent/runAgent')>;
  /** The sandbox factory for the analysis tools (undefined: analysis unavailable). */
  loadSandboxFactory: () => Promise<SandboxFactory | undefined>;
  relativePathOf: (uri: string) => string;
  /** Replaces large evidence in an answer's messages by a marker before they are stored in chat metadata. */
  compactHistory: (messages: ModelMessage[]) => ModelMessage[];
  log: vscode.LogOutputChannel;
  /** Wraps each request's response stream (the test API records what was streamed); absent in production. */
  observeStream?: (request: vscode.ChatRequest, stream: vscode.ChatResponseStream) => vscode.ChatResponseStream;
  /** Keeps a 👍/👎 the user gave an answer (a local log; nothing leaves the machine). */
  recordFeedback?: (feedback: vscode.ChatResultFeedback) => void;
}

/** What the participant reports after each request (the test API records it; nothing is kept here). */
export interface ParticipantRequestReport {
  request: vscode.ChatRequest;
  result: vscode.ChatResult;
  runId: string;
  route: RunRoute;
  /** The model that answered (`vendor/id` of the chat's model, or the configured endpoint's model). */
  model: string;
  documentFilter: string | null;
}

/** What an answer reads from the conversation so far. */
interface ConversationInput {
  previousState: ConversationState | undefined;
  attachmentFilter: string | undefined;
  history: ModelMessage[];
}

/** What answering needs, loaded on the first question. */
interface AnswerParts {
  agent: typeof import('../../core/agent/runAgent');
  createSandbox: SandboxFactory | undefined;
  model: LanguageModel;
  /** Set when the configured endpoint answers (not the chat's model). */
  configuredDescription: string | undefined;
  /** The configured endpoint's base URL (named in errors). */
  baseUrl?: string;
}

/** One request in flight: what the steps share. */
interface RequestContext {
  request: vscode.ChatRequest;
  stream: vscode.ChatResponseStream;
  runId: string;
  route: RunRoute;
  model: string;
  documentFilter: string | null;
  metadata: HaikuTurnMetadata;
  abortSignal: AbortSignal;
}

let runCounter = 0;
function newRunId(): string {
  runCounter += 1;
  return `run-${Date.now().toString(36)}-${runCounter}`;
}

/**
 * A location the chat can open for a chunk: its own source range (the label names these lines), or its own lines
 * in the rendering of a PDF/DOCX. The expanded context around it is registered with the navigator, which shades it
 * when the user opens the location.
 */
async function chunkLocation(
  knowledgeBase: ExtensionKnowledgeBase,
  navigator: DocumentNavigator,
  chunk: Pick<Citation, 'chunkId' | 'documentId' | 'uri' | 'content' | 'headings' | 'sourceRange' | 'chunkSourceRange'>,
  documents: Map<string, DocumentSummary | undefined>,
): Promise<vscode.Location | vscode.Uri> {
  if (!documents.has(chunk.documentId)) {
    documents.set(chunk.documentId, await knowledgeBase.getDocument(chunk.documentId));
  }
  const document = documents.get(chunk.documentId);
  if (document && opensAsRendering(document.format)) {
    const content = (await knowledgeBase.getDocumentContent(document.id)) ?? '';
    // The citation's content is the expanded context; the chunk's own text locates its own lines.
    const [own] = await knowledgeBase.getChunks([chunk.chunkId]);
    const span = findChunkInRendering(content, (own ?? chunk).content, chunk.headings);
    const uri = renderingUri(document);
    return span ? new vscode.Location(uri, new vscode.Range(span.startLine, 0, span.endLine, 0)) : uri;
  }
  const uri = vscode.Uri.parse(chunk.uri);
  const cell = document?.format === 'notebook' ? ownRange(chunk)?.cell : undefined;
  if (cell !== undefined) {
    const cellUri = await notebookCellUri(uri, cell);
    if (cellUri) {
      return new vscode.Location(cellUri, new vscode.Position(0, 0));
    }
  }
  const range = editorRange(ownRange(chunk));
  if (!range) {
    return uri;
  }
  const location = new vscode.Location(uri, new vscode.Range(range.startLine, range.startColumn, range.endLine, range.endColumn));
  navigator.expectJump(location, chunk.sourceRange);
  return location;
}

/**
 * The URI of a notebook's cell (`vscode-notebook-cell:`): a chat anchor on it opens the notebook editor at that
 * cell, where one on the `.ipynb` file's JSON lines would not. Undefined when no notebook editor reads the file.
 */
async function notebookCellUri(uri: vscode.Uri, cell: number): Promise<vscode.Uri | undefined> {
  try {
    const notebook = await vscode.workspace.openNotebookDocument(uri);
    return cell < notebook.cellCount ? notebook.cellAt(cell).document.uri : undefined;
  } catch {
    return undefined;
  }
}

/** Files and folders the user attached (`#`, drag and drop; Uri or Location values), as filter inputs. */
async function attachmentsOf(request: vscode.ChatRequest): Promise<Array<{ uri: vscode.Uri; isFolder: boolean }>> {
  const attachments: Array<{ uri: vscode.Uri; isFolder: boolean }> = [];
  for (const reference of request.references) {
    // The editor the user happens to have open (`vscode.implicit.*`) is context, not a scope: only what the user
    // attached narrows the search (otherwise an open file would silently restrict every question to itself).
    if (reference.id.startsWith('vscode.implicit')) {
      continue;
    }
    const value = reference.value;
    const uri = value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined;
    if (!uri || uri.scheme !== 'file') {
      continue;
    }
    let isFolder = false;
    try {
      isFolder = (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.Directory;
    } catch {
      // A vanished file matches no indexed document, which the answer then says.
    }
    attachments.push({ uri, isFolder });
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
  private readonly participant: vscode.ChatParticipant;
  private readonly requestEmitter = new vscode.EventEmitter<ParticipantRequestReport>();
  /** Fires when a request was answered, refused or failed. */
  readonly onDidFinishRequest = this.requestEmitter.event;

  constructor(extensionUri: vscode.Uri, private readonly dependencies: ParticipantDependencies) {
    this.participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) => this.handle(request, context, stream, token));
    this.participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    this.participant.followupProvider = {
      provideFollowups: (result) => {
        const metadata = readTurnMetadata(result.metadata);
        return metadata ? followupPrompts(metadata).map((followup) => ({ prompt: followup.prompt, label: followup.label, command: followup.command })) : [];
      },
    };
    this.participant.onDidReceiveFeedback((feedback) => dependencies.recordFeedback?.(feedback));
  }

  async handle(request: vscode.ChatRequest, context: vscode.ChatContext, responseStream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const route = routeFor(request.command);
    const runId = newRunId();
    const abort = new AbortController();
    const cancellation = token.onCancellationRequested(() => abort.abort());
    const stream = this.dependencies.observeStream?.(request, responseStream) ?? responseStream;
    const turn: RequestContext = {
      request,
      stream,
      runId,
      route,
      model: `${request.model.vendor}/${request.model.id}`,
      documentFilter: null,
      metadata: { runId, route, question: request.prompt, citedTitles: [] },
      abortSignal: abort.signal,
    };
    let result: vscode.ChatResult;
    try {
      result = await this.respond(turn, context);
    } catch (error) {
      result = this.failed(turn, error);
    } finally {
      cancellation.dispose();
    }
    this.requestEmitter.fire({ request, result, runId, route, model: turn.model, documentFilter: turn.documentFilter });
    return result;
  }

  /** Checks the question and the index, reads the conversation so far, then searches or answers. */
  private async respond(turn: RequestContext, context: vscode.ChatContext): Promise<vscode.ChatResult> {
    const { indexService } = this.dependencies;
    if (turn.request.prompt.trim() === '') {
      return this.refuse(turn, { code: 'empty_question', message: vscode.l10n.t('Ask a question about the workspace documents, e.g. `@haiku what does the guide say about caching?`') });
    }
    if (indexService.current.state === 'idle') {
      // Nothing was indexed automatically: an index built earlier (or by Build Index) may still answer.
      await indexService.knowledgeBase();
    }
    const notReady = indexNotReadyView(indexService.current, vscode.l10n.t);
    if (notReady) {
      return this.refuse(turn, notReady);
    }
    const knowledgeBase = await indexService.knowledgeBase();
    const conversation = conversationSoFar(context);
    const attachments = await attachmentsOf(turn.request);
    const attachmentFilter = attachments.length > 0 ? await this.attachmentFilter(knowledgeBase, attachments) : undefined;
    if (attachmentFilter === null) {
      return this.refuse(turn, { code: 'attachments_not_indexed', message: vscode.l10n.t('None of the attached files or folders holds an indexed document. Attach indexed documents, or index them first (Haiku: Index Current File).') });
    }
    turn.documentFilter = attachmentFilter ?? conversation.state?.documentFilter ?? null;
    if (turn.route === 'search') {
      // /search asks no model, but the conversation's scope and citation index still carry past it.
      turn.metadata.state = conversation.state ? { ...conversation.state, documentFilter: turn.documentFilter } : createConversationState(turn.documentFilter);
      return await this.search(turn, knowledgeBase);
    }
    if (await this.noModelCanAnswer(turn)) {
      return this.guide(turn, noModelView(turn.request.prompt, vscode.l10n.t));
    }
    return await this.answer(turn, knowledgeBase, { previousState: conversation.state, attachmentFilter, history: historyMessages(conversation.turns) });
  }

  /**
   * True when the chat's model is Haiku's search-only entry (offered in the picker while no model exists) and no
   * configured endpoint stands in for it: only a search can run.
   */
  private async noModelCanAnswer(turn: RequestContext): Promise<boolean> {
    if (turn.request.model.vendor !== MODEL_VENDOR || turn.request.model.id !== SEARCH_ONLY_MODEL_ID) {
      return false;
    }
    return (turn.route === 'analyze' ? await this.analysisOrConfiguredModel() : await this.configuredQuestionModel()) === undefined;
  }

  /**
   * The attached files and folders as one `documentIds` filter (an `IN (…)` list, never an `OR` chain), or null
   * when none of them holds an indexed document.
   */
  private async attachmentFilter(knowledgeBase: ExtensionKnowledgeBase, attachments: ReadonlyArray<{ uri: vscode.Uri; isFolder: boolean }>): Promise<string | undefined | null> {
    const documents = (await knowledgeBase.listDocuments()).map((document) => {
      const uri = vscode.Uri.parse(document.uri);
      return { id: document.id, path: uri.scheme === 'file' ? uri.fsPath : undefined };
    });
    const documentIds = attachedDocumentIds(attachments.map((attachment) => ({ path: attachment.uri.fsPath, isFolder: attachment.isFolder })), documents);
    return documentIds.length === 0 ? null : compileDocumentFilter({ documentIds });
  }

  private async search(turn: RequestContext, knowledgeBase: ExtensionKnowledgeBase): Promise<vscode.ChatResult> {
    const { runsStore, relativePathOf, getConfig } = this.dependencies;
    const { stream, request, documentFilter } = turn;
    const query = request.prompt;
    stream.progress(vscode.l10n.t('Searching…'));
    const recorder = new RunRecorder({ id: turn.runId, question: query, route: 'search', model: '' }, relativePathOf);
    const results: SearchResult[] = await knowledgeBase.search(query, { limit: getConfig().search.limit, filter: documentFilter ?? undefined, expand: false, abortSignal: turn.abortSignal });
    recorder.addSearch('search', query, results);
    if (results.length === 0) {
      stream.markdown(documentFilter
        ? vscode.l10n.t('No hits for **{0}** in the attached documents.', escapeMarkdown(query))
        : vscode.l10n.t('No hits for **{0}**.', escapeMarkdown(query)));
    }
    const formats = new Map<string, DocumentSummary | undefined>();
    for (const result of results) {
      const location = await chunkLocation(knowledgeBase, this.dependencies.navigator, result, formats);
      const trail = result.headings.length > 0 ? result.headings.map(escapeMarkdown).join(' › ') : escapeMarkdown(result.title);
      // One trust for the hit's parts (only Open Chunk), so that the chat keeps a PDF hit's link in its line.
      stream.markdown(trustedOpenChunk(`\n\n**${result.rank}.** `));
      const label = `${relativePathOf(result.uri)} ${locationLabel(ownRange(result), result.pageNumbers)}`.trim();
      if (formats.get(result.documentId)?.format === 'pdf') {
        // An anchor shows its target's name (the text rendering, `file.pdf.md:65`), never its title: a PDF hit is
        // named by its page and opens there.
        stream.markdown(trustedOpenChunk(openChunkLink(label, result.chunkId)));
      } else {
        stream.anchor(location, label);
      }
      stream.markdown(trustedOpenChunk(` — ${trail} (${vscode.l10n.t('score {0}', result.score.toFixed(3))})\n\n`));
      stream.markdown(quote(result.content));
      stream.reference(location);
    }
    turn.metadata.citedTitles = [...new Set(results.map((result) => result.title))];
    runsStore.put(recorder.finish('done'));
    this.showRunButton(turn);
    return { metadata: { [METADATA_KEY]: turn.metadata } };
  }

  /** Loads the agent and the model, runs the agent while streaming its text with anchors, then adds references. */
  private async answer(turn: RequestContext, knowledgeBase: ExtensionKnowledgeBase, conversation: ConversationInput): Promise<vscode.ChatResult> {
    const parts = await this.loadAnswerParts(turn);
    if (!parts) {
      return this.refuse(turn, { code: 'no_sandbox', message: vscode.l10n.t('The analysis sandbox is not available in this build of Haiku. Use /ask instead.') });
    }
    const recorder = new RunRecorder({ id: turn.runId, question: turn.request.prompt, route: turn.route, model: turn.model }, this.dependencies.relativePathOf, undefined);
    this.dependencies.runsStore.put(recorder.run);
    const answerStream = new AnswerStream(turn.stream, knowledgeBase, this.dependencies.navigator, this.dependencies.log);
    const answer = await this.runAgent(turn, parts, knowledgeBase, conversation, (event) => {
      answerStream.apply(event);
      // Searches are recorded now and get their hits from the returned state at the end; citations carry the
      // answer's own numbers, as the chat shows them.
      if (recorder.apply(event.type === 'citation-added' ? { ...event, citation: answerStream.numbered(event.citation) } : event)) {
        this.dependencies.runsStore.put(recorder.run);
      }
    });
    const citations = await answerStream.finish(answer.citations);
    await this.recordRun(recorder, answer, citations, knowledgeBase);
    return this.finishAnswer(turn, answer);
  }

  /**
   * The agent module, the sandbox (not for /ask) and the model: for /analyze the analysis model when one is set, else
   * the configured endpoint's, else the chat's. Undefined when /analyze has no sandbox.
   */
  private async loadAnswerParts(turn: RequestContext): Promise<AnswerParts | undefined> {
    const [agent, createSandbox, configured] = await Promise.all([
      this.dependencies.loadAgent(),
      turn.route === 'ask' ? Promise.resolve(undefined) : this.dependencies.loadSandboxFactory(),
      turn.route === 'analyze' ? this.analysisOrConfiguredModel() : this.configuredQuestionModel(),
    ]);
    if (turn.route === 'analyze' && !createSandbox) {
      return undefined;
    }
    const model: LanguageModel = configured?.model ?? languageModelFromChat(turn.request.model, { justification: vscode.l10n.t('Haiku answers questions about your workspace documents with citations.') });
    turn.model = configured?.description ?? turn.model;
    return { agent, createSandbox, model, configuredDescription: configured?.baseUrl === undefined ? undefined : configured.description, baseUrl: configured?.baseUrl };
  }

  private async configuredQuestionModel(): Promise<ResolvedModel | undefined> {
    const configured = await this.dependencies.configuredModel();
    return configured ? { ...configured, baseUrl: this.dependencies.getConfig().qa.model.baseUrl } : undefined;
  }

  private async analysisOrConfiguredModel(): Promise<ResolvedModel | undefined> {
    return (await this.dependencies.analysisModel?.()) ?? this.configuredQuestionModel();
  }

  private runAgent(turn: RequestContext, parts: AnswerParts, knowledgeBase: ExtensionKnowledgeBase, conversation: ConversationInput, onEvent: (event: AgentEvent) => void): Promise<AgentAnswer> {
    const config = this.dependencies.getConfig();
    const settings = parts.agent.agentSettingsFromConfig(config);
    if (!parts.configuredDescription) {
      // The chat's model decides its own sampling, and says whether it takes images.
      settings.temperature = undefined;
      settings.vision = chatModelVision(turn.request.model, settings.vision);
    }
    return parts.agent.runAgent({
      model: parts.model,
      modelDescription: parts.configuredDescription ? { name: parts.configuredDescription, baseUrl: parts.baseUrl } : { name: turn.model },
      knowledgeBase,
      question: turn.request.prompt,
      mode: agentModeFor(turn.route),
      history: conversation.history,
      state: conversation.previousState ? structuredClone(conversation.previousState) : undefined,
      documentFilter: conversation.attachmentFilter,
      settings,
      createSandbox: parts.createSandbox,
      abortSignal: turn.abortSignal,
      onEvent,
    });
  }

  /**
   * Completes the run in the runs panel: citations (numbered as the answer shows them), and the hits of searches
   * recorded while they ran. Previews show each chunk's own text, not the expanded context the model read.
   */
  private async recordRun(recorder: RunRecorder, answer: AgentAnswer, citations: readonly Citation[], knowledgeBase: ExtensionKnowledgeBase): Promise<void> {
    const searches = recorder.run.steps.flatMap((step) => (step.kind === 'search' && step.hits.length === 0 ? [answer.state.searches[step.query] ?? []] : []));
    const ownTexts = await this.ownTexts(knowledgeBase, [...citations, ...searches.flat()]);
    for (const citation of citations) {
      recorder.addCitation(citation, ownTexts);
    }
    for (const step of recorder.run.steps) {
      if (step.kind === 'search' && step.hits.length === 0) {
        step.hits = (answer.state.searches[step.query] ?? []).map((result) => hitView(result, this.dependencies.relativePathOf, ownTexts));
      }
    }
    this.dependencies.runsStore.put(recorder.finish('done', { answer: answer.answer }));
  }

  /** The stored text of every chunk the expanded results merged (one lookup); empty when the lookup fails. */
  private async ownTexts(knowledgeBase: ExtensionKnowledgeBase, chunks: ReadonlyArray<{ chunkId: string; chunkIds?: string[]; mergedChunkIds?: string[] }>): Promise<Map<string, string>> {
    const ids = [...new Set(chunks.flatMap((chunk) => chunk.chunkIds ?? chunk.mergedChunkIds ?? [chunk.chunkId]))];
    try {
      const records = ids.length > 0 ? await knowledgeBase.getChunks(ids) : [];
      return new Map(records.map((record) => [record.chunkId, record.content]));
    } catch (error) {
      this.dependencies.log.warn(`Reading the cited chunks' own text: ${errorMessage(error)}`);
      return new Map();
    }
  }

  /** The grounding warning, the run button, and the turn's metadata (state and compacted messages for the next question). */
  private finishAnswer(turn: RequestContext, answer: AgentAnswer): vscode.ChatResult {
    if (answer.citationStatus === 'missing' && answer.citations.length === 0) {
      turn.stream.markdown(`\n\n*${vscode.l10n.t('No citation was registered for this answer: check it against the sources.')}*`);
    }
    this.showRunButton(turn);
    const metadata = turn.metadata;
    metadata.state = answer.state;
    metadata.responseMessages = this.dependencies.compactHistory(answer.responseMessages);
    metadata.citedTitles = [...new Set(answer.citations.map((citation) => citation.title))];
    return { metadata: { [METADATA_KEY]: metadata } };
  }

  /** A request that cannot be answered: the reason as `errorDetails`, plus the button that fixes it. */
  private refuse(turn: RequestContext, view: ChatErrorView): vscode.ChatResult {
    if (view.button) {
      turn.stream.button(view.button);
    }
    return { errorDetails: { message: view.message }, metadata: { [METADATA_KEY]: { ...turn.metadata, errorCode: view.code } } };
  }

  /** Haiku's own guidance as the answer (not an error): trusted Markdown with settings links, then its buttons. */
  private guide(turn: RequestContext, view: ChatGuidanceView): vscode.ChatResult {
    const markdown = new vscode.MarkdownString(view.markdown);
    markdown.isTrusted = { enabledCommands: view.commands };
    turn.stream.markdown(markdown);
    for (const button of view.buttons) {
      turn.stream.button(button);
    }
    return { metadata: { [METADATA_KEY]: { ...turn.metadata, errorCode: view.code } } };
  }

  private failed(turn: RequestContext, error: unknown): vscode.ChatResult {
    const { runsStore, log } = this.dependencies;
    log.error(`@haiku (${turn.route}) failed: ${errorMessage(error)}`);
    const failure = { languageModelErrorCode: languageModelErrorCode(error), haikuErrorCode: haikuErrorCode(error), remedy: errorRemedy(error), message: errorMessage(error) };
    const view = chatErrorView(failure, vscode.l10n.t);
    const run = runsStore.get(turn.runId);
    if (run) {
      run.status = view.code === 'cancelled' ? 'cancelled' : 'failed';
      run.error = view.message;
      runsStore.put(run);
    }
    if (view.code === 'no_model' || /language model unavailable/i.test(failure.message)) {
      // The picked model is gone: the same guidance as with no model, with the search that still works.
      return this.guide(turn, noModelView(turn.request.prompt, vscode.l10n.t));
    }
    return this.refuse(turn, view);
  }

  private showRunButton(turn: RequestContext): void {
    turn.stream.button({ command: COMMANDS.showRuns, title: vscode.l10n.t('Show run'), arguments: [turn.runId] });
  }

  dispose(): void {
    this.participant.dispose();
    this.requestEmitter.dispose();
  }
}

/** The earlier @haiku turns of this chat: their questions and answers, and the newest conversation state. */
function conversationSoFar(context: vscode.ChatContext): { turns: Array<{ question: string; metadata: HaikuTurnMetadata | undefined; answerText: string }>; state: ConversationState | undefined } {
  const turns: Array<{ question: string; metadata: HaikuTurnMetadata | undefined; answerText: string }> = [];
  let state: ConversationState | undefined;
  let pendingQuestion: string | undefined;
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      pendingQuestion = turn.prompt;
    } else if (turn instanceof vscode.ChatResponseTurn) {
      const turnMetadata = readTurnMetadata(turn.result.metadata);
      if (turnMetadata?.state) {
        state = turnMetadata.state;
      }
      const answerText = turn.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
      turns.push({ question: pendingQuestion ?? turnMetadata?.question ?? '', metadata: turnMetadata, answerText });
      pendingQuestion = undefined;
    }
  }
  return { turns, state };
}

/**
 * Streams the agent's answer text into the chat, turning `[n]` markers of registered citations into anchors.
 * Text and anchors must reach the stream in order while locations resolve asynchronously, hence one chain.
 */
class AnswerStream {
  /** The answer's citations by the numbers it shows (from [1], whatever the conversation's numbering). */
  private readonly numbers = new AnswerCitationNumbers<Citation>();
  private readonly locations = new Map<number, vscode.Location | vscode.Uri>();
  private readonly formats = new Map<string, DocumentSummary | undefined>();
  private readonly splitter = new CitationMarkerSplitter((index) => this.numbers.get(index) !== undefined);
  private output = Promise.resolve();

  constructor(
    private readonly stream: vscode.ChatResponseStream,
    private readonly knowledgeBase: ExtensionKnowledgeBase,
    private readonly navigator: DocumentNavigator,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  apply(event: AgentEvent): void {
    switch (event.type) {
      case 'search-started':
        this.stream.progress(vscode.l10n.t('Searching: {0}', event.query));
        break;
      case 'execution-started':
        this.stream.progress(vscode.l10n.t('Running analysis…'));
        break;
      case 'citation-added':
        this.numbers.add(event.citation);
        break;
      case 'text-delta':
        this.emit(this.splitter.push(event.text));
        break;
    }
  }

  /** The citation with the number this answer shows for it. */
  numbered(citation: Citation): Citation {
    return this.numbers.add(citation);
  }

  /**
   * Flushes held-back text, then adds a reference per citation of the answer, and one per cited picture. Returns
   * the citations with the numbers the answer showed.
   */
  async finish(answerCitations: readonly Citation[]): Promise<Citation[]> {
    this.emit(this.splitter.flush());
    await this.output;
    const citations = this.numbers.all(answerCitations);
    for (const citation of citations) {
      this.stream.reference(await this.locationOf(citation));
    }
    for (const picture of citedPictureUris(citations)) {
      this.stream.reference(picture, new vscode.ThemeIcon('file-media'));
    }
    // The anchors of PDF citations open the text rendering; the page itself, with the chunk drawn, is a button.
    for (const citation of citations) {
      if (this.formats.get(citation.documentId)?.format === 'pdf') {
        const context = { sourceRange: citation.sourceRange, docItemRefs: citation.docItemRefs };
        this.stream.button({ command: COMMANDS.openChunk, title: vscode.l10n.t('Show [{0}] on the PDF page', citation.index), arguments: [citation.chunkId, context] });
      }
    }
    return citations;
  }

  private emit(segments: AnswerSegment[]): void {
    this.output = this.output.then(async () => {
      for (const segment of segments) {
        const citation = segment.kind === 'citation' ? this.numbers.get(segment.index) : undefined;
        if (segment.kind === 'text') {
          // Trusted like the links between them (only Open Chunk), or the chat puts each link in a paragraph of its own.
          this.stream.markdown(trustedOpenChunk(segment.text));
        } else if (citation) {
          // A link whose text is the number (an anchor would show its file's name instead): it opens the chunk, a
          // PDF chunk on its page, with the context the model read shaded.
          const context = { sourceRange: citation.sourceRange, docItemRefs: citation.docItemRefs };
          this.stream.markdown(trustedOpenChunk(openChunkLink(`[${segment.index}]`, citation.chunkId, context)));
        } else {
          this.stream.markdown(trustedOpenChunk(`[${segment.index}]`));
        }
      }
    }).catch((error: unknown) => this.log.warn(`Streaming the answer: ${errorMessage(error)}`));
  }

  private async locationOf(citation: Citation): Promise<vscode.Location | vscode.Uri> {
    const location = this.locations.get(citation.index) ?? await chunkLocation(this.knowledgeBase, this.navigator, citation, this.formats);
    this.locations.set(citation.index, location);
    return location;
  }
}

/** Markdown that may run only Haiku's Open Chunk command (its links), nothing else. */
function trustedOpenChunk(markdown: string): vscode.MarkdownString {
  const trusted = new vscode.MarkdownString(markdown);
  trusted.isTrusted = { enabledCommands: [COMMANDS.openChunk] };
  return trusted;
}

function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, '\\$1');
}

function quote(content: string): string {
  const lines = content.trim().split('\n').slice(0, 12);
  return `${lines.map((line) => `> ${line}`).join('\n')}\n`;
}
