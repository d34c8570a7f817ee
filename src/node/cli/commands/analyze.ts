import type { CliCommand } from '../command';
import { QUESTION_OPTIONS, runQuestionCommand } from './ask';

export const analyzeCommand: CliCommand = {
  name: 'analyze',
  usage: 'analyze "<question>" [--model NAME] [--base-url URL] [--api-key KEY] [--thinking] [--filter SQL] [--verbose] [--db dir] [--json]',
  summary: 'Answer a question by running code over the documents (counting, sections, comparisons) with citations',
  options: QUESTION_OPTIONS,
  run: (context) => runQuestionCommand(context, 'analysis'),
};
