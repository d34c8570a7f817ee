import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentSettingsFromConfig } from '../../../src/core/agent/runAgent';
import { defaultConfig } from '../../../src/core/config';
import { lastToolText, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { runInProcess, startIndexedWorkspace, type IndexedWorkspace } from './cliHarness';

/** The chunk ids at the head of each result block of a search tool's return. */
function chunkIdsIn(text: string): string[] {
  return [...text.matchAll(/^\[([^\]\s]+)\] \[rank \d+ of \d+\]/gm)].map((match) => match[1]);
}

describe('the citation policy is configurable (qa.citation_policy, --citation-policy)', function () {
  this.timeout(120_000);
  let workspace: IndexedWorkspace;
  let server: ScriptedChatServer;

  before(async () => {
    workspace = await startIndexedWorkspace({ 'docs/notes.md': '# Notes\n\n## Ferrets\n\nFerrets sleep eighteen hours a day.\n' });
    server = workspace.server;
  });
  after(() => workspace.close());
  beforeEach(() => {
    server.requests.length = 0;
    fs.rmSync(path.join(workspace.path, 'haiku.config.json'), { force: true });
  });

  /** Search, then answer without citing; with the policy, the redirect gets a cite and the answer again. */
  function scriptUncitedAnswer(): void {
    server.push(
      { toolCalls: [{ name: 'rag_search', arguments: { query: 'ferrets sleep' } }] },
      { text: 'Ferrets sleep eighteen hours.' },
      (request) => ({ toolCalls: [{ name: 'rag_cite', arguments: { chunk_ids: chunkIdsIn(lastToolText(request)).slice(0, 1) } }] }),
      { text: 'Ferrets sleep eighteen hours.' },
    );
  }

  it('maps the configuration onto the agent settings (off by default)', () => {
    const config = defaultConfig();
    assert.equal(config.qa.citationPolicy, false);
    assert.equal(agentSettingsFromConfig(config).citationPolicy, false);
    config.qa.citationPolicy = true;
    assert.equal(agentSettingsFromConfig(config).citationPolicy, true);
  });

  it('off: an uncited answer stays uncited; --citation-policy asks once for its citations; so does the config file', async () => {
    server.push({ toolCalls: [{ name: 'rag_search', arguments: { query: 'ferrets sleep' } }] }, { text: 'Ferrets sleep eighteen hours.' });
    const off = await runInProcess(['ask', 'How long do ferrets sleep?', '--json', ...workspace.modelFlags()], { cwd: workspace.path });
    assert.equal(off.code, 0, off.stderr);
    assert.equal(JSON.parse(off.stdout).citation_status, 'missing');
    assert.equal(server.requests.length, 2);

    for (const [how, flags] of [['flag', ['--citation-policy']], ['file', []]] as const) {
      server.requests.length = 0;
      if (how === 'file') {
        fs.writeFileSync(path.join(workspace.path, 'haiku.config.json'), JSON.stringify({ qa: { citation_policy: true } }));
      }
      scriptUncitedAnswer();
      const run = await runInProcess(['ask', 'How long do ferrets sleep?', '--json', ...flags, ...workspace.modelFlags()], { cwd: workspace.path });
      assert.equal(run.code, 0, run.stderr);
      const answer = JSON.parse(run.stdout) as { answer: string; citation_status: string; citations: unknown[]; requests: number };
      assert.equal(answer.citation_status, 'grounded', how);
      assert.equal(answer.citations.length, 1, how);
      assert.equal(answer.answer, 'Ferrets sleep eighteen hours.');
      assert.equal(server.requests.length, 4, how);
      assert.match(String(server.requests[2].body.messages.at(-1)?.content), /^\[haiku\/citation-redirect\]/);
    }
  });
});
