import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { runInProcess } from '../cli/cliHarness';
import { startDocumentServer, type DocumentServer } from './documentServer';

describe('haiku add <url|path|->', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let pages: DocumentServer;
  const haiku = (...argv: string[]) => runInProcess(argv, { cwd: workspace.path });

  before(async () => {
    workspace = temporaryFolder('haiku-add-cli-');
    pages = await startDocumentServer();
  });
  after(async () => {
    await pages?.close();
    workspace?.cleanup();
  });

  it('adds a URL with --allow-loopback, --title and repeated --meta; search and docs show it; again it is unchanged', async () => {
    pages.pages.set('/lynx.md', { body: '# Lynx\n\nThe Iberian lynx hunts rabbits.\n', contentType: 'text/markdown', lastModified: 'Mon, 03 Mar 2025 08:00:00 GMT' });
    const url = `${pages.origin}/lynx.md`;
    const added = await haiku('add', url, '--allow-loopback', '--title', 'Iberian lynx', '--meta', 'team=wildlife', '--meta', 'reviewed=yes');
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^Added \(1 chunk\): Iberian lynx — 127\.0\.0\.1:\d+\/lynx\.md \(id d\w+\)\n$/);
    const search = await haiku('search', 'rabbits', '--json');
    assert.equal(search.code, 0, search.stderr);
    assert.ok(search.stdout.includes(url), search.stdout);
    const docs = await haiku('docs', '--json');
    const listed = (JSON.parse(docs.stdout) as Array<{ uri: string; metadata: Record<string, unknown> }>).find((document) => document.uri === url);
    assert.equal(listed?.metadata.team, 'wildlife');
    assert.equal(listed?.metadata.reviewed, 'yes');
    assert.equal(listed?.metadata.last_modified, 'Mon, 03 Mar 2025 08:00:00 GMT');
    const again = await haiku('add', url, '--allow-loopback', '--title', 'Iberian lynx', '--meta', 'team=wildlife', '--meta', 'reviewed=yes');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Unchanged \(same content\)/, 'no ETag, and this server answers no If-Modified-Since: the content hash decides');
    assert.equal(pages.conditions.at(-1)?.ifModifiedSince, 'Mon, 03 Mar 2025 08:00:00 GMT');
  });

  it('reads Markdown from standard input with -: the title from --title or the first heading, refused without either', async () => {
    const titled = await runInProcess(['add', '-', '--title', 'Field notes'], { cwd: workspace.path, stdin: 'Saw a pine marten at dusk.\n' });
    assert.equal(titled.code, 0, titled.stderr);
    assert.match(titled.stdout, /Added .*Field notes — text\/field-notes\.md/);
    const heading = await runInProcess(['add', '-'], { cwd: workspace.path, stdin: '# Owl survey\n\nThree tawny owls.\n' });
    assert.match(heading.stdout, /Owl survey — text\/owl-survey\.md/);
    const untitled = await runInProcess(['add', '-'], { cwd: workspace.path, stdin: 'no heading\n' });
    assert.notEqual(untitled.code, 0);
    assert.match(untitled.stderr, /has no title: give one \(--title/);
    assert.match((await haiku('search', 'marten')).stdout, /field-notes/);
  });

  it('adds a file as `haiku index` does, or with --title and --meta as one document', async () => {
    writeFiles(workspace.path, { 'docs/heron.md': '# Heron\n\nGrey herons stand still in shallow water.\n' });
    const plain = await haiku('add', 'docs/heron.md');
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /Added 1, updated 0/);
    const titled = await haiku('add', 'docs/heron.md', '--title', 'Grey heron', '--meta', 'habitat=wetland');
    assert.equal(titled.code, 0, titled.stderr);
    assert.match(titled.stdout, /^Updated .*Grey heron — docs\/heron\.md/);
    const again = await haiku('index', 'docs', '--quiet');
    assert.match(again.stdout, /Added 0, updated 0, unchanged 1/, 'haiku index sees the same file unchanged');
  });

  it('refuses loopback without the flag (naming the address and the flag), bad --meta and misplaced flags', async () => {
    const refused = await haiku('add', `${pages.origin}/lynx.md`);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused to connect to 127\.0\.0\.1: a loopback address \(127\.0\.0\.0\/8\): this machine\. To read a server on this machine, pass --allow-loopback\./);
    const badMeta = await haiku('add', `${pages.origin}/lynx.md`, '--allow-loopback', '--meta', 'novalue');
    assert.equal(badMeta.code, 2);
    assert.match(badMeta.stderr, /--meta takes key=value/);
    const loopbackOnFile = await haiku('add', path.join('docs', 'heron.md'), '--allow-loopback');
    assert.equal(loopbackOnFile.code, 2);
    const missing = await haiku('add', `${pages.origin}/nothing-here.md`, '--allow-loopback');
    assert.match(missing.stderr, /HTTP 404 Not Found \(the server has no document there\)/);
    // A URL document is removed by its URL (or id, or host + path).
    const removed = await haiku('remove', `${pages.origin}/lynx.md`);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Removed 1 document: 127\.0\.0\.1:\d+\/lynx\.md/);
    const help = await haiku('help');
    assert.match(help.stdout, /\n {2}add \[options\] <url, path or ->/);
  });
});
