import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { runCli } from '../../../src/node/cli/main';
import type { CommandIo } from '../../../src/node/cli/command';
import type { DocumentItem, SectionNode } from '../../../src/core/model/document';
import { corpusRoot, repositoryRoot } from '../../support/paths';
import { temporaryFolder } from '../../support/indexFixtures';
import { chunkDocumentWithinLimit } from '../../../src/core/chunker';
import { createConversionPool } from '../../../src/node/convert/conversionPool';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';

/** The library's own table (string tokens and byte arrays), as the plugin writes it. */
function o200kTable(): unknown[] {
  return o200kRanks as unknown[];
}

/** A built bundle, loaded into this process as the CLI and the extension load it. */
function requireBundle(file: string): unknown {
  return createRequire(__filename)(file);
}

function captureIo(): CommandIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), cwd: corpusRoot, env: {} };
}

describe('haiku convert', function () {
  this.timeout(60_000);

  it('prints the outline and the items of a Markdown file', async () => {
    const io = captureIo();
    const code = await runCli(['convert', 'vite-docs/docs/guide/cli.md'], io);
    assert.equal(code, 0, io.err.join(''));
    const text = io.out.join('');
    assert.match(text, /^Command Line Interface {2}\(markdown, 30 items\)/);
    assert.match(text, /\n {2}# Command Line Interface {2}\[items 0\.\.30\)\n {4}## Dev server {2}\[items 1\.\.8\)\n {6}### vite {2}\[items 2\.\.8\)/);
    assert.match(text, /\n +7 #\/tables\/0 +table {2}17:1-36:\d+ {2}\| Options \|/);
  });

  it('prints JSON with title, format, items and toc', async () => {
    const io = captureIo();
    const code = await runCli(['convert', path.join(corpusRoot, 'go-docs', 'doc', 'gc-guide.html'), '--json'], io);
    assert.equal(code, 0, io.err.join(''));
    const parsed = JSON.parse(io.out.join('')) as { title: string; format: string; items: DocumentItem[]; toc: SectionNode[] };
    assert.deepEqual(Object.keys(parsed), ['title', 'format', 'items', 'toc']);
    assert.equal(parsed.title, 'A Guide to the Go Garbage Collector');
    assert.equal(parsed.format, 'html');
    assert.equal(parsed.toc.length, 5);
    assert.equal(parsed.items[parsed.toc[0].itemRange[0]].text, 'Introduction');
  });

  it('reports a bad file on stderr with exit code 1, and a missing or extra argument with 2', async () => {
    const io = captureIo();
    assert.equal(await runCli(['convert', 'no/such/file.md'], io), 1);
    assert.match(io.err.join(''), /no\/such\/file\.md: cannot be read \(no such file\)/);
    const usage = captureIo();
    assert.equal(await runCli(['convert'], usage), 2);
    assert.match(usage.err.join(''), /missing required argument 'file'\nRun 'haiku convert --help'/);
    const extra = captureIo();
    assert.equal(await runCli(['convert', 'a.md', 'b.md'], extra), 2);
    assert.match(extra.err.join(''), /too many arguments for 'convert'/);
  });

  it('runs in the conversion worker with its time limit: a file past --timeout is a one-line error and exit code 1', async () => {
    const folder = temporaryFolder('haiku-convert-');
    try {
      // About 6 MB of Markdown: far more than any parser converts in 50 ms.
      const paragraphs = Array.from({ length: 100_000 }, (_, index) => `Paragraph ${index} has *some* [linked](https://example.com/${index}) words.\n\n`);
      fs.writeFileSync(path.join(folder.path, 'large.md'), `# Large\n\n${paragraphs.join('')}`);
      const io = { ...captureIo(), cwd: folder.path };
      const started = Date.now();
      assert.equal(await runCli(['convert', 'large.md', '--timeout', '0.05'], io), 1);
      assert.match(io.err.join(''), /^haiku convert: .*large\.md: took longer than \d+ s to convert/);
      assert.equal(io.err.join('').trim().split('\n').length, 1, 'one line, no stack trace');
      assert.ok(Date.now() - started < 30_000, 'the worker was stopped, not waited for');
      const usage = { ...captureIo(), cwd: folder.path };
      assert.equal(await runCli(['convert', 'large.md', '--timeout', '0'], usage), 2);
      assert.match(usage.err.join(''), /Give a number above 0/);
    } finally {
      folder.cleanup();
    }
  });

  it('finishes quietly with exit code 0 when its reader has closed the pipe (`| head` that already quit)', async () => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(repositoryRoot, 'src', 'node', 'cli', 'main.ts'), 'demo'], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    // Closed before the first write, so every write meets a closed pipe (EPIPE).
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  it('runs from the esbuild bundle (dist/cli.js) on Markdown, HTML, DOCX and PDF', function () {
    const bundle = path.join(repositoryRoot, 'dist', 'cli.js');
    const sources = ['esbuild.mjs', 'scripts/pdfjsFilePlugin.mjs', 'src/node/cli/main.ts', 'src/node/cli/program.ts', 'src/node/cli/commands/convert.ts', 'src/node/convert/conversionPool.ts', 'src/node/convert/loadInProcessConverters.ts', 'src/node/convert/convertFile.ts', 'src/node/convert/markdown.ts', 'src/node/convert/html.ts', 'src/node/convert/docx.ts'];
    const newestSource = Math.max(...sources.map((source) => fs.statSync(path.join(repositoryRoot, source)).mtimeMs));
    // Building here would race other work on the tree; `npm run test:unit` builds before testing.
    assert.ok(fs.existsSync(bundle) && fs.statSync(bundle).mtimeMs >= newestSource, 'dist/cli.js is missing or older than its sources: run `npm run build` first');
    const { version } = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
    assert.equal(execFileSync(process.execPath, [bundle, '--version'], { encoding: 'utf8' }), `${version}\n`, 'the bundle finds its package.json');
    for (const [file, title] of [
      ['vite-docs/docs/guide/cli.md', 'Command Line Interface'],
      ['go-docs/doc/gc-guide.html', 'A Guide to the Go Garbage Collector'],
      ['pdf-docx/docling/word_sample.docx', 'Swimming in the lake'],
      // pdf.js is read from dist/pdfjs.mjs beside the bundle on the first PDF.
      ['pdf-docx/docling/2305.03393v1-pg9.pdf', '5.1 Hyper Parameter Optimization'],
    ]) {
      const output = execFileSync(process.execPath, [bundle, 'convert', path.join(corpusRoot, file), '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      assert.equal((JSON.parse(output) as { title: string }).title, title);
    }
    // A few small files convert in-process, with the converters loaded from dist/converters.js beside the bundle:
    // neither the CLI's bundle nor the extension's backend carries them (or the o200k tokenizer) themselves.
    // dist/cli.js is the small entry (version and help); the commands run from dist/cli-main.js.
    for (const name of ['cli.js', 'cli-main.js', 'backend.js']) {
      assert.ok(!fs.readFileSync(path.join(repositoryRoot, 'dist', name), 'utf8').includes('bytePairStringRankEncoder'), `dist/${name} bundles the tokenizer`);
    }
    for (const name of ['cli.js', 'cli-main.js', 'converters.js', 'conversion-worker.js']) {
      assert.ok(!fs.readFileSync(path.join(repositoryRoot, 'dist', name), 'utf8').includes('Invalid PDF structure'), `dist/${name} bundles pdf.js`);
    }
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bundle-index-'));
    try {
      fs.writeFileSync(path.join(workspace, 'wombat.md'), '# Wombats\n\nWombats dig burrows with their claws.\n');
      fs.writeFileSync(path.join(workspace, 'quokka.md'), '# Quokkas\n\nQuokkas live on Rottnest Island.\n');
      const database = path.join(workspace, 'db');
      execFileSync(process.execPath, [bundle, 'index', workspace, '--db', database], { encoding: 'utf8' });
      const found = execFileSync(process.execPath, [bundle, 'search', 'burrows', '--db', database, '--json'], { encoding: 'utf8' });
      assert.match(found, /wombat\.md/);
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('converts a PDF in the bundled conversion worker, which reads pdf.js from dist/pdfjs.mjs', async () => {
    const pool = createConversionPool({ size: 1, workerScript: { file: path.join(repositoryRoot, 'dist', 'conversion-worker.js'), execArgv: [] } });
    try {
      const prepared = await pool.prepare(path.join(corpusRoot, 'pdf-docx/docling/2305.03393v1-pg9.pdf'), { rootPath: corpusRoot });
      assert.equal(prepared.document.format, 'pdf');
      assert.ok(prepared.chunks.length > 0 && prepared.document.items.some((item) => item.pageNumbers.includes(1)));
    } finally {
      await pool.dispose();
    }
  });

  it('reads o200k\'s table from dist/o200k_base.json in the bundles that count tokens, and chunks as the source does', () => {
    const dist = path.join(repositoryRoot, 'dist');
    const sources = ['src/core/chunker.ts', 'src/core/preTokenizer.ts', 'src/core/pieceCountTable.ts', 'scripts/o200kRanksPlugin.mjs', 'esbuild.mjs'];
    const newestSource = Math.max(...sources.map((source) => fs.statSync(path.join(repositoryRoot, source)).mtimeMs));
    assert.ok(fs.statSync(path.join(dist, 'converters.js')).mtimeMs >= newestSource, 'dist/converters.js is older than its sources: run `npm run build` first');
    // The library's 2.4 MB array literal took ~230 ms to compile in every worker; the bundles read the JSON instead.
    const table = JSON.parse(fs.readFileSync(path.join(dist, 'o200k_base.json'), 'utf8')) as unknown[];
    assert.deepEqual(table, o200kTable());
    for (const name of ['converters.js', 'conversion-worker.js']) {
      const bundle = fs.readFileSync(path.join(dist, name), 'utf8');
      assert.ok(bundle.includes('bytePairStringRankEncoder'), `dist/${name} counts tokens`);
      assert.ok(!bundle.includes('"riedenheit"'), `dist/${name} still carries the table as JavaScript`);
    }
    const bundled = requireBundle(path.join(dist, 'converters.js')) as { inProcessConverters: { chunkDocumentWithinLimit: typeof chunkDocumentWithinLimit } };
    const texts = [
      'Plain English prose about wombats. It has two sentences.',
      'Résumé of the café — naïve façade, Zürich, 中文检索, 한국어, ภาษาไทย, emoji 😀 and <|endoftext|> markers. '.repeat(40),
      `${'abcdefghij'.repeat(300)} ${'x = f(y) + 42;\n'.repeat(100)}`,
    ];
    for (const text of texts) {
      const document = { id: 'doc', items: [{ position: 0, selfRef: '#/texts/0', label: 'paragraph', text, headingLevel: 0, pageNumbers: [], treeDepth: 0 } as DocumentItem] };
      assert.deepEqual(bundled.inProcessConverters.chunkDocumentWithinLimit(document), chunkDocumentWithinLimit(document), text.slice(0, 40));
    }
  });
});
