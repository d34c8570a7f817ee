import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { createKnowledgeBaseSandboxHost } from '../../../src/core/analysis/knowledgeBaseSandboxHost';
import { createCodeSandbox, resolveSandboxWorker } from '../../../src/node/sandbox/codeSandbox';
import { temporaryFolder } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';
import { createStructuredKnowledgeBase } from '../../support/structuredKnowledgeBase';

/**
 * The shipped layout: `sandbox-worker.js` bundled as `esbuild.mjs` does, with `emscripten-module.wasm` copied
 * beside it and no node_modules lookup for the wasm. Built into a temp folder so the test does not depend on
 * (or race) `npm run build`.
 */
describe('bundled sandbox worker', function () {
  this.timeout(120_000);

  it('is found beside the bundle, loads the wasm from its own folder and runs code', async () => {
    const folder = temporaryFolder('haiku-sandbox-bundle-');
    try {
      await esbuild.build({
        entryPoints: [path.join(repositoryRoot, 'src/node/sandbox/worker.ts')],
        outfile: path.join(folder.path, 'sandbox-worker.js'),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        define: { 'import.meta.url': '__importMetaUrl' },
        banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
        logLevel: 'silent',
      });
      const script = resolveSandboxWorker(folder.path);
      assert.deepStrictEqual(script, { file: path.join(folder.path, 'sandbox-worker.js'), execArgv: [] });

      const host = createKnowledgeBaseSandboxHost({ knowledgeBase: createStructuredKnowledgeBase([]) });
      // Without the wasm next to it the worker cannot start, and says what is missing.
      await assert.rejects(createCodeSandbox({ host, workerScript: script }), /could not load QuickJS.*emscripten-module\.wasm/s);

      fs.copyFileSync(path.join(repositoryRoot, 'node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm'), path.join(folder.path, 'emscripten-module.wasm'));
      const sandbox = await createCodeSandbox({ host, workerScript: script });
      try {
        const result = await sandbox.execute('const answer = await list_documents(); answer.length + 42');
        assert.deepStrictEqual([result.success, result.stdout], [true, '42\n']);
      } finally {
        await sandbox.dispose();
      }
    } finally {
      folder.cleanup();
    }
  });

  it('falls back to the TypeScript source with the tsx hook when no build is beside the code', () => {
    const script = resolveSandboxWorker(path.join(repositoryRoot, 'src/node/sandbox'));
    assert.strictEqual(script.file, path.join(repositoryRoot, 'src/node/sandbox/worker.ts'));
    assert.strictEqual(script.execArgv[0], '--require');
    assert.ok(path.isAbsolute(script.execArgv[1]) && fs.existsSync(script.execArgv[1]));
  });
});
