/**
 * The runs panel's message protocol between the extension host and its webview. The webview only ever sends
 * ids (run id, chunk id); the host resolves them, so a webview cannot make the host open arbitrary files.
 */

/** How a question was answered: rag tools, the analysis sandbox, both (the model routes), or plain search. */
export type RunRoute = 'ask' | 'analyze' | 'both' | 'search';
export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

import type { SourceRange } from '../core/model/document';
import { RUNS_THUMBNAILS_PER_STEP } from '../core/limits';

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
  /** The chunk's document (names its pictures). */
  documentId?: string;
  /** Refs of the pictures the chunk shows (`pictureRefs`): the ones vision attaches; thumbnails in the panel. */
  pictureRefs?: string[];
}

/** A picture's thumbnail, keyed by `pictureKey`; `dataUri` absent when the image is too large or missing (a link opens it). */
export interface RunThumbnail {
  dataUri?: string;
  mimeType: string;
  width: number;
  height: number;
}

/** The key of a picture in the `thumbnails` message: document id and picture ref. */
export function pictureKey(documentId: string, selfRef: string): string {
  return `${documentId} ${selfRef}`;
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
  | { type: 'select'; runId: string }
  /** The thumbnails of a run's pictures, sent after its state (bytes are read from the index on demand). */
  | { type: 'thumbnails'; runId: string; thumbnails: Record<string, RunThumbnail> };

export interface RenderedCounts {
  executions: number;
  searches: number;
  hits: number;
  citations: number;
  /** Code blocks that went through the highlighter. */
  highlightedBlocks: number;
  /** Block elements (paragraphs, headings, lists, tables, code) of the answer rendered from Markdown. */
  answerBlocks: number;
  /** Picture thumbnails drawn (images with data). */
  thumbnails: number;
}

export type WebviewToHostMessage =
  | { type: 'ready' }
  | { type: 'selectRun'; runId: string }
  | { type: 'openChunk'; runId: string; chunkId: string }
  | { type: 'openPicture'; runId: string; documentId: string; selfRef: string }
  | { type: 'rendered'; runId: string; counts: RenderedCounts };

/** A picture a run shows, with the chunk that shows it (its path names the opened picture's tab). */
export interface RunPictureView {
  documentId: string;
  selfRef: string;
  relativePath: string;
}

/**
 * The distinct pictures of a list of chunks (one search step's hits, or the citations), in order, at most
 * `RUNS_THUMBNAILS_PER_STEP`: what the panel shows as thumbnails, and all the webview may ask to open.
 */
export function picturesOf(chunks: readonly RunChunkView[]): RunPictureView[] {
  const pictures = new Map<string, RunPictureView>();
  for (const chunk of chunks) {
    for (const selfRef of chunk.pictureRefs ?? []) {
      if (chunk.documentId !== undefined && pictures.size < RUNS_THUMBNAILS_PER_STEP) {
        pictures.set(pictureKey(chunk.documentId, selfRef), { documentId: chunk.documentId, selfRef, relativePath: chunk.relativePath });
      }
    }
  }
  return [...pictures.values()];
}

/** Every picture a run shows: each search step's, then the citations'. */
export function runPictures(run: RunView): RunPictureView[] {
  const pictures = new Map<string, RunPictureView>();
  const groups = [...run.steps.map((step) => (step.kind === 'search' ? step.hits : [])), run.citations];
  for (const picture of groups.flatMap((chunks) => picturesOf(chunks))) {
    pictures.set(pictureKey(picture.documentId, picture.selfRef), picture);
  }
  return [...pictures.values()];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;
const PICTURE_REF_PATTERN = /^#\/pictures\/\d{1,9}$/;

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
    case 'openPicture':
      return isId(value.runId) && isId(value.documentId) && typeof value.selfRef === 'string' && PICTURE_REF_PATTERN.test(value.selfRef)
        ? { type: 'openPicture', runId: value.runId, documentId: value.documentId, selfRef: value.selfRef }
        : undefined;
    case 'rendered': {
      const counts = value.counts;
      const keys = ['executions', 'searches', 'hits', 'citations', 'highlightedBlocks', 'answerBlocks', 'thumbnails'] as const;
      if (!isId(value.runId) || !isObject(counts) || !keys.every((key) => typeof counts[key] === 'number')) {
        return undefined;
      }
      return { type: 'rendered', runId: value.runId, counts: Object.fromEntries(keys.map((key) => [key, counts[key] as number])) as unknown as RenderedCounts };
    }
    default:
      return undefined;
  }
}
