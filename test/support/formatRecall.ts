import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConvertedDocument, DocumentItem } from '../../src/core/model/document';
import { repositoryRoot } from './paths';

/**
 * Measuring a converter against docling's ground truth (`<file>.groundtruth.md`): word recall, headings, table
 * rows. The files are copies of `shared/corpus/formats/` (`test/fixtures/formats/LICENCES.md`).
 */

/** Copies of `shared/corpus/formats/` (`test/fixtures/formats/LICENCES.md`). */
export const formatsRoot = path.join(repositoryRoot, 'test', 'fixtures', 'formats');

/** Lowercased words (letters and digits) of a text, counted. */
export function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

/** The share of the expected words (as a multiset) found in the converted items' text. */
export function wordRecall(expected: string, items: readonly DocumentItem[]): number {
  const wanted = wordCounts(expected);
  const found = wordCounts(items.map((item) => item.text).join('\n'));
  let total = 0;
  let matched = 0;
  for (const [word, count] of wanted) {
    total += count;
    matched += Math.min(count, found.get(word) ?? 0);
  }
  return total === 0 ? 1 : matched / total;
}

/** The ground truth's `#` heading texts. */
export function groundTruthHeadings(markdown: string): string[] {
  return markdown.split('\n').filter((line) => /^#{1,6} /.test(line)).map((line) => line.replace(/^#+\s+/, '').trim());
}

export function headingTexts(document: ConvertedDocument): string[] {
  return document.items.filter((item) => item.label === 'title' || item.label === 'section_header').map((item) => item.text);
}

/** The rows of a Markdown pipe table (separator row dropped), cells trimmed. */
export function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|(\s*-+\s*\|)+\s*$/.test(line))
    .map((line) => line.slice(1, line.endsWith('|') ? -1 : undefined).split(/(?<!\\)\|/).map((cell) => cell.trim()));
}

export function filesWithGroundTruth(folder: string): string[] {
  return fs.readdirSync(path.join(formatsRoot, folder)).filter((name) => !name.endsWith('.groundtruth.md') && fs.existsSync(path.join(formatsRoot, folder, `${name}.groundtruth.md`))).sort();
}

