import * as assert from 'node:assert/strict';
import { runInProcess, runProcess, startIndexedWorkspace, type IndexedWorkspace } from './cliHarness';
import type { ScriptedChatServer } from '../../support/scriptedChatServer';

describe('haiku: - reads the query or question from standard input', function () {
  this.timeout(120_000);
  let workspace: IndexedWorkspace;
  let server: ScriptedChatServer;

  before(async () => {
    workspace = await startIndexedWorkspace({ 'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n' });
    server = workspace.server;
  });

  after(() => workspace.close());

  it('search - takes the query from a pipe (a real process)', async () => {
    const run = await runProcess(['search', '-', '--limit', '1'], { cwd: workspace.path, stdin: 'how long do ferrets sleep\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^1\. \[[\d.]+\] Notes > Ferrets\n/);
  });

  it('ask - sends the whole of standard input as the question, several lines included', async () => {
    server.push({ text: 'They sleep eighteen hours.' });
    const question = 'How long do ferrets sleep?\nAnswer in one sentence.';
    const run = await runInProcess(['ask', '-', ...workspace.modelFlags()], { cwd: workspace.path, stdin: `${question}\n` });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^They sleep eighteen hours\./);
    const userMessages = server.requests.at(-1)!.body.messages.filter((message) => message.role === 'user');
    assert.match(JSON.stringify(userMessages.at(-1)!.content), /How long do ferrets sleep\?\\nAnswer in one sentence\./);
  });

  it('an empty standard input is a usage error (exit code 2) and asks nothing', async () => {
    const before = server.requests.length;
    const run = await runInProcess(['ask', '-', ...workspace.modelFlags()], { cwd: workspace.path, stdin: '  \n' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Give a question on standard input/);
    assert.equal(server.requests.length, before);
    const search = await runInProcess(['search', '-'], { cwd: workspace.path, stdin: '' });
    assert.equal(search.code, 2);
    assert.match(search.stderr, /Give a query on standard input/);
  });

  it('a - among other words is a word, not standard input', async () => {
    const run = await runInProcess(['search', 'ferrets', '-', 'sleep', '--limit', '1'], { cwd: workspace.path, stdin: 'ignored' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Notes > Ferrets/);
  });
});
