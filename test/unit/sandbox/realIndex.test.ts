import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CodeSandbox } from '../../../src/core/agent/codeSandbox';
import { createKnowledgeBaseSandboxHost } from '../../../src/core/analysis/knowledgeBaseSandboxHost';
import { createVirtualFileSystem, type VirtualItemLine, type VirtualMetadataFile, type VirtualSectionNode, type VirtualTocFile } from '../../../src/core/analysis/virtualFileSystem';
import { indexPaths } from '../../../src/node/index/indexer';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';

/** One real PDF and one real Markdown page of the shared corpus, indexed into LanceDB on a temp folder. */
const FILES: Record<string, string> = {
  'papers/multi_page.pdf': 'pdf-docx/docling/multi_page.pdf',
  'guide/dep-pre-bundling.md': 'vite-docs/docs/guide/dep-pre-bundling.md',
};

describe('sandbox over a real LanceDB index', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let database: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;

  before(async () => {
    workspace = temporaryFolder('haiku-sandbox-workspace-');
    database = temporaryFolder('haiku-sandbox-db-');
    for (const [target, source] of Object.entries(FILES)) {
      fs.mkdirSync(path.dirname(path.join(workspace.path, target)), { recursive: true });
      fs.copyFileSync(path.join(corpusRoot, source), path.join(workspace.path, target));
    }
    store = await openStore({ uri: database.path });
    const summary = await indexPaths({ roots: [workspace.path], baseFolder: workspace.path, store });
    assert.deepStrictEqual(summary.failed, []);
    assert.strictEqual(summary.added.length, 2);
  });

  after(async () => {
    await store.close();
    workspace.cleanup();
    database.cleanup();
  });

  for (const [relativePath, format] of [['papers/multi_page.pdf', 'pdf'], ['guide/dep-pre-bundling.md', 'markdown']] as const) {
    it(`serves consistent VFS files for ${format}: metadata, items.jsonl lines = positions, toc ranges and chunk ids`, async () => {
      const fileSystem = createVirtualFileSystem(store);
      const summary = (await store.listDocuments()).find((document) => document.relativePath === relativePath);
      assert.ok(summary, `${relativePath} is indexed`);
      const folder = `/documents/${summary.id}`;
      assert.ok((await fileSystem.listDir('/documents')).includes(summary.id));

      const metadata = JSON.parse(await fileSystem.readFile(`${folder}/metadata.json`)) as VirtualMetadataFile;
      assert.deepStrictEqual(Object.keys(metadata), ['id', 'title', 'uri', 'created_at', 'relative_path', 'format']);
      assert.strictEqual(metadata.id, summary.id);
      assert.strictEqual(metadata.relative_path, relativePath);
      assert.strictEqual(metadata.format, format);
      assert.match(metadata.uri, /^file:\/\//);
      assert.ok(metadata.title.length > 0 && metadata.created_at.length > 0);

      const content = await fileSystem.readFile(`${folder}/content.txt`);
      assert.ok(content.length > 500, 'the Markdown rendering is there');

      const stored = await store.getDocumentItems(summary.id);
      const lines = (await fileSystem.readFile(`${folder}/items.jsonl`)).split('\n').map((line) => JSON.parse(line) as VirtualItemLine);
      assert.strictEqual(lines.length, Math.max(...stored.map((item) => item.position)) + 1);
      for (const item of stored) {
        const line = lines[item.position];
        assert.deepStrictEqual(line, { self_ref: item.selfRef, label: item.label, text: item.text, page_numbers: item.pageNumbers, heading_level: item.headingLevel, chunk_ids: item.chunkIds });
      }
      if (format === 'pdf') {
        assert.ok(lines.every((line) => line.label === 'missing' || line.page_numbers.length > 0), 'PDF items carry pages');
      }
      // Every chunk id of a line is a real chunk that was built from that very item.
      const chunkIds = [...new Set(lines.flatMap((line) => line.chunk_ids))];
      assert.ok(chunkIds.length > 0);
      const chunks = new Map((await store.getChunks(chunkIds)).map((chunk) => [chunk.chunkId, chunk]));
      assert.strictEqual(chunks.size, chunkIds.length);
      for (const line of lines) {
        for (const chunkId of line.chunk_ids) {
          assert.ok(chunks.get(chunkId)!.docItemRefs.includes(line.self_ref!), `${chunkId} references ${line.self_ref}`);
        }
      }

      const toc = JSON.parse(await fileSystem.readFile(`${folder}/toc.json`)) as VirtualTocFile;
      assert.strictEqual(toc.doc_id, summary.id);
      assert.strictEqual(toc.title, summary.title);
      assert.ok(toc.tree.length > 0, 'both documents have headings');
      const check = (node: VirtualSectionNode, parent: [number, number]): void => {
        const [start, end] = node.item_range;
        assert.ok(parent[0] <= start && start < end && end <= parent[1], `range ${start}..${end} inside ${parent[0]}..${parent[1]}`);
        assert.strictEqual(lines[start].self_ref, node.self_ref);
        assert.strictEqual(lines[start].label, 'section_header');
        assert.strictEqual(lines[start].text, node.title);
        assert.strictEqual(node.level, lines[start].heading_level);
        assert.deepStrictEqual(node.chunk_ids, [...new Set(lines.slice(start, end).flatMap((line) => line.chunk_ids))]);
        node.children.forEach((child) => check(child, node.item_range));
      };
      toc.tree.forEach((node) => check(node, [0, lines.length]));
    });
  }

  it('runs guest code against the real index: search, list, read and cite, scoped by the filter', async () => {
    const cited: string[] = [];
    const host = createKnowledgeBaseSandboxHost({
      knowledgeBase: store,
      filter: "relative_path LIKE 'guide/%'",
      onCite: (chunks) => cited.push(...chunks.map((chunk) => chunk.chunkId)),
    });
    const sandbox: CodeSandbox = await createCodeSandbox({ host, limits: { codeTimeoutSeconds: 30 } });
    try {
      const result = await sandbox.execute(`
        const documents = await list_documents();
        const hits = await search('pre-bundling dependencies', 5);
        const id = documents[0].id;
        const toc = await readJson('/documents/' + id + '/toc.json');
        const lines = await readLines('/documents/' + id + '/items.jsonl');
        const section = toc.tree[0];
        const report = await cite(section.chunk_ids.slice(0, 2));
        console.log(JSON.stringify({
          documents: documents.map((document) => document.relative_path),
          hitDocuments: [...new Set(hits.map((hit) => hit.document_id))],
          id,
          headerLine: JSON.parse(lines[section.item_range[0]]).text === section.title,
          accepted: report.accepted.length,
        }));`);
      assert.strictEqual(result.success, true, result.stderr);
      const report = JSON.parse(result.stdout) as { documents: string[]; hitDocuments: string[]; id: string; headerLine: boolean; accepted: number };
      assert.deepStrictEqual(report.documents, ['guide/dep-pre-bundling.md']);
      assert.deepStrictEqual(report.hitDocuments, [report.id]);
      assert.strictEqual(report.headerLine, true);
      assert.ok(report.accepted >= 1);
      assert.strictEqual(cited.length, report.accepted);

      const pdf = (await store.listDocuments()).find((document) => document.format === 'pdf')!;
      const hidden = await sandbox.execute(`await exists('/documents/${pdf.id}/items.jsonl')`);
      assert.strictEqual(hidden.stdout, 'false\n', 'the PDF is outside the filter');
    } finally {
      await sandbox.dispose();
    }
  });
});
