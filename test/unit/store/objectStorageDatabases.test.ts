import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isHaikuError } from '../../../src/core/errors';
import { indexPaths } from '../../../src/node/index/indexer';
import { DatabaseSet, namedDatabases } from '../../../src/node/store/databaseSet';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { HashingEmbedder, temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { runInProcess } from '../cli/cliHarness';
import { startObjectStorage, type LocalObjectStorage } from './objectStorageServer';

describe('Several databases searched together (a local index and a team index on s3rver)', function () {
  this.timeout(300_000);
  let storage: LocalObjectStorage;
  let folder: { path: string; cleanup: () => void };
  const teamUri = 's3://team/handbook';
  let localIndex: string;

  before(async () => {
    storage = await startObjectStorage();
    folder = temporaryFolder('haiku-databases-');
    writeFiles(path.join(folder.path, 'team'), { 'deploy.md': '# Deploy\n\nThe team deploys the walrus service on Fridays.\n', 'oncall.md': '# On call\n\nWalrus pages go to the platform rotation.\n' });
    writeFiles(path.join(folder.path, 'mine'), { 'notes.md': '# Notes\n\nMy walrus notes about deploys.\n' });
    const settings = storage.settings();
    const team = await openStore({ uri: teamUri, storage: settings });
    await indexPaths({ roots: [path.join(folder.path, 'team')], baseFolder: path.join(folder.path, 'team'), store: team });
    await team.close();
    localIndex = path.join(folder.path, 'local-index');
    const local = await openStore({ uri: localIndex });
    await indexPaths({ roots: [path.join(folder.path, 'mine')], baseFolder: path.join(folder.path, 'mine'), store: local });
    await local.close();
  });

  after(async () => {
    await storage?.close();
    folder?.cleanup();
  });

  it('names databases from name=uri or the last path segment, distinct', () => {
    assert.deepEqual(namedDatabases(['team=s3://bucket/idx', '/home/me/.haiku', 'other/.haiku']), [
      { name: 'team', uri: 's3://bucket/idx' },
      { name: '.haiku', uri: '/home/me/.haiku' },
      { name: '.haiku-2', uri: 'other/.haiku' },
    ]);
  });

  it('`haiku search --db a --db b` fuses the rankings (RRF) and labels each result with its database', async () => {
    const run = await runInProcess(['search', 'walrus', '--db', `team=${teamUri}`, '--db', `mine=${localIndex}`, '--read-only', '--json'], { cwd: folder.path, env: storage.environment() });
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as Array<{ database: string; relativePath: string; rank: number; score: number }>;
    assert.deepEqual(results.map((result) => result.database).sort(), ['mine', 'team', 'team']);
    // Each database's best hit shares the top RRF score; the first database listed wins the tie.
    assert.equal(results[0].database, 'team');
    assert.equal(results[1].database, 'mine');
    assert.deepEqual(results.map((result) => result.rank), [1, 2, 3]);
    assert.ok(results[0].score === results[1].score && results[1].score > results[2].score);
    const text = await runInProcess(['search', 'walrus', '--db', `team=${teamUri}`, '--db', `mine=${localIndex}`, '--limit', '2'], { cwd: folder.path, env: storage.environment() });
    assert.match(text.stdout, /^1\. \[[\d.]+\] \(team\) /m);
    assert.match(text.stdout, /^2\. \[[\d.]+\] \(mine\) /m);
    assert.match(text.stdout, /notes\.md/);
  });

  it('refuses databases built with different embedders, naming each', async () => {
    const embedded = path.join(folder.path, 'embedded-index');
    const embedder = new HashingEmbedder(64);
    const stores: LanceStore[] = [];
    try {
      const built = await openStore({ uri: embedded, embedder });
      stores.push(built);
      await indexPaths({ roots: [path.join(folder.path, 'mine')], baseFolder: path.join(folder.path, 'mine'), store: built, embedder });
      const plain = await openStore({ uri: localIndex, readOnly: true });
      stores.push(plain);
      assert.throws(() => new DatabaseSet([{ name: 'embedded', store: built }, { name: 'plain', store: plain }]), (error) =>
        isHaikuError(error, 'invalid_settings') && /embedded: test:hashing-64; plain: none \(full text only\)/.test(error.message));
      const run = await runInProcess(['search', 'walrus', '--db', embedded, '--db', localIndex], { cwd: folder.path });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /different embedders/);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('commands on one index refuse several --db', async () => {
    const run = await runInProcess(['docs', '--db', localIndex, '--db', localIndex], { cwd: folder.path });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /give --db once/);
  });
});
