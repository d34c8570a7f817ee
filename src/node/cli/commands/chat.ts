import * as readline from 'node:readline';
import { errorMessage } from '../../../core/errors';
import type { AgentMode } from '../../../core/agent/instructions';
import { createOpenAiCompatibleModel } from '../../agent/openAiCompatibleModel';
import { stringFlag, UsageError, type CliCommand, type CliOption, type CommandContext } from '../command';
import { checkedFilter, embedderFromFlags, rerankerFromFlags, withStore } from '../indexAccess';
import { analysisModelOptions, ANALYSIS_MODEL_OPTIONS, answerQuestion, modelFromFlags, printAnswer, QUESTION_OPTIONS, type Conversation } from '../questions';
import { textArgument } from '../textInput';

const PROMPT = 'haiku> ';
const EXAMPLE = 'haiku chat "Which guides cover caching, and how many are there?"';

/** The capabilities `--capability` can limit a chat to (unset: both, the model routing). */
const CAPABILITIES = ['rag', 'analysis'] as const;
type Capability = (typeof CAPABILITIES)[number];

const CAPABILITY_OPTION: CliOption = {
  flags: '--capability <name>',
  description: 'Limit the chat to one capability: rag (search and cite, no code runs) or analysis (code over the documents, on the --analysis-model). Default: both, the model choosing.',
};

/** Both capabilities, the model routing each question (like `@haiku` with no command); a prompt on a terminal. */
export const chatCommand: CliCommand = {
  name: 'chat',
  arguments: [{ syntax: '[question...]', description: 'One question (- reads it from standard input); without one, on a terminal, a conversation starts.' }],
  summary: 'Answer questions with both capabilities, the model choosing search or code (a conversation on a terminal)',
  description:
    'Answer questions with both capabilities attached, the model choosing between searching passages (rag) and running code over the documents (analysis), as @haiku does in VS Code; --capability limits it to one of them. With a question, answers it and exits; without one, on a terminal, starts a conversation where follow-up questions see the earlier answers ("exit" or end of input, Ctrl-D, ends it).',
  options: [...QUESTION_OPTIONS, CAPABILITY_OPTION, ...ANALYSIS_MODEL_OPTIONS],
  examples: [EXAMPLE, 'haiku chat --model qwen3:8b', 'haiku chat --capability analysis --model qwen3:8b --analysis-model qwen3-coder:30b'],
  async run(context) {
    const capability = capabilityFromFlags(context);
    const conversational = context.positionals.length === 0;
    if (conversational && !context.io.interactive) {
      throw new UsageError(`Give a question (e.g. \`${EXAMPLE}\`), or run \`haiku chat\` in a terminal for a conversation.`);
    }
    const question = conversational ? undefined : await textArgument(context, 'question', EXAMPLE);
    const mode: AgentMode = capability ?? 'auto';
    // Analysis alone runs on its own model, as `haiku analyze` does; with both, the question model routes and answers.
    const model = capability === 'analysis' ? createOpenAiCompatibleModel(analysisModelOptions(context)) : modelFromFlags(context);
    return withStore(context, { embedder: embedderFromFlags(context), reranker: rerankerFromFlags(context) }, async (store) => {
      const filter = await checkedFilter(context, store);
      if (question !== undefined) {
        printAnswer(context, await answerQuestion(context, { store, model, mode, question, filter }));
        return 0;
      }
      const conversation: Conversation = { history: [] };
      await eachQuestion(context, async (line) => {
        try {
          printAnswer(context, await answerQuestion(context, { store, model, mode, question: line, filter, conversation }));
        } catch (error) {
          if (context.abortSignal.aborted) {
            throw error;
          }
          // One failed question (an unreachable model, a spent budget) does not end the conversation.
          context.io.stderr(`error: ${errorMessage(error)}\n`);
        }
      });
      return 0;
    });
  },
};

/** `--capability`, checked; undefined for both. The analysis model's flags need the analysis capability alone. */
function capabilityFromFlags(context: CommandContext): Capability | undefined {
  const given = stringFlag(context, 'capability');
  const capability = given === undefined ? undefined : CAPABILITIES.find((name) => name === given.trim().toLowerCase());
  if (given !== undefined && capability === undefined) {
    throw new UsageError(`--capability is "${given}"; use rag (search and cite) or analysis (code over the documents), or leave it out for both.`);
  }
  const analysisFlag = ['analysis-model', 'analysis-base-url'].find((name) => context.flags[name] !== undefined);
  if (analysisFlag !== undefined && capability !== 'analysis') {
    throw new UsageError(
      `--${analysisFlag} applies to the analysis capability alone: add --capability analysis (with both capabilities, the --model one routes and answers every question).`,
    );
  }
  return capability;
}

/** Prompts on stdout and hands over each non-empty line until `exit`, end of input or Ctrl-C. */
async function eachQuestion(context: CommandContext, answer: (question: string) => Promise<void>): Promise<void> {
  const input = context.io.stdin;
  if (!input) {
    return;
  }
  const lines = readline.createInterface({ input, terminal: false, crlfDelay: Infinity });
  const close = () => lines.close();
  context.abortSignal.addEventListener('abort', close, { once: true });
  try {
    context.io.stdout(PROMPT);
    for await (const line of lines) {
      const question = line.trim();
      if (question === 'exit' || question === 'quit') {
        break;
      }
      if (question !== '') {
        await answer(question);
        context.io.stdout('\n');
      }
      context.io.stdout(PROMPT);
    }
  } finally {
    context.abortSignal.removeEventListener('abort', close);
    lines.close();
  }
}
