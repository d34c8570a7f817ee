/**
 * What `ask`, `analyze` and `chat` share: the model from flags and environment, the agent run against the open
 * index, and the answer printed as text or JSON. The commands differ in the capability (tool sets) they run.
 */
import type { ModelMessage } from 'ai';
import type { AgentEvent } from '../../core/agent/agentEvents';
import type { Citation, ConversationState } from '../../core/agent/conversationState';
import type { AgentMode } from '../../core/agent/instructions';
import { agentSettingsFromConfig, runAgent, type AgentAnswer } from '../../core/agent/runAgent';
import { analysisModelOf } from '../../core/config';
import { createOpenAiCompatibleModel, type OpenAiCompatibleModelOptions } from '../agent/openAiCompatibleModel';
import { createCodeSandbox } from '../sandbox/codeSandbox';
import type { LanceStore } from '../store/lanceStore';
import { booleanFlag, type CliArgument, type CliOption, type CommandContext } from './command';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, FILTER_OPTION, RERANKER_OPTIONS, checkedFilter, embedderFromFlags, locationText, printJson, rerankerFromFlags, snippet, wantsJson, withStore } from './indexAccess';
import { commandConfig } from '../config/cliConfig';
import { settingFlagOption } from './settingFlags';
import { textArgument } from './textInput';
import { citationJson, executionJson } from '../../core/agent/answerJson';

/** Flags of `ask`, `analyze` and `chat`. */
export const QUESTION_OPTIONS: readonly CliOption[] = [
  ...DATABASE_OPTIONS,
  ...EMBEDDING_OPTIONS,
  ...RERANKER_OPTIONS,
  ...['base-url', 'model', 'api-key'].map(settingFlagOption),
  FILTER_OPTION,
  ...['thinking', 'vision'].map(settingFlagOption),
  { flags: '--verbose', description: 'Print each search, program run and citation on stderr as it happens.' },
  settingFlagOption('citation-policy'),
];

/** Flags of the analysis model (`analyze`, `mcp`); unset, the analysis capability runs on the question model. */
export const ANALYSIS_MODEL_OPTIONS: readonly CliOption[] = ['analysis-model', 'analysis-base-url'].map(settingFlagOption);

/** The question argument of `ask` and `analyze`. */
export const QUESTION_ARGUMENT: CliArgument = { syntax: '<question...>', description: 'The question (several words are one question; - reads it from standard input).' };

/** The question model's settings: flags, then `HAIKU_*` variables, then the config file's `qa.model`, then defaults (`ask`, `analyze`, `chat`, `mcp`). */
export function questionModelOptions(context: CommandContext): OpenAiCompatibleModelOptions {
  const { baseUrl, name, apiKey, apiKeyWithheld, temperature, vision, thinking } = commandConfig(context).qa.model;
  return { baseUrl, name, apiKey, apiKeyWithheld, temperature, vision, thinking };
}

/** The analysis model's settings: `analysis.model` (flags, `HAIKU_ANALYSIS_*`, the config file) over the question model's. */
export function analysisModelOptions(context: CommandContext): OpenAiCompatibleModelOptions {
  const { baseUrl, name, apiKey, apiKeyWithheld, temperature } = analysisModelOf(commandConfig(context));
  return { ...questionModelOptions(context), baseUrl, name, apiKey, apiKeyWithheld, temperature };
}

/** A question's model, built once per command. */
export function modelFromFlags(context: CommandContext): ReturnType<typeof createOpenAiCompatibleModel> {
  return createOpenAiCompatibleModel(questionModelOptions(context));
}

/** The conversation so far, for `chat`'s follow-up questions. */
export interface Conversation {
  history: ModelMessage[];
  state?: ConversationState;
}

/** `ask` and `analyze`: one question from the arguments (or stdin), answered and printed. */
export async function runSingleQuestion(context: CommandContext, mode: AgentMode, example: string): Promise<number> {
  const question = await textArgument(context, 'question', example);
  const model = mode === 'analysis' ? createOpenAiCompatibleModel(analysisModelOptions(context)) : modelFromFlags(context);
  const answer = await withStore(context, { embedder: embedderFromFlags(context), reranker: rerankerFromFlags(context) }, async (store) =>
    // The filter is checked against the index before the model is asked anything.
    answerQuestion(context, { store, model, mode, question, filter: await checkedFilter(context, store) }),
  );
  printAnswer(context, answer);
  return 0;
}

/** Answers one question with the given capability; `conversation` (if given) is read and extended. */
export async function answerQuestion(
  context: CommandContext,
  options: { store: LanceStore; model: ReturnType<typeof createOpenAiCompatibleModel>; mode: AgentMode; question: string; filter: string | undefined; conversation?: Conversation },
): Promise<AgentAnswer> {
  const { model, conversation } = options;
  const config = commandConfig(context);
  const sandboxLimits = config.sandbox;
  const answer = await runAgent({
    model: model.model,
    modelDescription: model.description,
    knowledgeBase: options.store,
    question: options.question,
    mode: options.mode,
    history: conversation?.history,
    state: conversation?.state,
    documentFilter: options.filter ?? null,
    settings: { ...agentSettingsFromConfig(config), vision: model.vision },
    // The rag capability runs no code: no sandbox is started for it.
    createSandbox:
      options.mode === 'rag'
        ? undefined
        : (host) =>
            createCodeSandbox({
              host,
              limits: { codeTimeoutSeconds: sandboxLimits.codeTimeoutSeconds, maxOutputChars: sandboxLimits.maxOutputChars, memoryLimitBytes: sandboxLimits.memoryLimitBytes },
              abortSignal: context.abortSignal,
            }),
    abortSignal: context.abortSignal,
    onEvent: booleanFlag(context, 'verbose') ? verbosePrinter(context) : undefined,
  });
  if (conversation) {
    conversation.history.push({ role: 'user', content: options.question }, ...answer.responseMessages);
    conversation.state = answer.state;
  }
  return answer;
}

/** Prints an answer as `--json` asks, or as text with its numbered citations. */
export function printAnswer(context: CommandContext, answer: AgentAnswer): void {
  if (wantsJson(context)) {
    printJson(context, {
      answer: answer.answer,
      citations: answer.citations.map(citationJson),
      executions: answer.executions.map(executionJson),
      citation_status: answer.citationStatus,
      requests: answer.requests,
    });
    return;
  }
  const lines = [answer.answer.trim() === '' ? '(The model gave no answer.)' : answer.answer.trim()];
  if (answer.citations.length > 0) {
    lines.push('', 'Citations:', ...answer.citations.map(citationLine));
  }
  context.io.stdout(lines.join('\n') + '\n');
}


function citationLine(citation: Citation): string {
  const where = locationText(citation.uri.replace(/^file:\/\//, ''), citation.sourceRange, citation.pageNumbers);
  const trail = [citation.title, ...citation.headings.filter((heading) => heading !== citation.title)].filter(Boolean).join(' > ');
  const figures = (citation.pictureRefs ?? []).map((ref) => `\n    [Figure: ${ref}]`).join('');
  return `[${citation.index}] ${trail}\n    ${where}${figures}\n    ${snippet(citation.content, 160)}`;
}

/** `--verbose`: what the agent does, on stderr as it happens, so stdout stays the answer. */
function verbosePrinter(context: CommandContext): (event: AgentEvent) => void {
  const write = (text: string) => context.io.stderr(text.endsWith('\n') ? text : `${text}\n`);
  return (event) => {
    switch (event.type) {
      case 'search-started':
        write(`» ${event.source}: ${event.query}`);
        break;
      case 'search-finished':
        if (event.refused) {
          write(`  search budget spent: "${event.query}" not run`);
        } else if (event.source === 'sandbox') {
          write(`  (in code) search "${event.query}": ${event.resultCount} result(s)`);
        } else {
          write(`  ${event.resultCount} result(s)`);
        }
        break;
      case 'execution-started':
        write(`» execute_code:\n${event.code.replace(/^/gm, '  | ')}`);
        break;
      case 'execution-finished': {
        const { execution } = event;
        write(`  ${execution.success ? 'ok' : 'failed'} in ${execution.durationMs} ms`);
        if (execution.stdout.trim() !== '') {
          write(execution.stdout.replace(/\n$/, '').replace(/^/gm, '  > '));
        }
        if (execution.stderr.trim() !== '') {
          write(execution.stderr.replace(/\n$/, '').replace(/^/gm, '  ! '));
        }
        break;
      }
      case 'pictures-attached':
        write(`  ${event.pictures.length} picture(s) shown: ${event.pictures.map((picture) => `${picture.selfRef} of [${picture.chunkId}]`).join(', ')}`);
        break;
      case 'citation-added':
        write(`» cited [${event.citation.index}] ${event.citation.title || event.citation.uri} (${event.citation.chunkId})`);
        break;
      default:
        break;
    }
  };
}
