import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '../../../src/core/config';
import { isHaikuError } from '../../../src/core/errors';
import { openIndex, type OpenedIndex } from '../../../src/node/backend/openIndex';
import { indexPaths } from '../../../src/node/index/indexer';
import { BucketMirror, bucketCacheFolder } from '../../../src/node/store/bucketMirror';
import { openStore } from '../../../src/node/store/lanceStore';
import { storageOptionsFor, type ObjectStorageSettings } from '../../../src/node/store/objectStorage';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { S3RVER_ACCESS_KEY_ID, S3RVER_SECRET_ACCESS_KEY, startObjectStorage, type LocalObjectStorage } from './objectStorageServer';

function settingsFor(storage: LocalObjectStorage, overrides: ObjectStorageSettings = {}): ObjectStorageSettings {
  return { ...storage.settings(), region: 'us-east-1', allowHttp: true, pathStyle: true, ...overrides };
}

/** Indexes `files` into a fresh folder and publishes them to `uri` (a writer on the bucket, as CI would). */
async function publish(storage: LocalObjectStorage, uri: string, documents: string, files: Record<string, string>): Promise<void> {
  writeFiles(documents, files);
  const writer = await openStore({ uri, storage: settingsFor(storage) });
  try {
    await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
  } finally {
    await writer.close();
  }
}

/** A read-only consumer as `haiku mcp --read-only` opens it, mirroring into `cacheFolder`. */
function openConsumer(storage: LocalObjectStorage, uri: string, cacheFolder: string, versionCheckIntervalMs = 0): Promise<OpenedIndex> {
  const config = defaultConfig();
  config.index.databaseUri = uri;
  const asMcpReadOnly = { config, cwd: process.cwd(), mustExist: true, followOtherWriters: true, readOnly: true, models: {} };
  return openIndex({ ...asMcpReadOnly, storage: settingsFor(storage), bucketCacheFolder: cacheFolder, versionCheckIntervalMs });
}

/** The mirror's record of each object's ETag, by key relative to the index. */
function mirroredEtags(cacheFolder: string): Record<string, { etag: string }> {
  const [folder] = fs.readdirSync(cacheFolder);
  return JSON.parse(fs.readFileSync(path.join(cacheFolder, folder, '.haiku-mirror.json'), 'utf8')) as Record<string, { etag: string }>;
}

/** Runs `work`, noting the prefix of each bucket listing it makes (its `list-type=2` requests). */
async function withListingsNoted<T>(prefixes: string[], work: () => Promise<T>): Promise<T> {
  // The module object itself: the mirror's `import * as http` reads its `get` at each request.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const http = require('node:http') as typeof import('node:http');
  const get = http.get;
  http.get = ((url: unknown, ...rest: unknown[]) => {
    if (url instanceof URL && url.searchParams.get('list-type') === '2') {
      prefixes.push(url.searchParams.get('prefix') ?? '');
    }
    return (get as (...args: unknown[]) => unknown).call(http, url, ...rest);
  }) as typeof http.get;
  try {
    return await work();
  } finally {
    http.get = get;
  }
}

function folderBytes(folder: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
    }
  }
  return total;
}

describe('Bucket mirror (a read-only consumer of an s3:// index reads a local copy)', function () {
  this.timeout(180_000);
  let storage: LocalObjectStorage;
  let folder: { path: string; cleanup: () => void };

  before(async () => {
    storage = await startObjectStorage('mirror');
    folder = temporaryFolder('haiku-bucket-mirror-');
  });

  after(async () => {
    await storage.close();
    folder.cleanup();
  });

  it('serves queries from the local copy and sees a new publish after refresh (at most once per check interval when one is set)', async () => {
    const uri = `s3://${storage.bucket}/follow`;
    const documents = path.join(folder.path, 'follow-documents');
    await publish(storage, uri, documents, { 'one.md': '# One\n\nThe wombat section.\n' });
    const everyCall = await openConsumer(storage, uri, path.join(folder.path, 'follow-cache'));
    const throttled = await openConsumer(storage, uri, path.join(folder.path, 'throttled-cache'), 60_000);
    // VS Code's additional databases: read-only, no version probe; they call `store.refresh()` themselves.
    const additional = await openIndex({ config: defaultConfig(), cwd: process.cwd(), databaseUri: uri, mustExist: true, readOnly: true, storage: settingsFor(storage), models: {}, bucketCacheFolder: path.join(folder.path, 'additional-cache') });
    try {
      assert.equal(everyCall.store.uri, uri, 'messages still name the bucket');
      assert.ok(fs.readdirSync(path.join(folder.path, 'follow-cache')).length === 1, 'the index was mirrored');
      assert.equal((await everyCall.store.search('wombat')).length, 1);
      assert.equal((await throttled.store.search('wombat')).length, 1);
      await publish(storage, uri, documents, { 'two.md': '# Two\n\nAnother wombat section.\n' });
      await everyCall.refreshIfChanged();
      assert.equal((await everyCall.store.search('wombat')).length, 2, 'the new publish is searched after refresh');
      await throttled.refreshIfChanged();
      assert.equal((await throttled.store.search('wombat')).length, 1, 'within its check interval a consumer keeps its version (no listing)');
      assert.equal((await additional.store.search('wombat')).length, 1);
      await additional.store.refresh();
      assert.equal((await additional.store.search('wombat')).length, 2, 'store.refresh() syncs the mirror before moving to the latest version');
    } finally {
      await additional.close();
      await everyCall.close();
      await throttled.close();
    }
  });

  it('never serves a cached file for a newer version: a table dropped and published again under the same manifest names is fetched anew', async () => {
    const uri = `s3://${storage.bucket}/republish`;
    const cache = path.join(folder.path, 'republish-cache');
    await publish(storage, uri, path.join(folder.path, 'first-documents'), { 'notes.md': '# Notes\n\nThe first release mentions the quokka.\n' });
    await publish(storage, uri, path.join(folder.path, 'first-documents'), { 'more.md': '# More\n\nA later page about the quokka.\n' });
    const first = await openConsumer(storage, uri, cache);
    assert.equal((await first.store.search('quokka')).length, 2);
    await first.close();
    const before = mirroredEtags(cache);

    // The publisher starts over: the prefix is emptied and one run writes the first version numbers again (fewer of them).
    fs.rmSync(path.join(storage.directory, storage.bucket, 'republish'), { recursive: true, force: true });
    await publish(storage, uri, path.join(folder.path, 'second-documents'), { 'notes.md': '# Notes\n\nThe second release mentions the numbat.\n' });

    const second = await openConsumer(storage, uri, cache);
    try {
      assert.equal((await second.store.search('numbat')).length, 1);
      assert.equal((await second.store.search('quokka')).length, 0);
    } finally {
      await second.close();
    }
    const after = mirroredEtags(cache);
    const reusedManifests = Object.keys(after).filter((key) => /_versions\/\d+\.manifest$/.test(key) && before[key] && before[key].etag !== after[key].etag);
    assert.ok(reusedManifests.length > 0, 'the republish reused manifest names with other bytes (what this test is about)');
    const staleManifests = Object.keys(before).filter((key) => /_versions\/\d+\.manifest$/.test(key) && !after[key]);
    assert.ok(staleManifests.length > 0, 'the first publish had versions the second has not: their manifests must be gone from the mirror');
  });

  it('a long-lived reader follows a republish whose version numbers start again', async () => {
    const uri = `s3://${storage.bucket}/republish-live`;
    const documents = path.join(folder.path, 'republish-live-first');
    await publish(storage, uri, documents, { 'notes.md': '# Notes\n\nThe first release mentions the quokka.\n' });
    await publish(storage, uri, documents, { 'more.md': '# More\n\nA later page about the quokka.\n' });
    const reader = await openConsumer(storage, uri, path.join(folder.path, 'republish-live-cache'));
    // VS Code's additional databases: no version probe, `store.refresh()` syncs the mirror.
    const additional = await openIndex({ config: defaultConfig(), cwd: process.cwd(), databaseUri: uri, mustExist: true, readOnly: true, storage: settingsFor(storage), models: {}, bucketCacheFolder: path.join(folder.path, 'republish-live-additional') });
    try {
      assert.equal((await reader.store.search('quokka')).length, 2);
      assert.equal((await additional.store.search('quokka')).length, 2);
      fs.rmSync(path.join(storage.directory, storage.bucket, 'republish-live'), { recursive: true, force: true });
      await publish(storage, uri, path.join(folder.path, 'republish-live-second'), { 'notes.md': '# Notes\n\nThe second release mentions the numbat.\n' });
      await reader.refreshIfChanged();
      await additional.store.refresh();
      for (const [name, index] of [['the version check', reader], ['store.refresh()', additional]] as const) {
        assert.equal((await index.store.search('numbat')).length, 1, `${name}: the republished document is found`);
        assert.equal((await index.store.search('quokka')).length, 0, `${name}: nothing of the first publish is served`);
      }
    } finally {
      await reader.close();
      await additional.close();
    }
  });

  it('keeps all mirrors under the size bound: the least recently used one goes; an index above the bound is not mirrored', async () => {
    const cache = path.join(folder.path, 'bound-cache');
    const options = storageOptionsFor('s3://x/y', settingsFor(storage))!;
    const uris = [`s3://${storage.bucket}/bound-a`, `s3://${storage.bucket}/bound-b`];
    for (const [number, uri] of uris.entries()) {
      await publish(storage, uri, path.join(folder.path, `bound-documents-${number}`), { 'page.md': `# Page ${number}\n\nSome text about the bilby, copy ${number}.\n` });
    }
    const sizing = new BucketMirror({ uri: uris[0], storageOptions: options, cacheFolder: path.join(folder.path, 'sizing-cache') });
    const size = (await sizing.sync()).downloadedBytes;
    assert.ok(size > 0);

    const bound = Math.floor(size * 1.5);
    // Not a mirror: eviction must leave it alone, however old (the cache root is whatever folder the user named).
    writeFiles(path.join(cache, 'user-notes'), { 'keep.md': 'x'.repeat(size) });
    fs.utimesSync(path.join(cache, 'user-notes'), new Date(0), new Date(0));
    const first = new BucketMirror({ uri: uris[0], storageOptions: options, cacheFolder: cache, maxBytes: bound });
    await first.sync();
    assert.ok(fs.existsSync(first.folder));
    const second = new BucketMirror({ uri: uris[1], storageOptions: options, cacheFolder: cache, maxBytes: bound });
    const synced = await second.sync();
    assert.ok(synced.downloadedBytes > 0);
    assert.ok(!fs.existsSync(first.folder), 'the older mirror was evicted');
    assert.ok(fs.existsSync(second.folder));
    assert.ok(fs.existsSync(path.join(cache, 'user-notes', 'keep.md')), 'a folder that is not a mirror is never evicted');
    fs.rmSync(path.join(cache, 'user-notes'), { recursive: true });
    assert.ok(folderBytes(cache) <= bound, `the cache holds ${folderBytes(cache)} bytes, bound ${bound}`);

    const tooSmall = new BucketMirror({ uri: uris[0], storageOptions: options, cacheFolder: path.join(folder.path, 'small-cache'), maxBytes: Math.floor(size / 2) });
    await assert.rejects(tooSmall.sync(), (error) => isHaikuError(error, 'file_too_large') && /HAIKU_BUCKET_CACHE_DIR=off/.test(error.message));
    assert.ok(!fs.existsSync(tooSmall.folder), 'nothing was fetched');
  });

  it('a second sync without a publish fetches nothing (each table\'s manifests listed, not every key), and files the bucket dropped go at the sync after', async () => {
    const uri = `s3://${storage.bucket}/steady`;
    await publish(storage, uri, path.join(folder.path, 'steady-documents'), { 'a.md': '# A\n\nThe dingo paragraph.\n' });
    const mirror = new BucketMirror({ uri, storageOptions: storageOptionsFor(uri, settingsFor(storage))!, cacheFolder: path.join(folder.path, 'steady-cache') });
    assert.ok((await mirror.sync()).downloadedFiles > 0);
    const tables = fs.readdirSync(path.join(storage.directory, storage.bucket, 'steady')).filter((name) => !name.startsWith('.'));
    assert.ok(tables.includes('documents.lance'), tables.join());
    const listedPrefixes: string[] = [];
    const files = { index: path.join(mirror.folder, '.haiku-mirror.json'), record: path.join(mirror.folder, '.haiku-mirror-synced.json') };
    const written = { index: fs.statSync(files.index).mtimeMs, record: JSON.parse(fs.readFileSync(files.record, 'utf8')) as { syncedAtMs: number } };
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await withListingsNoted(listedPrefixes, () => mirror.sync());
    assert.equal(fs.statSync(files.index).mtimeMs, written.index, 'an unchanged mirror keeps its index file');
    assert.ok((JSON.parse(fs.readFileSync(files.record, 'utf8')) as { syncedAtMs: number }).syncedAtMs > written.record.syncedAtMs, 'the check is recorded');
    assert.deepEqual({ changed: again.changed, downloadedFiles: again.downloadedFiles, requests: again.requests }, { changed: false, downloadedFiles: 0, requests: tables.length });
    assert.deepEqual(listedPrefixes.sort(), tables.map((table) => `steady/${table}/_versions/`).sort(), 'no listing of every key');
    assert.equal(mirror.takeRestarted(), false, 'a first copy and a sync without a publish are no republish');

    const tableFolder = path.join(storage.directory, storage.bucket, 'steady', 'documents.lance');
    assert.ok(fs.existsSync(tableFolder));
    fs.rmSync(tableFolder, { recursive: true, force: true });
    const dropped = await mirror.sync();
    assert.equal(mirror.takeRestarted(), true, 'a table gone from the bucket: readers open their tables again');
    assert.equal(mirror.takeRestarted(), false, 'taken once');
    const left = fs.readdirSync(path.join(mirror.folder, 'documents.lance'), { recursive: true }).map(String);
    assert.ok(dropped.removedFiles > 0 && !left.some((file) => file.endsWith('.manifest')), 'manifests go at once: their presence decides the version LanceDB opens');
    assert.ok(left.some((file) => file.startsWith('data')), 'data files stay one sync longer: a reader may still be on the version that used them');
    const later = await mirror.sync();
    assert.ok(later.removedFiles > 0);
    assert.ok(!mirror.holdsTable('documents'));
  });

  it('a new process skips the listing while the last sync (any process, same keys) is younger than its check interval', async () => {
    const uri = `s3://${storage.bucket}/fresh`;
    const documents = path.join(folder.path, 'fresh-documents');
    const cacheFolder = path.join(folder.path, 'fresh-cache');
    await publish(storage, uri, documents, { 'a.md': '# A\n\nThe bilby paragraph.\n' });
    const mirrorFor = (overrides: ObjectStorageSettings = {}) => new BucketMirror({ uri, storageOptions: storageOptionsFor(uri, settingsFor(storage, overrides))!, cacheFolder });
    const first = mirrorFor();
    assert.equal((await first.syncUnlessFresh(60_000)).synced, true, 'an empty cache is synced');

    const second = mirrorFor();
    const skipped = await second.syncUnlessFresh(60_000);
    assert.equal(skipped.synced, false);
    assert.ok(skipped.ageMs >= 0 && skipped.ageMs < 60_000, String(skipped.ageMs));
    assert.equal(second.stats.requests, 0, 'no request to the bucket');
    assert.equal((await mirrorFor().syncUnlessFresh(0)).synced, true, 'a reader without a check interval always lists');
    await assert.rejects(mirrorFor({ accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong-secret' }).syncUnlessFresh(60_000), (error) => isHaikuError(error, 'storage_denied'), 'other keys list the bucket themselves');

    // The record says when, not the files' times: backdated past the interval, the next process lists.
    const record = path.join(first.folder, '.haiku-mirror-synced.json');
    const written = JSON.parse(fs.readFileSync(record, 'utf8')) as { syncedAtMs: number };
    assert.ok(!fs.readFileSync(record, 'utf8').includes(S3RVER_SECRET_ACCESS_KEY) && !fs.readFileSync(record, 'utf8').includes(S3RVER_ACCESS_KEY_ID), 'the keys are not written');
    fs.writeFileSync(record, JSON.stringify({ ...written, syncedAtMs: Date.now() - 61_000 }));
    const stale = mirrorFor();
    assert.equal((await stale.syncUnlessFresh(60_000)).synced, true);
    // One listing of each table's manifests (nothing was published since): nothing fetched.
    const tables = fs.readdirSync(path.join(storage.directory, storage.bucket, 'fresh')).filter((name) => !name.startsWith('.'));
    assert.deepEqual({ requests: stale.stats.requests, downloadedFiles: stale.stats.downloadedFiles }, { requests: tables.length, downloadedFiles: 0 });

    // A copy on disk is opened while the bucket is listed, but the listing still decides: refused keys fail the open.
    const config = defaultConfig();
    const refusedKeys = settingsFor(storage, { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong-secret' });
    const asMcpReadOnly = { config, cwd: process.cwd(), databaseUri: uri, mustExist: true, followOtherWriters: true, readOnly: true, models: {} };
    await assert.rejects(openIndex({ ...asMcpReadOnly, storage: refusedKeys, bucketCacheFolder: cacheFolder, versionCheckIntervalMs: 60_000 }), (error) => isHaikuError(error, 'storage_denied'));
  });

  it('a reader opened on a fresh mirror still sees a new publish one check interval after that sync', async () => {
    const uri = `s3://${storage.bucket}/fresh-follow`;
    const documents = path.join(folder.path, 'fresh-follow-documents');
    const cacheFolder = path.join(folder.path, 'fresh-follow-cache');
    const intervalMs = 4_000;
    await publish(storage, uri, documents, { 'one.md': '# One\n\nThe quoll section.\n' });
    const earlier = await openConsumer(storage, uri, cacheFolder, intervalMs);
    await earlier.close();
    await publish(storage, uri, documents, { 'two.md': '# Two\n\nAnother quoll section.\n' });
    // The earlier sync is made to have ended 2.5 s ago, however long the publish took.
    const [mirrorFolder] = fs.readdirSync(cacheFolder);
    const record = path.join(cacheFolder, mirrorFolder, '.haiku-mirror-synced.json');
    const syncedAtMs = Date.now() - 2_500;
    fs.writeFileSync(record, JSON.stringify({ ...JSON.parse(fs.readFileSync(record, 'utf8')), syncedAtMs }));
    const reader = await openConsumer(storage, uri, cacheFolder, intervalMs);
    try {
      await reader.refreshIfChanged();
      assert.equal((await reader.store.search('quoll')).length, 1, 'opened within the interval: the mirror as the earlier sync left it');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, syncedAtMs + intervalMs - Date.now()) + 50));
      await reader.refreshIfChanged();
      assert.equal((await reader.store.search('quoll')).length, 2, 'one interval after the earlier sync, the publish is seen');
    } finally {
      await reader.close();
    }
  });

  it('fails with typed errors: refused credentials, a missing index', async () => {
    const uri = `s3://${storage.bucket}/steady`;
    const refused = new BucketMirror({ uri, storageOptions: storageOptionsFor(uri, settingsFor(storage, { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong-secret' }))!, cacheFolder: path.join(folder.path, 'refused-cache') });
    await assert.rejects(refused.sync(), (error) => isHaikuError(error, 'storage_denied') && !error.message.includes('wrong-secret'));
    const unreachable = new BucketMirror({ uri, storageOptions: storageOptionsFor(uri, settingsFor(storage, { endpoint: 'http://127.0.0.1:1' }))!, cacheFolder: path.join(folder.path, 'unreachable-cache') });
    await assert.rejects(unreachable.sync(), (error) => isHaikuError(error, 'storage_unreachable') && /Check the endpoint/.test(error.message));
    const empty = `s3://${storage.bucket}/nothing-here`;
    await assert.rejects(openConsumer(storage, empty, path.join(folder.path, 'empty-cache')), (error) => isHaikuError(error, 'not_found') && error.message.includes(empty));
    assert.throws(() => new BucketMirror({ uri: '/not/a/bucket', storageOptions: {}, cacheFolder: folder.path }), (error) => isHaikuError(error, 'invalid_settings'));
  });

  it('lives under the OS cache folder unless HAIKU_BUCKET_CACHE_DIR says otherwise (off disables it)', () => {
    assert.equal(bucketCacheFolder({ HAIKU_BUCKET_CACHE_DIR: 'off' }), undefined);
    assert.equal(bucketCacheFolder({ HAIKU_BUCKET_CACHE_DIR: '/tmp/elsewhere' }), '/tmp/elsewhere');
    assert.equal(bucketCacheFolder({ XDG_CACHE_HOME: '/home/me/.cache-x' }), path.join('/home/me/.cache-x', 'haiku', 'buckets'));
  });
});
