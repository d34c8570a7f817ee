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
  | 'read_only';

export class HaikuError extends Error {
  readonly code: HaikuErrorCode;
  constructor(code: HaikuErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HaikuError';
    this.code = code;
  }
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
