import { SearchFailedError, type AgentRun } from './agentRun';
import type { SearchSource } from './agentEvents';
import { renderResultsDeduplicated } from './searchRendering';
import { searchQueryProblem } from './hostInputLimits';
import type { SearchToolOutput } from './pictureAttachments';

/** What a search tool answers once the question's search budget is spent. */
export function searchBudgetSpentNotice(maxUnits: number): string {
  return (
    `Search budget spent: this question already used its ${maxUnits} search unit(s), so no search ran. ` +
    'Do not search again. Cite the chunk ids that support your answer from the results you already have, then answer from them; ' +
    'say plainly what the gathered evidence does not cover.'
  );
}

/**
 * The body both search tools share: claim a budget unit for the current response, search within the run's filter
 * with context expansion, render for the model with sibling results collapsed to reference lines; with vision on,
 * add the pictures of the results that this response has not been shown yet.
 */
export function runSearchTool(run: AgentRun, source: SearchSource, query: string, limit: number | undefined, toolCallId: string): Promise<SearchToolOutput> {
  return run.serialize(async () => {
    const trimmed = query.trim();
    if (trimmed === '') {
      return 'The query is empty. Search with a few keywords.';
    }
    const problem = searchQueryProblem(trimmed);
    if (problem !== undefined) {
      return `No search ran: ${problem}`;
    }
    const budget = run.searchBudgetFor(source);
    if (!budget.tryClaim(run.currentStep)) {
      run.emit({ type: 'search-finished', source, query: trimmed, resultCount: 0, results: [], toolCallId, refused: true });
      return searchBudgetSpentNotice(budget.maxUnits);
    }
    const effectiveLimit = limit !== undefined && Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : run.searchLimit;
    let results;
    try {
      results = await run.search(trimmed, effectiveLimit, source, toolCallId);
    } catch (error) {
      if (error instanceof SearchFailedError) {
        return `${error.message} Nothing was found this time; try other keywords (plain words, no quotes or operators), or answer from what you have.`;
      }
      throw error;
    }
    const text = renderResultsDeduplicated(trimmed, results, run.shownInCurrentResponse());
    if (!run.vision) {
      return text;
    }
    const pictures = await run.pictureAttachments.attach(run.currentStep, results, run.knowledgeBase, run.abortSignal);
    if (pictures.length > 0) {
      run.emit({ type: 'pictures-attached', source, toolCallId, pictures: pictures.map(({ documentId, selfRef, chunkId, mediaType }) => ({ documentId, selfRef, chunkId, mediaType })) });
    }
    return { text, pictures };
  });
}
