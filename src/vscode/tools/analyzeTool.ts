import * as vscode from 'vscode';
import type { LanguageModel } from 'ai';
import type { SandboxFactory } from '../../core/agent/agentRun';
import type { AgentAnswer } from '../../core/agent/runAgent';
import type { ResolvedModel } from '../analysisModel';
import { locationLabel } from '../citationFormat';
import { TOOL_NAMES } from '../contributionIds';
import { languageModelFromChat } from '../languageModelAdapter';
import { documentFilterForTool, signalOf, textResult, type ToolContext } from './toolSupport';

export interface AnalyzeToolInput {
  question: string;
  /** Workspace-relative path of one document to analyse (optional). */
  path?: string;
}

/** What `haiku_analyze` needs beyond the other tools: the agent, the sandbox and a model, all loaded on first use. */
export interface AnalyzeToolContext extends ToolContext {
  loadAgent: () => Promise<typeof import('../../core/agent/runAgent')>;
  loadSandboxFactory: () => Promise<SandboxFactory | undefined>;
  /** `haiku.analysis.model.*`, else the `haiku.model` endpoint; undefined: a chat model answers. */
  configuredModel: () => Promise<ResolvedModel | undefined>;
}

/**
 * The chat model the tool runs on when no model is configured. A tool invocation does not say which model the chat
 * uses (1.104 has no such field), so: Copilot's first model if present, else the first one VS Code offers.
 */
async function chatModel(justification: string): Promise<{ model: LanguageModel; description: string } | undefined> {
  const models = await vscode.lm.selectChatModels();
  const chosen = models.find((model) => model.vendor === 'copilot') ?? models[0];
  return chosen ? { model: languageModelFromChat(chosen, { justification }), description: `${chosen.vendor}/${chosen.id}` } : undefined;
}

/** The answer and its numbered citations (path, lines or page, section), as the calling model reads them. */
export function formatAnalysis(answer: AgentAnswer, relativePathOf: (uri: string) => string): string {
  const text = answer.answer.trim() === '' ? '(The analysis gave no answer.)' : answer.answer.trim();
  if (answer.citations.length === 0) {
    return `${text}\n\n(No citations: the answer rests on computation over the documents, or nothing supported it.)`;
  }
  const lines = answer.citations.map((citation) => {
    const location = locationLabel(citation.sourceRange, citation.pageNumbers);
    const section = citation.headings.at(-1);
    return `[${citation.index}] ${relativePathOf(citation.uri)}${location ? ` ${location}` : ''}${section ? ` — ${section}` : ''}`;
  });
  return `${text}\n\nCitations:\n${lines.join('\n')}`;
}

/**
 * `haiku_analyze`: the analysis capability (JavaScript in the sandbox over the documents, search, cite) on the
 * configured analysis model or a chat model. It runs code, so VS Code asks for confirmation first.
 */
export function registerAnalyzeTool(context: AnalyzeToolContext): vscode.Disposable {
  return vscode.lm.registerTool<AnalyzeToolInput>(TOOL_NAMES.analyze, createAnalyzeTool(context));
}

/** The tool's implementation (registered by `registerAnalyzeTool`). */
export function createAnalyzeTool(context: AnalyzeToolContext): vscode.LanguageModelTool<AnalyzeToolInput> {
  return {
    prepareInvocation(options) {
      const question = String(options.input.question ?? '');
      return {
        invocationMessage: vscode.l10n.t('Analysing the workspace documents: "{0}"', question),
        confirmationMessages: {
          title: vscode.l10n.t('Run code over the workspace documents?'),
          message: new vscode.MarkdownString(
            vscode.l10n.t('To answer **{0}**, a language model will write and run JavaScript in Haiku\'s sandbox over the indexed documents (read-only, no network, no file access outside the index).', question),
          ),
        },
      };
    },
    async invoke(options, token) {
      const { question, path } = options.input;
      if (typeof question !== 'string' || question.trim() === '') {
        return textResult('Give a non-empty "question".');
      }
      const justification = vscode.l10n.t('Haiku analyses your workspace documents by running code over them.');
      const [agent, createSandbox, configured] = await Promise.all([context.loadAgent(), context.loadSandboxFactory(), context.configuredModel()]);
      if (!createSandbox) {
        return textResult('The analysis sandbox is not available in this build of Haiku; use haiku_search and haiku_readSection instead.');
      }
      const resolved = configured ?? (await chatModel(justification));
      if (!resolved) {
        return textResult('No language model is available for the analysis: pick a chat model, or set haiku.analysis.model.name or haiku.model.baseUrl and haiku.model.name.');
      }
      const settings = agent.agentSettingsFromConfig(context.getConfig());
      if (configured?.baseUrl === undefined) {
        // A chat model decides its own sampling.
        settings.temperature = undefined;
      }
      const knowledgeBase = await context.knowledgeBase();
      const documentFilter = await documentFilterForTool(knowledgeBase, path, token);
      if (documentFilter instanceof vscode.LanguageModelToolResult) {
        return documentFilter;
      }
      const answer = await agent.runAgent({
        model: resolved.model,
        modelDescription: { name: resolved.description, baseUrl: configured?.baseUrl },
        knowledgeBase,
        question,
        mode: 'analysis',
        documentFilter: documentFilter.filter ?? null,
        settings,
        createSandbox,
        abortSignal: signalOf(token),
      });
      return textResult(formatAnalysis(answer, context.relativePathOf));
    },
  };
}
