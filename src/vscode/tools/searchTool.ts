import * as vscode from 'vscode';
import { TOOL_NAMES } from '../contributionIds';
import { formatSearchHits, searchToolLimit } from './toolFormatting';
import { documentFilterForTool, signalOf, textResult, type ToolContext } from './toolSupport';

export interface SearchToolInput {
  query: string;
  limit?: number;
  path?: string;
}

/** `haiku_search`: hybrid search with context expansion; returns citable hits (path, heading trail, lines/page). */
export function registerSearchTool(context: ToolContext): vscode.Disposable {
  return vscode.lm.registerTool<SearchToolInput>(TOOL_NAMES.search, {
    prepareInvocation(options) {
      return { invocationMessage: `Searching the workspace documents for "${options.input.query}"` };
    },
    async invoke(options, token) {
      const { query, path } = options.input;
      if (typeof query !== 'string' || query.trim() === '') {
        return textResult(vscode.l10n.t('Give a non-empty "query".'));
      }
      const limit = searchToolLimit(options.input.limit, context.getConfig().search.limit);
      const knowledgeBase = await context.knowledgeBase();
      const documentFilter = await documentFilterForTool(knowledgeBase, path, token);
      if (documentFilter instanceof vscode.LanguageModelToolResult) {
        return documentFilter;
      }
      const { filter } = documentFilter;
      const results = await knowledgeBase.search(query, { limit, filter, expand: true, abortSignal: signalOf(token) });
      return textResult(formatSearchHits(query, results, context.relativePathOf, vscode.l10n.t));
    },
  });
}

