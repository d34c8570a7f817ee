import * as path from 'node:path';
import * as fs from 'node:fs';

/** The repository root. */
export const repositoryRoot = path.resolve(__dirname, '../..');

/** `shared/` beside the checkout (as CI lays it out); `HAIKU_SHARED_DIR` overrides. */
export const sharedRoot = process.env.HAIKU_SHARED_DIR ?? path.resolve(repositoryRoot, '..', 'shared');

export const corpusRoot = path.join(sharedRoot, 'corpus');
export const scifactRoot = path.join(sharedRoot, 'eval', 'scifact');

/** Every file below a folder, recursively, with forward-slash paths relative to it. */
export function filesBelow(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name)).split(path.sep).join('/'))
    .sort();
}
