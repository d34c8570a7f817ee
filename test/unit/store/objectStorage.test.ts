import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import { isHaikuError } from '../../../src/core/errors';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore, type LanceStore } from '../../../src/node/store/lanceStore';
import { describeStorageOptions, storageOptionsFor, withoutSecrets, type ObjectStorageSettings } from '../../../src/node/store/objectStorage';
import { pathToFileURL } from 'node:url';
import { openExistingIndex } from '../mcp/openTestIndex';
import { mapToSourceRoot } from '../../../src/node/store/sourceRoot';
import { runInProcess, runProcess } from '../cli/cliHarness';
import { markdownWrite } from '../../support/documentWrites';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';
import { S3RVER_SECRET_ACCESS_KEY, startObjectStorage, type LocalObjectStorage } from './objectStorageServer';

/** Settings for the local server (what `--endpoint` and the AWS variables give the CLI). */
function localSettings(storage: LocalObjectStorage, overrides: ObjectStorageSettings = {}): ObjectStorageSettings {
  return { ...storage.settings(), region: 'us-east-1', allowHttp: true, pathStyle: true, ...overrides };
}

/** The Vite config pages of the shared corpus: a real subset that publishes in a few seconds. */
function copyCorpusSubset(target: string): void {
  fs.cpSync(path.join(corpusRoot, 'vite-docs', 'docs', 'config'), path.join(target, 'config'), { recursive: true });
}

/** Every request has a timeout, and LanceDB stops retrying in time (a bucket that never answered kept commands running). */
const REQUEST_LIMITS = { timeout: '15s', connect_timeout: '5s', client_retry_timeout: '30' };

describe('Storage options for object storage', () => {
  it('come from the AWS environment variables, with settings taking precedence', () => {
    const environment = { AWS_ENDPOINT: 'http://minio:9000', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'very-secret-key', AWS_ALLOW_HTTP: 'true', AWS_VIRTUAL_HOSTED_STYLE_REQUEST: 'true' };
    assert.deepEqual(storageOptionsFor('s3://team/index', {}, environment), {
      aws_endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      allow_http: 'true',
      virtual_hosted_style_request: 'true',
      aws_access_key_id: 'AKIAEXAMPLE',
      aws_secret_access_key: 'very-secret-key',
      ...REQUEST_LIMITS,
    });
    const overridden = storageOptionsFor('s3://team/index', { endpoint: 'https://s3.example.com', region: 'us-west-2', pathStyle: true }, environment);
    assert.equal(overridden?.aws_endpoint, 'https://s3.example.com');
    assert.equal(overridden?.region, 'us-west-2');
    assert.equal(overridden?.virtual_hosted_style_request, 'false');
  });

  it('default a custom endpoint to path style, us-east-1 and (for http://) plain HTTP; nothing for folders and other schemes', () => {
    assert.deepEqual(storageOptionsFor('s3://bucket/prefix', { endpoint: 'http://127.0.0.1:9000' }, {}), { aws_endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', allow_http: 'true', virtual_hosted_style_request: 'false', ...REQUEST_LIMITS });
    assert.deepEqual(storageOptionsFor('s3://bucket/prefix', {}, {}), REQUEST_LIMITS);
    assert.equal(storageOptionsFor('/home/me/.haiku', {}, { AWS_ENDPOINT: 'http://x' }), undefined);
    assert.equal(storageOptionsFor('gs://bucket/prefix', {}, { AWS_ENDPOINT: 'http://x' }), undefined);
  });

  it('are described without secrets, and secrets are scrubbed from error text', () => {
    const options = storageOptionsFor('s3://team/index', { endpoint: 'http://127.0.0.1:9000', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'very-secret-key', sessionToken: 'session-token-value' }, {});
    const described = describeStorageOptions(options);
    assert.match(described, /aws_endpoint=http:\/\/127\.0\.0\.1:9000/);
    for (const secret of ['AKIAEXAMPLE', 'very-secret-key', 'session-token-value']) {
      assert.ok(!described.includes(secret), `${secret} in ${described}`);
    }
    assert.equal(withoutSecrets('signed with very-secret-key by AKIAEXAMPLE', options), 'signed with (hidden) by (hidden)');
  });
});

describe('A team index on object storage (s3rver on 127.0.0.1)', function () {
  this.timeout(300_000);
  let storage: LocalObjectStorage;
  let folder: { path: string; cleanup: () => void };

  before(async () => {
    storage = await startObjectStorage();
    folder = temporaryFolder('haiku-team-index-');
  });

  after(async () => {
    await storage?.close();
    folder?.cleanup();
  });

  it('is published once and searched from a second process in read-only mode (the published tables are never recreated)', async () => {
    const documents = path.join(folder.path, 'docs');
    copyCorpusSubset(documents);
    const uri = `s3://${storage.bucket}/published`;
    const writer = await openStore({ uri, storage: localSettings(storage) });
    let versions: Record<string, number>;
    try {
      const summary = await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
      assert.equal(summary.failed.length, 0);
      assert.ok(summary.added.length >= 8, `added ${summary.added.length}`);
      versions = await writer.tableVersions();
    } finally {
      await writer.close();
    }
    // The old code listed table names (empty through s3rver), took the index for new and recreated it empty: "No results."
    const search = await runProcess(['search', 'proxy rules for the preview server', '--db', uri, '--read-only', '--json'], { cwd: folder.path, env: storage.environment(), timeoutMs: 120_000 });
    assert.equal(search.code, 0, search.stderr);
    const results = JSON.parse(search.stdout) as Array<{ relativePath?: string; document?: { relativePath: string } }>;
    assert.ok(results.length > 0, search.stdout);
    assert.match(search.stdout, /preview-options\.md/);
    const reopened = await openStore({ uri, storage: localSettings(storage), readOnly: true });
    try {
      assert.deepEqual(await reopened.tableVersions(), versions, 'the reader wrote nothing');
      assert.ok((await reopened.stats()).documents >= 8);
    } finally {
      await reopened.close();
    }
  });

  it("compacts a first build's few fragments there (each fragment costs every query requests), where a local index keeps them", async () => {
    const uri = `s3://${storage.bucket}/first-build-fragments`;
    const writer = await openStore({ uri, storage: localSettings(storage) });
    try {
      for (let batch = 0; batch < 3; batch++) {
        await writer.writeDocuments([await markdownWrite(`batch${batch}.md`, `# Batch ${batch}\n\nWords of batch ${batch}.\n`)], { scheduleOptimize: false, copyToRecent: false });
      }
      await writer.optimize({ keepRecent: true, compactOnlyIfFragmented: true });
    } finally {
      await writer.close();
    }
    const connection = await lancedb.connect(uri, { storageOptions: storageOptionsFor(uri, localSettings(storage), {}) });
    try {
      for (const name of ['chunks', 'document_items', 'documents']) {
        assert.equal((await (await connection.openTable(name)).stats()).fragmentStats.numFragments, 1, `${name}: three writes, compacted`);
      }
    } finally {
      connection.close();
    }
  });

  it('read-only: never creates, locks or writes, and picks up a publisher\'s update after refresh', async () => {
    const uri = `s3://${storage.bucket}/refreshing`;
    await assert.rejects(openStore({ uri, storage: localSettings(storage), readOnly: true }), (error) => isHaikuError(error, 'not_found') && /holds no tables/.test(error.message));
    const documents = path.join(folder.path, 'refreshing');
    fs.mkdirSync(documents, { recursive: true });
    fs.writeFileSync(path.join(documents, 'alpha.md'), '# Alpha\n\nThe first release notes mention zucchini.\n');
    const writer = await openStore({ uri, storage: localSettings(storage) });
    await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
    const reader = await openStore({ uri, storage: localSettings(storage), readOnly: true });
    try {
      const before = await reader.tableVersions();
      assert.equal((await reader.search('zucchini')).length, 1);
      await assert.rejects(reader.removeDocuments(['anything']), (error) => isHaikuError(error, 'read_only'));
      assert.throws(() => reader.assertWritable(), (error) => isHaikuError(error, 'read_only'));
      await assert.rejects(reader.optimize(), (error) => isHaikuError(error, 'read_only'));
      reader.scheduleOptimize();
      assert.deepEqual(await reader.tableVersions(), before);

      fs.writeFileSync(path.join(documents, 'alpha.md'), '# Alpha\n\nThe second release notes mention aubergine instead.\n');
      await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
      assert.equal((await reader.search('aubergine')).length, 0, 'a reader keeps its version until refreshed');
      await reader.refresh();
      assert.equal((await reader.search('aubergine')).length, 1);
      assert.equal((await reader.search('zucchini')).length, 0);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('serves MCP from it: openExistingIndex opens by name, read-only, and follows the publisher', async () => {
    const uri = `s3://${storage.bucket}/mcp`;
    await assert.rejects(openExistingIndex({ uri, storage: localSettings(storage), readOnly: true }), (error) => isHaikuError(error, 'not_found') && /holds no documents table/.test(error.message));
    const documents = path.join(folder.path, 'mcp');
    writeFiles(documents, { 'one.md': '# One\n\nThe platypus section.\n' });
    const writer = await openStore({ uri, storage: localSettings(storage) });
    await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
    const index = await openExistingIndex({ uri, storage: localSettings(storage), readOnly: true });
    try {
      assert.equal(index.store.readOnly, true);
      assert.equal((await index.store.search('platypus')).length, 1);
      writeFiles(documents, { 'two.md': '# Two\n\nAnother platypus section.\n' });
      await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
      await index.refreshIfChanged();
      assert.equal((await index.store.search('platypus')).length, 2);
    } finally {
      await index.close();
      await writer.close();
    }
  });

  it('stores paths relative to --source-root; consumers map them onto their own copy, or a rendering when the file is absent', async () => {
    const publisher = path.join(folder.path, 'ci-checkout');
    writeFiles(publisher, { 'handbook/setup.md': '# Setup\n\nInstall the quokka toolchain first.\n', 'handbook/only-on-ci.md': '# CI only\n\nThe quokka pipeline secrets.\n' });
    const uri = `s3://${storage.bucket}/mapped`;
    const published = await runInProcess(['index', 'handbook', '--db', uri, '--source-root', '.', '--endpoint', storage.endpoint, '--quiet'], { cwd: publisher, env: storage.environment() });
    assert.equal(published.code, 0, published.stderr);
    const teammate = path.join(folder.path, 'teammate-workspace');
    writeFiles(teammate, { 'handbook/setup.md': '# Setup\n\nInstall the quokka toolchain first.\n' });
    const store = await openStore({ uri, storage: localSettings(storage), readOnly: true });
    try {
      const mapped = mapToSourceRoot(store, { localRoots: [path.join(folder.path, 'elsewhere'), teammate], missing: (relativePath, documentId) => `haiku-doc:/${relativePath}?${documentId}` });
      const documents = await mapped.listDocuments();
      assert.deepEqual(documents.map((document) => document.relativePath).sort(), ['handbook/only-on-ci.md', 'handbook/setup.md']);
      const setup = documents.find((document) => document.relativePath === 'handbook/setup.md');
      assert.equal(setup?.uri, pathToFileURL(path.join(teammate, 'handbook', 'setup.md')).toString());
      const ciOnly = documents.find((document) => document.relativePath === 'handbook/only-on-ci.md');
      assert.equal(ciOnly?.uri, `haiku-doc:/handbook/only-on-ci.md?${ciOnly?.id}`);
      const hits = await mapped.search('quokka');
      assert.equal(hits.length, 2);
      assert.ok(hits.every((hit) => hit.uri.startsWith(pathToFileURL(teammate).toString()) || hit.uri.startsWith('haiku-doc:/handbook/only-on-ci.md')), hits.map((hit) => hit.uri).join(', '));
      const [chunk] = await mapped.getChunks([hits[0].chunkId]);
      assert.equal(chunk.uri, hits[0].uri);
      assert.equal(mapped.readOnly, true, 'other members pass through');
    } finally {
      await store.close();
    }
  });

  it('names the fix for an unreachable server, refused credentials, a missing bucket and throttling, without leaking keys', async () => {
    const uri = `s3://${storage.bucket}/faults`;
    const documents = path.join(folder.path, 'faults');
    fs.mkdirSync(documents, { recursive: true });
    fs.writeFileSync(path.join(documents, 'note.md'), '# Note\n\nA published note.\n');
    const writer = await openStore({ uri, storage: localSettings(storage) });
    await indexPaths({ roots: [documents], baseFolder: documents, store: writer });
    await writer.close();
    const secret = 'wrong-secret-for-haiku-test';
    const cases: Array<{ name: string; open: () => Promise<LanceStore>; code: string; pattern: RegExp }> = [
      { name: 'unreachable', open: () => openStore({ uri, storage: localSettings(storage, { endpoint: 'http://127.0.0.1:9' }), readOnly: true }), code: 'storage_unreachable', pattern: /Could not reach object storage.*127\.0\.0\.1:9.*AWS_ENDPOINT/ },
      { name: 'wrong credentials', open: () => openStore({ uri, storage: localSettings(storage, { accessKeyId: 'NOT-A-KEY', secretAccessKey: secret }), readOnly: true }), code: 'storage_denied', pattern: /refused the credentials.*AWS_ACCESS_KEY_ID/ },
      { name: 'missing bucket', open: () => openStore({ uri: 's3://no-such-bucket/index', storage: localSettings(storage), readOnly: true }), code: 'not_found', pattern: /bucket "no-such-bucket" does not exist/ },
    ];
    for (const fault of cases) {
      await assert.rejects(fault.open(), (error) => {
        assert.ok(isHaikuError(error), `${fault.name}: ${String(error)}`);
        assert.equal(error.code, fault.code, `${fault.name}: ${error.message}`);
        assert.match(error.message, fault.pattern);
        assert.ok(!error.message.includes(secret) && !error.message.includes(S3RVER_SECRET_ACCESS_KEY + '"'), `${fault.name} leaks a key: ${error.message}`);
        return true;
      });
    }
    const reader = await openStore({ uri, storage: localSettings(storage, { endpoint: storage.proxyEndpoint }), readOnly: true });
    try {
      storage.proxy.throttle = true;
      await assert.rejects(reader.refresh(), (error) => isHaikuError(error, 'storage_throttled') && /SlowDown/.test(error.message));
      assert.ok(storage.proxy.throttled > 0);
      storage.proxy.throttle = false;
      await reader.refresh();
      assert.ok((await reader.stats()).documents > 0);
    } finally {
      storage.proxy.throttle = false;
      await reader.close();
    }
  });
});
