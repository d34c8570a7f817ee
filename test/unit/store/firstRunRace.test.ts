import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { runProcess } from '../cli/cliHarness';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

describe('Two first runs on a new index', function () {
  this.timeout(300_000);
  let folder: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    folder = temporaryFolder('haiku-first-race-');
    writeFiles(folder.path, { 'docs/a.md': '# Alpha\n\nThe alpha ferret.\n', 'docs/b.md': '# Beta\n\nThe beta ferret.\n' });
  });

  afterEach(() => folder.cleanup());

  it('a store opened while another process was creating the tables opens them once they exist, and indexes', async () => {
    const database = path.join(folder.path, 'index');
    // The moment the waiting process opened: the creator had written the settings table only.
    const creator = await openStore({ uri: database });
    await creator.close();
    const connection = await lancedb.connect(database);
    for (const name of ['documents', 'chunks', 'document_items']) {
      await connection.dropTable(name);
    }
    connection.close();
    const waiting = await openStore({ uri: database });
    assert.match(waiting.rebuildNeeded ?? '', /incomplete/);
    // The creator finishes.
    const finishing = await openStore({ uri: database });
    await finishing.reset();
    await finishing.close();
    try {
      const summary = await indexPaths({ roots: [path.join(folder.path, 'docs')], baseFolder: folder.path, store: waiting });
      assert.deepEqual(summary.added.sort(), ['docs/a.md', 'docs/b.md']);
      assert.equal(waiting.rebuildNeeded, undefined);
      assert.ok((await waiting.search('ferret')).length > 0);
    } finally {
      await waiting.close();
    }
  });

  it('two `haiku index` processes started together on an empty --db both succeed', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const database = path.join(folder.path, `index-${trial}`);
      const runs = await Promise.all([0, 1].map(() => runProcess(['index', 'docs', '--db', database, '--quiet'], { cwd: folder.path, timeoutMs: 120_000 })));
      for (const run of runs) {
        assert.equal(run.code, 0, `trial ${trial}: ${run.stderr}`);
      }
      assert.ok(runs.some((run) => /^Added 2/.test(run.stdout)), runs.map((run) => run.stdout).join(''));
    }
  });
});
