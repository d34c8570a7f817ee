import type { SearchResult, DocumentSummary } from '../model/search';

/** What the guest code can reach on the host: everything is scoped by the run's document filter. */
export interface SandboxHost {
  search(query: string, limit: number): Promise<SearchResult[]>;
  listDocuments(): Promise<DocumentSummary[]>;
  /** Registers citations; returns a short report for the guest (accepted and unknown ids). */
  cite(chunkIds: string[]): Promise<{ accepted: string[]; unknown: string[] }>;
  /** Reads a VFS file (`/documents/{id}/metadata.json` …); rejects with an ENOENT-style error for unknown paths. */
  readFile(path: string): Promise<string>;
  /** Lists the entries of a VFS folder (`/documents`, `/documents/{id}`). */
  listDir(path: string): Promise<string[]>;
}

export interface CodeExecutionResult {
  code: string;
  stdout: string;
  stderr: string;
  success: boolean;
  durationMs: number;
  /** True when the session was reset (timeout, crash): variables from earlier calls are gone. */
  sessionReset: boolean;
}

/** One question's sandbox: variables persist between `execute` calls until `dispose`. */
export interface CodeSandbox {
  /**
   * Runs guest code; guest errors and limits come back as `success: false` with the reason in `stderr`.
   * Calls run one at a time in call order. Aborting kills the running code, resets the session and rejects
   * with `CancelledError`; after `dispose` it rejects with a `sandbox_failed` HaikuError.
   */
  execute(code: string, options?: { abortSignal?: AbortSignal }): Promise<CodeExecutionResult>;
  dispose(): Promise<void>;
}
