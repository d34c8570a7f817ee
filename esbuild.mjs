// Builds every bundle: the extension, the CLI, the sandbox worker and the webview script.
// lancedb and apache-arrow stay external so both share one arrow instance (see shared notes, LanceDB pitfall 3).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { o200kRanksPlugin } from './scripts/o200kRanksPlugin.mjs';
import { pdfjsFilePlugin } from './scripts/pdfjsFilePlugin.mjs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
// --self-contained: bundle LanceDB's native addon and apache-arrow too, so a VSIX needs no node_modules.
// The CJS entry of apache-arrow is forced so the bundle holds one arrow instance (shared notes, §5 option B).
const selfContained = process.argv.includes('--self-contained');
const require = createRequire(import.meta.url);

const nodeCommon = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  // @napi-rs/canvas (page rendering for `haiku visualize`) is a per-platform native binary the extension never
  // needs (its PDF viewer renders in the webview), so no bundle carries it; the CLI loads it from node_modules.
  external: selfContained ? ['vscode', '@napi-rs/canvas'] : ['vscode', '@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'],
  ...(selfContained ? { loader: { '.node': 'copy' }, alias: { 'apache-arrow': require.resolve('apache-arrow') } } : {}),
  // ESM-only dependencies read import.meta.url; give them the bundle's own URL.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  // pdf.js stays in dist/pdfjs.mjs, read on the first PDF (see the plugin).
  plugins: [pdfjsFilePlugin('dist')],
  logLevel: 'warning',
};

const builds = [
  { ...nodeCommon, entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js' },
  // The extension's heavy half (store, indexer, agent, sandbox host), required on first use so activation stays cheap.
  { ...nodeCommon, entryPoints: ['src/vscode/nodeBackend.ts'], outfile: 'dist/backend.js' },
  // The shebang comes from main.ts itself; esbuild keeps it on the first line.
  { ...nodeCommon, entryPoints: ['src/node/cli/main.ts'], outfile: 'dist/cli.js' },
  { ...nodeCommon, entryPoints: ['src/node/sandbox/worker.ts'], outfile: 'dist/sandbox-worker.js' },
  // The bundles that count tokens read o200k's table from dist/o200k_base.json (see the plugin).
  { ...nodeCommon, entryPoints: ['src/node/convert/conversionWorker.ts'], outfile: 'dist/conversion-worker.js', plugins: [pdfjsFilePlugin('dist'), o200kRanksPlugin('dist')] },
  // The converters and chunker of the main process (a few small files), required from beside the CLI or backend on
  // first use so neither bundle carries them (see loadInProcessConverters.ts).
  { ...nodeCommon, entryPoints: ['src/node/convert/inProcessConverters.ts'], outfile: 'dist/converters.js', plugins: [pdfjsFilePlugin('dist'), o200kRanksPlugin('dist')] },
  { bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: ['src/webview/runs/main.ts'], outfile: 'dist/webview/runs.js', logLevel: 'warning' },
  // The PDF viewer: pdf.js's core and viewer component in one script; its worker and assets are copied below.
  { bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: ['src/webview/pdfViewer/main.ts'], outfile: 'dist/webview/pdfViewer.js', logLevel: 'warning' },
].filter((options) => {
  const present = fs.existsSync(options.entryPoints[0]);
  if (!present) {
    console.warn(`esbuild: skipping ${options.entryPoints[0]} (not written yet)`);
  }
  return present;
});

function copyAssets() {
  fs.mkdirSync('dist', { recursive: true });
  // The QuickJS variant loads its wasm from the bundle's folder at run time.
  fs.copyFileSync('node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm', 'dist/emscripten-module.wasm');
  // pdf.js standard fonts, so text extraction of PDFs using the 14 base fonts needs no network.
  const fonts = path.join('node_modules', 'pdfjs-dist', 'standard_fonts');
  if (fs.existsSync(fonts)) {
    fs.cpSync(fonts, 'dist/standard_fonts', { recursive: true });
  }
  // The PDF viewer's worker (started from a blob in the webview), the viewer's stylesheet and images, the CMaps
  // for CJK text and the wasm image decoders (JPEG 2000, JBIG2): everything pdf.js would otherwise fetch.
  const pdfjs = path.join('node_modules', 'pdfjs-dist');
  if (fs.existsSync(pdfjs)) {
    fs.mkdirSync('dist/webview/pdf', { recursive: true });
    fs.copyFileSync(path.join(pdfjs, 'build', 'pdf.worker.min.mjs'), 'dist/webview/pdf/pdf.worker.mjs');
    fs.copyFileSync(path.join(pdfjs, 'web', 'pdf_viewer.css'), 'dist/webview/pdf/pdf_viewer.css');
    for (const folder of [['web', 'images'], ['cmaps'], ['wasm']]) {
      fs.cpSync(path.join(pdfjs, ...folder), path.join('dist/webview/pdf', folder[folder.length - 1]), { recursive: true });
    }
  }
  if (fs.existsSync('dist/cli.js')) {
    fs.chmodSync('dist/cli.js', 0o755);
  }
}

if (watch) {
  const contexts = await Promise.all(builds.map((options) => esbuild.context(options)));
  await Promise.all(contexts.map((context) => context.watch()));
  copyAssets();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  copyAssets();
}
