import * as assert from 'node:assert/strict';
import { startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from '../../support/scriptedEmbeddingsServer';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { runInProcess } from './cliHarness';

interface JsonHit {
  title: string;
  score: number;
}

describe('haiku search --search-type', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let server: ScriptedEmbeddingsServer;
  let embedderFlags: string[];
  const files = {
    'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n',
    'docs/cats.md': '# Cats\n\nCats sleep sixteen hours and chase mice.\n',
  };

  before(async () => {
    server = await startScriptedEmbeddingsServer({ dimensions: 48 });
    embedderFlags = ['--embeddings-url', server.baseUrl, '--embeddings-model', 'scripted-embed'];
    workspace = temporaryFolder('haiku-search-type-');
    writeFiles(workspace.path, files);
    const indexed = await runInProcess(['index', 'docs', '--quiet', ...embedderFlags], { cwd: workspace.path });
    assert.equal(indexed.code, 0, indexed.stderr);
  });

  after(async () => {
    workspace?.cleanup();
    await server?.close();
  });

  async function search(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string; embedded: number }> {
    const before = server.requests.length;
    const run = await runInProcess(['search', ...argv], { cwd: workspace.path });
    return { ...run, embedded: server.requests.length - before };
  }

  it('fts searches words only (BM25, no query embedding); vector finds neighbours of words no chunk has; hybrid fuses (RRF scores)', async () => {
    const fts = await search('ferrets sleep', '--search-type', 'fts', '--json', ...embedderFlags);
    assert.equal(fts.code, 0, fts.stderr);
    const ftsHits = JSON.parse(fts.stdout) as JsonHit[];
    assert.equal(ftsHits[0].title, 'Notes');
    assert.ok(ftsHits[0].score > 2 / 61, `a BM25 score, not a fused one: ${ftsHits[0].score}`);
    assert.equal(fts.embedded, 0, 'full text embeds no query');

    const unknownWord = await search('zebras', '--search-type', 'fts', ...embedderFlags);
    assert.equal(unknownWord.stdout, 'No results.\n');
    const vector = await search('zebras', '--search-type', 'vector', '--json', ...embedderFlags);
    assert.equal(vector.code, 0, vector.stderr);
    assert.ok((JSON.parse(vector.stdout) as JsonHit[]).length > 0, 'nearest neighbours even without a shared word');
    assert.equal(vector.embedded, 1);

    const hybrid = await search('ferrets sleep', '--search-type', 'hybrid', '--json', ...embedderFlags);
    assert.equal(hybrid.code, 0, hybrid.stderr);
    const hybridHits = JSON.parse(hybrid.stdout) as JsonHit[];
    assert.equal(hybridHits[0].title, 'Notes');
    assert.ok(hybridHits[0].score <= 2 / 61 + 1e-12, `an RRF score: ${hybridHits[0].score}`);
  });

  it('vector and hybrid without an embedder, and an unknown type, are usage errors (exit 2) that say what to do', async () => {
    for (const type of ['vector', 'hybrid']) {
      const run = await search('ferrets', '--search-type', type);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`--search-type ${type} needs an embedder: give --embeddings-model .* or use --search-type fts`));
    }
    const unknown = await search('ferrets', '--search-type', 'semantic', ...embedderFlags);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--search-type is "semantic"; use fts \(full text\), vector or hybrid/);
    assert.match((await search('ferrets', '--search-type', 'FTS')).stdout, /Notes > Ferrets/, 'fts needs no embedder; the type is case-insensitive');
  });

  it('vector search on an index built without vectors is refused instead of falling back to full text', async () => {
    const plain = temporaryFolder('haiku-search-type-plain-');
    try {
      writeFiles(plain.path, files);
      assert.equal((await runInProcess(['index', 'docs', '--quiet'], { cwd: plain.path })).code, 0);
      const run = await runInProcess(['search', 'ferrets', '--search-type', 'vector', ...embedderFlags], { cwd: plain.path });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /The index has no vectors .*--search-type vector cannot run\. Use --search-type fts, or rebuild the index with --embeddings-model/);
      assert.doesNotMatch(run.stdout, /Notes > Ferrets/);
    } finally {
      plain.cleanup();
    }
  });
});
