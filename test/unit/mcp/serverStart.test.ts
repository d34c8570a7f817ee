import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig } from '../../../src/core/config';
import type { CommandIo } from '../../../src/node/cli/command';
import { runCli } from '../../../src/node/cli/main';
import { mcpServerLaunch } from '../../../src/core/mcp/serverLaunch';
import { openExistingIndex } from './openTestIndex';
import { temporaryFolder } from '../../support/indexFixtures';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { connectStdio, runCliProcess } from './mcpProcess';

describe('haiku mcp: start-up (missing index, usage, the VS Code launch)', function () {
  this.timeout(240_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  beforeEach(() => {
    workspace = temporaryFolder('haiku-mcp-');
  });
  afterEach(() => workspace.cleanup());

  it('fails fast when the database is missing, and creates nothing', async () => {
    const missing = path.join(workspace.path, 'no-index');
    const run = await runCliProcess(['mcp', '--db', missing], { cwd: workspace.path });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '', 'stdout carries only the protocol');
    assert.match(run.stderr, new RegExp(`^haiku mcp: No Haiku index at ${missing}: the folder does not exist\\. Build one with \`haiku index <folder> --db ${missing}\``));
    assert.equal(fs.existsSync(missing), false);
  });

  it('refuses a folder that holds no index, and a file, without writing into them', async () => {
    await assert.rejects(openExistingIndex({ uri: workspace.path }), /No Haiku index at .*: the folder holds no documents table\. Build one with/);
    assert.deepEqual(fs.readdirSync(workspace.path), []);
    const file = path.join(workspace.path, 'notes.md');
    fs.writeFileSync(file, '# Notes\n');
    await assert.rejects(openExistingIndex({ uri: file }), /notes\.md is a file, not an index folder\./);
  });

  it('reports usage errors before opening anything', async () => {
    let stderr = '';
    const io: CommandIo = { stdout: () => undefined, stderr: (text) => (stderr += text), cwd: workspace.path, env: {} };
    assert.notEqual(await runCli(['mcp', '--port', '8123'], io), 0, 'a usage error exits non-zero');
    assert.match(stderr, /--port applies to --http only/);
    stderr = '';
    assert.notEqual(await runCli(['mcp', '--http', '--port', '70000'], io), 0);
    assert.match(stderr, /--port takes a port number from 0 to 65535/);
    stderr = '';
    assert.notEqual(await runCli(['mcp', '--allow-writes'], io), 0);
    assert.match(stderr, /--no-auth and --allow-writes apply to --http only/);
  });

  describe('the launch VS Code registers', () => {
    let corpus: CorpusIndex;
    before(async () => {
      corpus = await buildCorpusIndex();
    });
    after(async () => corpus?.close());

    it('runs the bundled CLI read-only on the workspace index with the configured model and embedder', () => {
      const config = defaultConfig();
      config.index.databaseUri = '/workspace/storage/index';
      config.qa.model = { ...config.qa.model, baseUrl: 'http://127.0.0.1:9/v1', name: 'qwen3:8b', apiKey: 'secret' };
      config.embeddings = { ...config.embeddings, provider: 'openai', baseUrl: 'http://127.0.0.1:8/v1', model: 'nomic-embed-text' };
      const listed = mcpServerLaunch(config, { nodePath: '/usr/bin/code', cliPath: '/extension/dist/cli.js' });
      assert.equal(listed.command, '/usr/bin/code');
      assert.deepEqual(listed.args, ['/extension/dist/cli.js', 'mcp', '--db', '/workspace/storage/index', '--read-only', '--embeddings-url', 'http://127.0.0.1:8/v1', '--embeddings-model', 'nomic-embed-text']);
      assert.deepEqual(listed.env, { ELECTRON_RUN_AS_NODE: '1', LANCEDB_LOG: 'error', HAIKU_BASE_URL: 'http://127.0.0.1:9/v1', HAIKU_MODEL: 'qwen3:8b' }, 'no API key in the eagerly listed definition');
      assert.equal(mcpServerLaunch(config, { nodePath: 'node', cliPath: 'cli.js', withSecrets: true }).env.HAIKU_API_KEY, 'secret');
      // analysis.model at the QA endpoint travels as HAIKU_ANALYSIS_*; a chat-picker model (no endpoint) does not.
      config.analysis.model = { name: 'qwen3-coder' };
      const withAnalysis = mcpServerLaunch(config, { nodePath: 'node', cliPath: 'cli.js' }).env;
      assert.deepEqual([withAnalysis.HAIKU_ANALYSIS_BASE_URL, withAnalysis.HAIKU_ANALYSIS_MODEL], ['http://127.0.0.1:9/v1', 'qwen3-coder']);
      config.qa.model = { ...config.qa.model, name: '' };
      config.analysis.model = { name: 'copilot/gpt-4.1' };
      assert.equal(mcpServerLaunch(config, { nodePath: 'node', cliPath: 'cli.js' }).env.HAIKU_ANALYSIS_MODEL, undefined);
    });

    it('those arguments start a read-only stdio server the SDK client can use', async () => {
      const config = defaultConfig();
      config.index.databaseUri = corpus.databasePath;
      const launch = mcpServerLaunch(config, { nodePath: process.execPath, cliPath: 'dist/cli.js' });
      const session = await connectStdio(launch.args.slice(2), { cwd: corpus.folder, env: launch.env });
      try {
        const { tools } = await session.client.listTools();
        const names = tools.map((tool) => tool.name);
        assert.ok(names.includes('search_documents') && names.includes('execute_code'));
        assert.ok(!names.includes('add_document_from_file') && !names.includes('delete_document'), names.join(', '));
        assert.match(session.stderr(), /, read-only\)\./);
      } finally {
        await session.close();
      }
    });
  });
});
