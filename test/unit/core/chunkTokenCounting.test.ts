import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens as libraryCountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { chunkDocument, countChunkTokens } from '../../../src/core/chunker';
import type { ConvertedDocument, DocumentItem } from '../../../src/core/model/document';
import { convertFile } from '../../../src/node/convert/convertFile';
import { corpusRoot, filesBelow, scifactRoot } from '../../support/paths';

/**
 * The chunker counts tokens piece by piece with a cache of recurring pieces instead of calling the tokenizer's
 * `countTokens` on every text. Its decisions depend only on those counts, so the counts must equal the library's
 * on every text it sees: item texts and chunk texts of the whole shared corpus and of SciFact.
 */
function paragraph(text: string): DocumentItem {
  return { position: 0, selfRef: '#/texts/0', label: 'paragraph', text, headingLevel: 0, pageNumbers: [], treeDepth: 0 } as DocumentItem;
}

/** Texts whose counts differ from the library's, at most a few named. */
function mismatches(texts: Iterable<string>): string[] {
  const found: string[] = [];
  for (const text of texts) {
    const ours = countChunkTokens(text);
    const library = libraryCountTokens(text);
    if (ours !== library) {
      found.push(`${ours} vs ${library}: ${JSON.stringify(text.slice(0, 80))}`);
    }
  }
  return found;
}

function* textsOf(document: { id: string; items: readonly DocumentItem[] }): Generator<string> {
  for (const item of document.items) {
    yield item.text;
  }
  for (const chunk of chunkDocument(document)) {
    yield chunk.searchText;
    yield chunk.content;
  }
}

describe('chunk token counting equals the tokenizer on the corpora', function () {
  this.timeout(600_000);

  it('on every SciFact abstract and its chunks', () => {
    const lines = fs.readFileSync(path.join(scifactRoot, 'corpus.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
    assert.ok(lines.length > 5000, 'the SciFact corpus is there');
    const found: string[] = [];
    for (const line of lines) {
      const record = JSON.parse(line) as { _id: string; title: string; text: string };
      found.push(...mismatches(textsOf({ id: record._id, items: [paragraph(`${record.title}\n${record.text}`)] })));
    }
    assert.deepStrictEqual(found.slice(0, 10), []);
  });

  it('on every item and chunk of the shared corpus', async () => {
    const files = filesBelow(corpusRoot).filter((file) => /\.(md|html?|pdf|docx|txt)$/i.test(file) && !file.endsWith('.groundtruth.md'));
    const found: string[] = [];
    let converted = 0;
    for (const file of files) {
      let document: ConvertedDocument;
      try {
        document = await convertFile(path.join(corpusRoot, file));
      } catch {
        continue; // Files that fail to convert are the converter tests' concern; they give nothing to chunk.
      }
      converted++;
      found.push(...mismatches(textsOf({ id: file, items: document.items })).map((problem) => `${file}: ${problem}`));
    }
    assert.ok(converted >= 80, `most corpus files convert (${converted} of ${files.length})`);
    assert.deepStrictEqual(found.slice(0, 10), []);
  });

  it('counts special-token text in a document as plain text instead of throwing', () => {
    const text = 'A language model stops at <|endoftext|> and chat turns start with <|im_start|>.';
    assert.strictEqual(countChunkTokens(text), libraryCountTokens(text, { disallowedSpecial: new Set() }));
    const chunks = chunkDocument({ id: 'doc', items: [paragraph(text)] });
    assert.strictEqual(chunks.length, 1);
    assert.strictEqual(chunks[0].content, text);
  });

  it('splits an unbroken run holding special-token text between characters', () => {
    const text = `${'x'.repeat(3000)}<|endoftext|>${'y'.repeat(3000)}`;
    const chunks = chunkDocument({ id: 'doc', items: [paragraph(text)] });
    assert.strictEqual(chunks.map((chunk) => chunk.content).join(''), text);
  });
});
