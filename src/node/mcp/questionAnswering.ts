import type { Citation } from '../../core/agent/conversationState';
import type { AgentMode } from '../../core/agent/instructions';
import { agentSettingsFromConfig, runAgent, type AgentAnswer } from '../../core/agent/runAgent';
import { defaultConfig } from '../../core/config';
import { createCodeSandbox } from '../sandbox/codeSandbox';
import { whereText } from './documentText';
import type { McpToolContext } from './toolContext';

/** One question through the agent with one capability: `rag` for `ask_question`, `analysis` for `analyze`. */
export async function answerQuestion(context: McpToolContext, options: { question: string; mode: Exclude<AgentMode, 'auto'>; filter?: string; abortSignal: AbortSignal }): Promise<AgentAnswer> {
  const { model, description, vision } = options.mode === 'analysis' ? context.analysisModel() : context.model();
  return runAgent({
    model,
    modelDescription: description,
    knowledgeBase: context.store,
    question: options.question,
    mode: options.mode,
    documentFilter: options.filter ?? null,
    settings: { ...(context.agentSettings ?? agentSettingsFromConfig(defaultConfig())), vision },
    createSandbox: options.mode === 'analysis' ? (host) => createCodeSandbox({ host, limits: context.sandboxLimits, abortSignal: options.abortSignal }) : undefined,
    abortSignal: options.abortSignal,
  });
}

/** The answer's text ('(no answer)' when the model gave none). */
export function answerText(answer: AgentAnswer): string {
  const text = answer.answer.trim();
  return text === '' ? '(The model gave no answer.)' : text;
}

/** The plain-text citation block of haiku.rag's MCP server: `## Citations`, then `[n] title uri - p. N, Section: …` and the content. */
export function citationBlock(citations: readonly Citation[]): string {
  if (citations.length === 0) {
    return '## Citations\n\n(none: the answer cites no document)';
  }
  const entries = citations.map((citation) => {
    const where = whereText([citation.sourceRange], citation.pageNumbers);
    const section = citation.headings.at(-1);
    const details = [where, section ? `Section: ${section}` : ''].filter(Boolean).join(', ');
    return `[${citation.index}] ${citation.title || citation.uri} ${citation.uri}${details ? ` - ${details}` : ''}\n${citation.content.trim()}`;
  });
  return `## Citations\n\n${entries.join('\n\n')}`;
}
