import type { LanguageModel, ModelMessage } from 'ai';
import type { HaikuConfig } from '../config';
import { HaikuError, throwIfAborted } from '../errors';
import * as limits from '../limits';
import type { KnowledgeBase } from '../model/search';
import type { AgentEventListener } from './agentEvents';
import { AgentRun, type SandboxFactory } from './agentRun';
import { compactEarlierTurns } from './contextManagement';
import { currentCitations, hasEarlierCitations, startQuestion, type Citation, type CitationStatus, type ConversationState, type ExecutionRecord } from './conversationState';
import { CITATION_REDIRECT_MESSAGE, type AgentMode, type CapabilityName } from './instructions';
import { toModelError, type ModelDescription } from './modelErrors';
import { runModelTurn, type ModelTurnOptions, type ModelTurnResult } from './modelTurn';
import { ToolPlan } from './toolPlan';

/** The knobs of one run; `agentSettingsFromConfig` maps the configuration onto them. */
export interface AgentSettings {
  /** Search units per question (up to three searches in one response share a unit). */
  maxSearches: number;
  maxExecutions: number;
  /** Model requests per question the rag capability is active for before its search is withdrawn; null disables. */
  requestLimit: number | null;
  /** The same for the analysis capability (its own counter: requests spent on rag do not count); null disables. */
  analysisRequestLimit: number | null;
  /** Prepended to the instructions. */
  domainPreamble: string;
  /** Default `limit` of the search tools. */
  searchLimit: number;
  /** The model can see images: picture bytes may be attached to search returns (none are stored yet). */
  vision: boolean;
  /** Sampling temperature; undefined leaves it to the model (e.g. a VS Code chat model). */
  temperature?: number;
  codeTimeoutSeconds: number;
  maxOutputChars: number;
  /**
   * When an answer used evidence but cited nothing, ask the model once to declare its citations (or an empty
   * list) and repeat the answer unchanged. Costs one more request in that case; off by default.
   */
  citationPolicy: boolean;
}

export function defaultAgentSettings(): AgentSettings {
  return {
    maxSearches: limits.QA_MAX_SEARCHES,
    maxExecutions: limits.QA_MAX_EXECUTIONS,
    requestLimit: limits.QA_REQUEST_LIMIT,
    analysisRequestLimit: limits.ANALYSIS_REQUEST_LIMIT,
    domainPreamble: '',
    searchLimit: limits.SEARCH_DEFAULT_LIMIT,
    vision: false,
    codeTimeoutSeconds: limits.SANDBOX_CODE_TIMEOUT_SECONDS,
    maxOutputChars: limits.SANDBOX_MAX_OUTPUT_CHARS,
    citationPolicy: false,
  };
}

export function agentSettingsFromConfig(config: HaikuConfig): AgentSettings {
  return {
    maxSearches: config.qa.maxSearches,
    maxExecutions: config.qa.maxExecutions,
    requestLimit: config.qa.requestLimit,
    // `qa.requestLimit` set to null turns both limits off; otherwise analysis keeps its own, larger default.
    analysisRequestLimit: config.qa.requestLimit === null ? null : limits.ANALYSIS_REQUEST_LIMIT,
    domainPreamble: config.qa.domainPreamble,
    searchLimit: config.search.limit,
    vision: config.qa.model.vision,
    temperature: config.qa.model.temperature,
    codeTimeoutSeconds: config.sandbox.codeTimeoutSeconds,
    maxOutputChars: config.sandbox.maxOutputChars,
    citationPolicy: config.qa.citationPolicy,
  };
}

export interface RunAgentOptions {
  /** Any AI SDK language model: the OpenAI-compatible one, or the VS Code chat model behind an adapter. */
  model: LanguageModel;
  /** Named in error messages. */
  modelDescription?: ModelDescription;
  knowledgeBase: KnowledgeBase;
  question: string;
  /** `auto` attaches both tool sets and lets the model route (default); `rag` is `/ask`, `analysis` is `/analyze`. */
  mode?: AgentMode;
  /**
   * In `auto` mode, offer each tool set as one line plus `load_capability` until the model loads it (default true):
   * the first request then carries no tool-set instructions or tools. Dedicated modes never defer.
   */
  deferLoading?: boolean;
  /** Earlier turns of the conversation (their large evidence returns are replaced by a marker on the wire). */
  history?: readonly ModelMessage[];
  /** The conversation's state from the previous question (or undefined for a new conversation). */
  state?: ConversationState;
  /** Sets the document filter for this and later questions; undefined keeps the state's filter. */
  documentFilter?: string | null;
  settings?: Partial<AgentSettings>;
  /** Required for the analysis tool set (the Node layer passes `createCodeSandbox`). */
  createSandbox?: SandboxFactory;
  maxRetries?: number;
  abortSignal?: AbortSignal;
  onEvent?: AgentEventListener;
}

export interface AgentAnswer {
  answer: string;
  /** This question's citations, in the order they were registered (each with its display index). */
  citations: Citation[];
  executions: ExecutionRecord[];
  citationStatus: CitationStatus;
  /** The state to carry to the next question. */
  state: ConversationState;
  /** What this question added to the conversation (user message excluded); append both to `history` next time. */
  responseMessages: ModelMessage[];
  /** Model requests made. */
  requests: number;
}

/**
 * Answers one question with the rag and/or analysis tool sets: search with budget units, cite with repair,
 * run code in the sandbox, stream events, and return the answer with its citations and the updated state.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentAnswer> {
  const settings: AgentSettings = { ...defaultAgentSettings(), ...options.settings };
  throwIfAborted(options.abortSignal, 'The question');
  const mode = resolveMode(options);
  const state = await startScopedQuestion(options);
  const hadEarlierCitations = hasEarlierCitations(state);
  const run = new AgentRun({
    knowledgeBase: options.knowledgeBase,
    state,
    maxSearches: settings.maxSearches,
    maxExecutions: settings.maxExecutions,
    searchLimit: settings.searchLimit,
    vision: settings.vision,
    createSandbox: options.createSandbox,
    onEvent: options.onEvent,
    abortSignal: options.abortSignal,
  });
  const plan = new ToolPlan(run, capabilitiesOf(mode), settings, mode === 'auto' && (options.deferLoading ?? true));
  if (mode === 'analysis') {
    run.prepareSandbox();
  }
  const turnOptions: ModelTurnOptions = {
    model: options.model,
    plan,
    run,
    maxRequests: plan.maxRequests,
    temperature: settings.temperature,
    maxRetries: options.maxRetries ?? limits.MODEL_MAX_RETRIES,
    abortSignal: options.abortSignal,
  };
  const messages: ModelMessage[] = [...compactEarlierTurns(options.history ?? []), { role: 'user', content: options.question }];
  try {
    const first = await runModelTurn(turnOptions, messages);
    const final = settings.citationPolicy ? await applyCitationPolicy(turnOptions, messages, first, hadEarlierCitations) : first;
    state.citationStatus = run.citationStatus();
    return {
      answer: final.texts.at(-1) ?? '',
      citations: currentCitations(state),
      executions: [...state.executions],
      citationStatus: state.citationStatus,
      state,
      responseMessages: final.messages,
      requests: plan.requestsMade,
    };
  } catch (error) {
    throw toModelError(error, options.modelDescription, options.abortSignal);
  } finally {
    await run.dispose();
  }
}

/** The mode the run can honour: analysis needs a sandbox, and without one the model can only route to rag. */
function resolveMode(options: RunAgentOptions): AgentMode {
  const requested = options.mode ?? 'auto';
  if (requested === 'analysis' && !options.createSandbox) {
    throw new HaikuError('sandbox_failed', 'Analysis needs the code sandbox, which this host did not provide. Use ask (rag only) instead.');
  }
  return requested === 'auto' && !options.createSandbox ? 'rag' : requested;
}

/** The question's state, its document filter checked against the index before the model is called. */
async function startScopedQuestion(options: RunAgentOptions): Promise<ConversationState> {
  const state = startQuestion(options.state, options.documentFilter);
  // Search errors go back to the model, so a filter that cannot run must fail here.
  if (state.documentFilter) {
    await options.knowledgeBase.listDocuments({ filter: state.documentFilter, abortSignal: options.abortSignal });
  }
  return state;
}

function capabilitiesOf(mode: AgentMode): [CapabilityName, ...CapabilityName[]] {
  return mode === 'rag' ? ['rag'] : mode === 'analysis' ? ['analysis'] : ['rag', 'analysis'];
}

/**
 * The optional citation policy (reference §5.8): an answer with something to declare (evidence of this question, or
 * citations of earlier questions a follow-up may rest on) that cited nothing gets one more turn to declare its
 * citations (the answer is repeated unchanged); a turn that says nothing keeps the first answer.
 */
async function applyCitationPolicy(turnOptions: ModelTurnOptions, messages: ModelMessage[], first: ModelTurnResult, hadEarlierCitations: boolean): Promise<ModelTurnResult> {
  const status = turnOptions.run.citationStatus();
  const undeclared = status === 'missing' || (status === 'none' && hadEarlierCitations);
  if (!undeclared || !turnOptions.plan.ensureCiteToolNext()) {
    return first;
  }
  const redirect: ModelMessage = { role: 'user', content: CITATION_REDIRECT_MESSAGE };
  const second = await runModelTurn(turnOptions, [...messages, ...first.messages, redirect]);
  return { texts: second.texts.length > 0 ? second.texts : first.texts, messages: [...first.messages, redirect, ...second.messages] };
}
