import type { CliCommand } from '../command';
import { QUESTION_ARGUMENT, QUESTION_OPTIONS, runSingleQuestion } from '../questions';

/** The rag capability alone (search and cite), like `haiku-rag ask` and `@haiku /ask`. */
export const askCommand: CliCommand = {
  name: 'ask',
  arguments: [QUESTION_ARGUMENT],
  summary: 'Answer a question from searched passages, with citations (the rag capability)',
  description:
    'Answer a question from passages the model finds with search, citing the chunks it used (the rag capability: search and cite tools only; no code runs). For counting, comparing or walking sections use `haiku analyze`; to let the model choose, `haiku chat`.',
  options: QUESTION_OPTIONS,
  examples: ['haiku ask "How do I configure the proxy?" --model qwen3:8b', 'echo "Why pre-bundle dependencies?" | haiku ask - --json'],
  run: (context) => runSingleQuestion(context, 'rag', 'haiku ask "How do I configure the proxy?"'),
};
