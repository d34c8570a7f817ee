import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import { isHaikuError } from '../../../src/core/errors';
import { documentIdForPath } from '../../../src/core/hash';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { FileWriterLease, WRITER_LOCK_FILE } from '../../../src/node/store/writerLease';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';

const CLI = path.join(repositoryRoot, 'src', 'node', 'cli', 'main.ts');

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(lockPath: string, owner: { pid: number; host?: string }, heartbeatAgeMs = 0): void {
  fs.writeFileSync(lockPath, JSON.stringify({ pid: owner.pid, host: owner.host ?? os.hostname(), startedAt: new Date().toISOString(), token: 'other-writer' }));
  const heartbeat = new Date(Date.now() - heartbeatAgeMs);
  fs.utimesSync(lockPath, heartbeat, heartbeat);
}

/** Runs `haiku index <folder> --db <database>` as its own process. */
function runIndexProcess(folder: string, database: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), CLI, 'index', folder, '--db', database], { cwd: folder, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LANCEDB_LOG: 'error' } });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('Writer lease', function () {
  this.timeout(600_000);
  let folder: ReturnType<typeof temporaryFolder>;

  beforeEach(() => {
    folder = temporaryFolder('haiku-lease-');
  });

  afterEach(() => {
    folder.cleanup();
  });

  it('lets one writer hold the lock; a second waits with a message and fails after its timeout', async () => {
    const lease = new FileWriterLease(path.join(folder.path, WRITER_LOCK_FILE));
    const held = await lease.acquire();
    const messages: string[] = [];
    await assert.rejects(lease.acquire({ waitMs: 300, onWait: (message) => messages.push(message) }), (error: unknown) => {
      assert.ok(isHaikuError(error, 'index_busy'));
      assert.match(error.message, new RegExp(`pid ${process.pid}.*delete .*${WRITER_LOCK_FILE}`, 's'));
      return true;
    });
    assert.deepEqual(messages.length, 1);
    assert.match(messages[0], new RegExp(`^Waiting for another Haiku writer, pid ${process.pid}`));
    // Released: the next writer gets it at once.
    const waiting = lease.acquire({ onWait: (message) => messages.push(message) });
    await held.release();
    await (await waiting).release();
    assert.equal(fs.existsSync(lease.lockPath), false);
  });

  it('takes over a stale lock: its owner pid is dead on this host, or its heartbeat is too old', async () => {
    const lease = new FileWriterLease(path.join(folder.path, WRITER_LOCK_FILE));
    writeLock(lease.lockPath, { pid: deadPid() });
    const first = await lease.acquire({ waitMs: 2_000 });
    assert.match(fs.readFileSync(lease.lockPath, 'utf8'), new RegExp(`"pid":${process.pid}`));
    await first.release();

    // A live pid on another host cannot be checked: only the heartbeat's age decides.
    writeLock(lease.lockPath, { pid: process.pid, host: 'elsewhere.example' }, 10 * 60_000);
    await (await lease.acquire({ waitMs: 2_000 })).release();
    writeLock(lease.lockPath, { pid: process.pid, host: 'elsewhere.example' });
    await assert.rejects(lease.acquire({ waitMs: 300 }), (error: unknown) => isHaikuError(error, 'index_busy') && /on elsewhere\.example/.test(error.message));
    fs.rmSync(lease.lockPath);

    // An unreadable (e.g. empty) lock is judged by its heartbeat alone.
    fs.writeFileSync(lease.lockPath, '');
    await assert.rejects(lease.acquire({ waitMs: 300 }), (error: unknown) => isHaikuError(error, 'index_busy') && /unknown process/.test(error.message));
    const old = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(lease.lockPath, old, old);
    await (await lease.acquire({ waitMs: 2_000 })).release();
  });

  it('an index run recovers a stale lock left by a killed writer', async () => {
    const documents = path.join(folder.path, 'documents');
    const database = path.join(folder.path, 'index');
    writeFiles(documents, { 'a.md': '# A\n\nAardvarks everywhere.\n' });
    fs.mkdirSync(database, { recursive: true });
    writeLock(path.join(database, WRITER_LOCK_FILE), { pid: deadPid() });
    const store = await openStore({ uri: database, onWriterWait: () => assert.fail('a dead owner is not waited for') });
    try {
      const summary = await indexPaths({ roots: [documents], baseFolder: documents, store });
      assert.equal(summary.added.length, 1);
      assert.equal(fs.existsSync(path.join(database, WRITER_LOCK_FILE)), false, 'released after the run');
    } finally {
      await store.close();
    }
  });

  it('repairs a document whose chunk or item rows went missing although its file is unchanged', async () => {
    const documents = path.join(folder.path, 'documents');
    const database = path.join(folder.path, 'index');
    writeFiles(documents, { 'kept.md': '# Kept\n\nKestrels hover.\n', 'broken.md': '# Broken\n\nBlue herons wade.\n', 'items.md': '# Items\n\nIbis flocks.\n' });
    let store = await openStore({ uri: database });
    await indexPaths({ roots: [documents], baseFolder: documents, store });
    await store.close();
    const raw = await lancedb.connect(database);
    await (await raw.openTable('chunks')).delete(`document_id = '${documentIdForPath('broken.md')}'`);
    await (await raw.openTable('document_items')).delete(`document_id = '${documentIdForPath('items.md')}'`);
    raw.close();

    store = await openStore({ uri: database });
    try {
      assert.equal((await store.search('herons')).length, 0, 'the damage is real');
      assert.deepEqual([...(await store.documentsMissingRows())].sort(), [documentIdForPath('broken.md'), documentIdForPath('items.md')].sort());
      const summary = await indexPaths({ roots: [documents], baseFolder: documents, store });
      assert.deepEqual(summary.updated.sort(), ['broken.md', 'items.md']);
      assert.equal(summary.unchanged, 1);
      assert.equal((await store.search('herons')).length, 1);
      assert.ok((await store.getDocumentItems(documentIdForPath('items.md'))).length > 0);
      assert.equal((await store.documentsMissingRows()).size, 0);
    } finally {
      await store.close();
    }
  });

  it('two `haiku index` processes on one database lose no edit (real processes, three trials)', async () => {
    const documents = path.join(folder.path, 'documents');
    const database = path.join(folder.path, 'index');
    const files: Record<string, string> = {};
    for (let index = 0; index < 60; index++) {
      files[`notes/note${index}.md`] = `# Note ${index}\n\nThis note ${index} discusses topic ${index % 7} at some length.\n\n## Details\n\nMore about item ${index}.\n`;
    }
    writeFiles(documents, files);
    const store = await openStore({ uri: database });
    await indexPaths({ roots: [documents], baseFolder: documents, store });
    await store.close();

    const lost: string[] = [];
    let waited = 0;
    for (let trial = 0; trial < 3; trial++) {
      const tokens = new Map<string, string>();
      for (let index = 0; index < 40; index++) {
        const token = `zqtoken${trial}x${index}`;
        fs.appendFileSync(path.join(documents, 'notes', `note${index}.md`), `\nAn appended line mentions ${token}.\n`);
        tokens.set(token, `notes/note${index}.md`);
      }
      const runs = await Promise.all([runIndexProcess(documents, database), runIndexProcess(documents, database)]);
      for (const run of runs) {
        assert.equal(run.code, 0, run.stderr);
      }
      waited += runs.filter((run) => /Waiting for another Haiku writer, pid \d+/.test(run.stderr)).length;
      const reader = await openStore({ uri: database });
      for (const [token, relativePath] of tokens) {
        const [hit] = await reader.searchWith(token, { mode: 'fullText', limit: 1 });
        if (!hit?.uri.endsWith(relativePath)) {
          lost.push(`trial ${trial}: ${token} (${relativePath}) → ${hit?.uri ?? 'no result'}`);
        }
      }
      assert.equal((await reader.documentsMissingRows()).size, 0);
      await reader.close();
    }
    assert.deepEqual(lost, []);
    assert.ok(waited > 0, 'at least once, one process waited for the other');
  });
});
