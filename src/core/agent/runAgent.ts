import { stepCountIs, streamText, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import type { HaikuConfig } from '../config';
import { CancelledError, HaikuError, throwIfAborted } from '../errors';
import * as limits from '../limits';
import type { KnowledgeBase } from '../model/search';
import type { AgentEventListener } from './agentEvents';
import { AgentRun, type SandboxFactory } from './agentRun';
import { ANALYSIS_SEARCH_TOOL_NAME, createAnalysisSearchTool } from './analysisSearchTool';
import { toolAvailability, type ToolAvailability } from './budget';
import { CITE_TOOL_NAME, createCiteTool } from './citeTool';
import { compactEarlierTurns } from './contextManagement';
import { currentCitations, startQuestion, type Citation, type CitationStatus, type ConversationState, type ExecutionRecord } from './conversationState';
import { createExecuteCodeTool, EXECUTE_CODE_TOOL_NAME } from './executeCodeTool';
import { budgetNotices, buildInstructions, CITATION_REDIRECT_MESSAGE, type AgentMode } from './instructions';
import { toModelError, type ModelDescription } from './modelErrors';
import { createRagCiteTool, RAG_CITE_TOOL_NAME } from './ragCiteTool';
import { createRagSearchTool, RAG_SEARCH_TOOL_NAME } from './ragSearchTool';

/** The knobs of one run; `agentSettingsFromConfig` maps the configuration onto them. */
export interface AgentSettings {
  /** Search units per question (up to three searches in one response share a unit). */
  maxSearches: number;
  maxExecutions: number;
  /** Model requests per question before search tools are withdrawn; null disables. */
  requestLimit: number | null;
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
    domainPreamble: config.qa.domainPreamble,
    searchLimit: config.search.limit,
    vision: config.qa.model.vision,
    temperature: config.qa.model.temperature,
    codeTimeoutSeconds: config.sandbox.codeTimeoutSeconds,
    maxOutputChars: config.sandbox.maxOutputChars,
    citationPolicy: false,
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

const RAG_TOOL_NAMES: ReadonlySet<string> = new Set([RAG_SEARCH_TOOL_NAME, RAG_CITE_TOOL_NAME]);
const ANALYSIS_TOOL_NAMES: ReadonlySet<string> = new Set([ANALYSIS_SEARCH_TOOL_NAME, EXECUTE_CODE_TOOL_NAME, CITE_TOOL_NAME]);

function activeToolsFor(availability: ToolAvailability, all: string[], citeTool: string): string[] {
  return availability === 'all' ? all : availability === 'cite-only' ? [citeTool] : [];
}

/**
 * Answers one question with the rag and/or analysis tool sets: search with budget units, cite with repair,
 * run code in the sandbox, stream events, and return the answer with its citations and the updated state.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentAnswer> {
  const settings: AgentSettings = { ...defaultAgentSettings(), ...options.settings };
  const abortSignal = options.abortSignal;
  throwIfAborted(abortSignal, 'The question');
  const requestedMode = options.mode ?? 'auto';
  if (requestedMode === 'analysis' && !options.createSandbox) {
    throw new HaikuError('sandbox_failed', 'Analysis needs the code sandbox, which this host did not provide. Use ask (rag only) instead.');
  }
  // Without a sandbox the model can only route to the rag tools.
  const mode: AgentMode = requestedMode === 'auto' && !options.createSandbox ? 'rag' : requestedMode;
  const state = startQuestion(options.state, options.documentFilter);
  // Search errors go back to the model, so a filter that cannot run must fail here, before the model is called.
  if (state.documentFilter) {
    await options.knowledgeBase.listDocuments({ filter: state.documentFilter, abortSignal });
  }
  const run = new AgentRun({
    knowledgeBase: options.knowledgeBase,
    state,
    maxSearches: settings.maxSearches,
    maxExecutions: settings.maxExecutions,
    searchLimit: settings.searchLimit,
    vision: settings.vision,
    createSandbox: options.createSandbox,
    onEvent: options.onEvent,
    abortSignal,
  });

  const tools: ToolSet = {};
  if (mode !== 'analysis') {
    tools[RAG_SEARCH_TOOL_NAME] = createRagSearchTool(run);
    tools[RAG_CITE_TOOL_NAME] = createRagCiteTool(run);
  }
  if (mode !== 'rag') {
    tools[ANALYSIS_SEARCH_TOOL_NAME] = createAnalysisSearchTool(run);
    tools[EXECUTE_CODE_TOOL_NAME] = createExecuteCodeTool(run, settings);
    tools[CITE_TOOL_NAME] = createCiteTool(run);
  }
  const instructions = buildInstructions(mode, settings.domainPreamble);
  const requestLimit = settings.requestLimit;
  // Full requests, then each tool set's cite window, then one request to answer without tools.
  const maxRequests = requestLimit === null ? limits.AGENT_MAX_REQUESTS_UNLIMITED : requestLimit + 2 * limits.CITE_GRACE_REQUESTS + 1;

  const messages: ModelMessage[] = [...compactEarlierTurns(options.history ?? []), { role: 'user', content: options.question }];
  /** Tool names each model response of this question called, across turns (the request window reads it). */
  const toolNamesPerStep: string[][] = [];

  /** Which tools the request with this 0-based number may offer, and the notices that go with them. */
  const toolsForRequest = (stepNumber: number) => {
    const activeTools: string[] = [];
    const citeOnly: string[] = [];
    let withdrawn = false;
    if (mode !== 'analysis') {
      const availability = toolAvailability(stepNumber, toolNamesPerStep, requestLimit, RAG_TOOL_NAMES);
      activeTools.push(...activeToolsFor(availability, [RAG_SEARCH_TOOL_NAME, RAG_CITE_TOOL_NAME], RAG_CITE_TOOL_NAME));
      citeOnly.push(...(availability === 'cite-only' ? [RAG_CITE_TOOL_NAME] : []));
      withdrawn ||= availability !== 'all';
    }
    if (mode !== 'rag') {
      const availability = toolAvailability(stepNumber, toolNamesPerStep, requestLimit, ANALYSIS_TOOL_NAMES);
      activeTools.push(...activeToolsFor(availability, [ANALYSIS_SEARCH_TOOL_NAME, EXECUTE_CODE_TOOL_NAME, CITE_TOOL_NAME], CITE_TOOL_NAME));
      citeOnly.push(...(availability === 'cite-only' ? [CITE_TOOL_NAME] : []));
      withdrawn ||= availability !== 'all';
    }
    const notices = budgetNotices({
      searchToolsOffered: activeTools.filter((name) => name === RAG_SEARCH_TOOL_NAME || name === ANALYSIS_SEARCH_TOOL_NAME),
      searchBudgetSpent: run.searchBudget.spent,
      executeCodeOffered: activeTools.includes(EXECUTE_CODE_TOOL_NAME),
      executionBudgetSpent: run.executionBudget.spent,
      citeOnlyTools: citeOnly,
      toolsWithdrawn: withdrawn,
    });
    return { activeTools, system: notices.length > 0 ? `${instructions}\n\n${notices.join('\n')}` : instructions };
  };

  /** One tool loop over `turnMessages`; request numbers continue from earlier turns of the same question. */
  const runTurn = async (turnMessages: ModelMessage[]): Promise<{ texts: string[]; messages: ModelMessage[] }> => {
    const stepOffset = toolNamesPerStep.length;
    let streamError: unknown;
    const result = streamText({
      model: options.model,
      system: instructions,
      messages: turnMessages,
      tools,
      temperature: settings.temperature,
      maxRetries: options.maxRetries ?? limits.MODEL_MAX_RETRIES,
      abortSignal,
      stopWhen: stepCountIs(Math.max(1, maxRequests - stepOffset)),
      prepareStep: ({ stepNumber }) => {
        run.currentStep = stepOffset + stepNumber;
        return toolsForRequest(run.currentStep);
      },
      onStepFinish: (step) => {
        const toolNames = step.toolCalls.map((call) => call.toolName);
        toolNamesPerStep[run.currentStep] = toolNames;
        run.emit({ type: 'step-finished', stepNumber: run.currentStep, toolNames, finishReason: step.finishReason });
      },
      // Errors are read from the stream below; without this the SDK would also log them to the console.
      onError: () => undefined,
    });
    const texts: string[] = [''];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        texts[texts.length - 1] += part.text;
        run.emit({ type: 'text-delta', text: part.text, stepNumber: run.currentStep });
      } else if (part.type === 'finish-step') {
        texts.push('');
      } else if (part.type === 'error') {
        streamError ??= part.error;
      } else if (part.type === 'abort') {
        streamError ??= new CancelledError('The question');
      }
    }
    if (streamError !== undefined) {
      throw streamError;
    }
    throwIfAborted(abortSignal, 'The question');
    const response = await result.response;
    return { texts: texts.map((text) => text.trim()).filter((text) => text !== ''), messages: response.messages };
  };

  try {
    const first = await runTurn(messages);
    let texts = first.texts;
    const responseMessages = [...first.messages];
    // Citation policy (optional): an answer that used evidence but cited nothing gets one request to declare it.
    if (settings.citationPolicy && run.citationStatus() === 'missing' && toolsForRequest(toolNamesPerStep.length).activeTools.some((name) => name === RAG_CITE_TOOL_NAME || name === CITE_TOOL_NAME)) {
      const redirect: ModelMessage = { role: 'user', content: CITATION_REDIRECT_MESSAGE };
      const second = await runTurn([...messages, ...responseMessages, redirect]);
      responseMessages.push(redirect, ...second.messages);
      texts = second.texts.length > 0 ? second.texts : texts;
    }
    state.citationStatus = run.citationStatus();
    return {
      answer: texts.at(-1) ?? '',
      citations: currentCitations(state),
      executions: [...state.executions],
      citationStatus: state.citationStatus,
      state,
      responseMessages,
      requests: toolNamesPerStep.length,
    };
  } catch (error) {
    throw toModelError(error, options.modelDescription, abortSignal);
  } finally {
    await run.dispose();
  }
}
