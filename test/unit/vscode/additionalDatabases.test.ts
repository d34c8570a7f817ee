import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultConfig } from '../../../src/core/config';
import { isHaikuError } from '../../../src/core/errors';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { checkDatabaseNames, openAdditionalDatabases } from '../../../src/node/backend/additionalDatabases';
import { openIndex, type OpenedIndex } from '../../../src/node/backend/openIndex';
import { combinedKnowledgeBase } from '../../../src/vscode/combinedKnowledgeBase';
import type { ExtensionKnowledgeBase } from '../../../src/vscode/indexBackend';
import { configFromSettings } from '../../../src/vscode/settingsMapping';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { runInProcess } from '../cli/cliHarness';

describe('haiku.index.additionalDatabases: other indexes searched and cited with the workspace index', function () {
  this.timeout(180_000);
  let folder: { path: string; cleanup: () => void };
  const opened: OpenedIndex[] = [];
  // What the extension's backend (`loadNodeIndexBackend`) searches: the workspace index combined with the others.
  let knowledgeBase: ExtensionKnowledgeBase;
  const log: string[] = [];

  before(async () => {
    folder = temporaryFolder('haiku-additional-');
    // The same relative path in both indexes: the stored document ids (hashes of the path) are equal.
    writeFiles(path.join(folder.path, 'workspace'), { 'guide.md': '# Guide\n\nOur walrus runbook lives here.\n' });
    writeFiles(path.join(folder.path, 'team'), { 'guide.md': '# Team guide\n\nThe team feeds the walrus on Fridays.\n\n## Later\n\nNothing else.\n' });
    for (const name of ['workspace', 'team']) {
      const store = await openStore({ uri: path.join(folder.path, `${name}-index`) });
      await indexPaths({ roots: [path.join(folder.path, name)], baseFolder: path.join(folder.path, name), store });
      await store.close();
    }
    const config = defaultConfig();
    config.index.databaseUri = path.join(folder.path, 'workspace-index');
    config.index.additionalDatabases = { team: path.join(folder.path, 'team-index'), missing: path.join(folder.path, 'no-such-index') };
    const workspace = await openIndex({ config, cwd: folder.path, mustExist: false, abortSignal: new AbortController().signal });
    opened.push(workspace);
    const additional = await openAdditionalDatabases(config, workspace.store, { cwd: folder.path, abortSignal: new AbortController().signal, log: (line) => log.push(line) });
    opened.push(...additional.map(({ index }) => index));
    knowledgeBase = combinedKnowledgeBase(workspace.store, additional.map(({ name, index }) => ({ name, knowledgeBase: index.store })));
  });

  after(async () => {
    await Promise.all(opened.map((index) => index.close()));
    folder?.cleanup();
  });

  it('search fuses both rankings and labels the other index\'s ids with its name', async () => {
    const results = await knowledgeBase.search('walrus', { limit: 10 });
    const teamFile = pathToFileURL(path.join(folder.path, 'team', 'guide.md')).href;
    const workspaceFile = pathToFileURL(path.join(folder.path, 'workspace', 'guide.md')).href;
    assert.deepEqual(results.map((result) => result.uri).sort(), [teamFile, workspaceFile].sort());
    const team = results.find((result) => result.uri === teamFile)!;
    const workspace = results.find((result) => result.uri === workspaceFile)!;
    assert.match(team.chunkId, /^team:/);
    assert.match(team.documentId, /^team:/);
    assert.doesNotMatch(workspace.chunkId, /:/);
    assert.equal(team.documentId.slice('team:'.length), workspace.documentId, 'the stored ids collide: only the prefix tells them apart');
    assert.deepEqual(results.map((result) => result.rank), [1, 2]);
  });

  it('a cited chunk id opens from the index it came from: chunks, document, rendering and items', async () => {
    const results = await knowledgeBase.search('Fridays', { limit: 10 });
    const team = results.find((result) => result.chunkId.startsWith('team:'))!;
    const [chunk] = await knowledgeBase.getChunks([team.chunkId]);
    assert.equal(chunk.chunkId, team.chunkId);
    assert.match(chunk.content, /feeds the walrus/);
    assert.ok(chunk.sourceRange, 'the chunk keeps its source range, which the editor selects');
    const document = await knowledgeBase.getDocument(team.documentId);
    assert.equal(document?.id, team.documentId);
    assert.equal(document?.title, 'Team guide');
    assert.match((await knowledgeBase.getDocumentContent(team.documentId)) ?? '', /feeds the walrus/);
    const items = await knowledgeBase.getDocumentItems(team.documentId);
    assert.ok(items.length > 0 && items.every((item) => item.documentId === team.documentId && item.chunkIds.every((id) => id.startsWith('team:'))));
    const both = await knowledgeBase.getChunks([team.chunkId, results.find((result) => !result.chunkId.includes(':'))?.chunkId ?? ''].filter(Boolean));
    assert.equal(both[0].chunkId, team.chunkId, 'in the order asked');
    const documents = await knowledgeBase.listDocuments();
    assert.deepEqual(documents.map((listed) => listed.title).sort(), ['Guide', 'Team guide']);
    assert.equal((await knowledgeBase.stats()).documents, 1, "counts stay the workspace index's");
  });

  it('an index that cannot be opened is left out with its reason logged; the others still search', () => {
    assert.ok(log.some((line) => line.includes('"missing"') && line.includes('not searched')), log.join('\n'));
    assert.ok(log.some((line) => line.includes('"team"') && line.includes('read-only')), log.join('\n'));
  });

  it('names that cannot prefix an id are refused with the setting to fix', () => {
    assert.throws(() => checkDatabaseNames(['team', 'my team']), (error) =>
      isHaikuError(error) && error.code === 'invalid_settings' && /"my team"/.test(error.message));
  });

  it('haiku search reads index.additional_databases from haiku.config.json and labels each result', async () => {
    writeFiles(folder.path, { 'haiku.config.json': JSON.stringify({ index: { database: 'workspace-index', additional_databases: { team: path.join(folder.path, 'team-index') } } }) });
    const run = await runInProcess(['search', 'walrus', '--json'], { cwd: folder.path });
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as Array<{ database: string; title: string }>;
    assert.deepEqual(results.map((result) => `${result.database}: ${result.title}`).sort(), ['team: Team guide', 'workspace-index: Guide']);
  });

  it('VS Code reads the setting as a map of strings (other values dropped)', () => {
    const settings: Record<string, unknown> = { 'index.additionalDatabases': { team: '/shared/team', broken: 3 } };
    const config = configFromSettings((key) => settings[key], { defaultDatabaseUri: '/index' });
    assert.deepEqual(config.index.additionalDatabases, { team: '/shared/team' });
    assert.deepEqual(configFromSettings(() => undefined, { defaultDatabaseUri: '/index' }).index.additionalDatabases, {});
  });
});
