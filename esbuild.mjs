// Builds every bundle: the extension, the CLI, the sandbox worker and the webview script.
// lancedb and apache-arrow stay external so both share one arrow instance (see shared notes, LanceDB pitfall 3).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { o200kRanksPlugin } from './scripts/o200kRanksPlugin.mjs';
import { pdfjsFilePlugin } from './scripts/pdfjsFilePlugin.mjs';
import { hostTarget, LANCEDB_SUFFIX_BY_TARGET } from './scripts/packageTargets.mjs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
// --self-contained: bundle LanceDB's native addon and apache-arrow too, so a VSIX needs no node_modules.
// The CJS entry of apache-arrow is forced so the bundle holds one arrow instance (shared notes, §5 option B).
const selfContained = process.argv.includes('--self-contained');
// --outdir=<folder>: where the bundles go (default dist); the packaging script builds each target in its own folder.
const outputFolder = argumentValue('--outdir') ?? 'dist';
// --native-target=<vsce target>: whose LanceDB addon a self-contained build carries (default: this machine's), and
// --natives=<folder>: that target's unpacked @lancedb/lancedb-<suffix> package (default: the one in node_modules).
const nativeTarget = argumentValue('--native-target') ?? hostTarget();
const nativesFolder = argumentValue('--natives');
const require = createRequire(import.meta.url);

function argumentValue(name) {
  const given = process.argv.find((argument) => argument.startsWith(`${name}=`));
  return given === undefined ? undefined : given.slice(name.length + 1);
}

/**
 * Resolves LanceDB's per-platform packages: the target's to its unpacked package, every other one to an external
 * require that fails at run time (LanceDB's loader tries them in a try/catch). Without it esbuild bundles every
 * platform package that happens to be installed, and a VSIX would carry other platforms' addons.
 */
function lancedbNativePlugin(target, folder) {
  const suffix = LANCEDB_SUFFIX_BY_TARGET[target];
  if (suffix === undefined) {
    throw new Error(`esbuild: no LanceDB build for target '${target}'; targets: ${Object.keys(LANCEDB_SUFFIX_BY_TARGET).join(', ')}.`);
  }
  const packageFolder = path.resolve(folder ?? path.join('node_modules', '@lancedb', `lancedb-${suffix}`));
  return {
    name: 'lancedb-native',
    setup(build) {
      build.onResolve({ filter: /^@lancedb\/lancedb-[a-z0-9-]+(\/package\.json)?$/ }, (args) => {
        const [, packageSuffix, manifest] = /^@lancedb\/lancedb-([a-z0-9-]+)(\/package\.json)?$/.exec(args.path);
        if (packageSuffix !== suffix) {
          return { path: args.path, external: true };
        }
        const manifestPath = path.join(packageFolder, 'package.json');
        if (!fs.existsSync(manifestPath)) {
          throw new Error(`esbuild: ${manifestPath} is missing; install @lancedb/lancedb-${suffix} or pass --natives=<its unpacked folder>.`);
        }
        return { path: manifest ? manifestPath : path.join(packageFolder, JSON.parse(fs.readFileSync(manifestPath, 'utf8')).main) };
      });
    },
  };
}

const nodeCommon = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  // @napi-rs/canvas (pdf.js renders PDF figures, scanned pages and `haiku visualize` pages into it) loads its
  // per-platform binary package by name, so no bundle carries it: the CLI finds it in node_modules, a VSIX in
  // dist/node_modules/@napi-rs/ (placed there per target by scripts/packageVsix.mjs).
  external: selfContained ? ['vscode', '@napi-rs/canvas'] : ['vscode', '@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'],
  ...(selfContained ? { loader: { '.node': 'copy' }, alias: { 'apache-arrow': require.resolve('apache-arrow') } } : {}),
  // ESM-only dependencies read import.meta.url; give them the bundle's own URL.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  // pdf.js stays in dist/pdfjs.mjs, read on the first PDF (see the plugin).
  plugins: [pdfjsFilePlugin(outputFolder)],
  logLevel: 'warning',
};

const out = (file) => path.join(outputFolder, file);
const nativePlugins = selfContained ? [lancedbNativePlugin(nativeTarget, nativesFolder)] : [];

/**
 * tesseract.js requires node-fetch only where Node has no global fetch (`global.fetch || require('node-fetch')`),
 * which Node 20 and VS Code always have: left out, it spares each bundle ~300 KB (node-fetch's URL tables).
 */
const tesseractFetchPlugin = {
  name: 'tesseract-no-node-fetch',
  setup(build) {
    build.onResolve({ filter: /^node-fetch$/ }, (args) => (/[\\/]tesseract\.js[\\/]/.test(args.importer) ? { path: args.path, external: true } : undefined));
  },
};

/**
 * Leaves the embedder's AI SDK (`openAiEmbeddingClient.ts`, required on the first embedding request) out of the
 * bundle, required from dist/embedding-client.js instead: the SDK and its zod are two thirds of the index readers'
 * bundle, which a full-text `haiku search` never calls. The client module holds only the SDK's own functions, so no
 * class of ours exists twice.
 */
const embeddingClientBesidePlugin = {
  name: 'embedding-client-beside',
  setup(build) {
    build.onResolve({ filter: /[\\/]openAiEmbeddingClient(\.js)?$/ }, () => ({ path: './embedding-client.js', external: true }));
  },
};

/**
 * dist/cli.js compiles cli-main.js and cli-reader.js through `vm.Script` (for V8's code cache, cli/entry.ts), and a
 * script compiled so has no loader for `import()`: `haiku visualize` failed on `import("./pdfjs.mjs")` with
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING. Their `import("…")` calls go through the entry's `__haikuImport`, a real
 * `import()` in dist/cli.js (same folder, so relative paths resolve alike); without the entry they stay `import()`.
 */
const importThroughEntryPlugin = {
  name: 'import-through-entry',
  setup(build) {
    build.onEnd(async (result) => {
      if (result.errors.length > 0) {
        return;
      }
      const file = build.initialOptions.outfile;
      const source = await fs.promises.readFile(file, 'utf8');
      const rewritten = source.replace(/(?<![\w$.])import\((?="[^"\n]+"\))/g, '(globalThis.__haikuImport ?? ((specifier) => import(specifier)))(');
      if (rewritten !== source) {
        await fs.promises.writeFile(file, rewritten);
      }
    });
  },
};

const builds = [
  { ...nodeCommon, entryPoints: ['src/vscode/extension.ts'], outfile: out('extension.js') },
  // The extension's heavy half (store, indexer, agent, sandbox host), required on first use so activation stays cheap.
  { ...nodeCommon, entryPoints: ['src/vscode/nodeBackend.ts'], outfile: out('backend.js') },
  // The full CLI, which the small `haiku` entry (dist/cli.js, built last: see cliEntryBuild) requires for any command.
  { ...nodeCommon, entryPoints: ['src/node/cli/main.ts'], outfile: out('cli-main.js'), plugins: [...nodeCommon.plugins, importThroughEntryPlugin] },
  // The commands that only read an index (search, docs, toc), which dist/cli.js runs from here, and the AI SDK their
  // embedder loads on its first request, beside them (see embeddingClientBesidePlugin).
  { ...nodeCommon, entryPoints: ['src/node/cli/readerMain.ts'], outfile: out('cli-reader.js'), plugins: [...nodeCommon.plugins, embeddingClientBesidePlugin, importThroughEntryPlugin] },
  { ...nodeCommon, entryPoints: ['src/node/embeddings/openAiEmbeddingClient.ts'], outfile: out('embedding-client.js') },
  { ...nodeCommon, entryPoints: ['src/node/sandbox/worker.ts'], outfile: out('sandbox-worker.js') },
  // The bundles that count tokens read o200k's table from dist/o200k_base.json (see the plugin).
  { ...nodeCommon, entryPoints: ['src/node/convert/conversionWorker.ts'], outfile: out('conversion-worker.js'), plugins: [pdfjsFilePlugin(outputFolder), o200kRanksPlugin(outputFolder)] },
  // The converters and chunker of the main process (a few small files), required from beside the CLI or backend on
  // first use so neither bundle carries them (see loadInProcessConverters.ts).
  { ...nodeCommon, entryPoints: ['src/node/convert/inProcessConverters.ts'], outfile: out('converters.js'), plugins: [pdfjsFilePlugin(outputFolder), o200kRanksPlugin(outputFolder)] },
  // OCR: tesseract.js's thread script with its LSTM cores' glue; the cores' wasm and English data are copied below.
  { ...nodeCommon, entryPoints: ['src/node/ocr/tesseractWorker.cjs'], outfile: out('ocr/tesseract-worker.js'), plugins: [] },
  { bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: ['src/webview/runs/main.ts'], outfile: out('webview/runs.js'), logLevel: 'warning' },
  // The PDF viewer: pdf.js's core and viewer component in one script; its worker and assets are copied below.
  { bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: ['src/webview/pdfViewer/main.ts'], outfile: out('webview/pdfViewer.js'), logLevel: 'warning' },
].filter((options) => {
  const present = fs.existsSync(options.entryPoints[0]);
  if (!present) {
    console.warn(`esbuild: skipping ${options.entryPoints[0]} (not written yet)`);
  }
  return present;
}).map((options) => (options.platform === 'node' ? { ...options, plugins: [...options.plugins, ...nativePlugins, tesseractFetchPlugin] } : options));

function copyAssets() {
  fs.mkdirSync(outputFolder, { recursive: true });
  // The QuickJS variant loads its wasm from the bundle's folder at run time.
  fs.copyFileSync('node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm', out('emscripten-module.wasm'));
  // pdf.js standard fonts, so text extraction of PDFs using the 14 base fonts needs no network.
  const fonts = path.join('node_modules', 'pdfjs-dist', 'standard_fonts');
  if (fs.existsSync(fonts)) {
    fs.cpSync(fonts, out('standard_fonts'), { recursive: true });
  }
  // The PDF viewer's worker (started from a blob in the webview), the viewer's stylesheet and images, the CMaps
  // for CJK text and the wasm image decoders (JPEG 2000, JBIG2): everything pdf.js would otherwise fetch.
  const pdfjs = path.join('node_modules', 'pdfjs-dist');
  if (fs.existsSync(pdfjs)) {
    fs.mkdirSync(out('webview/pdf'), { recursive: true });
    fs.copyFileSync(path.join(pdfjs, 'build', 'pdf.worker.min.mjs'), out('webview/pdf/pdf.worker.mjs'));
    fs.copyFileSync(path.join(pdfjs, 'web', 'pdf_viewer.css'), out('webview/pdf/pdf_viewer.css'));
    for (const folder of [['web', 'images'], ['cmaps'], ['wasm']]) {
      fs.cpSync(path.join(pdfjs, ...folder), path.join(out('webview/pdf'), folder[folder.length - 1]), { recursive: true });
    }
  }
  // OCR, offline: the Tesseract core dist/ocr/tesseract-worker.js loads (WebAssembly SIMD, LSTM only) and English
  // (LSTM "best_int" data); other languages are found in @tesseract.js-data/<code> packages.
  fs.mkdirSync(out('ocr'), { recursive: true });
  fs.copyFileSync(path.join('node_modules', 'tesseract.js-core', 'tesseract-core-simd-lstm.wasm'), out('ocr/tesseract-core-simd-lstm.wasm'));
  fs.copyFileSync(path.join('node_modules', '@tesseract.js-data', 'eng', '4.0.0_best_int', 'eng.traineddata.gz'), out('ocr/eng.traineddata.gz'));
  if (fs.existsSync(out('cli.js'))) {
    fs.chmodSync(out('cli.js'), 0o755);
  }
}

/**
 * The `haiku` executable, dist/cli.js (src/node/cli/entry.ts): commander and the commands' help table, so `--version`
 * and help answer without loading dist/cli-main.js. The table is read from the command modules at build time, through
 * a throwaway bundle that requires LanceDB from node_modules (this machine's, whatever the target). Under --watch the
 * table is left out (it would go stale) and the entry hands every invocation to cli-main.js.
 */
async function cliEntryBuild(withTable) {
  let table;
  if (withTable) {
    const tableBundle = path.resolve('.cache', 'cli-command-table.js');
    await esbuild.build({ ...nodeCommon, external: ['vscode', '@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'], sourcemap: false, minify: false,
      stdin: { contents: "export { cliCommands } from './src/node/cli/cliCommands'; export { commandTable } from './src/node/cli/commandTable';", resolveDir: path.resolve('.'), loader: 'ts' },
      outfile: tableBundle, plugins: [pdfjsFilePlugin(path.dirname(tableBundle))] });
    const { cliCommands, commandTable } = require(tableBundle);
    table = commandTable(cliCommands);
    fs.rmSync(tableBundle, { force: true });
  }
  // The shebang comes from entry.ts itself; esbuild keeps it on the first line.
  return { ...nodeCommon, external: [], entryPoints: ['src/node/cli/entry.ts'], outfile: out('cli.js'), plugins: [],
    define: { ...nodeCommon.define, HAIKU_FULL_CLI_BUNDLE: JSON.stringify('cli-main.js'), HAIKU_READER_CLI_BUNDLE: JSON.stringify('cli-reader.js'), ...(table === undefined ? {} : { HAIKU_BUILT_COMMAND_TABLE: JSON.stringify(table) }) } };
}

if (watch) {
  const contexts = await Promise.all([...builds, await cliEntryBuild(false)].map((options) => esbuild.context(options)));
  await Promise.all(contexts.map((context) => context.watch()));
  copyAssets();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  await esbuild.build(await cliEntryBuild(true));
  copyAssets();
}
