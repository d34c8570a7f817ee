import type { CliCommand } from '../command';
import { QUESTION_ARGUMENT, QUESTION_OPTIONS, runQuestionCommand } from './ask';

export const analyzeCommand: CliCommand = {
  name: 'analyze',
  arguments: [QUESTION_ARGUMENT],
  summary: 'Answer a question by running code over the documents (counting, sections, comparisons) with citations',
  options: QUESTION_OPTIONS,
  run: (context) => runQuestionCommand(context, 'analysis'),
};
