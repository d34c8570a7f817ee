// Bundles the in-host test suites (test/e2e/suite/*.ts) into dist-test/suite/, one file each, for the extension host.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const suiteFolder = 'test/e2e/suite';
const entryPoints = fs.readdirSync(suiteFolder).filter((file) => file.endsWith('.ts')).map((file) => path.join(suiteFolder, file));
fs.rmSync('dist-test', { recursive: true, force: true });
await esbuild.build({
  entryPoints,
  outdir: 'dist-test/suite',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  // vscode comes from the host; mocha and the native store from node_modules, like the extension itself.
  external: ['vscode', 'mocha', '@lancedb/lancedb', 'apache-arrow'],
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
