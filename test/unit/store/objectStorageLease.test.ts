import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isHaikuError } from '../../../src/core/errors';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { storageOptionsFor } from '../../../src/node/store/objectStorage';
import { ObjectWriterLease, WRITER_LEASE_OBJECT } from '../../../src/node/store/objectWriterLease';
import { S3Object, signatureV4 } from '../../../src/node/store/s3Object';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { cliNodeArguments } from '../cli/cliHarness';
import { startObjectStorage, type LocalObjectStorage } from './objectStorageServer';

interface CliOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

function runCliProcess(argv: string[], cwd: string, env: Record<string, string>): { child: ReturnType<typeof spawn>; done: Promise<CliOutcome> } {
  const child = spawn(process.execPath, cliNodeArguments(argv), { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LANCEDB_LOG: 'error', ...env } });
  let output = '';
  child.stdout?.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
  const done = new Promise<CliOutcome>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, output }));
  });
  return { child, done };
}

describe('Writers of a team index on object storage (s3rver)', function () {
  this.timeout(300_000);
  let storage: LocalObjectStorage;
  let folder: { path: string; cleanup: () => void };
  let options: Record<string, string>;

  before(async () => {
    storage = await startObjectStorage();
    folder = temporaryFolder('haiku-team-writers-');
    options = storageOptionsFor('s3://team/x', storage.settings(), {}) ?? {};
  });

  after(async () => {
    await storage?.close();
    folder?.cleanup();
  });

  it('signs its own requests: the lease object is written, read back and deleted through the S3 API', async () => {
    const object = new S3Object(`s3://${storage.bucket}/signed/prefix`, 'probe.json', options);
    assert.equal((await object.put('{"a":1}')).status, 200);
    const read = await object.get();
    assert.equal(read.status, 200);
    assert.equal(read.body, '{"a":1}');
    assert.ok(fs.existsSync(path.join(storage.directory, storage.bucket, 'signed', 'prefix')));
    assert.equal((await new S3Object(`s3://${storage.bucket}/signed/prefix`, 'probe.json', { ...options, aws_access_key_id: 'NOT-A-KEY' }).get()).status, 403);
    await object.delete();
    assert.equal((await object.get()).status, 404);
  });

  it('signs like AWS Signature V4 (the GET Object example of the S3 API reference; s3rver does not check V4 signatures)', () => {
    const emptyHash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const authorization = signatureV4({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9', 'x-amz-content-sha256': emptyHash, 'x-amz-date': '20130524T000000Z' },
      payloadHash: emptyHash,
      amzDate: '20130524T000000Z',
      region: 'us-east-1',
      keyId: 'AKIAIOSFODNN7EXAMPLE',
      secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    assert.equal(
      authorization,
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('one lease holder at a time: a second writer waits with a message and then gets index_busy; release frees it', async () => {
    const uri = `s3://${storage.bucket}/leased`;
    const first = new ObjectWriterLease(uri, options);
    const second = new ObjectWriterLease(uri, options);
    const held = await first.acquire();
    const messages: string[] = [];
    await assert.rejects(second.acquire({ waitMs: 1_500, onWait: (message) => messages.push(message) }), (error) => isHaikuError(error, 'index_busy') && /Only one writer may publish at a time/.test(error.message) && error.message.includes(uri));
    assert.equal(messages.length, 1);
    assert.match(messages[0], /Waiting for another Haiku writer/);
    await held.release();
    const next = await second.acquire({ waitMs: 1_500 });
    await next.release();
    assert.equal((await new S3Object(uri, WRITER_LEASE_OBJECT, options).get()).status, 404, 'released leases are deleted');
  });

  it('two writers racing for a free lease end with exactly one holder', async () => {
    for (let round = 0; round < 3; round++) {
      const uri = `s3://${storage.bucket}/race-${round}`;
      const outcomes = await Promise.allSettled([0, 1].map(() => new ObjectWriterLease(uri, options).acquire({ waitMs: 0 })));
      const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      assert.equal(winners.length, 1, `round ${round}: ${outcomes.map((outcome) => outcome.status).join(', ')}`);
      const loser = outcomes.find((outcome) => outcome.status === 'rejected');
      assert.ok(loser && isHaikuError(loser.reason, 'index_busy'));
      await (winners[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    }
  });

  it('two `haiku index` processes publishing at once: one waits for the other, the index holds every document once', async () => {
    const uri = `s3://${storage.bucket}/two-writers`;
    const left = path.join(folder.path, 'left');
    const right = path.join(folder.path, 'right');
    const files = (side: string) => Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`${side}-${index}.md`, `# ${side} ${index}\n\nConcurrent publishing ${side} number ${index}.\n`]));
    writeFiles(left, files('left'));
    writeFiles(right, files('right'));
    const environment = storage.environment();
    const runs = [runCliProcess(['index', '.', '--db', uri], left, environment), runCliProcess(['index', '.', '--db', uri], right, environment)];
    const results = await Promise.all(runs.map((run) => run.done));
    for (const result of results) {
      assert.equal(result.code, 0, result.output);
    }
    assert.ok(results.some((result) => /Waiting for another Haiku writer/.test(result.output)), results.map((result) => result.output).join('\n---\n'));
    const reader = await openStore({ uri, storage: storage.settings(), readOnly: true });
    try {
      const documents = await reader.listDocuments();
      assert.equal(documents.length, 24);
      assert.equal(new Set(documents.map((document) => document.id)).size, 24);
      assert.equal((await reader.search('concurrent publishing right number 7')).length > 0, true);
    } finally {
      await reader.close();
    }
  });

  it('a writer killed mid-publish leaves readers on whole versions; the next writer takes over its lease (dead pid on this host)', async () => {
    const uri = `s3://${storage.bucket}/killed`;
    const documents = path.join(folder.path, 'killed');
    writeFiles(documents, { 'stable.md': '# Stable\n\nThe published version says marigold.\n' });
    const settings = storage.settings();
    const writer = await openStore({ uri, storage: settings });
    await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
    await writer.close();
    const reader = await openStore({ uri, storage: settings, readOnly: true });
    try {
      // A bigger update, in one batch.
      writeFiles(documents, Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`update-${index}.md`, `# Update ${index}\n\nHalf published chrysanthemum number${index}.\n`])));
      fs.writeFileSync(path.join(documents, 'stable.md'), '# Stable\n\nThe next version says chrysanthemum.\n');
      const run = runCliProcess(['index', '.', '--db', uri], documents, storage.environment());
      const leaseObject = path.join(storage.directory, storage.bucket, 'killed', WRITER_LEASE_OBJECT);
      const started = Date.now();
      while (!fs.readdirSync(path.dirname(leaseObject)).some((name) => name.startsWith(WRITER_LEASE_OBJECT)) && Date.now() - started < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Killed right after its first switch commit (a new documents version), before its fold: the switched
      // documents' rows are in no FTS index yet. After 20 s it is killed wherever it is.
      const documentVersions = path.join(storage.directory, storage.bucket, 'killed', 'documents.lance', '_versions');
      const manifests = () => fs.readdirSync(documentVersions).filter((name) => name.includes('.manifest')).length;
      const versionsBefore = manifests();
      while (manifests() === versionsBefore && Date.now() - started < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      run.child.kill('SIGKILL');
      const result = await run.done;
      assert.equal(result.signal, 'SIGKILL', result.output);
      await reader.refresh();
      // Each document is one generation, whole: the stable page is the old or the new text, never both or none,
      // and every listed update finds its own text.
      const stableHits = async (word: string) => (await reader.search(word, { limit: 50 })).filter((hit) => hit.content.includes('Stable') || hit.content.includes(word)).length;
      const marigold = await stableHits('marigold');
      const chrysanthemum = (await reader.search('next version chrysanthemum', { limit: 50 })).filter((hit) => hit.content.includes('next version')).length;
      assert.equal(Math.min(marigold, 1) + Math.min(chrysanthemum, 1), 1, `marigold ${marigold}, new text ${chrysanthemum}`);
      const listed = await reader.listDocuments();
      for (const document of listed.filter((entry) => entry.relativePath.startsWith('update-'))) {
        const number = /update-(\d+)/.exec(document.relativePath)?.[1];
        const hits = await reader.search(`number${number}`, { limit: 5 });
        assert.ok(hits.some((hit) => hit.documentId === document.id), `${document.relativePath} is listed but its rows are missing`);
      }

      // The killed writer's lease names a dead pid on this host: the next writer takes it over at once and finishes.
      const next = await runCliProcess(['index', '.', '--db', uri], documents, storage.environment()).done;
      assert.equal(next.code, 0, next.output);
      await reader.refresh();
      assert.equal((await reader.listDocuments()).length, 41);
      assert.equal((await reader.search('marigold')).length, 0);
    } finally {
      await reader.close();
    }
  });
});
