import type { CliCommand } from '../command';
import { ANALYSIS_MODEL_OPTIONS, QUESTION_ARGUMENT, QUESTION_OPTIONS, runSingleQuestion } from '../questions';

/** The analysis capability alone: JavaScript in the QuickJS sandbox over the documents, plus search and cite. */
export const analyzeCommand: CliCommand = {
  name: 'analyze',
  arguments: [QUESTION_ARGUMENT],
  summary: 'Answer a question by running code over the documents (counting, sections, comparisons) with citations',
  description:
    'Answer a question by letting the model run JavaScript in a sandbox over a read-only view of the documents (counting, listing sections, comparing), with search and citations (the analysis capability).',
  options: [...QUESTION_OPTIONS, ...ANALYSIS_MODEL_OPTIONS],
  examples: ['haiku analyze "How many documents mention caching?" --model qwen3:8b --verbose', 'haiku analyze "Which sections cover deployment?" --model qwen3:8b --analysis-model qwen3-coder:30b'],
  run: (context) => runSingleQuestion(context, 'analysis', 'haiku analyze "How many documents mention caching?"'),
};
