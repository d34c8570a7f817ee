/**
 * The runs panel's message protocol between the extension host and its webview. The webview only ever sends
 * ids (run id, chunk id); the host resolves them, so a webview cannot make the host open arbitrary files.
 */

/** How a question was answered: rag tools, the analysis sandbox, both (the model routes), or plain search. */
export type RunRoute = 'ask' | 'analyze' | 'both' | 'search';
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

import type { SourceRange } from '../core/model/document';

/** A search hit or a citation as the panel shows it: already formatted, no paths beyond the relative one. */
export interface RunChunkView {
  chunkId: string;
  title: string;
  relativePath: string;
  headings: string[];
  /** "L12–L20", "p. 3", or "" when the source has no range. */
  locationLabel: string;
  /** The first characters of the content. */
  preview: string;
  /** The range of the content the model saw (expanded context included); jump-to-chunk selects it. */
  sourceRange?: SourceRange;
}

export interface RunHitView extends RunChunkView {
  rank: number;
  score: number;
}

export interface RunCitationView extends RunChunkView {
  /** The display number `[n]` the answer uses. */
  index: number;
}

export type RunStepView =
  | { kind: 'search'; source: string; query: string; hits: RunHitView[]; refused: boolean }
  | { kind: 'execution'; code: string; stdout: string; stderr: string; success: boolean; durationMs: number };

export interface RunView {
  id: string;
  question: string;
  route: RunRoute;
  /** `vendor/id` of the model that answered, or "" for /search. */
  model: string;
  startedAt: string;
  durationMs?: number;
  status: RunStatus;
  error?: string;
  answer: string;
  steps: RunStepView[];
  citations: RunCitationView[];
}

export type HostToWebviewMessage =
  | { type: 'state'; runs: RunView[]; selectedRunId?: string }
  | { type: 'select'; runId: string };

export interface RenderedCounts {
  executions: number;
  searches: number;
  hits: number;
  citations: number;
  /** Code blocks that went through the highlighter. */
  highlightedBlocks: number;
  /** Block elements (paragraphs, headings, lists, tables, code) of the answer rendered from Markdown. */
  answerBlocks: number;
}

export type WebviewToHostMessage =
  | { type: 'ready' }
  | { type: 'selectRun'; runId: string }
  | { type: 'openChunk'; runId: string; chunkId: string }
  | { type: 'rendered'; runId: string; counts: RenderedCounts };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/** Validates what the webview posted; anything malformed is dropped by the host. */
export function parseWebviewMessage(value: unknown): WebviewToHostMessage | undefined {
  if (!isObject(value)) {
    return undefined;
  }
  switch (value.type) {
    case 'ready':
      return { type: 'ready' };
    case 'selectRun':
      return isId(value.runId) ? { type: 'selectRun', runId: value.runId } : undefined;
    case 'openChunk':
      return isId(value.runId) && isId(value.chunkId) ? { type: 'openChunk', runId: value.runId, chunkId: value.chunkId } : undefined;
    case 'rendered': {
      const counts = value.counts;
      const keys = ['executions', 'searches', 'hits', 'citations', 'highlightedBlocks', 'answerBlocks'] as const;
      if (!isId(value.runId) || !isObject(counts) || !keys.every((key) => typeof counts[key] === 'number')) {
        return undefined;
      }
      return { type: 'rendered', runId: value.runId, counts: Object.fromEntries(keys.map((key) => [key, counts[key] as number])) as unknown as RenderedCounts };
    }
    default:
      return undefined;
  }
}
