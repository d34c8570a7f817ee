import * as path from 'node:path';
import * as fs from 'node:fs';

/** The repository root. */
export const repositoryRoot = path.resolve(__dirname, '../..');

/** `shared/` beside the checkout (as CI lays it out); `HAIKU_SHARED_DIR` overrides. It may be absent (a clone alone). */
export const sharedRoot = process.env.HAIKU_SHARED_DIR ?? path.resolve(repositoryRoot, '..', 'shared');

/** The copies of part of the shared corpus carried in the repository (`test/fixtures/corpus/LICENCES.md`). */
export const carriedCorpusRoot = path.join(repositoryRoot, 'test', 'fixtures', 'corpus');

/** The whole corpus in `shared/`, when it is there: the documents that are not carried are read from it. */
const sharedCorpusRoot = path.join(sharedRoot, 'corpus');

/**
 * The test documents: the copies carried in the repository, whatever `shared/` holds, so that the suite tests the
 * same files everywhere (the sweeps over every document too). A document that is not carried is found in
 * `shared/corpus` by `corpusFile`; its tests skip without it (`skipUnlessCorpusHas`).
 */
export const corpusRoot = carriedCorpusRoot;

/** A corpus document by its path relative to the corpus: the carried copy, else the one in `shared/corpus`. */
export function corpusFile(relativePath: string): string {
  const carried = path.join(carriedCorpusRoot, relativePath);
  return fs.existsSync(carried) ? carried : path.join(sharedCorpusRoot, relativePath);
}

/** The SciFact dataset; optional (`scifactAvailable`): tests of it skip without it. */
export const scifactRoot = path.join(sharedRoot, 'eval', 'scifact');
export const scifactAvailable = fs.existsSync(path.join(scifactRoot, 'qrels'));

/** Which of these corpus documents are neither carried nor in `shared/corpus`. */
export function missingCorpusFiles(relativePaths: readonly string[]): string[] {
  return relativePaths.filter((relativePath) => !fs.existsSync(corpusFile(relativePath)));
}

/**
 * Skips the running test or hook, saying why, when one of these corpus files is not carried in the repository
 * and no `shared/` folder with them was found.
 */
export function skipUnlessCorpusHas(context: Mocha.Context, ...relativePaths: string[]): void {
  const missing = missingCorpusFiles(relativePaths);
  if (missing.length > 0) {
    skipWithReason(context, `needs ${missing.join(', ')} from shared/corpus (not carried in test/fixtures/corpus; set HAIKU_SHARED_DIR)`);
  }
}

/** Skips the running test or hook when the SciFact dataset is not there. */
export function skipUnlessScifact(context: Mocha.Context): void {
  if (!scifactAvailable) {
    skipWithReason(context, `needs the SciFact dataset at ${scifactRoot} (optional; set HAIKU_SHARED_DIR)`);
  }
}

function skipWithReason(context: Mocha.Context, reason: string): never {
  const title = context.currentTest?.fullTitle() ?? context.test?.fullTitle() ?? 'a test';
  process.stdout.write(`      skipped "${title}": ${reason}\n`);
  context.skip();
}

/** Every file below a folder, recursively, with forward-slash paths relative to it. */
export function filesBelow(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name)).split(path.sep).join('/'))
    .sort();
}
