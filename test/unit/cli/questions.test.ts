import * as assert from 'node:assert/strict';
import { runInProcess, startIndexedWorkspace, type IndexedWorkspace } from './cliHarness';
import { offeredToolNames, startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';

describe('haiku ask, analyze and chat', function () {
  this.timeout(120_000);
  let workspace: IndexedWorkspace;
  let server: ScriptedChatServer;
  const model = () => workspace.modelFlags();

  before(async () => {
    workspace = await startIndexedWorkspace({ 'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n', 'docs/cats.md': '# Cats\n\nCats sleep sixteen hours.\n' });
    server = workspace.server;
  });

  after(() => workspace.close());

  beforeEach(() => {
    server.requests.length = 0;
  });

  it('ask runs the rag capability only; analyze the analysis tools; chat defers both (the loader only) and the model routes', async () => {
    const expected: Array<[string, string[]]> = [
      ['ask', ['rag_cite', 'rag_search']],
      ['analyze', ['cite', 'execute_code', 'search']],
      ['chat', ['load_capability']],
    ];
    for (const [command, tools] of expected) {
      server.requests.length = 0;
      server.push({ text: `Answer from ${command}.` });
      const run = await runInProcess([command, 'How long do ferrets sleep?', ...model()], { cwd: workspace.path });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `Answer from ${command}.\n`);
      assert.deepEqual(offeredToolNames(server.requests[0]), tools, command);
    }
  });

  it('chat --capability limits the chat to one tool set; analysis runs on --analysis-model at --analysis-base-url', async () => {
    server.push({ text: 'Rag only.' });
    const rag = await runInProcess(['chat', 'How long do ferrets sleep?', '--capability', 'rag', ...model()], { cwd: workspace.path });
    assert.equal(rag.code, 0, rag.stderr);
    assert.deepEqual(offeredToolNames(server.requests[0]), ['rag_cite', 'rag_search']);
    assert.equal(server.requests[0].body.model, 'scripted');

    server.requests.length = 0;
    server.push({ text: 'Analysis on the coder.' });
    const analysis = await runInProcess(['chat', 'How many notes?', '--capability', 'analysis', '--analysis-model', 'coder', ...model()], { cwd: workspace.path });
    assert.equal(analysis.code, 0, analysis.stderr);
    assert.equal(analysis.stdout, 'Analysis on the coder.\n');
    assert.deepEqual(offeredToolNames(server.requests[0]), ['cite', 'execute_code', 'search']);
    assert.equal(server.requests[0].body.model, 'coder');

    // Its own server: the question model's server is not asked at all.
    const analysisServer = await startScriptedChatServer([{ text: 'From the analysis server.' }]);
    try {
      server.requests.length = 0;
      const elsewhere = await runInProcess(
        ['chat', 'How many notes?', '--capability', 'analysis', '--analysis-base-url', analysisServer.baseUrl, '--analysis-model', 'coder', ...model()],
        { cwd: workspace.path },
      );
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
      assert.equal(elsewhere.stdout, 'From the analysis server.\n');
      assert.equal(analysisServer.requests[0].body.model, 'coder');
      assert.equal(server.requests.length, 0);
    } finally {
      await analysisServer.close();
    }
  });

  it('chat refuses an unknown --capability, and analysis-model flags without --capability analysis, before asking the model', async () => {
    server.requests.length = 0;
    const unknown = await runInProcess(['chat', 'How long do ferrets sleep?', '--capability', 'code', ...model()], { cwd: workspace.path });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--capability is "code"; use rag .* or analysis/);
    for (const flags of [['--analysis-model', 'coder'], ['--analysis-model', 'coder', '--capability', 'rag'], ['--analysis-base-url', 'http://127.0.0.1:9/v1']]) {
      const run = await runInProcess(['chat', 'How long do ferrets sleep?', ...flags, ...model()], { cwd: workspace.path });
      assert.equal(run.code, 2, flags.join(' '));
      assert.match(run.stderr, /applies to the analysis capability alone: add --capability analysis/);
    }
    assert.equal(server.requests.length, 0);
  });

  it('chat without a question holds a conversation on a terminal: follow-ups carry the earlier turns', async () => {
    server.push({ text: 'Eighteen hours.' }, { text: 'Cats sleep less: sixteen.' });
    const run = await runInProcess(['chat', ...model()], { cwd: workspace.path, interactive: true, stdin: 'How long do ferrets sleep?\n\nAnd cats?\nexit\nnever asked\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'haiku> Eighteen hours.\n\nhaiku> haiku> Cats sleep less: sixteen.\n\nhaiku> ');
    assert.equal(server.requests.length, 2, 'the empty line is skipped and nothing after exit is asked');
    const second = JSON.stringify(server.requests[1].body.messages);
    assert.match(second, /How long do ferrets sleep\?/);
    assert.match(second, /Eighteen hours\./);
    assert.match(second, /And cats\?/);
  });

  it('chat without a question and without a terminal is a usage error', async () => {
    const run = await runInProcess(['chat', ...model()], { cwd: workspace.path, stdin: 'piped\n' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Give a question .*or run `haiku chat` in a terminal/);
    assert.equal(server.requests.length, 0);
  });

  it('an invalid or blank --filter fails before the model is asked (exit 1, the invalid_filter message)', async () => {
    for (const command of ['ask', 'analyze', 'chat']) {
      for (const filter of ['nope = 1', "format = 'pdf' AND", '   ']) {
        const run = await runInProcess([command, 'How long do ferrets sleep?', '--filter', filter, ...model()], { cwd: workspace.path });
        assert.equal(run.code, 1, `${command} --filter ${filter}: ${run.stderr}`);
        // One line naming the filter; the wording of an invalid one comes from the filter parser.
        assert.match(run.stderr, filter.trim() === '' ? /The filter is empty/ : new RegExp(`^haiku ${command}: .*filter.*\n$`, 'i'), `${command} --filter ${filter}`);
      }
    }
    assert.equal(server.requests.length, 0, 'the model server received no request');
  });

  it('a valid --filter narrows what the agent can search', async () => {
    server.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'sleep hours' } }] }, { text: 'Cats sleep sixteen hours.' });
    const run = await runInProcess(['ask', 'How long do they sleep?', '--filter', "relative_path = 'docs/cats.md'", '--json', ...model()], { cwd: workspace.path });
    assert.equal(run.code, 0, run.stderr);
    const searched = JSON.stringify(server.requests[1].body.messages.filter((message) => message.role === 'tool'));
    assert.match(searched, /Cats sleep sixteen/);
    assert.doesNotMatch(searched, /Ferrets/);
  });

  it('strips terminal escape sequences from the printed answer, and keeps them escaped in --json', async () => {
    const hostile = 'Ferrets\x1b]0;owned\x07 sleep \x1b[2J\x1b[31meighteen\x1b[0m hours\u009b2J.';
    server.push({ text: hostile }, { text: hostile });
    const text = await runInProcess(['ask', 'How long do ferrets sleep?', ...model()], { cwd: workspace.path });
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, 'Ferrets sleep eighteen hours.\n');
    const json = await runInProcess(['ask', 'How long do ferrets sleep?', '--json', ...model()], { cwd: workspace.path });
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, /[\x1b\x07\u009b]/, 'no raw control characters');
    assert.match(json.stdout, /\\u001b\]0;owned\\u0007/);
    assert.match(json.stdout, /\\u009b2J/);
    assert.equal((JSON.parse(json.stdout) as { answer: string }).answer, hostile, 'the JSON string is the answer unchanged');
  });
});
