import type { PackedText } from './packedText';

/** Messages between `createCodeSandbox` (main thread) and the sandbox worker (`worker.ts`). */

/** Passed as `workerData`. */
export interface SandboxWorkerSettings {
  memoryLimitBytes: number;
  stackLimitBytes: number;
  maxOutputChars: number;
  /** How long past the deadline host calls in flight may take to finish (ms). */
  inFlightCallGraceMs: number;
  /** QuickJS's wasm compiled once on the main thread; absent when it was not found there. */
  compiledWasm?: WebAssembly.Module;
}

export type MainToWorkerMessage =
  | { type: 'execute'; executionId: number; code: string; deadline: number; codeTimeoutSeconds: number }
  /**
   * `value` is JSON text, except for `readFile` whose value is the file's text, packed in a transferred buffer.
   * `readAhead`: more VFS files ([path, text], packed in the same buffer) for the worker's cache, sent along with a
   * `readFile` (see `ReadAheadPlanner`).
   */
  | { type: 'hostResult'; callId: number; ok: true; value: string | PackedText; readAhead?: Array<[string, PackedText]> }
  | { type: 'hostResult'; callId: number; ok: false; name: string; message: string };

export type WorkerToMainMessage =
  | { type: 'ready' }
  | { type: 'startupFailed'; message: string }
  /**
   * `args` are the guest's primitives in order (`cite` passes one chunk id per argument). `readAheadChars`: on a
   * `readFile`, how many characters of other files the worker's cache would take along with it (0: none).
   */
  | { type: 'hostCall'; executionId: number; callId: number; method: string; args: unknown[]; readAheadChars?: number }
  | { type: 'executionResult'; executionId: number; stdout: string; stderr: string; success: boolean; needsReset: boolean };
