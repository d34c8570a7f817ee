import type { ToolSet } from 'ai';
import { AGENT_MAX_REQUESTS_UNLIMITED, CITE_GRACE_REQUESTS } from '../limits';
import type { AgentRun } from './agentRun';
import { ANALYSIS_SEARCH_TOOL_NAME, createAnalysisSearchTool } from './analysisSearchTool';
import { toolAvailability } from './budget';
import { CITE_TOOL_NAME, createCiteTool } from './citeTool';
import { createExecuteCodeTool, EXECUTE_CODE_TOOL_NAME } from './executeCodeTool';
import { budgetNotices, buildInstructions, type CapabilityBudgetView, type CapabilityName } from './instructions';
import { createLoadCapabilityTool, LOAD_CAPABILITY_TOOL_NAME } from './loadCapabilityTool';
import { createRagCiteTool, RAG_CITE_TOOL_NAME } from './ragCiteTool';
import { createRagSearchTool, RAG_SEARCH_TOOL_NAME } from './ragSearchTool';

/** What one model request may offer: the tool names and the system text (instructions plus notices). */
export interface RequestTools {
  activeTools: string[];
  system: string;
}

/** The settings a plan reads. */
export interface ToolPlanSettings {
  /** Request limit of the rag capability (null disables). */
  requestLimit: number | null;
  /** Request limit of the analysis capability (null disables). */
  analysisRequestLimit: number | null;
  domainPreamble: string;
  codeTimeoutSeconds: number;
  maxOutputChars: number;
}

/** A capability's tools, in the order they are offered, and its search and cite tools. */
interface CapabilityShape {
  toolNames: readonly string[];
  searchToolName: string;
  citeToolName: string;
  create(run: AgentRun, limits: { codeTimeoutSeconds: number; maxOutputChars: number }): ToolSet;
}

const CAPABILITY_SHAPES: Readonly<Record<CapabilityName, CapabilityShape>> = {
  rag: {
    toolNames: [RAG_SEARCH_TOOL_NAME, RAG_CITE_TOOL_NAME],
    searchToolName: RAG_SEARCH_TOOL_NAME,
    citeToolName: RAG_CITE_TOOL_NAME,
    create: (run) => ({ [RAG_SEARCH_TOOL_NAME]: createRagSearchTool(run), [RAG_CITE_TOOL_NAME]: createRagCiteTool(run) }),
  },
  analysis: {
    toolNames: [ANALYSIS_SEARCH_TOOL_NAME, EXECUTE_CODE_TOOL_NAME, CITE_TOOL_NAME],
    searchToolName: ANALYSIS_SEARCH_TOOL_NAME,
    citeToolName: CITE_TOOL_NAME,
    create: (run, limits) => ({
      [ANALYSIS_SEARCH_TOOL_NAME]: createAnalysisSearchTool(run),
      [EXECUTE_CODE_TOOL_NAME]: createExecuteCodeTool(run, limits),
      [CITE_TOOL_NAME]: createCiteTool(run),
    }),
  },
};

/** One capability of this run: its request limit and from which request on it is active (undefined: not loaded). */
interface CapabilityInRun {
  name: CapabilityName;
  shape: CapabilityShape;
  toolNameSet: ReadonlySet<string>;
  requestLimit: number | null;
  activeFrom: number | undefined;
}

/**
 * The capabilities (tool sets) of one run and what each request may offer. Every capability has its own search
 * budget, request limit and cite window, counted from the request it became active; withdrawing one capability's
 * tools leaves the other's. Deferred (routed mode), a capability is a line in the instructions until the model
 * calls `load_capability`; from the next request on its instructions and tools stay for the rest of the question.
 */
export class ToolPlan {
  readonly tools: ToolSet = {};
  private readonly capabilities: CapabilityInRun[];
  /** Tool names each model response of the question called, by request number (the request windows read it). */
  private readonly toolNamesPerStep: string[][] = [];

  constructor(
    private readonly run: AgentRun,
    names: readonly [CapabilityName, ...CapabilityName[]],
    private readonly settings: ToolPlanSettings,
    private readonly deferred: boolean,
  ) {
    this.capabilities = names.map((name) => ({
      name,
      shape: CAPABILITY_SHAPES[name],
      toolNameSet: new Set(CAPABILITY_SHAPES[name].toolNames),
      requestLimit: name === 'rag' ? settings.requestLimit : settings.analysisRequestLimit,
      activeFrom: deferred ? undefined : 0,
    }));
    for (const capability of this.capabilities) {
      Object.assign(this.tools, capability.shape.create(run, settings));
    }
    if (deferred) {
      this.tools[LOAD_CAPABILITY_TOOL_NAME] = createLoadCapabilityTool({ load: (name) => this.load(name) }, names);
    }
  }

  /** The instructions of the first request (the SDK's `system` before `prepareStep` adjusts it). */
  get instructions(): string {
    return this.instructionsNow();
  }

  /** Requests made so far in this question. */
  get requestsMade(): number {
    return this.toolNamesPerStep.length;
  }

  /**
   * The most requests the question may make: each capability's limit and cite window, a request per deferred load,
   * and one to answer without tools (or the hard stop when a limit is disabled).
   */
  get maxRequests(): number {
    let total = 1;
    for (const capability of this.capabilities) {
      if (capability.requestLimit === null) {
        return AGENT_MAX_REQUESTS_UNLIMITED;
      }
      total += capability.requestLimit + 2 * CITE_GRACE_REQUESTS + (this.deferred ? 1 : 0);
    }
    return total;
  }

  /** Records what the response to request `step` called. */
  recordResponse(step: number, toolNames: string[]): void {
    this.toolNamesPerStep[step] = toolNames;
  }

  /** The tools and instructions of request `step` (0-based). */
  forRequest(step: number): RequestTools {
    const activeTools: string[] = [];
    const views: CapabilityBudgetView[] = [];
    for (const capability of this.capabilities) {
      if (capability.activeFrom === undefined || capability.activeFrom > step) {
        continue;
      }
      const availability = toolAvailability(step, this.toolNamesPerStep, capability.requestLimit, capability.toolNameSet, capability.activeFrom);
      const offered = availability === 'all' ? [...capability.shape.toolNames] : availability === 'cite-only' ? [capability.shape.citeToolName] : [];
      activeTools.push(...offered);
      views.push({
        name: capability.name,
        offered,
        searchToolName: capability.shape.searchToolName,
        searchBudgetSpent: this.run.searchBudgets[capability.name].spent,
        executionBudgetSpent: capability.name === 'analysis' && this.run.executionBudget.spent,
        citeToolName: capability.shape.citeToolName,
        availability,
      });
    }
    if (this.notLoaded().length > 0) {
      activeTools.push(LOAD_CAPABILITY_TOOL_NAME);
    }
    const instructions = this.instructionsNow(step);
    const notices = budgetNotices(views);
    return { activeTools, system: notices.length > 0 ? `${instructions}\n\n${notices.join('\n')}` : instructions };
  }

  /**
   * Makes the next request offer a cite tool if it can, and says whether it does (the citation policy needs one).
   * Deferred with nothing loaded yet (a follow-up answered from earlier citations), the host loads the first capability.
   */
  ensureCiteToolNext(): boolean {
    const next = this.requestsMade;
    if (this.deferred && this.loadedBy(next).length === 0) {
      this.capabilities[0].activeFrom = next;
    }
    const offered = this.forRequest(next).activeTools;
    return this.capabilities.some((capability) => offered.includes(capability.shape.citeToolName));
  }

  /** Capabilities loaded (or not deferred) by request `step`, in load order. */
  loadedBy(step: number): CapabilityName[] {
    return this.capabilities
      .filter((capability): capability is CapabilityInRun & { activeFrom: number } => capability.activeFrom !== undefined && capability.activeFrom <= step)
      .sort((left, right) => left.activeFrom - right.activeFrom)
      .map((capability) => capability.name);
  }

  private notLoaded(): CapabilityName[] {
    return this.capabilities.filter((capability) => capability.activeFrom === undefined).map((capability) => capability.name);
  }

  private instructionsNow(step = this.requestsMade): string {
    const deferred = this.deferred ? { loaderToolName: LOAD_CAPABILITY_TOOL_NAME, notLoaded: this.notLoaded() } : undefined;
    return buildInstructions(this.loadedBy(step), this.settings.domainPreamble, deferred);
  }

  /** The loader tool's work: active from the request after the current one. */
  private load(name: CapabilityName): string {
    const capability = this.capabilities.find((candidate) => candidate.name === name);
    if (!capability) {
      return `There is no capability named ${name}.`;
    }
    if (capability.activeFrom !== undefined) {
      return `${name} is already loaded; use its tools (${capability.shape.toolNames.join(', ')}).`;
    }
    capability.activeFrom = this.run.currentStep + 1;
    if (name === 'analysis') {
      this.run.prepareSandbox();
    }
    return `Loaded ${name}: its tools (${capability.shape.toolNames.join(', ')}) and instructions are available from your next response on.`;
  }
}
