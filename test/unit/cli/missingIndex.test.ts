import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runInProcess } from './cliHarness';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';

describe('haiku commands on a database that does not exist', function () {
  this.timeout(60_000);
  let workspace: ReturnType<typeof temporaryFolder>;
  let server: ScriptedChatServer;

  before(async () => {
    server = await startScriptedChatServer();
  });

  after(async () => server.close());

  beforeEach(() => {
    workspace = temporaryFolder('haiku-missing-');
    writeFiles(workspace.path, { 'docs/notes.md': '# Notes\n\nFerrets sleep.\n', 'not-an-index/readme.txt': 'a folder without tables' });
  });

  afterEach(() => workspace.cleanup());

  const model = () => ['--base-url', server.baseUrl, '--model', 'scripted'];
  const commands = (): string[][] => [
    ['search', 'ferrets'],
    ['docs'],
    ['toc', 'docs/notes.md'],
    ['ask', 'What do ferrets do?', ...model()],
    ['analyze', 'How many documents?', ...model()],
    ['chat', 'Which documents are there?', ...model()],
    ['remove', 'docs/notes.md'],
    ['rebuild'],
  ];

  it('each read command says there is no index, exits 1 and creates nothing (a mistyped --db, the default .haiku/, a folder without tables)', async () => {
    for (const database of ['typo/index', undefined, 'not-an-index']) {
      for (const argv of commands()) {
        const full = database ? [...argv, '--db', database] : argv;
        const run = await runInProcess(full, { cwd: workspace.path });
        const shown = path.join(workspace.path, database ?? '.haiku');
        assert.equal(run.code, 1, `${full.join(' ')}: ${run.stderr}`);
        assert.equal(run.stderr, `haiku ${argv[0]}: No Haiku index at ${shown}; run \`haiku index <folder> --db ${shown}\` first.\n`);
        assert.equal(run.stdout, '');
      }
      assert.equal(fs.existsSync(path.join(workspace.path, 'typo')), false, 'no folder was created for the mistyped --db');
      assert.equal(fs.existsSync(path.join(workspace.path, '.haiku')), false, 'no default index was created');
      assert.deepEqual(fs.readdirSync(path.join(workspace.path, 'not-an-index')), ['readme.txt'], 'no tables were added to an unrelated folder');
    }
    assert.equal(server.requests.length, 0, 'no model was asked');
  });

  it('index still creates the index, and the read commands then work', async () => {
    const indexed = await runInProcess(['index', 'docs', '--db', 'fresh/index', '--quiet'], { cwd: workspace.path });
    assert.equal(indexed.code, 0, indexed.stderr);
    const found = await runInProcess(['search', 'ferrets', '--db', 'fresh/index'], { cwd: workspace.path });
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /Notes/);
  });
});
