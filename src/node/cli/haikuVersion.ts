import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Names of Haiku's own package.json: the repository's (also the VS Code extension's manifest) and the npm package's
 * (scripts/packageNpm.mjs writes it; `haiku` is taken on npm).
 */
const HAIKU_PACKAGE_NAMES = new Set(['haiku', 'haiku-rag-cli']);

/**
 * The version in Haiku's package.json, found above this file: beside `dist/` when bundled (an npm install or a
 * clone), three folders up under tsx. Read at run time because only `src/` may be imported.
 */
export function haikuVersion(start: string = __dirname): string {
  for (let folder = start; ; folder = path.dirname(folder)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name !== undefined && HAIKU_PACKAGE_NAMES.has(manifest.name) && typeof manifest.version === 'string') {
        return manifest.version;
      }
    } catch {
      // No (readable) package.json here: keep looking upwards.
    }
    if (path.dirname(folder) === folder) {
      return 'unknown';
    }
  }
}
