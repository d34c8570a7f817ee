import * as vscode from 'vscode';
import { buildSectionTree } from '../../core/toc';
import { TOOL_NAMES } from '../contributionIds';
import { figuresDirectlyIn, figuresOfSection, formatFigureList } from '../pictureViewModel';
import { findSection, formatSection, formatTableOfContents } from './toolFormatting';
import { documentForTool, textResult, type ToolContext } from './toolSupport';

export interface ReadSectionToolInput {
  document: string;
  section?: string;
}

/**
 * `haiku_readSection`: one section of a document as Markdown (or its table of contents without a section), followed
 * by the captions of its figures (all of the document's with the table of contents).
 */
export function registerReadSectionTool(context: ToolContext): vscode.Disposable {
  return vscode.lm.registerTool<ReadSectionToolInput>(TOOL_NAMES.readSection, {
    prepareInvocation(options) {
      const { section, document } = options.input;
      return { invocationMessage: section ? vscode.l10n.t('Reading "{0}" in {1}', section, document) : vscode.l10n.t('Reading the sections of {0}', document) };
    },
    async invoke(options, token) {
      const found = await documentForTool(context, options.input.document, token);
      if (found instanceof vscode.LanguageModelToolResult) {
        return found;
      }
      const { document, items } = found;
      const sections = buildSectionTree(items);
      const withFigures = (text: string, figures: typeof items): string => {
        const list = formatFigureList(figures, items, TOOL_NAMES.readPicture);
        return list ? `${text}\n\n${list}` : text;
      };
      if (!options.input.section) {
        return textResult(withFigures(formatTableOfContents(document, sections, vscode.l10n.t), figuresDirectlyIn(items, undefined, [])));
      }
      const section = findSection(sections, options.input.section);
      if (!section) {
        const notFound = vscode.l10n.t('No section "{0}" in {1}.', options.input.section, document.relativePath);
        return textResult(`${notFound}\n\n${formatTableOfContents(document, sections, vscode.l10n.t)}`);
      }
      return textResult(withFigures(formatSection(document, section, items, vscode.l10n.t), figuresOfSection(items, section)));
    },
  });
}
