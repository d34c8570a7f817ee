import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { HaikuError } from '../../../src/core/errors';
import { openIndex, type OpenedIndex } from '../../../src/node/backend/openIndex';
import { resolveCliConfig } from '../../../src/node/config/cliConfig';
import { createSessionServer, type McpSessionServer } from '../../../src/node/mcp/mcpServer';
import { DEFAULT_CODE_SANDBOX_LIMITS } from '../../../src/node/sandbox/codeSandbox';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { runInProcess } from '../cli/cliHarness';
import { callTool } from './mcpProcess';

/**
 * `add_document_from_file` adds only files inside the index's folders (real paths), under the configured rules, with
 * the paths `haiku index` gives them. The project: `haiku.config.json` with `source_root: "docs"`, a size limit and
 * an exclusion; `haiku index docs` built the index; the MCP server runs from the project folder.
 */
describe('MCP add_document_from_file: inside the index folders, under its rules (in-process server)', function () {
  this.timeout(120_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let project: string;
  let outside: string;
  let index: OpenedIndex;
  let session: McpSessionServer;
  let client: Client;
  const stop = new AbortController();

  before(async () => {
    workspace = temporaryFolder('haiku-mcp-add-');
    project = path.join(workspace.path, 'project');
    outside = path.join(workspace.path, 'outside');
    writeFiles(outside, { 'secret.md': '# Secret\n\nThe outside wombat password.\n' });
    writeFiles(project, {
      'haiku.config.json': JSON.stringify({ index: { source_root: 'docs', exclude: ['**/.haiku/**', 'drafts/**'], max_file_bytes: 400 } }),
      'docs/a.md': '# Alpha\n\nThe alpha aardvark.\n',
      'docs/sub/c.md': '# Gamma\n\nThe gamma gazelle.\n',
      'notes.md': '# Notes\n\nOutside the source root.\n',
    });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(project, 'docs', 'link.md'));
    const built = await runInProcess(['index', 'docs', '--quiet'], { cwd: project });
    assert.equal(built.code, 0, built.stderr);
    // Written after the build: what a client might try to add later.
    writeFiles(project, { 'docs/drafts/x.md': '# Draft\n\nThe draft dingo.\n', 'docs/big.md': `# Big\n\n${'The big bison. '.repeat(60)}\n`, 'docs/b.md': '# Beta\n\nThe beta badger.\n' });
    const { config } = resolveCliConfig({ cwd: project, env: {}, flags: {} });
    index = await openIndex({ config, cwd: project, mustExist: true, followOtherWriters: true, models: {} });
    session = createSessionServer({
      index,
      allowWrites: true,
      model: () => {
        throw new HaikuError('invalid_settings', 'no model in this test');
      },
      sandboxLimits: DEFAULT_CODE_SANDBOX_LIMITS,
      cwd: project,
      version: '0',
      abortSignal: stop.signal,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.server.connect(serverSide);
    client = new Client({ name: 'haiku-test', version: '0' });
    await client.connect(clientSide);
  });
  after(async () => {
    await client?.close();
    await session?.close();
    stop.abort();
    await index?.close();
    workspace?.cleanup();
  });

  async function storedPaths(): Promise<string[]> {
    return (await index.store.listDocuments()).map((document) => document.relativePath).sort();
  }

  it('refuses files outside the index folders, naming them: /etc/passwd, an outside file, a link that leads outside', async () => {
    const docs = path.join(project, 'docs');
    for (const attempt of ['/etc/passwd', '/etc', path.join(outside, 'secret.md'), 'notes.md', 'docs/link.md', '../outside/secret.md']) {
      const result = await callTool(client, 'add_document_from_file', { file_path: attempt });
      assert.equal(result.isError, true, `${attempt}: ${result.text}`);
      assert.match(result.text, /is outside the index's folders, so it cannot be added\. Files may be added only from: /, attempt);
      assert.ok(result.text.includes(docs), `${attempt}: the roots are named: ${result.text}`);
    }
    assert.deepEqual(await storedPaths(), ['a.md', 'sub/c.md']);
    const read = await callTool(client, 'get_document', { document_id: '/etc/passwd' });
    assert.equal(read.isError, true);
  });

  it('adds a file inside the source root under the path haiku index gave it (no docs/a.md beside a.md)', async () => {
    const added = await callTool(client, 'add_document_from_file', { file_path: 'docs/b.md' });
    assert.equal(added.isError, undefined, added.text);
    assert.match(added.text, /added 1, updated 0, unchanged 0, failed 0\.\n- b\.md \(id \w+\)$/);
    fs.appendFileSync(path.join(project, 'docs', 'a.md'), '\nA changed line.\n');
    const again = await callTool(client, 'add_document_from_file', { file_path: path.join(project, 'docs', 'a.md') });
    assert.match(again.text, /added 0, updated 1/);
    assert.deepEqual(await storedPaths(), ['a.md', 'b.md', 'sub/c.md']);
  });

  it('honours the exclusions and the size limit of the configuration', async () => {
    const excluded = await callTool(client, 'add_document_from_file', { file_path: 'docs/drafts/x.md' });
    assert.equal(excluded.isError, true, excluded.text);
    assert.match(excluded.text, /Nothing was indexed from .*x\.md/);
    const big = await callTool(client, 'add_document_from_file', { file_path: 'docs/big.md' });
    assert.equal(big.isError, true, big.text);
    assert.match(big.text, /big\.md: the file is .*, above the .* limit/);
    assert.deepEqual(await storedPaths(), ['a.md', 'b.md', 'sub/c.md']);
  });

  it('finds documents by a unique path suffix, and names the candidates of an ambiguous one', async () => {
    const bySuffix = await callTool(client, 'get_document', { document_id: 'c.md' });
    assert.equal(bySuffix.isError, undefined, bySuffix.text);
    assert.match(bySuffix.text, /\(sub\/c\.md, markdown, id \w+/);
    writeFiles(project, { 'docs/other/c.md': '# Other gamma\n\nAnother gazelle.\n' });
    assert.equal((await callTool(client, 'add_document_from_file', { file_path: 'docs/other' })).isError, undefined);
    const ambiguous = await callTool(client, 'read_section', { document_id: 'c.md', section: 'Gamma' });
    assert.equal(ambiguous.isError, true);
    assert.match(ambiguous.text, /'c\.md' matches 2 documents: other\/c\.md, sub\/c\.md\. Give more of the path, or the document id\./);
  });
});
