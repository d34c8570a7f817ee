import type { ConfigPath } from './config';

/**
 * Typed errors. Inside the code they are matched by `code`; at the edges their `message` is shown as is,
 * so every message says what happened and what to do next.
 */
export type HaikuErrorCode =
  | 'empty_file'
  | 'binary_file'
  | 'invalid_encoding'
  | 'file_too_large'
  | 'unreadable_file'
  | 'corrupt_file'
  | 'encrypted_file'
  | 'unsupported_format'
  | 'conversion_timeout'
  | 'invalid_filter'
  | 'rebuild_needed'
  | 'embedding_failed'
  | 'rerank_failed'
  | 'model_unreachable'
  | 'model_failed'
  | 'sandbox_failed'
  | 'invalid_settings'
  | 'cancelled'
  | 'not_found'
  | 'index_busy'
  | 'storage_unreachable'
  | 'storage_denied'
  | 'storage_throttled'
  | 'read_only'
  /** A project file's base URL would receive the user's API key; nothing was sent (`haiku trust` allows it). */
  | 'untrusted_endpoint';

/**
 * What the user can change to fix an error, in front-end-neutral terms. The message says what happened; each
 * front end words the remedy in its own terms (the CLI its flag, environment variable or config key; VS Code its
 * `haiku.*` setting or command), so no message names a setting of the wrong front end.
 */
export interface ErrorRemedy {
  /** Configuration paths to set, most likely first. */
  settings?: readonly ConfigPath[];
  /** Something to run: build the index, or rebuild it. */
  action?: RemedyAction;
}

export type RemedyAction = 'build_index' | 'rebuild_index';

export const REMEDY_ACTIONS: readonly RemedyAction[] = ['build_index', 'rebuild_index'];

const ERROR_CODES: Record<HaikuErrorCode, true> = {
  empty_file: true, binary_file: true, invalid_encoding: true, file_too_large: true, unreadable_file: true, corrupt_file: true, encrypted_file: true,
  unsupported_format: true, conversion_timeout: true, invalid_filter: true, rebuild_needed: true, embedding_failed: true, rerank_failed: true,
  model_unreachable: true, model_failed: true, sandbox_failed: true, invalid_settings: true, cancelled: true, not_found: true, index_busy: true,
  storage_unreachable: true, storage_denied: true, storage_throttled: true, read_only: true, untrusted_endpoint: true,
};

/** Every error code (a record above, so a new code cannot be left out), for tests that run each through the front ends. */
export const HAIKU_ERROR_CODES = Object.keys(ERROR_CODES) as HaikuErrorCode[];

/** The remedy an error has when its thrower names none: a rebuild is always what `rebuild_needed` asks for. */
const DEFAULT_REMEDIES: Partial<Record<HaikuErrorCode, ErrorRemedy>> = { rebuild_needed: { action: 'rebuild_index' } };

export class HaikuError extends Error {
  readonly code: HaikuErrorCode;
  readonly remedy?: ErrorRemedy;
  constructor(code: HaikuErrorCode, message: string, options?: { cause?: unknown; remedy?: ErrorRemedy }) {
    super(message, options);
    this.name = 'HaikuError';
    this.code = code;
    this.remedy = options?.remedy ?? DEFAULT_REMEDIES[code];
  }
}

/**
 * The remedy of anything thrown (only `HaikuError`s have one). Matched by name, not `instanceof`: VS Code loads
 * the backend as a separate bundle with its own copy of the class.
 */
export function errorRemedy(error: unknown): ErrorRemedy | undefined {
  if (error instanceof Error && /^(Haiku|Conversion|Cancelled)Error$/.test(error.name)) {
    const remedy = (error as { remedy?: unknown }).remedy;
    return typeof remedy === 'object' && remedy !== null ? (remedy as ErrorRemedy) : undefined;
  }
  return undefined;
}

/** A file could not be turned into a document; `path` names it. */
export class ConversionError extends HaikuError {
  readonly path: string;
  constructor(code: HaikuErrorCode, path: string, reason: string, options?: { cause?: unknown }) {
    super(code, `${path}: ${reason}`, options);
    this.name = 'ConversionError';
    this.path = path;
  }
}

export class CancelledError extends HaikuError {
  constructor(what = 'The operation') {
    super('cancelled', `${what} was cancelled.`);
    this.name = 'CancelledError';
  }
}

/** Throws `CancelledError` when the signal has fired; call between units of long work. */
export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) {
    throw new CancelledError(what);
  }
}

export function isHaikuError(error: unknown, code?: HaikuErrorCode): error is HaikuError {
  return error instanceof HaikuError && (code === undefined || error.code === code);
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
