import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandIo } from '../../../src/node/cli/command';
import { runCli } from '../../../src/node/cli/main';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { startScriptedEmbeddingsServer } from '../../support/scriptedEmbeddingsServer';
import { corpusRoot } from '../../support/paths';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('index CLI commands (in-process)', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;

  async function haiku(...argv: string[]): Promise<CliRun> {
    let stdout = '';
    let stderr = '';
    const io: CommandIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), cwd: workspace.path, env: {} };
    const code = await runCli(argv, io);
    return { code, stdout, stderr };
  }

  beforeEach(() => {
    workspace = temporaryFolder('haiku-cli-');
    fs.mkdirSync(path.join(workspace.path, 'docs'));
    fs.copyFileSync(path.join(corpusRoot, 'vite-docs/docs/guide/dep-pre-bundling.md'), path.join(workspace.path, 'docs/dep-pre-bundling.md'));
    fs.copyFileSync(path.join(corpusRoot, 'pdf-docx/docling/multi_page.pdf'), path.join(workspace.path, 'docs/multi_page.pdf'));
    writeFiles(workspace.path, { 'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n' });
  });

  afterEach(() => workspace.cleanup());

  it('index, docs, search, toc, remove and rebuild on the default .haiku/ database', async () => {
    const indexed = await haiku('index', 'docs', '--quiet');
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.match(indexed.stdout, /Added 3, updated 0, unchanged 0, removed 0, failed 0/);
    assert.ok(fs.existsSync(path.join(workspace.path, '.haiku', 'chunks.lance')));

    const again = await haiku('index', 'docs', '--json', '--quiet');
    assert.equal(JSON.parse(again.stdout).unchanged, 3);

    const docs = await haiku('docs');
    assert.equal(docs.code, 0);
    assert.match(docs.stdout, /docs\/dep-pre-bundling\.md\s+markdown/);
    assert.match(docs.stdout, /docs\/multi_page\.pdf\s+pdf/);
    assert.match(docs.stdout, /3 documents, \d+ chunks\./);

    const search = await haiku('search', 'ferrets sleep', '--limit', '2');
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /^1\. \[[\d.]+\] Notes > Ferrets\n   docs\/notes\.md:1  \(chunk [0-9a-f]+\)\n   Ferrets sleep eighteen hours a day\./);

    const pdfHit = JSON.parse((await haiku('search', 'word processor', '--json', '--filter', "format = 'pdf'")).stdout);
    assert.ok(pdfHit.length > 0 && pdfHit.every((result: { relativePath: string }) => result.relativePath === 'docs/multi_page.pdf'));
    assert.ok(pdfHit[0].pageNumbers.length > 0);
    const pdfText = await haiku('search', 'word processor', '--limit', '1', '--filter', "format = 'pdf'");
    assert.match(pdfText.stdout, /docs\/multi_page\.pdf \(page \d+\)/);

    const expanded = JSON.parse((await haiku('search', 'ferrets', '--expand', '--json')).stdout);
    assert.match(expanded[0].content, /Ferrets sleep/);

    const bad = await haiku('search', 'x', '--filter', 'nope = 1');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /filter is not valid.*Unknown column nope/);

    const toc = await haiku('toc', 'docs/dep-pre-bundling.md');
    assert.equal(toc.code, 0, toc.stderr);
    assert.match(toc.stdout, /^Dependency Pre-Bundling \(docs\/dep-pre-bundling\.md, d[0-9a-f]+\)\n/);
    assert.match(toc.stdout, /\n    The Why  \[docs\/dep-pre-bundling\.md:\d+, \d+ chunks?\]/);
    const tocJson = JSON.parse((await haiku('toc', 'docs/dep-pre-bundling.md', '--json')).stdout);
    assert.ok(tocJson.sections.length > 0);
    assert.equal((await haiku('toc', 'missing.md')).code, 1);

    const removed = await haiku('remove', 'docs/notes.md');
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Removed 1 document: docs\/notes\.md/);
    assert.equal((await haiku('search', 'ferrets')).stdout, 'No results.\n');

    const rebuilt = await haiku('rebuild', '--quiet');
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.match(rebuilt.stdout, /Rebuilt from .*docs\.\nAdded 3/);
    assert.match((await haiku('search', 'ferrets')).stdout, /Notes > Ferrets/);
  });

  it('indexes and searches with an OpenAI-compatible embeddings server (hybrid), and asks for a rebuild on a model change', async () => {
    const server = await startScriptedEmbeddingsServer({ dimensions: 48 });
    try {
      const flags = ['--embeddings-url', server.baseUrl, '--embeddings-model', 'scripted-embed'];
      const indexed = await haiku('index', 'docs/notes.md', 'docs/dep-pre-bundling.md', '--quiet', ...flags);
      assert.equal(indexed.code, 0, indexed.stderr);
      assert.ok(server.requests.length >= 2, 'documents were embedded');
      const results = JSON.parse((await haiku('search', 'ferrets sleeping hours', '--json', ...flags)).stdout);
      assert.equal(results[0].title, 'Notes');
      assert.ok(results[0].score > 0 && results[0].score <= 2 / 61 + 1e-12, 'an RRF score');
      // Without the embedder the same index still answers with full text.
      assert.match((await haiku('search', 'ferrets')).stdout, /Notes > Ferrets/);
      const otherModel = await haiku('search', 'ferrets', '--embeddings-url', server.baseUrl, '--embeddings-model', 'another-model');
      assert.equal(otherModel.code, 1);
      assert.match(otherModel.stderr, /openai:scripted-embed.*openai:another-model.*haiku rebuild/s);
    } finally {
      await server.close();
    }
  });

  it('takes --db as a folder, reports usage errors, and runs the demo', async () => {
    const custom = await haiku('index', 'docs/notes.md', '--db', 'elsewhere/index', '--quiet');
    assert.equal(custom.code, 0, custom.stderr);
    assert.ok(fs.existsSync(path.join(workspace.path, 'elsewhere/index/documents.lance')));
    assert.match((await haiku('search', 'ferrets', '--db', 'elsewhere/index')).stdout, /Notes > Ferrets/);
    const defaultDatabase = await haiku('search', 'ferrets');
    assert.equal(defaultDatabase.code, 1, 'the default database is a different one, and there is none');
    assert.match(defaultDatabase.stderr, /No Haiku index at .*\.haiku/);
    assert.equal((await haiku('index')).code, 2);
    assert.equal((await haiku('search', 'x', '--limit', 'many')).code, 2);

    const demo = await haiku('demo');
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stdout, /Added 4, updated 0, unchanged 0, removed 0, failed 0/);
    assert.match(demo.stdout, /guides\/features\.md +markdown/);
    assert.match(demo.stdout, /guides\/gc-guide\.html +html/);
    assert.match(demo.stdout, /papers\/multi_page\.pdf +pdf/);
    assert.match(demo.stdout, /papers\/word_sample\.docx +docx/);
    assert.match(demo.stdout, /\n1\. \[[\d.]+\] Features > npm Dependency Resolving and Pre-Bundling\n   guides\/features\.md:\d+/);
    const databaseLine = /into (\S+)\n/.exec(demo.stdout)![1];
    assert.equal(fs.existsSync(databaseLine), false, 'the temporary index is removed');
  });
});
