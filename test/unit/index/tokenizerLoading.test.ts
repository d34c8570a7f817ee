import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { repositoryRoot } from '../../support/paths';

/**
 * The o200k tokenizer costs about 0.3 s and 68 MiB to load. Only chunking needs it, and chunking runs on the
 * conversion workers: the process that searches, answers and writes the index (the CLI, VS Code's extension
 * host) must not load it through an import.
 */
describe('what loads the tokenizer', function () {
  this.timeout(60_000);

  function loadsTokenizer(modules: readonly string[]): { loaded: boolean; stderr: string } {
    const script = [
      ...modules.map((module) => `require(${JSON.stringify(path.join(repositoryRoot, module))});`),
      "console.log(Object.keys(require.cache).some((file) => file.includes(`${require('node:path').sep}gpt-tokenizer${require('node:path').sep}`)));",
    ].join('\n');
    const child = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { cwd: repositoryRoot, encoding: 'utf8', timeout: 50_000 });
    assert.equal(child.status, 0, child.stderr);
    return { loaded: child.stdout.trim().endsWith('true'), stderr: child.stderr };
  }

  it('is not loaded by the store, the indexer, search, the agent, the sandbox host, MCP or the CLI', () => {
    const mainProcess = [
      'src/node/store/lanceStore.ts',
      'src/node/index/indexer.ts',
      'src/node/convert/conversionPool.ts',
      'src/node/embeddings/createEmbedder.ts',
      'src/node/search/httpReranker.ts',
      'src/core/agent/runAgent.ts',
      'src/node/sandbox/codeSandbox.ts',
      'src/node/agent/openAiCompatibleModel.ts',
      'src/node/mcp/mcpServer.ts',
      'src/node/cli/program.ts',
      'src/vscode/nodeBackend.ts',
    ];
    assert.equal(loadsTokenizer(mainProcess).loaded, false);
  });

  it('is loaded by what chunks (the conversion worker)', () => {
    assert.equal(loadsTokenizer(['src/node/convert/prepareDocument.ts']).loaded, true);
  });
});
