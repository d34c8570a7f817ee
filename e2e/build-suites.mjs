// Bundles the in-host test suites into dist-test/, one file each, for the extension host: test/e2e/suite/*.ts (the
// samples workspace) into dist-test/suite/, test/e2e/emptySuite/*.ts (a folder without documents) with the same
// runner (suite/index.ts) into dist-test/empty-suite/.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const suites = [
  { outdir: 'dist-test/suite', entryPoints: typeScriptFiles('test/e2e/suite') },
  { outdir: 'dist-test/empty-suite', entryPoints: [...typeScriptFiles('test/e2e/emptySuite'), 'test/e2e/suite/index.ts'] },
];

function typeScriptFiles(folder) {
  return fs.readdirSync(folder).filter((file) => file.endsWith('.ts')).map((file) => path.join(folder, file));
}

fs.rmSync('dist-test', { recursive: true, force: true });
await Promise.all(suites.map((suite) => esbuild.build({
  // Flat output (`index.js` beside the suites) whichever folder an entry comes from.
  entryPoints: suite.entryPoints.map((entry) => ({ in: entry, out: path.basename(entry, '.ts') })),
  outdir: suite.outdir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  // vscode comes from the host; mocha and the native store from node_modules, like the extension itself.
  external: ['vscode', 'mocha', '@lancedb/lancedb', 'apache-arrow', 's3rver'],
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
})));
