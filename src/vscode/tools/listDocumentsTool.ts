import * as vscode from 'vscode';
import { TOOL_NAMES } from '../contributionIds';
import { formatDocumentList } from './toolFormatting';
import { signalOf, textResult, type ToolContext } from './toolSupport';

export interface ListDocumentsToolInput {
  pathContains?: string;
}

/** `haiku_listDocuments`: the indexed documents with id, path, title and format. */
export function registerListDocumentsTool(context: ToolContext): vscode.Disposable {
  return vscode.lm.registerTool<ListDocumentsToolInput>(TOOL_NAMES.listDocuments, {
    prepareInvocation() {
      return { invocationMessage: 'Listing the indexed documents' };
    },
    async invoke(options, token) {
      const knowledgeBase = await context.knowledgeBase();
      const wanted = options.input.pathContains?.toLowerCase();
      const documents = (await knowledgeBase.listDocuments({ abortSignal: signalOf(token) }))
        .filter((document) => !wanted || document.relativePath.toLowerCase().includes(wanted))
        .sort((left, right) => left.relativePath.localeCompare(right.relativePath));
      return textResult(formatDocumentList(documents, vscode.l10n.t));
    },
  });
}
