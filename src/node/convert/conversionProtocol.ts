/**
 * Messages between the conversion pool and its workers, and how typed errors cross the thread boundary: a worker
 * sends code + message + path, the pool rebuilds the same class, so callers cannot tell a pooled conversion from an
 * in-process one.
 */
import type { Chunk } from '../../core/model/chunk';
import type { DocumentItem, HaikuDocument } from '../../core/model/document';
import { CancelledError, ConversionError, HaikuError, type HaikuErrorCode } from '../../core/errors';
import type { OcrOptions, PictureProcessing } from './convertFile';

export interface ConversionJob {
  jobId: number;
  filePath: string;
  rootPath: string;
  maxBytes?: number;
  pictures?: PictureProcessing;
  pictureRoots?: readonly string[];
  ocr?: OcrOptions;
  /** The caller takes a big document's items and chunks in parts (`PreparedDocument.parts`) instead of gathered. */
  inParts?: boolean;
}

/** A converted document with its chunks: chunking (mostly tokenising) runs in the worker too. */
export interface PreparedDocument {
  document: HaikuDocument;
  chunks: Chunk[];
  /**
   * A big document's rows, when it came in parts (`ConversionLoadOptions.inParts`): `document.items` and `chunks` are
   * then empty and the parts hold them, every item before the first chunk. The caller must read them to the end (the
   * worker waits for each part to be taken); `document.warnings` and `document.content` are complete once they are read.
   */
  parts?: AsyncIterable<PreparedPart>;
}

/** Some of a big document's items or chunks, in order. */
export interface PreparedPart {
  items: DocumentItem[];
  chunks: Chunk[];
}

/** A part as the worker sends it: each chunk's `searchText` is made again on arrival (`chunkSearchText`), not copied. */
export interface PartOnTheWire {
  items: DocumentItem[];
  chunks: Array<Omit<Chunk, 'searchText'>>;
}

export interface SerializedError {
  /** Set for `HaikuError`s; anything else arrives as a plain error. */
  code?: HaikuErrorCode;
  name: string;
  message: string;
  /** Set for `ConversionError`s. */
  path?: string;
}

/**
 * Jobs of one message are converted in order, each answered as soon as it is done. `taken` tells a worker sending a
 * document in parts that the caller has taken its last part (the worker sends the next one only then).
 */
export type PoolToWorkerMessage = { type: 'convert'; jobs: ConversionJob[] } | { type: 'taken'; jobId: number };

/**
 * A small document comes whole (`converted`). A big one whose caller takes parts comes as `converted` with
 * `inParts` (the document without its items and its `content`, before chunking), then `part`s, one at a time as each
 * is taken, items first, then `parts-end` with the warnings chunking added and the `content` as UTF-8 (transferred,
 * not copied); a failure after the first message is a `failed`.
 */
export type WorkerToPoolMessage =
  | { type: 'ready' }
  | { type: 'converted'; jobId: number; document: HaikuDocument; chunks: Chunk[]; inParts?: boolean }
  | { type: 'part'; jobId: number; part: PartOnTheWire }
  | { type: 'parts-end'; jobId: number; warnings: string[]; content: Uint8Array }
  | { type: 'failed'; jobId: number; error: SerializedError };

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ConversionError) {
    return { code: error.code, name: error.name, message: error.message, path: error.path };
  }
  if (error instanceof HaikuError) {
    return { code: error.code, name: error.name, message: error.message };
  }
  return { name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) };
}

/** The error a worker reported, as the class it was thrown as; untyped errors become `corrupt_file` naming the file. */
export function deserializeError(serialized: SerializedError, filePath: string): Error {
  if (serialized.code === undefined) {
    return new ConversionError('corrupt_file', filePath, `could not be converted (${serialized.message}). Exclude the file or report the problem with a copy of it.`);
  }
  if (serialized.path !== undefined) {
    // ConversionError prefixes its message with the path: hand it back only the reason so the message is identical.
    const prefix = `${serialized.path}: `;
    const reason = serialized.message.startsWith(prefix) ? serialized.message.slice(prefix.length) : serialized.message;
    return new ConversionError(serialized.code, serialized.path, reason);
  }
  if (serialized.name === 'CancelledError') {
    const cancelled = new CancelledError();
    cancelled.message = serialized.message;
    return cancelled;
  }
  return new HaikuError(serialized.code, serialized.message);
}
