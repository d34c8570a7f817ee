import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openIndex } from '../../../src/node/backend/openIndex';
import { resolveCliConfig } from '../../../src/node/config/cliConfig';
import { temporaryFolder } from '../../support/indexFixtures';
import { buildCorpusIndex, type CorpusIndex } from '../agent/corpusIndex';
import { callTool, connectStdio, runCliProcess, type StdioSession } from './mcpProcess';

interface SearchJson {
  results: Array<{ relative_path: string; content: string }>;
}

/** `haiku mcp` reads the project's haiku.config.json like every other command: mode, search limit and context size. */
describe('haiku mcp follows haiku.config.json (index.mode, search.limit, search.max_context_chars)', function () {
  this.timeout(240_000);
  let corpus: CorpusIndex;
  let project: ReturnType<typeof temporaryFolder>;
  let session: StdioSession;

  before(async () => {
    corpus = await buildCorpusIndex();
    project = temporaryFolder('haiku-mcp-config-');
    fs.writeFileSync(
      path.join(project.path, 'haiku.config.json'),
      JSON.stringify({ index: { database: corpus.databasePath, mode: 'remote-readonly' }, search: { limit: 2, max_context_chars: 300 } }),
    );
    session = await connectStdio([], { cwd: project.path });
  });
  after(async () => {
    await session?.close();
    await corpus?.close();
    project?.cleanup();
  });

  it('index.mode remote-readonly: no write tools, delete_document is refused, and the store opens read-only', async () => {
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(!names.includes('delete_document') && !names.includes('add_document_from_file'), names.join(', '));
    assert.match(session.stderr(), /read-only/);
    const deleted = await callTool(session.client, 'delete_document', { document_id: 'static-deploy.md' });
    assert.equal(deleted.isError, true);
    assert.equal((await corpus.store.listDocuments()).length, 3, 'nothing was deleted');
    const { config } = resolveCliConfig({ cwd: project.path, env: {}, flags: {} });
    const index = await openIndex({ config, cwd: project.path, mustExist: true, models: {} });
    try {
      assert.equal(index.readOnly, true);
      assert.equal(index.store.readOnly, true);
    } finally {
      await index.close();
    }
  });

  it('search_documents returns search.limit hits of at most search.max_context_chars characters by default', async () => {
    const result = await callTool(session.client, 'search_documents', { query: 'build production deploy' });
    assert.equal(result.isError, undefined, result.text);
    const { results } = result.structuredContent as unknown as SearchJson;
    assert.equal(results.length, 2, 'search.limit: 2');
    for (const hit of results) {
      assert.ok(hit.content.length <= 300, `max_context_chars 300, got ${hit.content.length}`);
    }
    const more = await callTool(session.client, 'search_documents', { query: 'build production deploy', limit: 4 });
    assert.equal((more.structuredContent as unknown as SearchJson).results.length, 4, 'an explicit limit still wins');
  });

  it('started where no index exists, says so on stderr and exits non-zero (not a bare "Connection closed")', async () => {
    const empty = temporaryFolder('haiku-mcp-empty-');
    try {
      const run = await runCliProcess(['mcp'], { cwd: empty.path });
      assert.notEqual(run.code, 0);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^haiku mcp: No Haiku index at .*\.haiku: the folder does not exist\. Build one with `haiku index <folder>/);
      assert.equal(fs.existsSync(path.join(empty.path, '.haiku')), false, 'nothing is created');
    } finally {
      empty.cleanup();
    }
  });
});
