import * as fs from 'node:fs';
import * as path from 'node:path';
import { SyntheticVocabulary, seededRandom } from './benchSupport';

/** Words per section paragraph: one section (heading + paragraph) stays under the 256-token chunk limit. */
export const SYNTHETIC_WORDS_PER_SECTION = 60;

/**
 * Writes `fileCount` Markdown files of `sectionsPerFile` sections (an H2 and one paragraph of Zipf words
 * each), so the chunker makes one chunk per section: fileCount × sectionsPerFile chunks in all.
 */
export function writeSyntheticMarkdown(folder: string, options: { fileCount: number; sectionsPerFile: number; seed?: number }): void {
  const random = seededRandom(options.seed ?? 7);
  const vocabulary = syntheticVocabulary();
  fs.mkdirSync(folder, { recursive: true });
  for (let file = 0; file < options.fileCount; file++) {
    const parts = [`# Synthetic document ${file}\n`];
    for (let section = 0; section < options.sectionsPerFile; section++) {
      parts.push(`## Section ${section} ${vocabulary.draw(random)}\n\n${vocabulary.sentence(random, SYNTHETIC_WORDS_PER_SECTION)}.\n`);
    }
    fs.writeFileSync(path.join(folder, `document-${String(file).padStart(5, '0')}.md`), parts.join('\n'));
  }
}

/** The same vocabulary every time (seeded), so queries can pick mid-frequency words. */
export function syntheticVocabulary(): SyntheticVocabulary {
  return new SyntheticVocabulary(20_000, seededRandom(11));
}

/** Queries of two mid-frequency words (Zipf ranks 200–2,000), as in the shared notes' benchmarks. */
export function syntheticQueries(count: number, seed = 13): string[] {
  const vocabulary = syntheticVocabulary();
  const random = seededRandom(seed);
  const pick = () => vocabulary.words[200 + Math.floor(random() * 1800)];
  return Array.from({ length: count }, () => `${pick()} ${pick()}`);
}
