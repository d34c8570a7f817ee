import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertFile } from '../../../src/node/convert/convertFile';
import { buildSectionTree } from '../../../src/core/toc';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { corpusRoot, filesBelow } from '../../support/paths';

/** Documents of the corpus (READMEs, licences and ground truths are not test inputs). */
const corpusFiles = filesBelow(corpusRoot).filter((file) => /\.(md|html|docx|pdf)$/.test(file) && !/\.groundtruth\.md$|(^|\/)(README|COPYRIGHT-content)\.md$/.test(file));

function checkInvariants(relativePath: string, document: ConvertedDocument, source?: string): void {
  assert.ok(document.title.trim(), `${relativePath}: empty title`);
  document.items.forEach((item, index) => assert.equal(item.position, index, `${relativePath}: position`));
  const counters = new Map<string, number>();
  for (const item of document.items) {
    const match = /^#\/(texts|tables|pictures)\/(\d+)$/.exec(item.selfRef);
    assert.ok(match, `${relativePath}: selfRef ${item.selfRef}`);
    assert.equal(Number(match[2]), counters.get(match[1]) ?? 0, `${relativePath}: ${item.selfRef} out of order`);
    counters.set(match[1], Number(match[2]) + 1);
    assert.equal(match[1], item.label === 'table' || item.label === 'document_index' ? 'tables' : item.label === 'picture' ? 'pictures' : 'texts', `${relativePath}: ${item.selfRef} is a ${item.label}`);
    if (item.label === 'section_header') {
      assert.ok(item.headingLevel >= 1 && item.headingLevel <= 6, `${relativePath}: level ${item.headingLevel}`);
    } else {
      assert.equal(item.headingLevel, 0);
    }
    if (source !== undefined) {
      const lineCount = source.split(/\r\n|\r|\n/).length;
      const range = item.sourceRange;
      assert.ok(range && range.startLine !== undefined && range.endLine !== undefined, `${relativePath}: ${item.selfRef} has no source range`);
      assert.ok(range.startLine >= 0 && range.startLine <= range.endLine && range.endLine < lineCount, `${relativePath}: ${item.selfRef} range ${JSON.stringify(range)}`);
    }
  }
  buildSectionTree(document.items);
}

describe('every document of the corpus converts', function () {
  this.timeout(300_000);

  it('converts each Markdown, HTML and DOCX file, with consistent items and source ranges', async () => {
    const files = corpusFiles.filter((file) => !file.endsWith('.pdf'));
    assert.ok(files.length >= 79, `found ${files.length}`);
    const started = performance.now();
    let items = 0;
    const byFormat = new Map<string, number>();
    for (const relativePath of files) {
      const fullPath = path.join(corpusRoot, relativePath);
      const fileStarted = performance.now();
      const document = await convertFile(fullPath);
      byFormat.set(document.format, (byFormat.get(document.format) ?? 0) + performance.now() - fileStarted);
      items += document.items.length;
      checkInvariants(relativePath, document, document.format === 'docx' ? undefined : fs.readFileSync(fullPath, 'utf8'));
      if (document.format === 'docx') {
        assert.ok(document.items.every((item) => item.sourceRange === undefined));
      }
    }
    const perFormat = [...byFormat].map(([format, milliseconds]) => `${format} ${milliseconds.toFixed(0)} ms`).join(', ');
    console.log(`      ${files.length} files, ${items} items in ${(performance.now() - started).toFixed(0)} ms (${perFormat})`);
  });

  it('converts each PDF file with page numbers', async () => {
    const files = corpusFiles.filter((file) => file.endsWith('.pdf'));
    // The 12 of shared/corpus but the two big ones test/fixtures/corpus does not carry (pdf.test.ts reads them from shared/).
    assert.equal(files.length, 10);
    const started = performance.now();
    for (const relativePath of files) {
      const document = await convertFile(path.join(corpusRoot, relativePath));
      assert.equal(document.format, 'pdf');
      checkInvariants(relativePath, document);
      assert.ok(document.items.length > 0, `${relativePath}: no items`);
      assert.ok(document.items.every((item) => item.pageNumbers.length > 0 && item.pageNumbers.every((page) => page >= 1 && page <= (document.pageCount ?? Infinity))), `${relativePath}: page numbers`);
    }
    console.log(`      ${files.length} PDF files in ${(performance.now() - started).toFixed(0)} ms`);
  });
});
