import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isHaikuError } from '../../../src/core/errors';
import { OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS } from '../../../src/core/limits';
import { openStore } from '../../../src/node/store/lanceStore';
import { runProcess } from '../cli/cliHarness';
import { temporaryFolder } from '../../support/indexFixtures';

/** A server that accepts every connection and never answers (a bucket behind a dead proxy). */
async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The whole command, from start to exit, within a minute. */
const LIMIT_MS = 60_000;

describe('A bucket that never answers', function () {
  this.timeout(150_000);
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  let folder: ReturnType<typeof temporaryFolder>;

  before(async () => {
    silent = await startSilentServer();
    folder = temporaryFolder('haiku-silent-bucket-');
    fs.writeFileSync(path.join(folder.path, 'note.md'), '# Note\n\nA note to index.\n');
  });

  after(async () => {
    await silent.close();
    folder.cleanup();
  });

  it('fails opening the store with storage_unreachable within the request timeout', async () => {
    const started = Date.now();
    await assert.rejects(
      openStore({ uri: 's3://bucket/index', storage: { endpoint: `http://127.0.0.1:${silent.port}`, allowHttp: true, accessKeyId: 'key', secretAccessKey: 'secret' }, readOnly: true }),
      (error) => isHaikuError(error, 'storage_unreachable') && /Could not reach object storage/.test(error.message),
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed < (OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS + 5) * 1000, `took ${elapsed} ms`);
  });

  it('makes `haiku search` and `haiku index` exit non-zero within 60 s, saying the storage is unreachable', async () => {
    const flags = ['--db', 's3://bucket/index', '--endpoint', `http://127.0.0.1:${silent.port}`, '--allow-http'];
    const env = { AWS_ACCESS_KEY_ID: 'key', AWS_SECRET_ACCESS_KEY: 'secret' };
    const started = Date.now();
    const runs = await Promise.all([
      runProcess(['search', 'note', ...flags], { cwd: folder.path, env, timeoutMs: LIMIT_MS + 30_000 }).then((run) => ({ ...run, name: 'search', ms: Date.now() - started })),
      runProcess(['index', folder.path, ...flags], { cwd: folder.path, env, timeoutMs: LIMIT_MS + 30_000 }).then((run) => ({ ...run, name: 'index', ms: Date.now() - started })),
    ]);
    for (const run of runs) {
      console.log(`      haiku ${run.name}: exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s`);
      assert.equal(run.signal, null, `haiku ${run.name} was killed: still running after ${LIMIT_MS + 30_000} ms`);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /Could not reach object storage for s3:\/\/bucket\/index/);
      assert.ok(run.ms < LIMIT_MS, `haiku ${run.name} took ${run.ms} ms`);
    }
  });
});
