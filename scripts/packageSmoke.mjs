// The release workflow's install check (.github/workflows/release.yml), one VSIX on its own platform:
//   node scripts/packageSmoke.mjs --vsix haiku-<target>.vsix [--server]
// installs it with VS Code's own `code --install-extension` into a fresh extensions folder (desktop VS Code from
// @vscode/test-electron; with --server, the VS Code Server, which is what runs on Alpine), then runs the installed
// extension's dist/cli.js: indexes the samples, searches them, and lists the MCP server's tools over stdio.
// Needs `npm ci` (test-electron, the MCP SDK) and the network (VS Code's download).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath } from '@vscode/test-electron';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const argv = process.argv.slice(2);
const vsix = path.resolve(argv[argv.indexOf('--vsix') + 1] ?? '');
const server = argv.includes('--server');
if (!argv.includes('--vsix') || !fs.existsSync(vsix)) {
  throw new Error('Usage: node scripts/packageSmoke.mjs --vsix <file.vsix> [--server]');
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-smoke-'));
const extensionsFolder = path.join(work, 'extensions');
const isWindows = process.platform === 'win32';

/** `code --install-extension` of desktop VS Code, or `code-server --install-extension` of the VS Code Server. */
async function installCommand() {
  if (!server) {
    const [cli, ...profile] = resolveCliArgsFromVSCodeExecutablePath(await downloadAndUnzipVSCode('stable'));
    return [cli, [...profile, `--extensions-dir=${extensionsFolder}`]];
  }
  // The server build for this machine: Alpine's are their own (musl) builds.
  const platform = process.arch === 'arm64' ? 'server-alpine-arm64' : 'server-linux-alpine';
  const response = await fetch(`https://update.code.visualstudio.com/latest/${platform}/stable`);
  if (!response.ok) {
    throw new Error(`Downloading the VS Code Server (${platform}) failed: HTTP ${response.status}.`);
  }
  const archive = path.join(work, 'server.tar.gz');
  fs.writeFileSync(archive, Buffer.from(await response.arrayBuffer()));
  const serverFolder = path.join(work, 'server');
  fs.mkdirSync(serverFolder);
  execFileSync('tar', ['-xzf', archive, '-C', serverFolder, '--strip-components=1'], { stdio: 'inherit' });
  return [path.join(serverFolder, 'bin', 'code-server'), [`--extensions-dir=${extensionsFolder}`]];
}

const [code, codeArguments] = await installCommand();
execFileSync(code, [...codeArguments, '--install-extension', vsix, '--force'], { stdio: 'inherit', shell: isWindows });
const installed = fs.readdirSync(extensionsFolder).find((name) => name.startsWith('haiku-dev.haiku-'));
if (!installed) {
  throw new Error(`VS Code did not install ${path.basename(vsix)}: ${fs.readdirSync(extensionsFolder).join(', ')}`);
}
const cli = path.join(extensionsFolder, installed, 'dist', 'cli.js');
console.log(`smoke: installed ${installed}`);

const database = path.join(work, 'index');
const haiku = (...args) => execFileSync(process.execPath, [cli, ...args], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
haiku('index', path.join(root, 'samples'), '--db', database, '--quiet');
const hits = haiku('search', 'dependency pre-bundling', '--db', database, '--limit', '1');
if (!/pre-bundling/i.test(hits)) {
  throw new Error(`The installed CLI's search did not find the pre-bundling section:\n${hits}`);
}

// The MCP server as the extension's definition starts it (src/core/mcp/serverLaunch.ts): node, cli.js, mcp, read-only.
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli, 'mcp', '--db', database, '--read-only'],
  env: { ...getDefaultEnvironment(), ELECTRON_RUN_AS_NODE: '1', LANCEDB_LOG: 'error' },
  cwd: work,
});
const client = new Client({ name: 'haiku-smoke', version: '0' });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((tool) => tool.name);
await client.close();
if (!tools.includes('search_documents')) {
  throw new Error(`The installed MCP server lists no search_documents: ${tools.join(', ')}`);
}
console.log(`smoke: ${path.basename(vsix)} installed; CLI search and MCP tools/list (${tools.length} tools) work`);
fs.rmSync(work, { recursive: true, force: true });
