import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runInProcess, startIndexedWorkspace, type IndexedWorkspace } from './cliHarness';
import { startScriptedRerankServer, type ScriptedRerankServer } from '../../support/scriptedRerankServer';
import { resolveCliConfig } from '../../../src/node/config/cliConfig';

/** The configuration layers of the CLI: defaults < haiku.config.json (or --config) < HAIKU_* variables < flags. */
describe('CLI configuration: defaults < config file < environment < flags', function () {
  this.timeout(120_000);
  let workspace: IndexedWorkspace;
  let reranker: ScriptedRerankServer;

  const writeConfig = (folder: string, config: unknown, name = 'haiku.config.json') => {
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, name), JSON.stringify(config));
  };

  before(async () => {
    workspace = await startIndexedWorkspace({ 'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n' });
    reranker = await startScriptedRerankServer();
    // A second index with another document, for the database layers.
    fs.mkdirSync(path.join(workspace.path, 'other'), { recursive: true });
    fs.writeFileSync(path.join(workspace.path, 'other', 'cats.md'), '# Cats\n\nCats sleep sixteen hours.\n');
    const indexed = await runInProcess(['index', 'other', '--db', 'indexes/other', '--quiet'], { cwd: workspace.path });
    assert.equal(indexed.code, 0, indexed.stderr);
  });

  after(async () => {
    await reranker.close();
    await workspace.close();
  });

  beforeEach(() => {
    workspace.server.requests.length = 0;
    reranker.requests.length = 0;
    fs.rmSync(path.join(workspace.path, 'haiku.config.json'), { force: true });
  });

  it('the model: the file beats the default, HAIKU_MODEL beats the file, --model beats HAIKU_MODEL', async () => {
    const { server } = workspace;
    writeConfig(workspace.path, { qa: { model: { base_url: server.baseUrl, name: 'from-file', temperature: 0.7 } } });
    const asked: Array<[string[], NodeJS.ProcessEnv, string]> = [
      [[], {}, 'from-file'],
      [[], { HAIKU_MODEL: 'from-env' }, 'from-env'],
      [['--model', 'from-flag'], { HAIKU_MODEL: 'from-env' }, 'from-flag'],
    ];
    for (const [flags, env, expected] of asked) {
      server.requests.length = 0;
      server.push({ text: 'Eighteen hours.' });
      const run = await runInProcess(['ask', 'How long do ferrets sleep?', ...flags], { cwd: workspace.path, env });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests[0].body.model, expected);
      assert.equal(server.requests[0].body.temperature, 0.7, 'the file still gives what nothing above it sets');
    }
  });

  it('the index: the file (from a subfolder, relative to the file) beats .haiku/, HAIKU_DB beats the file, --db beats HAIKU_DB', async () => {
    const documents = async (flags: string[], env: NodeJS.ProcessEnv, cwd: string) => {
      const run = await runInProcess(['docs', '--json', ...flags], { cwd, env });
      assert.equal(run.code, 0, run.stderr);
      return (JSON.parse(run.stdout) as Array<{ relativePath: string }>).map((document) => path.basename(document.relativePath));
    };
    const subfolder = path.join(workspace.path, 'docs');
    assert.deepEqual(await documents([], {}, workspace.path), ['notes.md']);
    writeConfig(workspace.path, { index: { database: 'indexes/other' } });
    assert.deepEqual(await documents([], {}, subfolder), ['cats.md'], 'found upwards; its relative path is taken from the file');
    assert.deepEqual(await documents([], { HAIKU_DB: path.join(workspace.path, '.haiku') }, subfolder), ['notes.md']);
    assert.deepEqual(await documents(['--db', '../indexes/other'], { HAIKU_DB: path.join(workspace.path, '.haiku') }, subfolder), ['cats.md']);
  });

  it('--config reads another file instead of the one found upwards', async () => {
    writeConfig(workspace.path, { index: { database: 'indexes/other' } });
    writeConfig(path.join(workspace.path, 'settings'), { index: { database: '../.haiku' } }, 'team.json');
    const run = await runInProcess(['docs', '--json', '--config', 'settings/team.json'], { cwd: workspace.path });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /notes\.md/);
    const missing = await runInProcess(['docs', '--config', 'nowhere.json'], { cwd: workspace.path });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot read the config file .*nowhere\.json/);
  });

  it('an unknown key fails the command naming the key and its path', async () => {
    writeConfig(workspace.path, { search: { limt: 3 } });
    const run = await runInProcess(['search', 'ferrets'], { cwd: workspace.path });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /haiku\.config\.json: unknown key "search\.limt" \(known under "search": limit, /);
  });

  it('search settings from the file apply (search.limit), and a flag still wins', async () => {
    fs.writeFileSync(path.join(workspace.path, 'docs', 'more.md'), '# More\n\n## Ferrets again\n\nFerrets play.\n\n## Ferrets at night\n\nFerrets hunt.\n');
    await runInProcess(['index', '.', '--quiet'], { cwd: workspace.path });
    writeConfig(workspace.path, { search: { limit: 1 } });
    const fromFile = await runInProcess(['search', 'ferrets', '--json'], { cwd: workspace.path });
    assert.equal((JSON.parse(fromFile.stdout) as unknown[]).length, 1);
    const fromFlag = await runInProcess(['search', 'ferrets', '--json', '--limit', '2'], { cwd: workspace.path });
    assert.equal((JSON.parse(fromFlag.stdout) as unknown[]).length, 2);
  });

  it('index: the file\'s include and exclude apply, and --exclude adds to them', async () => {
    const folder = path.join(workspace.path, 'globs');
    for (const name of ['keep.md', 'drafts/skip.md', 'notes.txt', 'archive/old.md']) {
      fs.mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
      fs.writeFileSync(path.join(folder, name), `# ${name}\n\nText.\n`);
    }
    writeConfig(folder, { index: { include: ['**/*.md'], exclude: ['drafts/**'] } });
    const run = await runInProcess(['index', '.', '--exclude', 'archive/**', '--json', '--db', 'globs-index'], { cwd: folder });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as { added: string[] };
    assert.deepEqual(summary.added.map((added) => path.basename(added)).sort(), ['keep.md']);
  });

  it('ask, analyze and chat rerank search hits with the reranker of the file or of --reranker-url', async () => {
    const { server } = workspace;
    for (const [command, flags, config] of [
      ['ask', [], { reranker: { provider: 'http', base_url: reranker.baseUrl } }],
      ['analyze', ['--reranker-url', reranker.baseUrl], {}],
      ['chat', ['--reranker-url', reranker.baseUrl], {}],
    ] as const) {
      writeConfig(workspace.path, config);
      reranker.requests.length = 0;
      const search = command === 'analyze' ? 'search' : 'rag_search';
      if (command === 'chat') {
        // Routed mode offers only the loader until a capability is loaded.
        server.push({ toolCalls: [{ name: 'load_capability', arguments: { name: 'rag' } }] });
      }
      server.push({ toolCalls: [{ name: search, arguments: { query: 'ferrets sleep' } }] }, { text: 'Eighteen hours.' });
      const run = await runInProcess([command, 'How long do ferrets sleep?', ...workspace.modelFlags(), ...flags], { cwd: workspace.path });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(reranker.requests.length > 0, `${command} asked the reranker`);
      assert.equal(reranker.requests[0].body.query, 'ferrets sleep');
    }
  });

  it('layers in order without running a command (every layer of one setting)', () => {
    const folder = path.join(workspace.path, 'layers');
    writeConfig(folder, { qa: { model: { base_url: 'http://file/v1' } }, embeddings: { model: 'file-embed' } });
    const resolve = (env: NodeJS.ProcessEnv, flags: Record<string, unknown>) => resolveCliConfig({ cwd: folder, env, flags }).config;
    assert.equal(resolveCliConfig({ cwd: '/', env: {}, flags: {} }).config.qa.model.baseUrl, 'http://127.0.0.1:11434/v1');
    assert.equal(resolve({}, {}).qa.model.baseUrl, 'http://file/v1');
    assert.equal(resolve({ HAIKU_BASE_URL: 'http://env/v1' }, {}).qa.model.baseUrl, 'http://env/v1');
    assert.equal(resolve({ HAIKU_BASE_URL: '' }, {}).qa.model.baseUrl, 'http://file/v1', 'an empty variable is unset');
    assert.equal(resolve({ HAIKU_BASE_URL: 'http://env/v1' }, { 'base-url': 'http://flag/v1' }).qa.model.baseUrl, 'http://flag/v1');
    // The file names a model but leaves the provider off; --embeddings-model switches it on.
    assert.equal(resolve({}, {}).embeddings.provider, 'none');
    const flagged = resolve({}, { 'embeddings-model': 'flag-embed' }).embeddings;
    assert.deepEqual([flagged.provider, flagged.model], ['openai', 'flag-embed']);
  });
});
