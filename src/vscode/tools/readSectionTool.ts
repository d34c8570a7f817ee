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
      return { invocationMessage: options.input.section ? `Reading "${options.input.section}" in ${options.input.document}` : `Reading the sections of ${options.input.document}` };
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
        return textResult(withFigures(formatTableOfContents(document, sections), figuresDirectlyIn(items, undefined, [])));
      }
      const section = findSection(sections, options.input.section);
      if (!section) {
        return textResult(`No section "${options.input.section}" in ${document.relativePath}.\n\n${formatTableOfContents(document, sections)}`);
      }
      return textResult(withFigures(formatSection(document, section, items), figuresOfSection(items, section)));
    },
  });
}
