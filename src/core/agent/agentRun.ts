import type { KnowledgeBase, SearchResult } from '../model/search';
import { errorMessage, isHaikuError, throwIfAborted } from '../errors';
import type { CodeSandbox, SandboxHost } from './codeSandbox';
import { createKnowledgeBaseSandboxHost } from '../analysis/knowledgeBaseSandboxHost';
import type { AgentEvent, AgentEventListener, SearchSource } from './agentEvents';
import { ExecutionBudget, SearchBudget } from './budget';
import { registerCitations, type CitationReport } from './citations';
import { recordSearch, type CitationStatus, type ConversationState } from './conversationState';
import type { ShownInResponse } from './searchRendering';
import { PictureAttachmentLedger } from './pictureAttachments';
import type { CapabilityName } from './instructions';

/** Makes the question's sandbox around a host the agent built (the Node layer passes `createCodeSandbox`). */
export type SandboxFactory = (host: SandboxHost) => Promise<CodeSandbox>;

export interface AgentRunOptions {
  knowledgeBase: KnowledgeBase;
  state: ConversationState;
  maxSearches: number;
  maxExecutions: number;
  /** Default `limit` of the rag and analysis search tools. */
  searchLimit: number;
  /** Whether picture bytes may be attached to search returns (the model can see images). */
  vision: boolean;
  createSandbox?: SandboxFactory;
  onEvent?: AgentEventListener;
  abortSignal?: AbortSignal;
}

/**
 * The mutable bookkeeping of one question: which model response is current, budgets, evidence shown per
 * response, the sandbox. Tools read and write it; it never leaves the run (the serialisable part is `state`).
 */
export class AgentRun {
  readonly knowledgeBase: KnowledgeBase;
  readonly state: ConversationState;
  /** Each capability's own search budget ("requests spent on other capabilities do not count"). */
  readonly searchBudgets: Readonly<Record<CapabilityName, SearchBudget>>;
  readonly executionBudget: ExecutionBudget;
  readonly searchLimit: number;
  readonly vision: boolean;
  readonly abortSignal: AbortSignal | undefined;
  /** 0-based number of the model response whose tool calls are executing (set before each model request). */
  currentStep = 0;
  /** Pictures shown to a vision model, per response (each attaches once per response). */
  readonly pictureAttachments = new PictureAttachmentLedger();
  private readonly shownPerStep = new Map<number, ShownInResponse>();
  private readonly declarations: Array<{ step: number; cited: boolean }> = [];
  private latestEvidenceStep = -1;
  private toolQueue: Promise<unknown> = Promise.resolve();
  private sandboxPromise: Promise<CodeSandbox> | undefined;
  private readonly createSandboxFactory: SandboxFactory | undefined;
  private readonly listener: AgentEventListener | undefined;

  constructor(options: AgentRunOptions) {
    this.knowledgeBase = options.knowledgeBase;
    this.state = options.state;
    this.searchBudgets = { rag: new SearchBudget(options.maxSearches), analysis: new SearchBudget(options.maxSearches) };
    this.executionBudget = new ExecutionBudget(options.maxExecutions);
    this.searchLimit = options.searchLimit;
    this.vision = options.vision;
    this.abortSignal = options.abortSignal;
    this.createSandboxFactory = options.createSandbox;
    this.listener = options.onEvent;
  }

  /** The budget a search tool spends: `rag_search` the rag capability's, `search` the analysis capability's. */
  searchBudgetFor(source: SearchSource): SearchBudget {
    return source === 'rag_search' ? this.searchBudgets.rag : this.searchBudgets.analysis;
  }

  /** The run's document filter: fixed by the host, never by the model. */
  get filter(): string | undefined {
    return this.state.documentFilter ?? undefined;
  }

  emit(event: AgentEvent): void {
    try {
      this.listener?.(event);
    } catch {
      // A failing UI listener must not break the answer.
    }
  }

  /**
   * Runs tool work one call at a time in the order the model emitted the calls (the SDK starts the calls of one
   * response together); that makes budget units and de-duplication deterministic.
   */
  serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.toolQueue.then(work, work);
    this.toolQueue = next.catch(() => undefined);
    return next;
  }

  /** Evidence shown so far in the current response. */
  shownInCurrentResponse(): ShownInResponse {
    let shown = this.shownPerStep.get(this.currentStep);
    if (!shown) {
      shown = new Map();
      this.shownPerStep.set(this.currentStep, shown);
    }
    return shown;
  }

  /**
   * A search scoped by the run's filter, with context expansion, recorded in state as evidence. A failed search
   * rejects with `SearchFailedError` (the tools hand its message to the model); cancellation rejects as is.
   */
  async search(query: string, limit: number, source: SearchSource, toolCallId?: string): Promise<SearchResult[]> {
    throwIfAborted(this.abortSignal);
    this.emit({ type: 'search-started', source, query, toolCallId });
    let results: SearchResult[];
    try {
      results = await this.knowledgeBase.search(query, { limit, filter: this.filter, expand: true, abortSignal: this.abortSignal });
    } catch (error) {
      throwIfAborted(this.abortSignal);
      if (isHaikuError(error, 'cancelled')) {
        throw error;
      }
      this.emit({ type: 'search-finished', source, query, resultCount: 0, results: [], toolCallId, error: errorMessage(error) });
      throw new SearchFailedError(error);
    }
    recordSearch(this.state, query, results);
    this.noteEvidence();
    this.emit({ type: 'search-finished', source, query, resultCount: results.length, results, toolCallId });
    return results;
  }

  /** Registers citations (repairing near misses, falling back to the store within the filter). */
  async cite(chunkIds: readonly string[]): Promise<CitationReport> {
    const report = await registerCitations(this.state, this.knowledgeBase, chunkIds, {
      onCitationAdded: (citation) => this.emit({ type: 'citation-added', citation }),
    });
    // A cite whose ids all failed declares nothing: the question stays `missing` (the tool says so to the model).
    if (report.accepted.length > 0 || chunkIds.length === 0) {
      this.declarations.push({ step: this.currentStep, cited: report.accepted.length > 0 });
    }
    return report;
  }

  /** A search or execution happened in the current response. */
  noteEvidence(): void {
    this.latestEvidenceStep = Math.max(this.latestEvidenceStep, this.currentStep);
  }

  /**
   * Grounding of the question: a declaration counts only when made in a later response than the newest evidence
   * (citing in the same response as a search does not count; searching after citing makes it `missing` again).
   * Repeated declarations merge, so an empty cite cannot un-ground a grounded question.
   */
  citationStatus(): CitationStatus {
    const current = this.declarations.filter((declaration) => declaration.step > this.latestEvidenceStep);
    if (current.some((declaration) => declaration.cited)) {
      return 'grounded';
    }
    if (current.length > 0) {
      return 'ungrounded';
    }
    return this.latestEvidenceStep >= 0 ? 'missing' : 'none';
  }

  /** The question's sandbox, created on first use (variables persist across calls of one question). */
  sandbox(): Promise<CodeSandbox> {
    if (!this.createSandboxFactory) {
      return Promise.reject(new Error('No code sandbox is available in this host.'));
    }
    this.sandboxPromise ??= this.createSandboxFactory(this.sandboxHost());
    return this.sandboxPromise;
  }

  /**
   * The guest's view of the host: search, listing and the VFS scoped by the run's filter; in-code searches are
   * recorded as evidence (citable afterwards) and in-code `cite()` goes through the run's citation registry.
   */
  sandboxHost(): SandboxHost {
    return createKnowledgeBaseSandboxHost({
      knowledgeBase: this.knowledgeBase,
      filter: this.filter,
      onSearch: (query, results) => {
        recordSearch(this.state, query, results);
        this.noteEvidence();
        this.emit({ type: 'search-finished', source: 'sandbox', query, resultCount: results.length, results });
      },
      cite: async (chunkIds) => {
        const report = await this.cite(chunkIds);
        return { accepted: report.accepted, unknown: report.unknown };
      },
    });
  }

  /**
   * Starts the question's sandbox before its first use, when code will run (analysis chosen): the worker's start-up
   * and warm-up then overlap the model's response instead of delaying the first `execute_code`. A failure to start
   * is reported by that first use.
   */
  prepareSandbox(): void {
    if (this.createSandboxFactory && !this.sandboxPromise && !this.abortSignal?.aborted) {
      this.sandbox().catch(() => undefined);
    }
  }

  /** Forgets a sandbox that failed to start, so the next call tries again. */
  discardSandbox(): void {
    this.sandboxPromise = undefined;
  }

  async dispose(): Promise<void> {
    const pending = this.sandboxPromise;
    this.sandboxPromise = undefined;
    if (pending) {
      try {
        await (await pending).dispose();
      } catch {
        // The sandbox failed to start or is already gone; nothing to release.
      }
    }
  }
}

/** A search that failed inside the agent: the model is told and may rephrase; the run goes on. */
export class SearchFailedError extends Error {
  constructor(cause: unknown) {
    super(`The search failed: ${errorMessage(cause)}`, { cause });
    this.name = 'SearchFailedError';
  }
}
