import * as fs from 'node:fs';
import * as path from 'node:path';
import type { inProcessConverters } from './inProcessConverters';

/** Looked up once per process: `inProcessConversion` asks for every file it converts. */
let loaded: typeof inProcessConverters | undefined;

/**
 * The converters and the chunker, required on first use from `converters.js` beside the bundle (its own esbuild
 * entry), or from `inProcessConverters` beside the tsc output or the source under tsx. Never bundled into the CLI or
 * the extension's backend: with them, every `haiku` command and the backend's first load parsed 6.6 MB more
 * (`haiku search` 0.68 s against 0.56 s) and loaded the o200k tokenizer (0.3 s, 68 MiB) for nothing.
 */
export function loadInProcessConverters(): typeof inProcessConverters {
  if (!loaded) {
    const bundled = path.join(__dirname, 'converters.js');
    const modulePath = fs.existsSync(bundled) ? bundled : path.join(__dirname, 'inProcessConverters');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = (require(modulePath) as typeof import('./inProcessConverters')).inProcessConverters;
  }
  return loaded;
}
