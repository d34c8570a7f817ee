import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isHaikuError } from '../../../src/core/errors';
import type { DocumentSummary } from '../../../src/core/model/search';
import { documentFilterFor, matchDocument, resolveDocument } from '../../../src/core/documents/documentAccess';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { findDocument } from '../../../src/vscode/tools/toolFormatting';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

const HINT = 'List them first.';

/** The document lookup the VS Code tools (haiku_search's and haiku_analyze's `path`, haiku_readSection) and MCP share. */
describe('document access: by id, path, or unique path suffix', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let store: LanceStore;
  let documents: DocumentSummary[];

  before(async () => {
    folder = temporaryFolder('haiku-document-access-');
    const docs = path.join(folder.path, 'docs');
    writeFiles(docs, {
      'guide/install.md': '# Install\n\nThe install walrus.\n',
      'guide/notes.md': '# Guide notes\n\nThe walrus notes.\n',
      'api/notes.md': '# API notes\n\nThe walrus API.\n',
    });
    store = await openStore({ uri: path.join(folder.path, 'index') });
    await indexPaths({ roots: [docs], store, baseFolder: docs });
    documents = await store.listDocuments();
  });
  after(async () => {
    await store?.close();
    folder?.cleanup();
  });

  const byPath = (relativePath: string) => documents.find((document) => document.relativePath === relativePath)!;

  it('finds a document by id, exact path, ./path, absolute path and unique suffix', () => {
    const install = byPath('guide/install.md');
    assert.equal(matchDocument(documents, install.id).document, install);
    assert.equal(matchDocument(documents, 'guide/install.md').document, install);
    assert.equal(matchDocument(documents, './guide/install.md').document, install);
    assert.equal(matchDocument(documents, path.join(folder.path, 'docs', 'guide', 'install.md')).document, install);
    assert.equal(matchDocument(documents, 'install.md').document, install);
    assert.equal(findDocument(documents, 'install.md'), install, 'the VS Code tools use the same rules');
  });

  it('names the candidates of an ambiguous suffix, and says how to list documents when nothing matches', () => {
    assert.deepEqual(matchDocument(documents, 'notes.md').candidates.map((document) => document.relativePath).sort(), ['api/notes.md', 'guide/notes.md']);
    assert.throws(() => resolveDocument(documents, 'notes.md', HINT), (error) => isHaikuError(error, 'not_found') && /'notes\.md' matches 2 documents: (api|guide)\/notes\.md, (api|guide)\/notes\.md\. Give more of the path/.test(error.message));
    assert.throws(() => resolveDocument(documents, 'missing.md', HINT), /No indexed document matches 'missing\.md'\. List them first\./);
    assert.equal(matchDocument(documents, 'stall.md').document, undefined, 'a suffix ends at a path separator');
  });

  it("haiku_search's path: a filter by id or by suffix finds the document's hits (an exact-path-only filter found none)", async () => {
    const install = byPath('guide/install.md');
    for (const reference of [install.id, 'install.md', 'guide/install.md']) {
      const filter = await documentFilterFor(store, reference, { listHint: HINT });
      const hits = await store.search('walrus', { limit: 5, filter });
      assert.deepEqual(hits.map((hit) => hit.documentId), [install.id], reference);
    }
    assert.equal(await documentFilterFor(store, undefined, { listHint: HINT }), undefined);
    await assert.rejects(documentFilterFor(store, 'notes.md', { listHint: HINT }), /matches 2 documents/);
  });
});
