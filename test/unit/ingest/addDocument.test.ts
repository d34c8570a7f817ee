import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '../../../src/core/config';
import { isHaikuError } from '../../../src/core/errors';
import { openIndex, type OpenedIndex } from '../../../src/node/backend/openIndex';
import { convertBytes } from '../../../src/node/convert/convertFile';
import { encodePng } from '../../../src/node/convert/pictures/pngEncoder';
import { addDocumentFromText, addDocumentFromUrl, extensionForDownload, urlDocumentId } from '../../../src/node/ingest/addDocument';
import { repositoryRoot } from '../../support/paths';
import { temporaryFolder } from '../../support/indexFixtures';
import { startDocumentServer, type DocumentServer } from './documentServer';

const PDF = path.join(repositoryRoot, 'test/fixtures/corpus/pdf-docx/py-pdf-sample-files/002-trivial-libre-office-writer.pdf');
const DOCX = path.join(repositoryRoot, 'test/fixtures/corpus/pdf-docx/docling/unit_test_headers.docx');

async function refusal(work: Promise<unknown>, code: string): Promise<string> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(isHaikuError(error), `expected a HaikuError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return error.message;
}

describe('addDocumentFromUrl / addDocumentFromText into a real LanceDB index', function () {
  this.timeout(120_000);
  let server: DocumentServer;
  let workspace: ReturnType<typeof temporaryFolder>;
  let index: OpenedIndex;
  const loopback = { allowLoopback: true };

  before(async () => {
    server = await startDocumentServer();
    workspace = temporaryFolder('haiku-add-url-');
    const config = defaultConfig();
    config.index.databaseUri = path.join(workspace.path, 'index');
    index = await openIndex({ config, cwd: workspace.path, mustExist: false, models: {} });
  });
  after(async () => {
    await index?.close();
    await server?.close();
    workspace?.cleanup();
  });

  async function searchUris(query: string): Promise<string[]> {
    return (await index.store.search(query, { limit: 5 })).map((result) => result.uri);
  }

  it('adds a Markdown page: uri the URL, id from the URL, relative path host + path, metadata with the source and the user\'s pairs; search finds it', async () => {
    server.pages.set('/guides/otters.md', { body: '# Otter care\n\nOtters eat crayfish and like cold rivers.\n', contentType: 'text/markdown; charset=utf-8', etag: '"o1"', lastModified: 'Tue, 01 Apr 2025 10:00:00 GMT' });
    const url = `${server.origin}/guides/otters.md`;
    const added = await addDocumentFromUrl(index, `${url}#care`, { ...loopback, metadata: { team: 'zoo' } });
    assert.equal(added.status, 'added');
    assert.equal(added.document.id, urlDocumentId(url));
    assert.equal(added.document.uri, url, 'the fragment is not part of the identity');
    assert.equal(added.document.relativePath, `${new URL(url).host}/guides/otters.md`);
    assert.equal(added.document.title, 'Otter care');
    assert.equal(added.document.format, 'markdown');
    const metadata = added.document.metadata;
    assert.equal(metadata.url, url);
    assert.equal(metadata.etag, '"o1"');
    assert.equal(metadata.last_modified, 'Tue, 01 Apr 2025 10:00:00 GMT');
    assert.equal(metadata.content_type, 'text/markdown; charset=utf-8');
    assert.equal(metadata.team, 'zoo');
    assert.ok(typeof metadata.fetched_at === 'string' && !Number.isNaN(Date.parse(metadata.fetched_at)));
    assert.ok(typeof metadata.chunkCount === 'number' && metadata.chunkCount > 0, 'Haiku\'s own keys stay');
    assert.deepEqual(await searchUris('crayfish'), [url]);
    const filtered = await index.store.listDocuments({ filter: `metadata LIKE '%"team":"zoo"%'` });
    assert.deepEqual(filtered.map((document) => document.uri), [url]);
  });

  it('an unchanged ETag (304) writes nothing and converts nothing; a changed ETag re-indexes in place', async () => {
    const url = `${server.origin}/guides/otters.md`;
    const requestsBefore = server.requests.get('/guides/otters.md') ?? 0;
    const versions = await index.store.tableVersions();
    const again = await addDocumentFromUrl(index, url, { ...loopback, metadata: { team: 'zoo' } });
    assert.equal(again.status, 'unchanged');
    assert.equal(again.unchangedBecause, 'not_modified');
    assert.equal(server.requests.get('/guides/otters.md'), requestsBefore + 1, 'one conditional request');
    assert.equal(server.conditions.at(-1)?.ifNoneMatch, '"o1"');
    assert.equal(server.conditions.at(-1)?.ifModifiedSince, 'Tue, 01 Apr 2025 10:00:00 GMT');
    assert.deepEqual(await index.store.tableVersions(), versions, 'no table was written');

    server.pages.set('/guides/otters.md', { body: '# Otter care\n\nOtters now eat trout in winter.\n', contentType: 'text/markdown', etag: '"o2"' });
    const changed = await addDocumentFromUrl(index, url, { ...loopback, metadata: { team: 'zoo' } });
    assert.equal(changed.status, 'updated');
    assert.equal(changed.document.id, again.document.id);
    assert.equal(changed.document.metadata.etag, '"o2"');
    assert.equal(changed.document.metadata.last_modified, null);
    assert.deepEqual(await searchUris('trout'), [url]);
    assert.deepEqual(await searchUris('crayfish'), [], 'the old version is gone');
    assert.equal((await index.store.listDocuments()).filter((document) => document.uri === url).length, 1);
  });

  it('without an ETag the same bytes are not converted again (content hash); new metadata or a title re-writes', async () => {
    server.pages.set('/plain', { body: '<html><head><title>Badgers</title></head><body><h1>Badgers</h1><p>Badgers dig setts in woodland.</p></body></html>', contentType: 'text/html' });
    const url = `${server.origin}/plain`;
    const first = await addDocumentFromUrl(index, url, loopback);
    assert.equal(first.status, 'added');
    assert.equal(first.document.format, 'html');
    const versions = await index.store.tableVersions();
    const same = await addDocumentFromUrl(index, url, loopback);
    assert.equal(same.status, 'unchanged');
    assert.equal(same.unchangedBecause, 'same_content');
    assert.deepEqual(await index.store.tableVersions(), versions);
    const retitled = await addDocumentFromUrl(index, url, { ...loopback, title: 'Woodland badgers', metadata: { topic: 'mammals' } });
    assert.equal(retitled.status, 'updated');
    assert.equal(retitled.document.title, 'Woodland badgers');
    assert.equal(retitled.document.metadata.topic, 'mammals');
    assert.deepEqual(await searchUris('setts'), [url]);
  });

  it('converts PDF, DOCX and CSV by Content-Type, and by the URL extension when the type is generic', async () => {
    server.pages.set('/files/report', { body: fs.readFileSync(PDF), contentType: 'application/pdf' });
    server.pages.set('/files/headers.docx', { body: fs.readFileSync(DOCX), contentType: 'application/octet-stream' });
    server.pages.set('/files/animals.csv', { body: 'animal,habitat\nplatypus,creek\nwombat,burrow\n', contentType: 'text/csv' });
    const pdf = await addDocumentFromUrl(index, `${server.origin}/files/report`, loopback);
    assert.equal(pdf.document.format, 'pdf');
    const docx = await addDocumentFromUrl(index, `${server.origin}/files/headers.docx`, loopback);
    assert.equal(docx.document.format, 'docx');
    assert.equal(docx.document.title, 'Test Document');
    const csv = await addDocumentFromUrl(index, `${server.origin}/files/animals.csv`, loopback);
    assert.equal(csv.document.format, 'csv');
    assert.deepEqual(await searchUris('platypus'), [`${server.origin}/files/animals.csv`]);
    assert.ok((await searchUris('Lorem ipsum')).includes(`${server.origin}/files/report`));
  });

  it('a page\'s <img> of a file on this machine is not read into the index (a local file of the same HTML would be)', async () => {
    const secret = path.join(workspace.path, 'secret.png');
    const side = 96;
    fs.writeFileSync(secret, encodePng({ width: side, height: side, channels: 3, data: new Uint8Array(side * side * 3).fill(200) }));
    const html = `<html><body><h1>Pictures</h1><p>Ocelots nap.</p><img src="secret.png" alt="the secret"><img src="${secret}" alt="absolute"></body></html>`;
    // The control: the same HTML as a file beside the image converts with its picture bytes.
    const local = await convertBytes(path.join(workspace.path, 'page.html'), Buffer.from(html), { pictures: 'image', pictureRoots: [workspace.path] });
    assert.ok(local.items.some((item) => item.picture?.bytes !== undefined), 'the control reads the local image');
    server.pages.set('/pictures.html', { body: html, contentType: 'text/html' });
    const previous = process.cwd();
    process.chdir(workspace.path);
    try {
      const added = await addDocumentFromUrl(index, `${server.origin}/pictures.html`, loopback);
      const items = await index.store.getDocumentItems(added.document.id);
      assert.ok(items.some((item) => item.text.includes('Ocelots')));
      assert.ok(items.every((item) => item.picture === undefined || item.picture.bytes === undefined), JSON.stringify(items.map((item) => item.picture)));
    } finally {
      process.chdir(previous);
    }
  });

  it('a download over the in-process size converts on a worker thread (time and heap limits) and is searchable', async () => {
    const sections = Array.from({ length: 400 }, (_, index) => `## Part ${index}\n\n${'Numbats eat termites in the eucalypt forest. '.repeat(16)}\n`).join('\n');
    const body = `# Numbat handbook\n\n${sections}\nThe closing note mentions the quenda.\n`;
    assert.ok(Buffer.byteLength(body) > 256 * 1024, 'over INDEX_IN_PROCESS_MAX_BYTES');
    server.pages.set('/numbat.md', { body, contentType: 'text/markdown' });
    const added = await addDocumentFromUrl(index, `${server.origin}/numbat.md`, loopback);
    assert.equal(added.status, 'added');
    assert.equal(added.document.title, 'Numbat handbook');
    assert.ok((added.chunks ?? 0) > 100, String(added.chunks));
    assert.deepEqual(await searchUris('quenda'), [`${server.origin}/numbat.md`]);
    server.pages.set('/broken.pdf', { body: `%PDF-1.7\n${'garbage '.repeat(40_000)}`, contentType: 'application/pdf' });
    const message = await refusal(addDocumentFromUrl(index, `${server.origin}/broken.pdf`, loopback), 'corrupt_file');
    assert.ok(message.startsWith(`${server.origin}/broken.pdf: `), `the URL is named, not the temporary file: ${message}`);
  });

  it('picks the converter by Content-Type, then the URL extension, then HTML for an untyped page', () => {
    const at = (address: string) => new URL(address);
    assert.equal(extensionForDownload('application/vnd.openxmlformats-officedocument.presentationml.presentation', at('https://x/a')), '.pptx');
    assert.equal(extensionForDownload('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', at('https://x/a')), '.xlsx');
    assert.equal(extensionForDownload('text/plain', at('https://raw.example/readme.md')), '.md');
    assert.equal(extensionForDownload('text/plain', at('https://x/notes')), '.txt');
    assert.equal(extensionForDownload(undefined, at('https://x/page')), '.html');
    assert.equal(extensionForDownload('application/octet-stream', at('https://x/blob')), undefined);
    assert.equal(extensionForDownload('image/gif', at('https://x/a.md')), undefined, 'a specific type wins over the extension');
  });

  it('refuses an unsupported content type, a 404, a download over the limit and a blocked address with clear messages, writing nothing', async () => {
    server.pages.set('/anim.gif', { body: 'GIF89a', contentType: 'image/gif' });
    server.pages.set('/huge.md', { body: `# Huge\n\n${'word '.repeat(40_000)}`, contentType: 'text/markdown' });
    const before = (await index.store.listDocuments()).length;
    assert.match(await refusal(addDocumentFromUrl(index, `${server.origin}/anim.gif`, loopback), 'unsupported_format'), /anim\.gif: is image\/gif, not a format Haiku converts/);
    assert.match(await refusal(addDocumentFromUrl(index, `${server.origin}/gone.md`, loopback), 'not_found'), /HTTP 404/);
    assert.match(await refusal(addDocumentFromUrl(index, `${server.origin}/huge.md`, { ...loopback, fetch: { maxBytes: 10_000 } }), 'file_too_large'), /download limit/);
    assert.match(await refusal(addDocumentFromUrl(index, `${server.origin}/guides/otters.md`), 'invalid_settings'), /127\.0\.0\.1: a loopback address.*--allow-loopback/);
    assert.match(await refusal(addDocumentFromUrl(index, 'http://169.254.169.254/latest/meta-data/', loopback), 'invalid_settings'), /cloud metadata/);
    assert.match(await refusal(addDocumentFromUrl(index, `${server.origin}/plain`, { ...loopback, metadata: { etag: 'x' } }), 'invalid_settings'), /'etag' is Haiku's own/);
    assert.equal((await index.store.listDocuments()).length, before);
  });

  it('adds Markdown text: title given or its first heading, id from the title; the same text again is unchanged; no title is refused', async () => {
    const added = await addDocumentFromText(index, 'Quokkas smile on Rottnest Island.\n', { title: 'Quokka notes', metadata: { source_kind: 'paste' } });
    assert.equal(added.status, 'added');
    assert.equal(added.document.uri, 'text:quokka-notes');
    assert.equal(added.document.relativePath, 'text/quokka-notes.md');
    assert.equal(added.document.metadata.source, 'text');
    assert.equal(added.document.metadata.source_kind, 'paste');
    const heading = await addDocumentFromText(index, '# Echidna facts\n\nEchidnas lay eggs.\n');
    assert.equal(heading.document.title, 'Echidna facts');
    assert.equal(heading.document.uri, 'text:echidna-facts');
    assert.equal((await addDocumentFromText(index, '# Echidna facts\n\nEchidnas lay eggs.\n')).status, 'unchanged');
    const replaced = await addDocumentFromText(index, '# Echidna facts\n\nEchidnas have spines.\n');
    assert.equal(replaced.status, 'updated');
    assert.equal(replaced.document.id, heading.document.id);
    assert.match(await refusal(addDocumentFromText(index, 'no heading at all\n'), 'invalid_settings'), /has no title: give one/);
    await refusal(addDocumentFromText(index, '   \n'), 'empty_file');
    const html = await addDocumentFromText(index, '<h1>Wallaby</h1><p>Wallabies hop.</p>', { format: 'html', uri: 'https://example.com/wallaby' });
    assert.equal(html.document.format, 'html');
    assert.equal(html.document.relativePath, 'example.com/wallaby');
    assert.deepEqual(await searchUris('Rottnest'), ['text:quokka-notes']);
    assert.deepEqual(await searchUris('spines'), ['text:echidna-facts']);
  });
});
