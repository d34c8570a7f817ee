import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defaultConfig } from '../../../src/core/config';
import { mcpServerLaunch } from '../../../src/core/mcp/serverLaunch';
import { temporaryFolder } from '../../support/indexFixtures';
import { repositoryRoot } from '../../support/paths';
import { resultText } from '../mcp/mcpProcess';
import { ensureVsixFiles, vsixPath } from './packagedArtifacts';
import { unzipFolder } from './zipArchive';

/** glibc's Node reports its runtime glibc version; musl's (Alpine, whose VSIX is alpine-x64) does not. */
function onGlibcLinuxX64(): boolean {
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return process.platform === 'linux' && process.arch === 'x64' && header?.glibcVersionRuntime !== undefined;
}

/**
 * Issue 25, tested as installed: the built linux-x64 VSIX unpacked as VS Code would, and its MCP server started with
 * the exact command line src/vscode/mcpServerProvider.ts gives VS Code (mcpServerLaunch with the unpacked folder's
 * dist/cli.js), over an index the VSIX's own CLI built. Today's failure it guards: dist/cli.js left out of the VSIX.
 */
describe('the linux-x64 VSIX as installed: its MCP server definition', function () {
  this.timeout(1_200_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let extension: string;
  let documents: string;
  let database: string;

  before(function () {
    if (!onGlibcLinuxX64()) {
      this.skip();
    }
    ensureVsixFiles(['linux-x64']);
    folder = temporaryFolder('haiku-installed-vsix-');
    extension = path.join(folder.path, 'extension');
    unzipFolder(vsixPath('linux-x64'), 'extension/', extension);
    documents = path.join(folder.path, 'workspace');
    fs.cpSync(path.join(repositoryRoot, 'samples'), documents, { recursive: true });
    database = path.join(folder.path, 'index');
    // The index the extension would have built: by the VSIX's own bundles.
    execFileSync(process.execPath, [path.join(extension, 'dist', 'cli.js'), 'index', documents, '--db', database, '--quiet'], { cwd: documents, stdio: ['ignore', 'ignore', 'inherit'] });
  });
  after(() => folder?.cleanup());

  it('lists its tools (read-only) and answers a search from the unpacked dist/cli.js', async () => {
    const config = defaultConfig();
    config.index.databaseUri = database;
    const launch = mcpServerLaunch(config, { nodePath: process.execPath, cliPath: path.join(extension, 'dist', 'cli.js'), withSecrets: true });
    assert.equal(launch.args[0], path.join(extension, 'dist', 'cli.js'));
    const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...getDefaultEnvironment(), ...launch.env }, cwd: documents, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'haiku-installed-test', version: '0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes('search_documents') && tools.includes('read_section'), tools.join(' '));
      assert.ok(!tools.includes('add_document_from_file'), 'the definition is read-only');
      const search = await client.callTool({ name: 'search_documents', arguments: { query: 'dependency pre-bundling', limit: 1 } });
      assert.notEqual(search.isError, true, resultText(search));
      assert.match(resultText(search), /Document: guides\/features\.md/);
      assert.match(resultText(search), /Pre-Bundling/i);
    } catch (error) {
      throw new Error(`${String(error)}\nserver stderr:\n${stderr}`, { cause: error });
    } finally {
      await client.close();
    }
  });
});
