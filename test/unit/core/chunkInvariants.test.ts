import * as assert from 'node:assert';
import * as path from 'node:path';
import { chunkDocument, countChunkTokens } from '../../../src/core/chunker';
import { CHUNK_MAX_TOKENS, CHUNK_MIN_CONTENT_TOKENS } from '../../../src/core/limits';
import type { Chunk } from '../../../src/core/model/chunk';
import { NOISE_LABELS, type ConvertedDocument, type DocumentItem } from '../../../src/core/model/document';
import { corpusRoot, filesBelow } from '../../support/paths';

/**
 * Chunk invariants over every document of the shared corpus that converts (formats whose converter is not
 * there yet are reported and skipped): text coverage in order without overlap, the token limit, heading
 * trails, refs and pages.
 */
type Converter = (filePath: string) => Promise<ConvertedDocument>;

function loadConverter(): Converter | undefined {
  try {
    // Required lazily: the converters are written in parallel and may be incomplete.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- core tests load the node layer only here
    return (require('../../../src/node/convert/convertFile') as { convertFile: Converter }).convertFile;
  } catch {
    return undefined;
  }
}

const isHeader = (item: DocumentItem): boolean => item.label === 'title' || item.label === 'section_header';
const squeeze = (text: string): string => text.replace(/\s+/g, '');

/** The heading trail every item sits under (a title is level 0; a header of level L drops levels ≥ L). */
function expectedTrails(items: readonly DocumentItem[]): Map<string, string[]> {
  const trails = new Map<string, string[]>();
  let trail: Array<{ level: number; text: string }> = [];
  for (const item of items) {
    if (NOISE_LABELS.has(item.label)) {
      continue;
    }
    if (isHeader(item)) {
      const level = item.label === 'title' ? 0 : item.headingLevel;
      trail = trail.filter((entry) => entry.level < level);
      if (item.text.trim()) {
        trail.push({ level, text: item.text.trim() });
      }
    }
    trails.set(item.selfRef, trail.map((entry) => entry.text));
  }
  return trails;
}

/** Every problem found in one document's chunks (empty when all invariants hold). */
function checkInvariants(items: readonly DocumentItem[], chunks: readonly Chunk[]): string[] {
  const problems: string[] = [];
  const byRef = new Map(items.map((item) => [item.selfRef, item]));
  const trails = expectedTrails(items);
  const referenced = new Set(chunks.flatMap((chunk) => chunk.docItemRefs));

  // Coverage: with whitespace removed, the chunks' contents are exactly the non-header, non-noise item texts
  // in reading order (plus the text of headers whose section had no content), so nothing is lost or repeated.
  const joined = chunks.map((chunk) => squeeze(chunk.content)).join('');
  let cursor = 0;
  let coveredLength = 0;
  for (const item of items) {
    if (NOISE_LABELS.has(item.label) || !item.text.trim()) {
      continue;
    }
    if (!referenced.has(item.selfRef)) {
      problems.push(`${item.selfRef} (${item.label}) is in no chunk`);
      continue;
    }
    if (isHeader(item)) {
      const holder = chunks.find((chunk) => chunk.docItemRefs.includes(item.selfRef))!;
      const text = item.text.trim();
      if (!holder.headings.includes(text) && !holder.content.includes(text)) {
        problems.push(`header ${item.selfRef} "${text}" is neither in the trail nor the content of its chunk`);
      }
      // A header of a section without content is chunk text of its own (a chunk of headers only). Its text
      // may also be in the trail when a title and a heading share it, so the trail alone cannot tell.
      const headersOnly = holder.docItemRefs.every((ref) => {
        const held = byRef.get(ref);
        return !held || !held.text.trim() || isHeader(held) || NOISE_LABELS.has(held.label);
      });
      if (holder.content.includes(text) && (!holder.headings.includes(text) || headersOnly)) {
        const index = joined.indexOf(squeeze(text), cursor);
        if (index >= 0) {
          cursor = index + squeeze(text).length;
          coveredLength += squeeze(text).length;
        }
      }
      continue;
    }
    const text = squeeze(item.text);
    const index = joined.indexOf(text, cursor);
    if (index < 0) {
      problems.push(`${item.selfRef} (${item.label}) text not covered in order: ${item.text.slice(0, 60)}`);
      continue;
    }
    if (index !== cursor) {
      problems.push(`${item.selfRef}: ${index - cursor} unexpected characters before it: ${joined.slice(cursor, Math.min(index, cursor + 60))}`);
    }
    cursor = index + text.length;
    coveredLength += text.length;
  }
  if (coveredLength !== joined.length) {
    problems.push(`chunks hold ${joined.length - coveredLength} characters beyond the items' texts (overlap or invented text)`);
  }

  const ids = new Set<string>();
  chunks.forEach((chunk, order) => {
    const exact = countChunkTokens(chunk.searchText);
    const trailTokens = chunk.headings.length > 0 ? countChunkTokens(chunk.headings.join('\n')) + 1 : 0;
    // The only allowed excess: a heading trail so long that the content kept its minimum budget.
    if (exact > CHUNK_MAX_TOKENS && !(CHUNK_MAX_TOKENS - trailTokens < CHUNK_MIN_CONTENT_TOKENS && countChunkTokens(chunk.content) <= CHUNK_MIN_CONTENT_TOKENS)) {
      problems.push(`chunk ${order} has ${exact} tokens`);
    }
    if (chunk.tokenCount < exact) {
      problems.push(`chunk ${order} reports ${chunk.tokenCount} tokens but has ${exact}`);
    }
    if (chunk.order !== order || ids.has(chunk.id)) {
      problems.push(`chunk ${order}: order ${chunk.order} or duplicate id`);
    }
    ids.add(chunk.id);
    if (chunk.searchText !== (chunk.headings.length > 0 ? `${chunk.headings.join('\n')}\n${chunk.content}` : chunk.content)) {
      problems.push(`chunk ${order}: searchText is not headings + content`);
    }
    const positions = chunk.docItemRefs.map((ref) => byRef.get(ref)?.position ?? -1);
    if (positions.some((position, index) => position < 0 || (index > 0 && position <= positions[index - 1]))) {
      problems.push(`chunk ${order}: refs not in reading order or unknown: ${chunk.docItemRefs.join(',')}`);
    }
    if (chunk.labels.some((label, index) => byRef.get(chunk.docItemRefs[index])?.label !== label)) {
      problems.push(`chunk ${order}: labels do not match refs`);
    }
    const pages = [...new Set(chunk.docItemRefs.flatMap((ref) => byRef.get(ref)?.pageNumbers ?? []))].sort((left, right) => left - right);
    if (pages.join(',') !== chunk.pageNumbers.join(',')) {
      problems.push(`chunk ${order}: pages ${chunk.pageNumbers} instead of ${pages}`);
    }
    const contentItems = chunk.docItemRefs.map((ref) => byRef.get(ref)!).filter((item) => item && !isHeader(item) && item.text.trim());
    for (const item of contentItems) {
      const expected = trails.get(item.selfRef) ?? [];
      if (expected.join(' > ') !== chunk.headings.join(' > ')) {
        problems.push(`chunk ${order}: headings [${chunk.headings.join(' > ')}] but ${item.selfRef} sits under [${expected.join(' > ')}]`);
        break;
      }
    }
  });
  return problems;
}

describe('chunk invariants over the shared corpus', function () {
  this.timeout(600_000);
  const files = filesBelow(corpusRoot).filter((file) => /\.(md|html|pdf|docx)$/i.test(file));
  const convertFile = loadConverter();

  it('holds for every document that converts', async function () {
    // A converter that cannot load is a failure, never a silently skipped corpus check.
    assert.ok(convertFile, 'the converters could not be loaded (src/node/convert/convertFile)');
    const converted: Array<{ file: string; document: ConvertedDocument }> = [];
    const failures: string[] = [];
    for (const file of files) {
      try {
        converted.push({ file, document: await convertFile!(path.join(corpusRoot, file)) });
      } catch (error) {
        failures.push(`${file}: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    if (failures.length > 0) {
      console.log(`      (not converted, skipped: ${failures.length})\n        ${failures.join('\n        ')}`);
    }
    // Markdown and HTML are the converters this suite cannot do without.
    assert.ok(converted.filter(({ file }) => file.endsWith('.md')).length >= 60, 'Markdown files convert');
    assert.ok(converted.some(({ file }) => file.endsWith('.html')), 'HTML files convert');
    const problems: string[] = [];
    let chunkCount = 0;
    for (const { file, document } of converted) {
      const chunks = chunkDocument({ id: file, items: document.items });
      chunkCount += chunks.length;
      for (const problem of checkInvariants(document.items, chunks).slice(0, 5)) {
        problems.push(`${file}: ${problem}`);
      }
    }
    assert.ok(chunkCount > converted.length, 'chunks were produced');
    assert.deepStrictEqual(problems, []);
  });

  it('catches a broken chunking (self-check of the checker)', () => {
    const items: DocumentItem[] = [
      { position: 0, selfRef: '#/texts/0', label: 'section_header', text: 'Head', headingLevel: 1, pageNumbers: [], treeDepth: 0 },
      { position: 1, selfRef: '#/texts/1', label: 'paragraph', text: 'First paragraph.', headingLevel: 0, pageNumbers: [], treeDepth: 0 },
      { position: 2, selfRef: '#/texts/2', label: 'paragraph', text: 'Second paragraph.', headingLevel: 0, pageNumbers: [], treeDepth: 0 },
    ];
    const good = chunkDocument({ id: 'doc', items });
    assert.deepStrictEqual(checkInvariants(items, good), []);
    const dropped = good.map((chunk) => ({ ...chunk, content: chunk.content.replace('Second paragraph.', '') }));
    assert.ok(checkInvariants(items, dropped).length > 0);
    const overlapping = good.map((chunk) => ({ ...chunk, content: `${chunk.content} First paragraph.` }));
    assert.ok(checkInvariants(items, overlapping).length > 0);
    const wrongTrail = good.map((chunk) => ({ ...chunk, headings: ['Other'] }));
    assert.ok(checkInvariants(items, wrongTrail).length > 0);
  });
});
