import * as assert from 'node:assert';
import { createVirtualFileSystem, normalizeVirtualPath, VirtualFileSystemError, type VirtualItemLine, type VirtualSectionNode, type VirtualTocFile } from '../../../src/core/analysis/virtualFileSystem';
import { createStructuredKnowledgeBase, type StructuredDocument } from '../../support/structuredKnowledgeBase';

const guide: StructuredDocument = {
  id: 'dguide',
  uri: 'file:///work/docs/guide.md',
  title: 'User guide',
  relativePath: 'docs/guide.md',
  content: '# User guide\n\n## Install\n\nRun the installer.',
  items: [
    { selfRef: '#/texts/0', label: 'title', text: 'User guide' },
    { selfRef: '#/texts/1', label: 'section_header', text: 'Install', headingLevel: 1, pageNumbers: [1] },
    { selfRef: '#/texts/2', label: 'paragraph', text: 'Run the installer.', pageNumbers: [1] },
    { selfRef: '#/texts/3', label: 'section_header', text: 'Linux', headingLevel: 2, pageNumbers: [2] },
    { selfRef: '#/tables/0', label: 'table', text: '| a | b |\n| --- | --- |\n| 1 | 2 |', pageNumbers: [2] },
    { selfRef: '#/texts/4', label: 'section_header', text: 'Usage', headingLevel: 1, pageNumbers: [3] },
    { selfRef: '#/texts/5', label: 'paragraph', text: 'Open the app.', pageNumbers: [3] },
  ],
  chunks: [
    { chunkId: 'c-install', itemRefs: ['#/texts/1', '#/texts/2'] },
    { chunkId: 'c-linux', itemRefs: ['#/texts/3', '#/tables/0'] },
    { chunkId: 'c-usage', itemRefs: ['#/texts/4', '#/texts/5'] },
  ],
};

const secret: StructuredDocument = {
  id: 'dsecret',
  uri: 'file:///work/private/secret.md',
  title: 'Secret',
  relativePath: 'private/secret.md',
  items: [{ selfRef: '#/texts/0', label: 'paragraph', text: 'The password is swordfish.' }],
  chunks: [{ chunkId: 'c-secret', itemRefs: ['#/texts/0'] }],
};

const gappy: StructuredDocument = {
  id: 'dgappy',
  uri: 'file:///work/docs/gappy.md',
  relativePath: 'docs/gappy.md',
  title: 'Gappy',
  items: [
    { selfRef: '#/texts/0', label: 'section_header', text: 'One', headingLevel: 1, position: 0 },
    { selfRef: '#/texts/1', label: 'paragraph', text: 'after a gap', position: 2 },
  ],
  chunks: [{ chunkId: 'c-gap', itemRefs: ['#/texts/0', '#/texts/1'] }],
};

const onlyDocs = "relative_path LIKE 'docs/%'";

function assertVfsError(kind: string): (error: unknown) => boolean {
  return (error) => error instanceof VirtualFileSystemError && error.kind === kind && error.message.startsWith(`${kind}: `);
}

describe('sandbox virtual file system', () => {
  it('lists the root, the filtered documents and the four files of a document', async () => {
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([guide, secret, gappy]), { filter: onlyDocs });
    assert.deepStrictEqual(await fileSystem.listDir('/'), ['documents']);
    assert.deepStrictEqual((await fileSystem.listDir('/documents')).sort(), ['dgappy', 'dguide']);
    assert.deepStrictEqual(await fileSystem.listDir('/documents/dguide/'), ['metadata.json', 'content.txt', 'items.jsonl', 'toc.json']);
  });

  it('writes metadata.json with id, title, uri, created_at, relative_path and format', async () => {
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([guide]));
    assert.deepStrictEqual(JSON.parse(await fileSystem.readFile('/documents/dguide/metadata.json')), {
      id: 'dguide',
      title: 'User guide',
      uri: 'file:///work/docs/guide.md',
      created_at: '2026-01-01T00:00:00.000Z',
      relative_path: 'docs/guide.md',
      format: 'markdown',
    });
  });

  it('serves content.txt as the stored Markdown, read only when asked for', async () => {
    const knowledgeBase = createStructuredKnowledgeBase([guide]);
    const fileSystem = createVirtualFileSystem(knowledgeBase);
    await fileSystem.readFile('/documents/dguide/items.jsonl');
    assert.ok(!knowledgeBase.calls.some((call) => call.method === 'getDocumentContent'), 'content is lazy');
    assert.strictEqual(await fileSystem.readFile('/documents/dguide/content.txt'), guide.content);
  });

  it('writes items.jsonl with one line per position and exactly the documented fields', async () => {
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([guide]));
    const text = await fileSystem.readFile('/documents/dguide/items.jsonl');
    const lines = text.split('\n');
    assert.strictEqual(lines.length, guide.items.length, 'no trailing empty line');
    const parsed = lines.map((line) => JSON.parse(line) as VirtualItemLine);
    parsed.forEach((line, index) => {
      assert.deepStrictEqual(Object.keys(line), ['self_ref', 'label', 'text', 'page_numbers', 'heading_level', 'chunk_ids']);
      assert.strictEqual(line.self_ref, guide.items[index].selfRef, `line ${index} is position ${index}`);
    });
    assert.deepStrictEqual(parsed[4], { self_ref: '#/tables/0', label: 'table', text: '| a | b |\n| --- | --- |\n| 1 | 2 |', page_numbers: [2], heading_level: 0, chunk_ids: ['c-linux'] });
    assert.deepStrictEqual(parsed[0].chunk_ids, [], 'the title is in no chunk');
  });

  it('keeps line index = position when positions have a gap', async () => {
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([gappy]));
    const lines = (await fileSystem.readFile('/documents/dgappy/items.jsonl')).split('\n').map((line) => JSON.parse(line) as VirtualItemLine);
    assert.deepStrictEqual(lines.map((line) => line.label), ['section_header', 'missing', 'paragraph']);
    assert.strictEqual(lines[1].self_ref, null);
    const toc = JSON.parse(await fileSystem.readFile('/documents/dgappy/toc.json')) as VirtualTocFile;
    assert.deepStrictEqual(toc.tree[0].item_range, [0, 3]);
  });

  it('writes toc.json as a nested section tree whose ranges slice items.jsonl and whose chunk ids cover the range', async () => {
    const knowledgeBase = createStructuredKnowledgeBase([guide]);
    const fileSystem = createVirtualFileSystem(knowledgeBase);
    const toc = JSON.parse(await fileSystem.readFile('/documents/dguide/toc.json')) as VirtualTocFile;
    assert.deepStrictEqual(Object.keys(toc), ['doc_id', 'title', 'tree']);
    assert.strictEqual(toc.doc_id, 'dguide');
    assert.strictEqual(toc.title, 'User guide');
    const [install, usage] = toc.tree;
    assert.deepStrictEqual(install, {
      self_ref: '#/texts/1', level: 1, title: 'Install', page_numbers: [1], item_range: [1, 5], chunk_ids: ['c-install', 'c-linux'],
      children: [{ self_ref: '#/texts/3', level: 2, title: 'Linux', page_numbers: [2], item_range: [3, 5], chunk_ids: ['c-linux'], children: [] }],
    });
    assert.deepStrictEqual(usage.item_range, [5, 7]);
    // Cross-check every node against items.jsonl: the header line is the node, chunk ids = union over the slice.
    const lines = (await fileSystem.readFile('/documents/dguide/items.jsonl')).split('\n').map((line) => JSON.parse(line) as VirtualItemLine);
    const check = (node: VirtualSectionNode): void => {
      const [start, end] = node.item_range;
      assert.strictEqual(lines[start].self_ref, node.self_ref);
      assert.deepStrictEqual(node.chunk_ids, [...new Set(lines.slice(start, end).flatMap((line) => line.chunk_ids))]);
      node.children.forEach(check);
    };
    toc.tree.forEach(check);
    assert.strictEqual(knowledgeBase.calls.filter((call) => call.method === 'getDocumentItems').length, 1, 'items fetched once for both files');
  });

  it('gives an empty tree to a document without headings', async () => {
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([secret]));
    assert.deepStrictEqual(JSON.parse(await fileSystem.readFile('/documents/dsecret/toc.json')), { doc_id: 'dsecret', title: 'Secret', tree: [] });
  });

  it('hides documents outside the filter from listing and reading, though they are in the index', async () => {
    const knowledgeBase = createStructuredKnowledgeBase([guide, secret]);
    const fileSystem = createVirtualFileSystem(knowledgeBase, { filter: onlyDocs });
    assert.deepStrictEqual(await fileSystem.listDir('/documents'), ['dguide']);
    for (const file of ['metadata.json', 'content.txt', 'items.jsonl', 'toc.json']) {
      await assert.rejects(fileSystem.readFile(`/documents/dsecret/${file}`), assertVfsError('ENOENT'));
    }
    await assert.rejects(fileSystem.listDir('/documents/dsecret'), assertVfsError('ENOENT'));
    await assert.rejects(fileSystem.readFile('/documents/dguide/../dsecret/content.txt'), assertVfsError('ENOENT'));
    assert.ok(!knowledgeBase.calls.some((call) => call.args[0] === 'dsecret'), 'the hidden document is never read');
  });

  it('normalises paths: .. stops at the root, trailing and repeated slashes, relative paths from /', async () => {
    assert.strictEqual(normalizeVirtualPath('/../../etc/passwd'), '/etc/passwd');
    assert.strictEqual(normalizeVirtualPath('documents//dguide/./toc.json/'), '/documents/dguide/toc.json');
    assert.strictEqual(normalizeVirtualPath('\\documents\\dguide'), '/documents/dguide');
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([guide]));
    assert.strictEqual(await fileSystem.readFile('/../documents/x/../dguide//metadata.json/'), await fileSystem.readFile('documents/dguide/metadata.json'));
    await assert.rejects(fileSystem.readFile('/../../etc/passwd'), assertVfsError('ENOENT'));
  });

  it('reports folders read as files, files listed as folders and unknown names', async () => {
    const fileSystem = createVirtualFileSystem(createStructuredKnowledgeBase([guide]));
    await assert.rejects(fileSystem.readFile('/documents'), assertVfsError('EISDIR'));
    await assert.rejects(fileSystem.readFile('/documents/dguide'), assertVfsError('EISDIR'));
    await assert.rejects(fileSystem.listDir('/documents/dguide/toc.json'), assertVfsError('ENOTDIR'));
    await assert.rejects(fileSystem.readFile('/documents/dguide/notes.txt'), assertVfsError('ENOENT'));
    await assert.rejects(fileSystem.listDir('/tmp'), assertVfsError('ENOENT'));
  });

  it('caches each file per document for the life of the file system', async () => {
    const knowledgeBase = createStructuredKnowledgeBase([guide]);
    const fileSystem = createVirtualFileSystem(knowledgeBase);
    const first = await Promise.all([fileSystem.readFile('/documents/dguide/toc.json'), fileSystem.readFile('/documents/dguide/toc.json')]);
    await fileSystem.readFile('/documents/dguide/items.jsonl');
    await fileSystem.readFile('/documents/dguide/content.txt');
    await fileSystem.readFile('/documents/dguide/content.txt');
    assert.strictEqual(first[0], first[1]);
    const count = (method: string): number => knowledgeBase.calls.filter((call) => call.method === method).length;
    assert.deepStrictEqual([count('listDocuments'), count('getDocumentItems'), count('getDocumentContent')], [1, 1, 1]);
  });
});
