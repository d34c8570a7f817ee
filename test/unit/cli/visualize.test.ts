import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { corpusRoot, repositoryRoot } from '../../support/paths';
import { runInProcess } from './cliHarness';
import { decodePng } from '../../support/png';

describe('haiku visualize', function () {
  this.timeout(180_000);
  let folder: string;

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-visualize-'));
    fs.mkdirSync(path.join(folder, 'docs'));
    fs.copyFileSync(path.join(corpusRoot, 'pdf-docx/docling/2305.03393v1-pg9.pdf'), path.join(folder, 'docs', 'otsl.pdf'));
    fs.writeFileSync(path.join(folder, 'docs', 'notes.md'), '# Notes\n\nHyperparameter notes in Markdown.\n');
    const indexed = await runInProcess(['index', 'docs', '--quiet'], { cwd: folder });
    assert.equal(indexed.code, 0, indexed.stderr);
  });

  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  async function chunkIdFor(query: string, relativePath: string): Promise<string> {
    const search = await runInProcess(['search', query, '--json', '--limit', '10'], { cwd: folder });
    const hits = JSON.parse(search.stdout) as Array<{ chunkId: string; relativePath: string }>;
    const hit = hits.find((candidate) => candidate.relativePath === relativePath);
    assert.ok(hit, search.stdout.slice(0, 500));
    return hit.chunkId;
  }

  it("writes the chunk's page with its words highlighted, and the context faintly unless --no-expand", async () => {
    const chunkId = await chunkIdFor('PubTabNet data set to perform HPO', 'docs/otsl.pdf');
    const out = path.join(folder, 'chunk.png');
    const run = await runInProcess(['visualize', chunkId, '--out', out, '--json'], { cwd: folder });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { images: Array<{ file: string; page: number; highlighted: number; context: number }> };
    assert.equal(report.images.length, 1);
    assert.equal(report.images[0].page, 1);
    assert.ok(report.images[0].highlighted >= 1);
    const image = await decodePng(fs.readFileSync(out));
    assert.ok(image.width > 1000 && image.height > 1000);
    const artifacts = path.join(repositoryRoot, 'test-results', 'visualize');
    fs.mkdirSync(artifacts, { recursive: true });
    fs.copyFileSync(out, path.join(artifacts, 'cli-otsl-chunk.png'));

    const bare = await runInProcess(['visualize', chunkId, '--out', path.join(folder, 'bare.png'), '--no-expand', '--json'], { cwd: folder });
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal((JSON.parse(bare.stdout) as { images: Array<{ context: number }> }).images[0].context, 0);
  });

  it('explains why a Markdown chunk or an unknown id cannot be drawn (exit 1)', async () => {
    const markdown = await runInProcess(['visualize', await chunkIdFor('Hyperparameter notes', 'docs/notes.md')], { cwd: folder });
    assert.equal(markdown.code, 1);
    assert.match(markdown.stderr, /a markdown document; visualize draws PDF pages/);
    const unknown = await runInProcess(['visualize', 'no-such-chunk'], { cwd: folder });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No chunk no-such-chunk in the index/);
  });
});
