import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { temporaryFolder } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { resultText } from './mcpProcess';

/**
 * `node dist/cli.js mcp` as shipped: the CLI and the sandbox worker bundled with the options of `esbuild.mjs` that
 * matter for the SDK (CommonJS, node20, import.meta.url shim; LanceDB external), into a temp folder so the test
 * neither depends on nor races `npm run build`.
 */
describe('bundled CLI: haiku mcp', function () {
  this.timeout(240_000);
  let corpus: CorpusIndex;
  let bundle: ReturnType<typeof temporaryFolder>;

  before(async () => {
    corpus = await buildCorpusIndex();
    bundle = temporaryFolder('haiku-mcp-bundle-');
    await esbuild.build({
      entryPoints: { cli: path.join(repositoryRoot, 'src/node/cli/main.ts'), 'sandbox-worker': path.join(repositoryRoot, 'src/node/sandbox/worker.ts') },
      outdir: bundle.path,
      ...{ bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'silent', external: ['vscode', '@lancedb/lancedb', 'apache-arrow', '@napi-rs/canvas'] },
      define: { 'import.meta.url': '__importMetaUrl' },
      banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
    });
    fs.copyFileSync(path.join(repositoryRoot, 'node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm'), path.join(bundle.path, 'emscripten-module.wasm'));
  });
  after(async () => {
    bundle?.cleanup();
    await corpus?.close();
  });

  it('serves search and execute_code over stdio from the bundle', async () => {
    // NODE_PATH: the bundle sits in a temp folder, the external LanceDB in the checkout's node_modules.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(bundle.path, 'cli.js'), 'mcp', '--db', corpus.databasePath],
      cwd: corpus.folder,
      env: { PATH: process.env.PATH ?? '', NODE_PATH: path.join(repositoryRoot, 'node_modules'), LANCEDB_LOG: 'error' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'haiku-test', version: '0' });
    await client.connect(transport);
    try {
      const search = await client.callTool({ name: 'search_documents', arguments: { query: 'env files', limit: 1 } });
      assert.match(resultText(search), /^\[[0-9a-f]+\] \[rank 1 of 1\]\nDocument: env-and-mode\.md/);
      const code = await client.callTool({ name: 'execute_code', arguments: { code: "console.log(JSON.parse(await readFile('/documents/' + (await list_documents())[0].id + '/metadata.json')).title)" } });
      assert.equal(code.isError, false, resultText(code));
      assert.match(resultText(code), /^\S.*\n$/);
    } finally {
      await client.close();
    }
  });
});
