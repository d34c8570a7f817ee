import * as vscode from 'vscode';
import { documentFilterFor } from '../../core/documents/documentAccess';
import { isHaikuError } from '../../core/errors';
import { TOOL_NAMES } from '../contributionIds';
import { formatSearchHits, searchToolLimit } from './toolFormatting';
import { signalOf, textResult, TOOL_DOCUMENT_LIST_HINT, type ToolContext } from './toolSupport';

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
      let filter: string | undefined;
      try {
        // The document by id, path or unique path suffix, as the other tools take it.
        filter = await documentFilterFor(knowledgeBase, path, { listHint: TOOL_DOCUMENT_LIST_HINT, abortSignal: signalOf(token) });
      } catch (error) {
        if (isHaikuError(error, 'not_found')) {
          return textResult(error.message);
        }
        throw error;
      }
      const results = await knowledgeBase.search(query, { limit, filter, expand: true, abortSignal: signalOf(token) });
      return textResult(formatSearchHits(query, results, context.relativePathOf, vscode.l10n.t));
    },
  });
}

