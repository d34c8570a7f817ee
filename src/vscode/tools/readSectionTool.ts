import * as vscode from 'vscode';
import { buildSectionTree } from '../../core/toc';
import { TOOL_NAMES } from '../contributionIds';
import { findDocument, findSection, formatSection, formatTableOfContents } from './toolFormatting';
import { signalOf, textResult, type ToolContext } from './toolSupport';

export interface ReadSectionToolInput {
  document: string;
  section?: string;
}

/** `haiku_readSection`: one section of a document as Markdown (or its table of contents without a section). */
export function registerReadSectionTool(context: ToolContext): vscode.Disposable {
  return vscode.lm.registerTool<ReadSectionToolInput>(TOOL_NAMES.readSection, {
    prepareInvocation(options) {
      return { invocationMessage: options.input.section ? `Reading "${options.input.section}" in ${options.input.document}` : `Reading the sections of ${options.input.document}` };
    },
    async invoke(options, token) {
      const knowledgeBase = await context.knowledgeBase();
      const documents = await knowledgeBase.listDocuments({ abortSignal: signalOf(token) });
      const document = findDocument(documents, options.input.document ?? '');
      if (!document) {
        return textResult(`No indexed document matches "${options.input.document}". Call haiku_listDocuments for the ids and paths.`);
      }
      const items = await knowledgeBase.getDocumentItems(document.id);
      const sections = buildSectionTree(items);
      if (!options.input.section) {
        return textResult(formatTableOfContents(document, sections));
      }
      const section = findSection(sections, options.input.section);
      if (!section) {
        return textResult(`No section "${options.input.section}" in ${document.relativePath}.\n\n${formatTableOfContents(document, sections)}`);
      }
      return textResult(formatSection(document, section, items));
    },
  });
}
