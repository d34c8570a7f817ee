// Builds the CLI's npm package, haiku-rag-cli-<version>.tgz in the repository root: `node scripts/packageNpm.mjs`.
//
// The repository's package.json is also the VS Code extension's manifest (its `name` is the extension id, haiku-dev.haiku),
// so the npm package gets its own manifest, written here into a staging folder (.cache/npm/package) with the CLI's
// bundles, the demo's samples and a README for CLI users. `haiku` on npm is taken; haiku-rag-cli was free.
//
// Dependencies: only what the bundles leave out (esbuild.mjs without --self-contained): LanceDB (npm picks its
// per-platform addon), apache-arrow (one instance shared with LanceDB) and @napi-rs/canvas (`haiku visualize`).
// Everything else is bundled, unpdf included, so its `engines: node >=22` never reaches users: its pdf.js build
// polyfills what Node 20 lacks and needs URL.parse and process.getBuiltinModule (Node 20.18); require(esm) without a
// flag (20.19) sets the floor.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NPM_PACKAGE_NAME } from './packageTargets.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const staging = path.join(root, '.cache', 'npm', 'package');
/** The modules the CLI bundles require at run time, kept external by esbuild.mjs. */
const RUNTIME_DEPENDENCIES = ['@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'];
/** Bundles and side files the CLI loads (the extension's and the webviews' are left out). */
const CLI_FILES = ['cli.js', 'cli-main.js', 'cli-reader.js', 'embedding-client.js', 'sandbox-worker.js', 'conversion-worker.js', 'converters.js', 'o200k_base.json', 'pdfjs.mjs', 'emscripten-module.wasm', 'standard_fonts', 'ocr'];

const started = Date.now();
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
fs.rmSync(staging, { recursive: true, force: true });
fs.mkdirSync(staging, { recursive: true });
const built = path.join(path.dirname(staging), 'build');
fs.rmSync(built, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'esbuild.mjs'), '--production', `--outdir=${built}`], { cwd: root, stdio: 'inherit' });
fs.mkdirSync(path.join(staging, 'dist'));
for (const file of CLI_FILES) {
  fs.cpSync(path.join(built, file), path.join(staging, 'dist', file), { recursive: true });
}
fs.rmSync(built, { recursive: true, force: true });
// `haiku demo` indexes the samples beside dist/ (findSamplesFolder).
fs.cpSync(path.join(root, 'samples'), path.join(staging, 'samples'), { recursive: true });
fs.copyFileSync(path.join(root, 'LICENSE'), path.join(staging, 'LICENSE'));
fs.copyFileSync(path.join(root, 'README.npm.md'), path.join(staging, 'README.md'));

const dependencies = Object.fromEntries(RUNTIME_DEPENDENCIES.map((name) => {
  const version = manifest.dependencies[name];
  if (!version) {
    throw new Error(`package.json has no dependency ${name}; update RUNTIME_DEPENDENCIES in scripts/packageNpm.mjs.`);
  }
  return [name, version];
}));
const npmManifest = {
  name: NPM_PACKAGE_NAME,
  version: manifest.version,
  description: 'Index documents (Markdown, HTML, PDF, DOCX, PPTX, XLSX, OpenDocument, notebooks, text) into a local LanceDB and search them, ask questions with citations, or serve them over MCP.',
  license: manifest.license,
  repository: manifest.repository,
  homepage: manifest.homepage,
  bugs: manifest.bugs,
  keywords: manifest.keywords,
  bin: { haiku: 'dist/cli.js' },
  files: ['dist', 'samples', 'README.md', 'LICENSE'],
  engines: { node: manifest.engines.node },
  dependencies,
};
fs.writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify(npmManifest, null, 2)}\n`);

const packed = JSON.parse(execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--json', '--pack-destination', root], {
  cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
}))[0];
console.log(`package:npm: ${packed.filename} ${(packed.size / 1024 / 1024).toFixed(1)} MB packed, ${(packed.unpackedSize / 1024 / 1024).toFixed(1)} MB unpacked, ${packed.entryCount} files, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
