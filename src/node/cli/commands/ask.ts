import type { AgentEvent } from '../../../core/agent/agentEvents';
import type { Citation, ExecutionRecord } from '../../../core/agent/conversationState';
import type { AgentMode } from '../../../core/agent/instructions';
import { runAgent } from '../../../core/agent/runAgent';
import { defaultConfig } from '../../../core/config';
import { HaikuError } from '../../../core/errors';
import { createOpenAiCompatibleModel, type OpenAiCompatibleModelOptions } from '../../agent/openAiCompatibleModel';
import { createCodeSandbox } from '../../sandbox/codeSandbox';
import { stringFlag, type CliCommand, type CommandContext } from '../command';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, embedderFromFlags, locationText, printJson, snippet, wantsJson, withStore } from '../indexAccess';

/** Flags of `ask` and `analyze`. */
export const QUESTION_OPTIONS: CliCommand['options'] = {
  ...DATABASE_OPTIONS,
  ...EMBEDDING_OPTIONS,
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key': { type: 'string' },
  filter: { type: 'string' },
  thinking: { type: 'boolean' },
  verbose: { type: 'boolean' },
};

/** The `--json` shape of one citation (snake_case, like the rest of the CLI's JSON). */
export function citationJson(citation: Citation) {
  return {
    index: citation.index,
    chunk_id: citation.chunkId,
    chunk_ids: citation.chunkIds,
    document_id: citation.documentId,
    uri: citation.uri,
    title: citation.title,
    headings: citation.headings,
    page_numbers: citation.pageNumbers,
    content: citation.content,
    source_range: citation.sourceRange ?? null,
  };
}

export function executionJson(execution: ExecutionRecord) {
  return { code: execution.code, stdout: execution.stdout, stderr: execution.stderr, success: execution.success, duration_ms: execution.durationMs };
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
      case 'citation-added':
        write(`» cited [${event.citation.index}] ${event.citation.title || event.citation.uri} (${event.citation.chunkId})`);
        break;
      default:
        break;
    }
  };
}

function citationLine(citation: Citation): string {
  const where = locationText(citation.uri.replace(/^file:\/\//, ''), citation.sourceRange, citation.pageNumbers);
  const trail = [citation.title, ...citation.headings.filter((heading) => heading !== citation.title)].filter(Boolean).join(' > ');
  return `[${citation.index}] ${trail}\n    ${where}\n    ${snippet(citation.content, 160)}`;
}

/** The question model from `--base-url`/`--model`/`--api-key`/`--thinking`, then HAIKU_* variables, then the defaults (`ask`, `analyze`, `mcp`). */
export function questionModelOptions(context: CommandContext): OpenAiCompatibleModelOptions {
  const env = context.io.env;
  const settings = defaultConfig().qa.model;
  return {
    baseUrl: stringFlag(context, 'base-url') ?? env.HAIKU_BASE_URL ?? settings.baseUrl,
    name: stringFlag(context, 'model') ?? env.HAIKU_MODEL ?? settings.name,
    apiKey: stringFlag(context, 'api-key') ?? env.HAIKU_API_KEY,
    temperature: settings.temperature,
    vision: settings.vision,
    thinking: context.flags.thinking === true,
  };
}

/** Runs one question through the agent for `ask` (both tool sets, the model routes) and `analyze` (analysis only). */
export async function runQuestionCommand(context: CommandContext, mode: AgentMode): Promise<number> {
  const question = context.positionals.join(' ').trim();
  if (!question) {
    throw new HaikuError('invalid_settings', `Give a question, e.g. \`haiku ${mode === 'analysis' ? 'analyze' : 'ask'} "How many documents mention caching?"\`.`);
  }
  const settings = defaultConfig().qa.model;
  const { model, description, vision } = createOpenAiCompatibleModel(questionModelOptions(context));
  const sandboxLimits = defaultConfig().sandbox;
  const answer = await withStore(context, { embedder: embedderFromFlags(context) }, (store) =>
    runAgent({
      model,
      modelDescription: description,
      knowledgeBase: store,
      question,
      mode,
      documentFilter: stringFlag(context, 'filter') ?? null,
      settings: { vision, temperature: settings.temperature },
      createSandbox: (host) =>
        createCodeSandbox({
          host,
          limits: { codeTimeoutSeconds: sandboxLimits.codeTimeoutSeconds, maxOutputChars: sandboxLimits.maxOutputChars, memoryLimitBytes: sandboxLimits.memoryLimitBytes },
          abortSignal: context.abortSignal,
        }),
      abortSignal: context.abortSignal,
      onEvent: context.flags.verbose === true ? verbosePrinter(context) : undefined,
    }),
  );
  if (wantsJson(context)) {
    printJson(context, {
      answer: answer.answer,
      citations: answer.citations.map(citationJson),
      executions: answer.executions.map(executionJson),
      citation_status: answer.citationStatus,
      requests: answer.requests,
    });
    return 0;
  }
  const lines = [answer.answer.trim() === '' ? '(The model gave no answer.)' : answer.answer.trim()];
  if (answer.citations.length > 0) {
    lines.push('', 'Citations:', ...answer.citations.map(citationLine));
  }
  context.io.stdout(lines.join('\n') + '\n');
  return 0;
}

export const askCommand: CliCommand = {
  name: 'ask',
  usage: 'ask "<question>" [--model NAME] [--base-url URL] [--api-key KEY] [--thinking] [--filter SQL] [--verbose] [--db dir] [--json]',
  summary: 'Answer a question from the index with citations (the model picks search or code analysis)',
  options: QUESTION_OPTIONS,
  run: (context) => runQuestionCommand(context, 'auto'),
};
