import type { HaikuTestApi } from './testApi';

/** Version of what `activate()` returns; raised on any incompatible change. */
export const HAIKU_API_VERSION = 1;

/**
 * What `activate()` returns to other extensions: small and versioned. `testing` is present only when the
 * extension runs under test (`ExtensionMode.Test`); production objects keep no state for tests.
 */
export interface HaikuExtensionApi {
  readonly apiVersion: typeof HAIKU_API_VERSION;
  /** The index's state and counts, as the status bar shows them. */
  indexStatus(): { state: string; documents: number; chunks: number };
  readonly testing?: HaikuTestApi;
}
