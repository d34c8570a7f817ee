import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openStore, type DocumentWrite } from '../../../src/node/store/lanceStore';
import { temporaryFolder } from '../../support/indexFixtures';
import { markdownWrite } from '../../support/documentWrites';

async function documents(prefix: string, count: number): Promise<DocumentWrite[]> {
  const writes: DocumentWrite[] = [];
  for (let index = 0; index < count; index++) {
    const words = Array.from({ length: 80 }, (_, word) => `${prefix}word${(index * 31 + word * 7) % 997}`).join(' ');
    writes.push(await markdownWrite(`${prefix}/${index}.md`, `# ${prefix} ${index}\n\n${words}.\n`));
  }
  return writes;
}

/** Fills the file system holding `folder` until a write fails with ENOSPC. */
function fillDisk(file: string): void {
  const block = Buffer.alloc(16 * 1024, 1);
  const descriptor = fs.openSync(file, 'w');
  try {
    for (;;) {
      fs.writeSync(descriptor, block);
    }
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    fs.closeSync(descriptor);
  }
}

describe('LanceStore on a full disk', function () {
  this.timeout(300_000);

  it('removes the index folders a failed FTS build left, and builds again once space is freed (a real small tmpfs)', async function () {
    const mountPoint = temporaryFolder('haiku-tmpfs-');
    // Needs root (the project's CI and dev machines run as root); elsewhere this case cannot be set up.
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint.path]).status !== 0) {
      mountPoint.cleanup();
      this.skip();
    }
    try {
      const database = path.join(mountPoint.path, 'index');
      const store = await openStore({ uri: database });
      try {
        await store.writeDocuments(await documents('first', 150), { scheduleOptimize: false });
        await store.optimize();
        await store.writeDocuments(await documents('second', 150), { scheduleOptimize: false });
        const indices = path.join(database, 'chunks.lance', '_indices');
        const before = fs.readdirSync(indices).sort();
        const filler = path.join(mountPoint.path, 'filler');
        fillDisk(filler);
        // Room for the writer lock, not for an index build.
        fs.truncateSync(filler, fs.statSync(filler).size - 32 * 1024);
        for (let attempt = 0; attempt < 3; attempt++) {
          await assert.rejects(store.optimize(), /No space left|ENOSPC|os error 28/i);
          assert.deepEqual(fs.readdirSync(indices).sort(), before, `no index folder left after failed build ${attempt + 1}`);
        }
        fs.rmSync(filler);
        await store.optimize();
        assert.equal((await store.searchWith('secondword5', { mode: 'fullText', limit: 3 })).length, 3);
      } finally {
        await store.close();
      }
    } finally {
      // Lazy: LanceDB may hold a file open a moment after close().
      spawnSync('umount', ['-l', mountPoint.path]);
      mountPoint.cleanup();
    }
  });
});
