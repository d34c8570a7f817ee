import type { SearchResult } from '../core/model/search';
import { locationLabel, ownRange, preview } from './citationFormat';

/** Characters of the chunk's own text a "Haiku: Search" row shows under its title. */
export const SEARCH_PICK_SNIPPET_CHARACTERS = 220;

/** The three lines of one "Haiku: Search" row (VS Code-free, so unit tests check them). */
export interface SearchPickRow {
  /** The document's title. */
  label: string;
  /** The section trail, then the relative path with its line range or page. */
  description: string;
  /** The start of the chunk's own text (the search ran without expansion, so `content` is the chunk itself). */
  detail: string;
}

export function searchPickRow(result: Pick<SearchResult, 'title' | 'headings' | 'uri' | 'content' | 'pageNumbers' | 'sourceRange' | 'chunkSourceRange'>, relativePathOf: (uri: string) => string): SearchPickRow {
  const trail = result.headings.filter((heading) => heading !== result.title).join(' › ');
  const where = `${relativePathOf(result.uri)} ${locationLabel(ownRange(result), result.pageNumbers)}`.trim();
  return {
    label: result.title || relativePathOf(result.uri),
    description: trail ? `${trail} — ${where}` : where,
    detail: preview(result.content, SEARCH_PICK_SNIPPET_CHARACTERS),
  };
}

/**
 * Searches as the user types: each query waits `debounceMs` of quiet, and a new query aborts the search still
 * running for the previous one (its results are dropped, never shown over newer ones).
 */
export class LiveSearch<T> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: AbortController | undefined;

  constructor(
    private readonly search: (query: string, abortSignal: AbortSignal) => Promise<T>,
    private readonly show: (query: string, results: T) => void,
    private readonly onState: (state: { busy: boolean; error?: unknown }) => void,
    private readonly debounceMs: number,
  ) {}

  /** The query changed: `''` clears at once; anything else searches after the pause. */
  update(query: string): void {
    this.cancel();
    if (query.trim() === '') {
      this.onState({ busy: false });
      return;
    }
    this.timer = setTimeout(() => void this.run(query), this.debounceMs);
  }

  /** Stops the pending and the running search (the pick closed, or a newer query came). */
  cancel(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.running?.abort();
    this.running = undefined;
  }

  private async run(query: string): Promise<void> {
    this.timer = undefined;
    const abort = new AbortController();
    this.running = abort;
    this.onState({ busy: true });
    try {
      const results = await this.search(query, abort.signal);
      if (!abort.signal.aborted) {
        this.show(query, results);
        this.onState({ busy: false });
      }
    } catch (error) {
      if (!abort.signal.aborted) {
        this.onState({ busy: false, error });
      }
    } finally {
      if (this.running === abort) {
        this.running = undefined;
      }
    }
  }
}
