import * as vscode from 'vscode';
import { SEARCH_DEFAULT_LIMIT, TOOL_SEARCH_MAX_LIMIT } from '../../core/limits';
import { TOOL_NAMES } from '../contributionIds';
import { formatSearchHits } from './toolFormatting';
import { signalOf, textResult, type ToolContext } from './toolSupport';

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
        return textResult('Give a non-empty "query".');
      }
      const limit = Math.min(Math.max(1, Math.floor(options.input.limit ?? SEARCH_DEFAULT_LIMIT)), TOOL_SEARCH_MAX_LIMIT);
      const filter = path ? `relative_path = '${path.replace(/\\/g, '/').replace(/^\.\//, '').replace(/'/g, "''")}'` : undefined;
      const knowledgeBase = await context.knowledgeBase();
      const results = await knowledgeBase.search(query, { limit, filter, expand: true, abortSignal: signalOf(token) });
      return textResult(formatSearchHits(query, results, context.relativePathOf));
    },
  });
}
