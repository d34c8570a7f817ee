import * as path from 'node:path';

export type BackendModule = typeof import('./nodeBackend');

let loaded: BackendModule | undefined;

/**
 * The heavy half of the extension (LanceDB, converters, the AI SDK, the agent) is a second bundle,
 * `dist/backend.js`, required on first use: activation then parses about 1/20 of the code. Errors crossing the
 * boundary are matched by `code`/`name`, never by `instanceof` (each bundle has its own error classes).
 */
export function loadBackendModule(): BackendModule {
  if (!loaded) {
    const bundled = path.join(__dirname, 'backend.js');
    // A computed path, so esbuild leaves this require to run time instead of inlining the module.
    // A runtime path: esbuild must not inline the heavy half into extension.js.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require(bundled) as BackendModule;
  }
  return loaded;
}

/** The `HaikuError` code of an error from either bundle. */
export function haikuErrorCode(error: unknown): string | undefined {
  if (error instanceof Error && /^(Haiku|Conversion|Cancelled)Error$/.test(error.name)) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
