import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../../../src/core/chunker';
import type { DocumentSummary, StoredItem } from '../../../src/core/model/search';
import { buildSectionTree, walkSections } from '../../../src/core/toc';
import { loadDocument } from '../../../src/node/convert/convertFile';
import { findChunkInRendering, findHeadingLine, folderOf, sectionLineSpan, sectionPathAtLine, sectionPathAtRenderingLine } from '../../../src/vscode/sectionLocate';
import { findDocument, findSection, formatDocumentList, formatSearchHits, formatSection, formatTableOfContents } from '../../../src/vscode/tools/toolFormatting';
import { repositoryRoot } from '../../support/paths';

/** Real documents of the fixture workspace, converted and chunked as the indexer does, then stored-item shaped. */
const workspace = path.join(repositoryRoot, 'samples');

async function storedItemsOf(relativePath: string): Promise<{ items: StoredItem[]; summary: DocumentSummary; content: string; chunks: ReturnType<typeof chunkDocument> }> {
  const document = await loadDocument({ rootPath: workspace, filePath: relativePath });
  const chunks = chunkDocument(document);
  const chunkIdsByRef = new Map<string, string[]>();
  for (const chunk of chunks) {
    for (const ref of chunk.docItemRefs) {
      chunkIdsByRef.set(ref, [...(chunkIdsByRef.get(ref) ?? []), chunk.id]);
    }
  }
  const items: StoredItem[] = document.items.map((item) => ({ ...item, documentId: document.id, chunkIds: chunkIdsByRef.get(item.selfRef) ?? [] }));
  const summary: DocumentSummary = { id: document.id, uri: document.uri, relativePath: document.relativePath, title: document.title, format: document.format, contentHash: document.contentHash, metadata: {}, createdAt: '', updatedAt: '' };
  return { items, summary, content: document.content, chunks };
}

describe('sections: locating lines and renderings on real documents', () => {
  it('finds the section under a line of features.md, with its ancestors', async () => {
    const { items } = await storedItemsOf('guides/features.md');
    const sections = buildSectionTree(items);
    const lines = fs.readFileSync(path.join(workspace, 'guides/features.md'), 'utf8').split('\n');
    const headingLine = lines.findIndex((line) => line === '### Transpile Only');
    assert.ok(headingLine > 0);
    const trail = sectionPathAtLine(sections, items, headingLine + 2).map((section) => section.title);
    assert.deepStrictEqual(trail, ['Features', 'TypeScript', 'Transpile Only']);
    const transpile = [...walkSections(sections)].find((section) => section.title === 'Transpile Only')!;
    const span = sectionLineSpan(transpile, items)!;
    assert.strictEqual(span.startLine, headingLine);
    assert.ok(span.endLine > headingLine && lines[span.endLine + 1] !== undefined);
    assert.deepStrictEqual(sectionPathAtLine(sections, items, -5), []);
  });

  it('finds a DOCX chunk in its Markdown rendering', async () => {
    const { content, chunks } = await storedItemsOf('papers/word_sample.docx');
    assert.ok(chunks.length > 1);
    const chunk = chunks[chunks.length - 1];
    const span = findChunkInRendering(content, chunk.content, chunk.headings);
    assert.ok(span, 'chunk located');
    const renderedLines = content.split('\n');
    const firstWords = chunk.content.split('\n').find((line) => line.trim() !== '')!.replace(/[*_`#|]/g, '').trim().slice(0, 20);
    assert.ok(renderedLines[span.startLine].replace(/[*_`#|]/g, '').includes(firstWords), `line ${span.startLine} holds "${firstWords}"`);
    const heading = chunk.headings[chunk.headings.length - 1];
    if (heading) {
      assert.strictEqual(/^#{1,6} /.test(renderedLines[findHeadingLine(content, heading)!]), true);
    }
    assert.strictEqual(findChunkInRendering(content, 'text that appears nowhere at all', []), undefined);
  });

  it('renders tool results: table of contents, a section by trail, hits, and document lookup', async () => {
    const { items, summary } = await storedItemsOf('guides/features.md');
    const sections = buildSectionTree(items);
    assert.match(formatTableOfContents(summary, sections), /- Features\n {2}- npm Dependency Resolving and Pre-Bundling/);
    const section = findSection(sections, 'Features > TypeScript > Transpile Only');
    assert.strictEqual(section?.title, 'Transpile Only');
    assert.strictEqual(findSection(sections, 'transpile only')?.selfRef, section?.selfRef);
    assert.strictEqual(findSection(sections, 'No Such Heading'), undefined);
    const text = formatSection(summary, section!, items);
    assert.match(text, /^guides\/features\.md L\d+–L\d+ — Transpile Only\n\n### Transpile Only\n\nNote that Vite only performs transpilation/);
    const documents = [summary, { ...summary, id: 'other', relativePath: 'papers/report.pdf', title: 'Report', format: 'pdf' }];
    assert.strictEqual(findDocument(documents, 'features.md')?.id, summary.id);
    assert.strictEqual(findDocument(documents, './guides/features.md')?.id, summary.id);
    assert.strictEqual(findDocument(documents, 'other')?.relativePath, 'papers/report.pdf');
    assert.strictEqual(findDocument(documents, 'missing.md'), undefined);
    assert.match(formatDocumentList(documents), /2 documents:\n- guides\/features\.md — "Features" \(markdown/);
    assert.match(formatSearchHits('nothing', [], (uri) => uri), /No hits for "nothing"/);
    assert.strictEqual(folderOf('guides/features.md'), 'guides');
    assert.strictEqual(folderOf('top.md'), '');
  });
});

describe('sections in a rendering', () => {
  it('maps a line of the DOCX rendering to its section path by the heading above it', async () => {
    const document = await loadDocument({ rootPath: workspace, filePath: 'papers/word_sample.docx' });
    const sections = buildSectionTree(document.items);
    const all = [...walkSections(sections)];
    const target = all[all.length - 1];
    const headingLine = findHeadingLine(document.content, target.title)!;
    const trail = sectionPathAtRenderingLine(sections, document.content, headingLine + 1);
    assert.strictEqual(trail.at(-1)?.selfRef, target.selfRef);
    assert.deepStrictEqual(sectionPathAtRenderingLine(sections, document.content, -1), []);
  });
});
