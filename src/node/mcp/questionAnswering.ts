import type { AgentEvent, AgentEventListener } from '../../core/agent/agentEvents';
import { citationJson, executionJson } from '../../core/agent/answerJson';
import type { Citation } from '../../core/agent/conversationState';
import type { AgentMode } from '../../core/agent/instructions';
import { agentSettingsFromConfig, runAgent, type AgentAnswer } from '../../core/agent/runAgent';
import { defaultConfig } from '../../core/config';
import { createCodeSandbox } from '../sandbox/codeSandbox';
import { locationJson, whereText } from './documentText';
import type { McpToolContext } from './toolContext';
import type { ToolProgress } from './toolResult';

/** One question through the agent with one capability: `rag` for `ask_question`, `analysis` for `analyze`. */
export async function answerQuestion(
  context: McpToolContext,
  options: { question: string; mode: Exclude<AgentMode, 'auto'>; filter?: string; abortSignal: AbortSignal; onEvent?: AgentEventListener },
): Promise<AgentAnswer> {
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
    onEvent: options.onEvent,
  });
}

/** The agent's steps as progress messages (text deltas are too many to send; the heartbeat covers a slow model). */
export function progressFromAgentEvents(progress: ToolProgress): AgentEventListener {
  return (event: AgentEvent) => {
    switch (event.type) {
      case 'search-started':
        progress.report(`Searching: ${event.query}`);
        break;
      case 'execution-started':
        progress.report('Running code over the documents.');
        break;
      case 'step-finished':
        // The answer's own step needs no report: the result follows at once.
        if (event.toolNames.length > 0) {
          progress.report(`The model called ${event.toolNames.join(', ')}.`);
        }
        break;
      default:
        break;
    }
  };
}

/** The answer's text ('(no answer)' when the model gave none). */
export function answerText(answer: AgentAnswer): string {
  const text = answer.answer.trim();
  return text === '' ? '(The model gave no answer.)' : text;
}

/** Document id → its path in the index, for citations (which carry only the URI). */
export async function relativePathsOf(context: McpToolContext, citations: readonly Citation[], abortSignal: AbortSignal): Promise<Map<string, string>> {
  if (citations.length === 0) {
    return new Map();
  }
  const documents = await context.store.listDocuments({ abortSignal });
  return new Map(documents.map((document) => [document.id, document.relativePath]));
}

/** A citation as structured content (`citationOutputSchema`): the CLI's `--json` citation, plus the document's path and a 1-based location. */
export function citationOutput(citation: Citation, relativePaths: ReadonlyMap<string, string>) {
  return {
    ...citationJson(citation),
    relative_path: relativePaths.get(citation.documentId) ?? citation.uri,
    location: locationJson([citation.sourceRange], citation.pageNumbers),
  };
}

/** One `execute_code` run of an analysis as structured content (`executionOutputSchema`). */
export const executionOutput = executionJson;

/**
 * The plain-text citation block, after haiku.rag's MCP server: `## Citations`, then per citation
 * `[n] title uri - lines a-b, Section: …`, a line with its document path and chunk ids, and the cited text, so a
 * client that reads only the text can still check and quote the sources.
 */
export function citationBlock(citations: readonly Citation[], relativePaths: ReadonlyMap<string, string>): string {
  if (citations.length === 0) {
    return '## Citations\n\n(none: the answer cites no document)';
  }
  const entries = citations.map((citation) => {
    const where = whereText([citation.sourceRange], citation.pageNumbers);
    const section = citation.headings.at(-1);
    const details = [where, section ? `Section: ${section}` : ''].filter(Boolean).join(', ');
    const source = `Document: ${relativePaths.get(citation.documentId) ?? citation.uri} (id ${citation.documentId}); chunk ids: ${citation.chunkIds.join(', ')}`;
    return `[${citation.index}] ${citation.title || citation.uri} ${citation.uri}${details ? ` - ${details}` : ''}\n${source}\n${citation.content.trim()}`;
  });
  return `## Citations\n\n${entries.join('\n\n')}`;
}
