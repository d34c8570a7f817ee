import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { compileDocumentFilter } from '../../../src/core/search/documentFilter';
import type { HaikuTestApi } from '../../../src/vscode/testApi';
import { activateHaiku, askHaiku, waitFor, waitForIndex, workspaceUri } from '../haikuSupport';

/**
 * A folder whose name holds the `LIKE` wildcards `_` and `%`: restricting to it must match that folder only, not
 * `aXbYc` (what the unescaped pattern would match) nor the sibling `a_b%c2` (a prefix of its path).
 */
const FOLDERS = ['a_b%c', 'aXbYc', 'a_b%c2'];
const WORD = 'quillwortmarsh';

describe('Haiku: a folder filter over a folder named a_b%c', () => {
  let api: HaikuTestApi;

  const indexedPaths = async (filter?: string): Promise<string[]> =>
    (await (await api.knowledgeBase()).listDocuments({ filter })).map((document) => document.relativePath).filter((relativePath) => FOLDERS.some((folder) => relativePath.startsWith(`${folder}/`))).sort();

  before(async function () {
    this.timeout(240_000);
    api = await activateHaiku();
    await waitForIndex(api);
    // A fresh chat session: the earlier suites' turns (and their document filter) must not carry over.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    for (const folder of FOLDERS) {
      await vscode.workspace.fs.writeFile(workspaceUri(`${folder}/note.md`), new TextEncoder().encode(`# Notes of ${folder}\n\nThe ${WORD} note kept in the folder ${folder}.\n`));
    }
    await waitFor(async () => (await indexedPaths()).length === FOLDERS.length, 'the three folders\' notes to be indexed', 180_000).catch((error: Error) => {
      throw new Error(`${error.message}; index status ${JSON.stringify(api.indexService.current)}; last jobs ${JSON.stringify(api.indexJobs.slice(-3))}`);
    });
  });

  after(async function () {
    this.timeout(120_000);
    for (const folder of FOLDERS) {
      await vscode.workspace.fs.delete(workspaceUri(folder), { recursive: true });
    }
    await waitFor(async () => (await indexedPaths()).length === 0, 'the notes to leave the index', 60_000);
  });

  it('the typed folder filter selects only a_b%c in the host\'s index (search and document list)', async () => {
    const filter = compileDocumentFilter({ pathPrefix: 'a_b%c' });
    assert.deepStrictEqual(await indexedPaths(filter), ['a_b%c/note.md']);
    const hits = await (await api.knowledgeBase()).search(WORD, { filter, limit: 10 });
    assert.ok(hits.length > 0, 'the folder\'s note is found');
    assert.deepStrictEqual([...new Set(hits.map((hit) => vscode.workspace.asRelativePath(vscode.Uri.parse(hit.uri))))], ['a_b%c/note.md']);
    // Without the filter the word is in all three folders: the restriction is what narrows it.
    const unfiltered = await (await api.knowledgeBase()).search(WORD, { limit: 10 });
    assert.strictEqual(new Set(unfiltered.map((hit) => hit.documentId)).size, FOLDERS.length);
  });

  it('@haiku /search with the folder a_b%c attached searches that folder only', async () => {
    const record = await askHaiku(api, `@haiku /search ${WORD}`, [workspaceUri('a_b%c')]);
    assert.strictEqual(record.error, undefined, JSON.stringify(record.error));
    assert.ok(record.documentFilter, 'the attached folder became a document filter');
    const [search] = api.runsStore.get(record.runId)!.steps;
    assert.ok(search.kind === 'search' && search.hits.length > 0, JSON.stringify(search));
    assert.deepStrictEqual([...new Set(search.hits.map((hit) => hit.relativePath))], ['a_b%c/note.md']);
  });
});
