import * as vscode from 'vscode';
import { buildSectionTree } from '../../core/toc';
import { TOOL_NAMES } from '../contributionIds';
import { findDocument, findMissingDocumentText, findSection, formatMissingSection, formatSection, formatTableOfContents } from './toolFormatting';
import { signalOf, textResult, type ToolContext } from './toolSupport';

export interface ReadSectionToolInput {
  document: string;
  section?: string;
}

/** `haiku_readSection`: one section of a document as Markdown (or its table of contents without a section). */
export function registerReadSectionTool(context: ToolContext): vscode.Disposable {
  return vscode.lm.registerTool<ReadSectionToolInput>(TOOL_NAMES.readSection, {
    prepareInvocation(options) {
      return { invocationMessage: options.input.section ? vscode.l10n.t('Reading "{0}" in {1}', options.input.section, options.input.document) : vscode.l10n.t('Reading the sections of {0}', options.input.document) };
    },
    async invoke(options, token) {
      const knowledgeBase = await context.knowledgeBase();
      const documents = await knowledgeBase.listDocuments({ abortSignal: signalOf(token) });
      const document = findDocument(documents, options.input.document ?? '');
      if (!document) {
        return textResult(findMissingDocumentText(options.input.document, vscode.l10n.t));
      }
      const items = await knowledgeBase.getDocumentItems(document.id);
      const sections = buildSectionTree(items);
      if (!options.input.section) {
        return textResult(formatTableOfContents(document, sections, vscode.l10n.t));
      }
      const section = findSection(sections, options.input.section);
      if (!section) {
        return textResult(formatMissingSection(document, options.input.section, sections, vscode.l10n.t));
      }
      return textResult(formatSection(document, section, items, vscode.l10n.t));
    },
  });
}
