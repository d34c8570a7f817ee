import * as assert from 'node:assert/strict';
import { isHaikuError } from '../../../src/core/errors';
import { fetchDocument } from '../../../src/node/ingest/fetchDocument';
import { startDocumentServer, type DocumentServer } from './documentServer';

/** The error `work` rejects with, asserting it is a typed one with `code`. */
async function refusal(work: Promise<unknown>, code: string): Promise<string> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(isHaikuError(error), `expected a HaikuError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return error.message;
}

describe('fetchDocument: SSRF guard, redirects, limits (a real server on 127.0.0.1)', function () {
  this.timeout(30_000);
  let server: DocumentServer;

  before(async () => {
    server = await startDocumentServer();
  });
  after(() => server?.close());
  beforeEach(() => {
    server.pages.clear();
    server.requests.clear();
  });

  it('refuses 127.0.0.1 without the loopback flag, naming the address, the reason and the flag, before any request', async () => {
    server.pages.set('/a.md', { body: '# A\n', contentType: 'text/markdown' });
    const message = await refusal(fetchDocument(`${server.origin}/a.md`), 'invalid_settings');
    assert.match(message, /refused to connect to 127\.0\.0\.1: a loopback address \(127\.0\.0\.0\/8\).*--allow-loopback/);
    assert.equal(server.requests.get('/a.md'), undefined, 'no request reached the server');
    const allowed = await fetchDocument(`${server.origin}/a.md`, { allowLoopback: true });
    assert.equal(allowed.notModified, false);
    assert.equal(!allowed.notModified && allowed.bytes.toString(), '# A\n');
  });

  it('checks the address a name resolves to: localhost is loopback too, and the wording names the caller\'s flag', async () => {
    const port = new URL(server.origin).port;
    const message = await refusal(fetchDocument(`http://localhost:${port}/a.md`, { wording: { loopbackFlag: '--allow-loopback-urls' } }), 'invalid_settings');
    assert.match(message, /refused to connect to localhost \((127\.0\.0\.1|::1)\): .*loopback.*--allow-loopback-urls/);
  });

  it('refuses 169.254.169.254 (metadata), private addresses and IPv4-mapped loopback, even with the loopback flag', async () => {
    assert.match(await refusal(fetchDocument('http://169.254.169.254/latest/meta-data/', { allowLoopback: true }), 'invalid_settings'), /169\.254\.169\.254: a cloud metadata address.*never fetched/);
    assert.match(await refusal(fetchDocument('http://10.0.0.1/', { allowLoopback: true }), 'invalid_settings'), /private address \(10\.0\.0\.0\/8\)/);
    assert.match(await refusal(fetchDocument('http://[fd00:ec2::254]/', { allowLoopback: true }), 'invalid_settings'), /metadata/);
    assert.match(await refusal(fetchDocument(`http://[::ffff:127.0.0.1]:${new URL(server.origin).port}/`), 'invalid_settings'), /IPv4-mapped 127\.0\.0\.1, a loopback/);
  });

  it('refuses a redirect to a private or metadata address, and follows an allowed one', async () => {
    server.pages.set('/to-private', { status: 302, headers: { location: 'http://192.168.1.10/secret' } });
    server.pages.set('/to-metadata', { status: 301, headers: { location: 'http://169.254.169.254/latest/meta-data/iam' } });
    server.pages.set('/to-page', { status: 307, headers: { location: '/page.md' } });
    server.pages.set('/page.md', { body: '# Page\n', contentType: 'text/markdown' });
    const options = { allowLoopback: true };
    assert.match(await refusal(fetchDocument(`${server.origin}/to-private`, options), 'invalid_settings'), /http:\/\/192\.168\.1\.10\/secret: refused to connect to 192\.168\.1\.10: a private address/);
    assert.match(await refusal(fetchDocument(`${server.origin}/to-metadata`, options), 'invalid_settings'), /169\.254\.169\.254: a cloud metadata address/);
    const followed = await fetchDocument(`${server.origin}/to-page`, options);
    assert.ok(!followed.notModified);
    assert.equal(followed.url, `${server.origin}/page.md`);
    assert.equal(followed.contentType, 'text/markdown');
  });

  it('stops after the redirect limit, and refuses other schemes (also as a redirect target)', async () => {
    server.pages.set('/loop', { status: 302, headers: { location: '/loop' } });
    assert.match(await refusal(fetchDocument(`${server.origin}/loop`, { allowLoopback: true, maxRedirects: 3 }), 'unreadable_file'), /redirects more than 3 times/);
    assert.equal(server.requests.get('/loop'), 4);
    server.pages.set('/to-file', { status: 302, headers: { location: 'file:///etc/passwd' } });
    assert.match(await refusal(fetchDocument(`${server.origin}/to-file`, { allowLoopback: true }), 'unsupported_format'), /only http and https URLs are fetched, not file/);
    assert.match(await refusal(fetchDocument('ftp://example.com/a.pdf'), 'unsupported_format'), /not ftp/);
    assert.match(await refusal(fetchDocument('not a url'), 'invalid_settings'), /is not a URL/);
  });

  it('a 404 says the server has no document there; a 500 says it answered with an error', async () => {
    assert.match(await refusal(fetchDocument(`${server.origin}/missing.md`, { allowLoopback: true }), 'not_found'), /HTTP 404 Not Found \(the server has no document there\)/);
    server.pages.set('/broken', { status: 500, body: 'oops' });
    assert.match(await refusal(fetchDocument(`${server.origin}/broken`, { allowLoopback: true }), 'unreadable_file'), /HTTP 500/);
  });

  it('refuses a body over the size limit: by Content-Length before reading, and by counting when there is none', async () => {
    server.pages.set('/big.txt', { body: 'x'.repeat(100_000), contentType: 'text/plain' });
    server.pages.set('/big-chunked.txt', { body: 'x'.repeat(200_000), contentType: 'text/plain', chunked: true });
    assert.match(await refusal(fetchDocument(`${server.origin}/big.txt`, { allowLoopback: true, maxBytes: 50_000 }), 'file_too_large'), /is 97\.7 KiB, over the 48\.8 KiB download limit/);
    assert.match(await refusal(fetchDocument(`${server.origin}/big-chunked.txt`, { allowLoopback: true, maxBytes: 50_000 }), 'file_too_large'), /over the 48\.8 KiB download limit \(stopped reading at/);
    const fits = await fetchDocument(`${server.origin}/big.txt`, { allowLoopback: true, maxBytes: 100_000 });
    assert.equal(!fits.notModified && fits.bytes.length, 100_000);
  });

  it('gives up a server that does not answer within the time limit', async () => {
    server.pages.set('/slow', { hang: true });
    const started = Date.now();
    assert.match(await refusal(fetchDocument(`${server.origin}/slow`, { allowLoopback: true, totalTimeoutMs: 500 }), 'conversion_timeout'), /did not finish downloading within 0\.5 s/);
    assert.ok(Date.now() - started < 5_000);
  });

  it('sends the stored ETag and Last-Modified; a 304 is "not modified"', async () => {
    server.pages.set('/e.md', { body: '# E\n', contentType: 'text/markdown', etag: '"v1"', lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT' });
    const first = await fetchDocument(`${server.origin}/e.md`, { allowLoopback: true });
    assert.ok(!first.notModified);
    assert.equal(first.etag, '"v1"');
    assert.equal(first.lastModified, 'Wed, 01 Jan 2025 00:00:00 GMT');
    const again = await fetchDocument(`${server.origin}/e.md`, { allowLoopback: true, etag: first.etag, lastModified: first.lastModified });
    assert.equal(again.notModified, true);
    assert.deepEqual(server.conditions.at(-1), { path: '/e.md', ifNoneMatch: '"v1"', ifModifiedSince: 'Wed, 01 Jan 2025 00:00:00 GMT' });
  });

  it('stops at the caller\'s abort signal', async () => {
    server.pages.set('/slow', { hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await refusal(fetchDocument(`${server.origin}/slow`, { allowLoopback: true, abortSignal: controller.signal }), 'cancelled');
  });
});
