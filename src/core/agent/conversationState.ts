import type { ItemLabel, SourceRange } from '../model/document';
import type { SearchResult } from '../model/search';

/** One registered citation: everything a UI needs to show a reference and jump to its source. */
export interface Citation {
  /** 1-based display number; keeps increasing across the conversation. */
  index: number;
  /** The cited (anchor) chunk id. */
  chunkId: string;
  /** Every chunk merged into the cited content (always includes `chunkId`). */
  chunkIds: string[];
  documentId: string;
  uri: string;
  title: string;
  pageNumbers: number[];
  headings: string[];
  /** The exact content the model saw (expanded search content, or the raw chunk when cited from the VFS). */
  content: string;
  docItemRefs: string[];
  /** Pictures the cited content shows (see `pictureRefsOf`). */
  pictureRefs: string[];
  labels: ItemLabel[];
  /** Where to jump in the source file: the whole content the model saw. */
  sourceRange?: SourceRange;
  /** The document's metadata column (format, page count, warnings, …), as stored. */
  documentMeta?: Record<string, unknown>;
  /** The anchor chunk's own metadata: its stored structural columns (see `chunkMetaOf`). */
  chunkMeta?: Record<string, unknown>;
  /** The cited chunk's own range inside `sourceRange` (absent when the content was not expanded). */
  chunkSourceRange?: SourceRange;
}

/** One `execute_code` call of this question. */
export interface ExecutionRecord {
  code: string;
  stdout: string;
  stderr: string;
  success: boolean;
  durationMs: number;
}

/**
 * `missing`: evidence was gathered but nothing was cited after it; `grounded`: a non-empty cite came after the
 * newest evidence; `ungrounded`: the model declared (empty cite) that nothing supports the answer.
 */
export type CitationStatus = 'missing' | 'grounded' | 'ungrounded' | 'none';

/**
 * Everything the agent keeps per conversation. Plain JSON (no classes, no Maps) so VS Code can carry it in chat
 * result metadata and hand it back for the next question.
 */
export interface ConversationState {
  /** All citations of the conversation by chunk id; accumulates across questions. */
  citationIndex: Record<string, Citation>;
  /** Chunk ids cited for the current question, in registration order, without duplicates. */
  citations: string[];
  /** SQL WHERE clause scoping search and the sandbox's documents; persists between questions. */
  documentFilter: string | null;
  /** This question's searches by query (tool and sandbox searches), results merged by chunk id. */
  searches: Record<string, SearchResult[]>;
  /** This question's code executions, in order. */
  executions: ExecutionRecord[];
  /** Grounding of the current question (see `CitationStatus`). */
  citationStatus: CitationStatus;
  /** Questions asked so far in this conversation. */
  questionCount: number;
}

export function createConversationState(documentFilter: string | null = null): ConversationState {
  return { citationIndex: {}, citations: [], documentFilter, searches: {}, executions: [], citationStatus: 'none', questionCount: 0 };
}

/**
 * Resets what belongs to one question (citations, searches, executions) and keeps what belongs to the
 * conversation (citation index, filter). Accepts state that went through JSON and fills fields it lacks.
 */
export function startQuestion(state: ConversationState | undefined, documentFilter?: string | null): ConversationState {
  const base = state ?? createConversationState();
  return {
    citationIndex: { ...(base.citationIndex ?? {}) },
    citations: [],
    documentFilter: documentFilter !== undefined ? documentFilter : base.documentFilter ?? null,
    searches: {},
    executions: [],
    citationStatus: 'none',
    questionCount: (base.questionCount ?? 0) + 1,
  };
}

/** Adds results to `searches[query]`, keeping what earlier calls with the same query showed (merged by chunk id). */
export function recordSearch(state: ConversationState, query: string, results: readonly SearchResult[]): void {
  const existing = state.searches[query] ?? [];
  const byId = new Map(existing.map((result) => [result.chunkId, result]));
  for (const result of results) {
    byId.set(result.chunkId, result);
  }
  state.searches[query] = [...byId.values()];
}

/** Whether earlier questions of the conversation cited anything (a follow-up may answer from that evidence). */
export function hasEarlierCitations(state: ConversationState): boolean {
  return Object.keys(state.citationIndex).length > 0;
}

/** The current question's citations, in citation order. */
export function currentCitations(state: ConversationState): Citation[] {
  return state.citations.map((chunkId) => state.citationIndex[chunkId]).filter((citation): citation is Citation => citation !== undefined);
}
