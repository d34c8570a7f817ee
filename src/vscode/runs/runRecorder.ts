import type { AgentEvent } from '../../core/agent/agentEvents';
import type { Citation, ConversationState } from '../../core/agent/conversationState';
import type { SearchResult } from '../../core/model/search';
import type { RunCitationView, RunHitView, RunRoute, RunView } from '../../shared/runsProtocol';
import { locationLabel, ownRange, preview } from '../citationFormat';

/** Resolves a document URI to the workspace-relative path the panel shows. */
export type RelativePathResolver = (uri: string) => string;

/**
 * The text a preview shows: the chunk's own (of every chunk an expanded result merged), never the context
 * expansion added around it, which may start sections earlier. `ownTexts` holds stored chunks by id; without
 * them the content stands (a result that was not expanded is the chunk itself).
 */
export function ownText(chunk: { chunkId: string; content: string; chunkIds?: readonly string[]; mergedChunkIds?: readonly string[] }, ownTexts?: ReadonlyMap<string, string>): string {
  const ids = chunk.chunkIds ?? chunk.mergedChunkIds ?? [chunk.chunkId];
  const texts = ids.map((id) => ownTexts?.get(id)).filter((text): text is string => text !== undefined);
  return texts.length > 0 ? texts.join('\n') : chunk.content;
}

export function hitView(result: SearchResult, relativePathOf: RelativePathResolver, ownTexts?: ReadonlyMap<string, string>): RunHitView {
  return {
    chunkId: result.chunkId,
    rank: result.rank,
    score: result.score,
    title: result.title,
    relativePath: relativePathOf(result.uri),
    headings: result.headings,
    locationLabel: locationLabel(ownRange(result), result.pageNumbers),
    preview: preview(ownText(result, ownTexts)),
    sourceRange: result.sourceRange,
    ...pictureFields(result.documentId, result.pictureRefs),
  };
}

/** The document and picture refs of a chunk that shows pictures (left out otherwise, keeping views small). */
function pictureFields(documentId: string, pictureRefs: readonly string[] | undefined): { documentId?: string; pictureRefs?: string[] } {
  return pictureRefs && pictureRefs.length > 0 ? { documentId, pictureRefs: [...pictureRefs] } : {};
}

export function citationView(citation: Citation, relativePathOf: RelativePathResolver, ownTexts?: ReadonlyMap<string, string>): RunCitationView {
  return {
    chunkId: citation.chunkId,
    index: citation.index,
    title: citation.title,
    relativePath: relativePathOf(citation.uri),
    headings: citation.headings,
    locationLabel: locationLabel(ownRange(citation), citation.pageNumbers),
    preview: preview(ownText(citation, ownTexts)),
    sourceRange: citation.sourceRange,
    ...pictureFields(citation.documentId, citation.pictureRefs),
  };
}

/**
 * Builds a run's view model from the agent's events (pure, unit-tested). Search hits come from the live
 * conversation state, which the agent fills before it reports `search-finished`.
 */
export class RunRecorder {
  readonly run: RunView;
  private readonly started: number;

  constructor(
    options: { id: string; question: string; route: RunRoute; model: string; now?: number },
    private readonly relativePathOf: RelativePathResolver,
    private readonly state?: ConversationState,
  ) {
    this.started = options.now ?? Date.now();
    this.run = {
      id: options.id,
      question: options.question,
      route: options.route,
      model: options.model,
      startedAt: new Date(this.started).toISOString(),
      status: 'running',
      answer: '',
      steps: [],
      citations: [],
    };
  }

  /** Applies one event; returns true when the view changed in a way worth re-rendering (not per text delta). */
  apply(event: AgentEvent): boolean {
    switch (event.type) {
      case 'text-delta':
        this.run.answer += event.text;
        return false;
      case 'search-finished': {
        const results = this.state?.searches[event.query] ?? [];
        this.addSearch(event.source, event.query, results, event.refused ?? false);
        return true;
      }
      case 'execution-finished':
        this.run.steps.push({ kind: 'execution', ...event.execution });
        return true;
      case 'citation-added':
        this.addCitation(event.citation);
        return true;
      default:
        return false;
    }
  }

  addSearch(source: string, query: string, results: readonly SearchResult[], refused = false): void {
    this.run.steps.push({ kind: 'search', source, query, refused, hits: results.map((result) => hitView(result, this.relativePathOf)) });
  }

  /** Adds a citation, or updates the one of the same chunk (its number and preview may be final only now). */
  addCitation(citation: Citation, ownTexts?: ReadonlyMap<string, string>): void {
    const view = citationView(citation, this.relativePathOf, ownTexts);
    const existing = this.run.citations.findIndex((candidate) => candidate.chunkId === citation.chunkId);
    if (existing >= 0) {
      this.run.citations[existing] = view;
    } else {
      this.run.citations.push(view);
    }
  }

  finish(status: Exclude<RunView['status'], 'running'>, options: { error?: string; now?: number; answer?: string } = {}): RunView {
    this.run.status = status;
    this.run.durationMs = (options.now ?? Date.now()) - this.started;
    if (options.error !== undefined) {
      this.run.error = options.error;
    }
    if (options.answer !== undefined) {
      this.run.answer = options.answer;
    }
    return this.run;
  }

  /** Every chunk id the run shows (hits and citations), for resolving the webview's `openChunk`. */
  chunkIds(): Set<string> {
    const ids = new Set(this.run.citations.map((citation) => citation.chunkId));
    for (const step of this.run.steps) {
      if (step.kind === 'search') {
        step.hits.forEach((hit) => ids.add(hit.chunkId));
      }
    }
    return ids;
  }
}
