import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { indexPaths, rebuildIndex } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';

const CLI = path.join(repositoryRoot, 'src', 'node', 'cli', 'main.ts');

/** Starts a process and SIGKILLs it when `killWhen` says so (given the output so far and the elapsed time); resolves when it is gone. */
function killDuring(args: string[], killWhen: (output: string, elapsedMs: number) => boolean): Promise<{ killed: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LANCEDB_LOG: 'error' } });
    let output = '';
    let killed = false;
    const check = () => {
      if (!killed && killWhen(output, Date.now() - started)) {
        killed = child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', (data: Buffer) => ((output += data.toString()), check()));
    child.stderr.on('data', (data: Buffer) => ((output += data.toString()), check()));
    const timer = setInterval(check, 20);
    child.once('error', reject);
    child.once('exit', () => {
      clearInterval(timer);
      resolve({ killed, output });
    });
  });
}

describe('A killed rebuild', function () {
  this.timeout(600_000);

  it('never forgets the indexed folders: the next rebuild re-indexes them, wherever the kill landed', async () => {
    const folder = temporaryFolder('haiku-killed-rebuild-');
    try {
      const documents = path.join(folder.path, 'documents');
      const other = path.join(folder.path, 'other');
      const database = path.join(folder.path, 'index');
      const files: Record<string, string> = {};
      for (let index = 0; index < 30; index++) {
        files[`note${index}.md`] = `# Note ${index}\n\nRebuild survivors ${index}.\n`;
      }
      writeFiles(documents, files);
      writeFiles(other, { 'extra.md': '# Extra\n\nA second root.\n' });
      const store = await openStore({ uri: database });
      await indexPaths({ roots: [documents], baseFolder: documents, store });
      await indexPaths({ roots: [other], baseFolder: other, store });
      const roots = store.roots;
      assert.equal(roots.length, 2);
      await store.close();

      const kills: Array<{ name: string; args: string[]; when: (output: string, elapsedMs: number) => boolean }> = [
        // Deterministic: between dropping the data tables and recreating them (the old code had dropped the roots too).
        { name: 'between the new embedder\'s settings and its vector column', args: [path.join(__dirname, 'fixtures', 'killedRebuild.ts'), database], when: (output) => output.includes('paused') },
        // `haiku rebuild` at several moments: while starting and resetting, and while re-indexing.
        ...[1200, 2400].map((delay) => ({ name: `rebuild after ${delay} ms`, args: [CLI, 'rebuild', '--db', database], when: (_output: string, elapsed: number) => elapsed >= delay })),
        ...[0, 300].map((delay) => {
          let firstOutput: number | undefined;
          return {
            name: `rebuild ${delay} ms into re-indexing`,
            args: [CLI, 'rebuild', '--db', database],
            when: (output: string, elapsed: number) => {
              if (output.length > 0) {
                firstOutput ??= elapsed;
              }
              return firstOutput !== undefined && elapsed - firstOutput >= delay;
            },
          };
        }),
      ];
      for (const kill of kills) {
        const outcome = await killDuring(kill.args, kill.when);
        // The deterministic kill lands inside the vector-width rebuild (a changed vector column), never past it.
        assert.ok(outcome.killed || !kill.name.includes('vector column'), `the fixture reached the vector swap: ${outcome.output}`);
        const reopened = await openStore({ uri: database });
        try {
          assert.deepEqual(reopened.roots, roots, `roots after a kill ${kill.name} (${outcome.killed ? 'killed' : 'finished'})`);
          // Complete and searchable right after the kill, before anything re-indexes: no document was dropped.
          assert.equal((await reopened.listDocuments()).length, 31, `documents right after a kill ${kill.name}`);
          assert.ok((await reopened.search('survivors')).length > 0, `searchable right after a kill ${kill.name}`);
          const summary = await rebuildIndex({ store: reopened });
          assert.equal(summary.added.length, 31, `the rebuild after a kill ${kill.name} re-indexed both folders`);
          assert.equal((await reopened.search('survivors')).length > 0, true);
        } finally {
          await reopened.close();
        }
      }
    } finally {
      folder.cleanup();
    }
  });
});
