import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { temporaryFolder } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';
import { resultText } from '../mcp/mcpProcess';
import { ensureNpmTarball } from './packagedArtifacts';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The CLI as an npm package (`npm run package:npm`): installed globally from its tarball into a temporary prefix,
 * `haiku` runs from a folder that has nothing of Haiku in it. The install reads the registry (or npm's cache) for
 * the three runtime dependencies; everything else is bundled.
 */
describe('the haiku-rag-cli npm tarball, installed globally', function () {
  this.timeout(1_200_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let haiku: string;
  let elsewhere: string;
  let tarball: string;

  before(() => {
    tarball = ensureNpmTarball();
    folder = temporaryFolder('haiku-npm-install-');
    const prefix = path.join(folder.path, 'prefix');
    const install = spawnSync(npm, ['install', '-g', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn'], {
      cwd: folder.path, encoding: 'utf8', shell: process.platform === 'win32',
    });
    assert.equal(install.status, 0, install.stderr);
    // unpdf declares node >=22; bundled, it is no dependency, so Node 20 installs without an engine warning.
    assert.doesNotMatch(install.stderr, /EBADENGINE/);
    haiku = process.platform === 'win32' ? path.join(prefix, 'haiku.cmd') : path.join(prefix, 'bin', 'haiku');
    elsewhere = path.join(folder.path, 'elsewhere');
    fs.mkdirSync(elsewhere);
  });
  after(() => folder?.cleanup());

  function run(args: string[]): string {
    return execFileSync(haiku, args, { cwd: elsewhere, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
  }

  it('ships dist, samples, README and LICENSE only, with its own manifest (bin haiku, engines, runtime dependencies)', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter((line) => line !== '');
    const tops = new Set(listing.map((line) => line.split('/').slice(1, 3).join('/')));
    assert.deepEqual([...tops].filter((entry) => !/^(dist\/|samples\/|README\.md$|LICENSE$|package\.json$)/.test(entry)), []);
    assert.ok(listing.includes('package/dist/cli.js') && listing.includes('package/dist/cli-main.js') && listing.includes('package/dist/sandbox-worker.js'));
    assert.deepEqual(listing.filter((line) => /\.map$|^package\/(src|test|bench)\//.test(line)), []);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as { name: string; bin: Record<string, string>; engines: { node: string }; dependencies: Record<string, string> };
    assert.equal(manifest.name, 'haiku-rag-cli');
    assert.deepEqual(manifest.bin, { haiku: 'dist/cli.js' });
    assert.equal(manifest.engines.node, '>=20.19');
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['@lancedb/lancedb', '@napi-rs/canvas', 'apache-arrow']);
    assert.ok(fs.statSync(tarball).size < 8 * 1024 * 1024, `${fs.statSync(tarball).size} bytes`);
  });

  it('`haiku --version` prints the version', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
    assert.equal(run(['--version']), `${version}\n`);
  });

  it('`haiku demo` indexes the bundled samples and finds the pre-bundling section', () => {
    assert.match(run(['demo']), /Pre-Bundling/i);
  });

  it('`haiku mcp` lists its tools and searches over stdio', async () => {
    const documents = path.join(elsewhere, 'docs');
    fs.cpSync(path.join(repositoryRoot, 'samples', 'guides'), documents, { recursive: true });
    run(['index', 'docs', '--quiet']);
    const transport = new StdioClientTransport({
      command: haiku, args: ['mcp', '--db', path.join(elsewhere, '.haiku'), '--read-only'], cwd: elsewhere, env: getDefaultEnvironment(), stderr: 'pipe',
    });
    const client = new Client({ name: 'haiku-npm-test', version: '0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes('search_documents') && tools.includes('execute_code'), tools.join(' '));
      const search = await client.callTool({ name: 'search_documents', arguments: { query: 'dependency pre-bundling', limit: 1 } });
      assert.match(resultText(search), /Pre-Bundling/i);
    } finally {
      await client.close();
    }
  });
});
