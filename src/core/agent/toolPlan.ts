import type { ToolSet } from 'ai';
import type { AgentRun } from './agentRun';
import { ANALYSIS_SEARCH_TOOL_NAME, createAnalysisSearchTool } from './analysisSearchTool';
import { toolAvailability, type ToolAvailability } from './budget';
import { CITE_TOOL_NAME, createCiteTool } from './citeTool';
import { createExecuteCodeTool, EXECUTE_CODE_TOOL_NAME } from './executeCodeTool';
import { budgetNotices, buildInstructions, type AgentMode } from './instructions';
import { createRagCiteTool, RAG_CITE_TOOL_NAME } from './ragCiteTool';
import { createRagSearchTool, RAG_SEARCH_TOOL_NAME } from './ragSearchTool';

/** What one model request may offer: the tool names and the system text (instructions plus notices). */
export interface RequestTools {
  activeTools: string[];
  system: string;
}

/** A tool set (capability): its tools, in the order they are offered, and its cite tool. */
interface ToolSetShape {
  toolNames: readonly string[];
  citeToolName: string;
  create(run: AgentRun, limits: { codeTimeoutSeconds: number; maxOutputChars: number }): ToolSet;
}

const RAG_TOOL_SET: ToolSetShape = {
  toolNames: [RAG_SEARCH_TOOL_NAME, RAG_CITE_TOOL_NAME],
  citeToolName: RAG_CITE_TOOL_NAME,
  create: (run) => ({ [RAG_SEARCH_TOOL_NAME]: createRagSearchTool(run), [RAG_CITE_TOOL_NAME]: createRagCiteTool(run) }),
};

const ANALYSIS_TOOL_SET: ToolSetShape = {
  toolNames: [ANALYSIS_SEARCH_TOOL_NAME, EXECUTE_CODE_TOOL_NAME, CITE_TOOL_NAME],
  citeToolName: CITE_TOOL_NAME,
  create: (run, limits) => ({
    [ANALYSIS_SEARCH_TOOL_NAME]: createAnalysisSearchTool(run),
    [EXECUTE_CODE_TOOL_NAME]: createExecuteCodeTool(run, limits),
    [CITE_TOOL_NAME]: createCiteTool(run),
  }),
};

function offeredBy(availability: ToolAvailability, toolSet: ToolSetShape): string[] {
  return availability === 'all' ? [...toolSet.toolNames] : availability === 'cite-only' ? [toolSet.citeToolName] : [];
}

/**
 * The tools of one run and which of them each request may offer: every tool set has its request limit and cite
 * window (`toolAvailability`), and each request's instructions carry the notices for what is spent or withdrawn.
 */
export class ToolPlan {
  readonly tools: ToolSet = {};
  readonly instructions: string;
  private readonly toolSets: ToolSetShape[] = [];
  /** Tool names each model response of the question called, by request number (the request window reads it). */
  readonly toolNamesPerStep: string[][] = [];

  constructor(
    private readonly run: AgentRun,
    mode: AgentMode,
    private readonly settings: { requestLimit: number | null; domainPreamble: string; codeTimeoutSeconds: number; maxOutputChars: number },
  ) {
    if (mode !== 'analysis') {
      this.toolSets.push(RAG_TOOL_SET);
    }
    if (mode !== 'rag') {
      this.toolSets.push(ANALYSIS_TOOL_SET);
    }
    for (const toolSet of this.toolSets) {
      Object.assign(this.tools, toolSet.create(run, settings));
    }
    this.instructions = buildInstructions(mode, settings.domainPreamble);
  }

  /** Requests made so far in this question. */
  get requestsMade(): number {
    return this.toolNamesPerStep.length;
  }

  /** Records what the response to request `step` called. */
  recordResponse(step: number, toolNames: string[]): void {
    this.toolNamesPerStep[step] = toolNames;
  }

  /** The tools and instructions of request `step` (0-based). */
  forRequest(step: number): RequestTools {
    const activeTools: string[] = [];
    const citeOnly: string[] = [];
    let withdrawn = false;
    for (const toolSet of this.toolSets) {
      const availability = toolAvailability(step, this.toolNamesPerStep, this.settings.requestLimit, new Set(toolSet.toolNames));
      activeTools.push(...offeredBy(availability, toolSet));
      citeOnly.push(...(availability === 'cite-only' ? [toolSet.citeToolName] : []));
      withdrawn ||= availability !== 'all';
    }
    const notices = budgetNotices({
      searchToolsOffered: activeTools.filter((name) => name === RAG_SEARCH_TOOL_NAME || name === ANALYSIS_SEARCH_TOOL_NAME),
      searchBudgetSpent: this.run.searchBudget.spent,
      executeCodeOffered: activeTools.includes(EXECUTE_CODE_TOOL_NAME),
      executionBudgetSpent: this.run.executionBudget.spent,
      citeOnlyTools: citeOnly,
      toolsWithdrawn: withdrawn,
    });
    return { activeTools, system: notices.length > 0 ? `${this.instructions}\n\n${notices.join('\n')}` : this.instructions };
  }

  /** Whether the next request would still offer a cite tool (the citation policy needs one). */
  offersCiteNext(): boolean {
    const offered = this.forRequest(this.requestsMade).activeTools;
    return this.toolSets.some((toolSet) => offered.includes(toolSet.citeToolName));
  }
}
