import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { runInProcess, startIndexedWorkspace, type IndexedWorkspace } from '../cli/cliHarness';
import { startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from '../../support/scriptedEmbeddingsServer';
import { startScriptedRerankServer, type ScriptedRerankServer } from '../../support/scriptedRerankServer';
import { temporaryFolder } from '../../support/indexFixtures';
import { resolveCliConfig } from '../../../src/node/config/cliConfig';
import { trustFilePath } from '../../../src/node/config/endpointTrust';
import { HaikuError } from '../../../src/core/errors';
import { createOpenAiCompatibleModel } from '../../../src/node/agent/openAiCompatibleModel';
import { PictureDescriber } from '../../../src/node/index/pictureDescriptions';
import { apiKeyFor, serializeApiKey, parseStoredApiKey } from '../../../src/vscode/apiKeyBinding';
import { configFromSettings, layeredSettingReader, readWorkspaceConfigFile } from '../../../src/vscode/settingsMapping';

const SECRET = 'sk-user-secret';

/**
 * Issue 24: a repository's haiku.config.json must not be able to send the user's keys (HAIKU_*_API_KEY, --api-key)
 * to a server it names. The key goes only to base URLs the user named (flag, variable, default), to one the file
 * names next to its own key, or to an origin trusted with `haiku trust`.
 */
describe('API keys go only to base URLs the user named or trusted', function () {
  this.timeout(120_000);
  let workspace: IndexedWorkspace;
  let userConfig: { path: string; cleanup: () => void };
  let env: NodeJS.ProcessEnv;
  const configFile = () => path.join(workspace.path, 'haiku.config.json');
  const writeConfig = (config: unknown) => fs.writeFileSync(configFile(), JSON.stringify(config));
  const authorizations = () => workspace.server.requests.map((request) => request.headers.authorization);

  before(async () => {
    workspace = await startIndexedWorkspace({ 'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n' });
    userConfig = temporaryFolder('haiku-xdg-');
  });

  after(async () => {
    await workspace.close();
    userConfig.cleanup();
  });

  beforeEach(() => {
    workspace.server.requests.length = 0;
    fs.rmSync(trustFilePath({ XDG_CONFIG_HOME: userConfig.path }), { force: true });
    env = { XDG_CONFIG_HOME: userConfig.path, HAIKU_API_KEY: SECRET };
  });

  it('a base URL from the project file gets no request carrying the key: the command fails saying how to trust it', async () => {
    const baseUrl = workspace.server.baseUrl;
    writeConfig({ qa: { model: { base_url: baseUrl, name: 'scripted' } } });
    workspace.server.push({ text: 'Eighteen hours.' });
    const run = await runInProcess(['ask', 'How long do ferrets sleep?'], { cwd: workspace.path, env });
    assert.equal(run.code, 1);
    assert.equal(workspace.server.requests.length, 0, 'nothing was sent');
    assert.ok(run.stderr.includes(`Haiku did not send HAIKU_API_KEY to ${baseUrl}`), run.stderr);
    assert.ok(run.stderr.includes(configFile()), 'names the config file');
    assert.ok(run.stderr.includes(`\`haiku trust ${baseUrl}\``), 'gives the command that trusts it');
    assert.match(run.stderr, /--base-url or HAIKU_BASE_URL/);
    assert.ok(!run.stderr.includes(SECRET));
    // The key given as a flag is refused the same way; commands that need no model still run.
    const flagged = await runInProcess(['ask', 'How long do ferrets sleep?', '--api-key', SECRET], { cwd: workspace.path, env: { XDG_CONFIG_HOME: userConfig.path } });
    assert.equal(flagged.code, 1);
    assert.ok(flagged.stderr.includes(`Haiku did not send the key given with --api-key to ${baseUrl}`), flagged.stderr);
    assert.equal(workspace.server.requests.length, 0, 'nothing was sent');
    const search = await runInProcess(['search', 'ferrets'], { cwd: workspace.path, env });
    assert.equal(search.code, 0, search.stderr);
    workspace.server.requests.length = 0;
  });

  it('the same base URL given by flag or variable gets the key', async () => {
    const baseUrl = workspace.server.baseUrl;
    writeConfig({ qa: { model: { base_url: baseUrl, name: 'scripted' } } });
    for (const [flags, extraEnv] of [[['--base-url', baseUrl], {}], [[], { HAIKU_BASE_URL: baseUrl }]] as const) {
      workspace.server.requests.length = 0;
      workspace.server.push({ text: 'Eighteen hours.' });
      const run = await runInProcess(['ask', 'How long do ferrets sleep?', ...flags], { cwd: workspace.path, env: { ...env, ...extraEnv } });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(authorizations(), [`Bearer ${SECRET}`]);
    }
  });

  it('after `haiku trust <base-url>` the file\'s base URL gets the key; trust is per config file', async () => {
    const baseUrl = workspace.server.baseUrl;
    writeConfig({ qa: { model: { base_url: `${baseUrl}/`, name: 'scripted' } } });
    const trusted = await runInProcess(['trust', baseUrl], { cwd: path.join(workspace.path, 'docs'), env });
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, new RegExp(`Trusted http://127\\.0\\.0\\.1:\\d+ for ${configFile().replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}`));
    const listed = await runInProcess(['trust'], { cwd: workspace.path, env });
    assert.match(listed.stdout, /^ {2}http:\/\/127\.0\.0\.1:\d+$/m);
    workspace.server.push({ text: 'Eighteen hours.' });
    const run = await runInProcess(['ask', 'How long do ferrets sleep?'], { cwd: workspace.path, env });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(authorizations(), [`Bearer ${SECRET}`]);
    // `--remove` takes it back.
    const removed = await runInProcess(['trust', '--remove', baseUrl], { cwd: workspace.path, env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(resolveCliConfig({ cwd: workspace.path, env, flags: {} }).config.qa.model.apiKeyWithheld ?? '', /did not send HAIKU_API_KEY/);
    assert.match((await runInProcess(['trust'], { cwd: workspace.path, env })).stdout, /^Nothing is trusted for /);
    // Another project's file naming the same server is not trusted by that.
    const other = temporaryFolder('haiku-other-');
    try {
      fs.writeFileSync(path.join(other.path, 'haiku.config.json'), JSON.stringify({ qa: { model: { base_url: baseUrl, name: 'scripted' } } }));
      assert.match(resolveCliConfig({ cwd: other.path, env, flags: {} }).config.qa.model.apiKeyWithheld ?? '', /did not send HAIKU_API_KEY/);
    } finally {
      other.cleanup();
    }
  });

  it('a key written in the file next to its own base URL is sent there', async () => {
    writeConfig({ qa: { model: { base_url: workspace.server.baseUrl, name: 'scripted', api_key: 'sk-project-key' } } });
    workspace.server.push({ text: 'Eighteen hours.' });
    const run = await runInProcess(['ask', 'How long do ferrets sleep?'], { cwd: workspace.path, env: { XDG_CONFIG_HOME: userConfig.path } });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(authorizations(), ['Bearer sk-project-key']);
  });

  it('the analysis model: HAIKU_ANALYSIS_API_KEY does not go to the file\'s analysis.model.base_url, nor HAIKU_API_KEY through it', () => {
    fs.mkdirSync(path.join(workspace.path, 'analysis'), { recursive: true });
    fs.writeFileSync(path.join(workspace.path, 'analysis', 'haiku.config.json'), JSON.stringify({ analysis: { model: { base_url: 'http://127.0.0.1:9/v1', name: 'coder' } } }));
    const config = resolveCliConfig({ cwd: path.join(workspace.path, 'analysis'), env: { ...env, HAIKU_ANALYSIS_API_KEY: 'sk-analysis' }, flags: {} }).config;
    assert.equal(config.analysis.model?.apiKey, undefined);
    assert.match(config.analysis.model?.apiKeyWithheld ?? '', /did not send HAIKU_ANALYSIS_API_KEY to http:\/\/127\.0\.0\.1:9\/v1/);
    assert.equal(config.qa.model.apiKey, SECRET, 'the QA key still goes to the default QA server');
    assert.throws(() => createOpenAiCompatibleModel({ name: 'coder', ...config.analysis.model }), (error: unknown) => error instanceof HaikuError && error.code === 'untrusted_endpoint');
    // The picture describer too: HAIKU_PICTURE_API_KEY and the file's processing.picture_description.base_url.
    fs.writeFileSync(path.join(workspace.path, 'analysis', 'haiku.config.json'), JSON.stringify({ processing: { pictures: 'description', picture_description: { base_url: 'http://127.0.0.1:9/v1', model: 'eyes' } } }));
    const pictures = resolveCliConfig({ cwd: path.join(workspace.path, 'analysis'), env: { ...env, HAIKU_PICTURE_API_KEY: 'sk-picture' }, flags: {} }).config.processing.pictureDescription;
    assert.equal(pictures.apiKey, undefined);
    assert.throws(() => new PictureDescriber(pictures), /did not send HAIKU_PICTURE_API_KEY to http:\/\/127\.0\.0\.1:9\/v1.*--picture-base-url/);
    // A file base URL equal to the built-in default names no new server.
    fs.writeFileSync(path.join(workspace.path, 'analysis', 'haiku.config.json'), JSON.stringify({ qa: { model: { base_url: 'http://127.0.0.1:11434/v1/' } } }));
    assert.equal(resolveCliConfig({ cwd: path.join(workspace.path, 'analysis'), env, flags: {} }).config.qa.model.apiKey, SECRET);
  });

  describe('embeddings and reranker', () => {
    let embeddings: ScriptedEmbeddingsServer;
    let reranker: ScriptedRerankServer;
    before(async () => {
      embeddings = await startScriptedEmbeddingsServer();
      reranker = await startScriptedRerankServer();
    });
    after(async () => {
      await embeddings.close();
      await reranker.close();
    });

    it('HAIKU_EMBEDDINGS_API_KEY: the file\'s embeddings.base_url gets nothing until trusted', async () => {
      const folder = temporaryFolder('haiku-embed-trust-');
      try {
        fs.writeFileSync(path.join(folder.path, 'a.md'), '# A\n\nFerrets.\n');
        fs.writeFileSync(path.join(folder.path, 'haiku.config.json'), JSON.stringify({ embeddings: { provider: 'openai', base_url: embeddings.baseUrl, model: 'embed' } }));
        const embedEnv = { XDG_CONFIG_HOME: userConfig.path, HAIKU_EMBEDDINGS_API_KEY: SECRET };
        const refused = await runInProcess(['index', '.', '--quiet'], { cwd: folder.path, env: embedEnv });
        assert.equal(refused.code, 1);
        assert.equal(embeddings.requests.length, 0);
        assert.ok(refused.stderr.includes(`\`haiku trust ${embeddings.baseUrl}\``), refused.stderr);
        assert.match(refused.stderr, /--embeddings-url/);
        assert.equal((await runInProcess(['trust', embeddings.baseUrl], { cwd: folder.path, env: embedEnv })).code, 0);
        const indexed = await runInProcess(['index', '.', '--quiet'], { cwd: folder.path, env: embedEnv });
        assert.equal(indexed.code, 0, indexed.stderr);
        assert.ok(embeddings.requests.length > 0 && embeddings.requests.every((request) => request.headers.authorization === `Bearer ${SECRET}`));
      } finally {
        folder.cleanup();
      }
    });

    it('HAIKU_RERANKER_API_KEY: the file\'s reranker.base_url gets nothing; --reranker-url gets the key', async () => {
      writeConfig({ reranker: { provider: 'http', base_url: reranker.baseUrl } });
      const rerankEnv = { XDG_CONFIG_HOME: userConfig.path, HAIKU_RERANKER_API_KEY: SECRET };
      const refused = await runInProcess(['search', 'ferrets'], { cwd: workspace.path, env: rerankEnv });
      assert.equal(refused.code, 1);
      assert.equal(reranker.requests.length, 0);
      assert.match(refused.stderr, /did not send HAIKU_RERANKER_API_KEY/);
      const named = await runInProcess(['search', 'ferrets', '--reranker-url', reranker.baseUrl], { cwd: workspace.path, env: rerankEnv });
      assert.equal(named.code, 0, named.stderr);
      assert.equal(reranker.requests[0].headers.authorization, `Bearer ${SECRET}`);
    });
  });

  it('VS Code: a workspace file\'s base URL never receives a SecretStorage key bound to the user\'s URL', () => {
    const folder = temporaryFolder('haiku-vscode-trust-');
    try {
      fs.writeFileSync(path.join(folder.path, 'haiku.config.json'), JSON.stringify({ qa: { model: { base_url: 'http://attacker.example/v1', name: 'm' } } }));
      const { values } = readWorkspaceConfigFile([folder.path]);
      const read = layeredSettingReader(() => undefined, () => false, values);
      const stored = parseStoredApiKey(serializeApiKey(SECRET, 'https://api.openai.com/v1'));
      const baseUrl = configFromSettings(read, { defaultDatabaseUri: '/index' }).qa.model.baseUrl;
      const decision = apiKeyFor(stored, baseUrl);
      const sendable = decision !== undefined && 'key' in decision ? decision.key : undefined;
      assert.deepEqual(decision, { mismatch: { storedFor: 'https://api.openai.com/v1' } }, 'the user is asked instead');
      const config = configFromSettings(read, { defaultDatabaseUri: '/index', apiKeys: { model: sendable } });
      assert.equal(config.qa.model.apiKey, undefined);
      assert.equal(config.processing.pictureDescription.apiKey, undefined);
    } finally {
      folder.cleanup();
    }
  });
  it('object storage: the AWS keys of the environment go to no endpoint only the project file names, until trusted', async () => {
    const requests: Array<{ url: string; authorization: string | undefined }> = [];
    const server = http.createServer((request, response) => {
      requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
      response.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const awsEnv = { ...env, AWS_ACCESS_KEY_ID: 'AKIAUSERKEY', AWS_SECRET_ACCESS_KEY: 'user-secret-key', AWS_REGION: 'us-east-1' };
    try {
      writeConfig({ index: { database: 's3://team-bucket/index', storage: { endpoint } } });
      const refused = await runInProcess(['search', 'ferrets'], { cwd: workspace.path, env: awsEnv });
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(requests.length, 0, 'nothing was sent to the file\'s endpoint');
      assert.ok(refused.stderr.includes(`the object storage endpoint ${endpoint} comes from ${configFile()}`), refused.stderr);
      assert.ok(refused.stderr.includes(`\`haiku trust ${endpoint}\``), refused.stderr);
      assert.ok(!refused.stderr.includes('user-secret-key'));
      // Named by the user (a flag), the same endpoint is asked, with the user's key.
      await runInProcess(['search', 'ferrets', '--endpoint', endpoint], { cwd: workspace.path, env: awsEnv });
      assert.ok(requests.length > 0 && requests.every((request) => request.authorization?.includes('AKIAUSERKEY')), JSON.stringify(requests.slice(0, 3)));
      requests.length = 0;
      // Trusted for this file: asked too.
      const trusted = await runInProcess(['trust', endpoint], { cwd: workspace.path, env: awsEnv });
      assert.equal(trusted.code, 0, trusted.stderr);
      await runInProcess(['search', 'ferrets'], { cwd: workspace.path, env: awsEnv });
      assert.ok(requests.length > 0 && requests[0].authorization?.includes('AKIAUSERKEY'), JSON.stringify(requests.slice(0, 3)));
    } finally {
      server.close();
      fs.rmSync(configFile(), { force: true });
    }
  });
});
