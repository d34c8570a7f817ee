import type { KnowledgeBase } from '../../../src/core/model/search';
import { runAgent, type RunAgentOptions } from '../../../src/core/agent/runAgent';
import type { AgentEvent } from '../../../src/core/agent/agentEvents';
import { createOpenAiCompatibleModel } from '../../../src/node/agent/openAiCompatibleModel';
import { startScriptedChatServer, type ScriptedChatServer } from '../../support/scriptedChatServer';
import { buildCorpusIndex, type CorpusIndex } from './corpusIndex';

/** Runs one question against the scripted server; collects the events. */
export async function askScripted(
  server: ScriptedChatServer,
  knowledgeBase: KnowledgeBase,
  options: Partial<RunAgentOptions> = {},
): Promise<{ answer: Awaited<ReturnType<typeof runAgent>>; events: AgentEvent[] }> {
  const { model, description } = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'scripted-model' });
  const events: AgentEvent[] = [];
  const answer = await runAgent({
    model,
    modelDescription: description,
    knowledgeBase,
    question: 'What does the manual say?',
    mode: 'rag',
    maxRetries: 0,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { answer, events };
}

/** What a suite's tests share: one corpus index for the suite, a fresh scripted server per test. */
export interface ScriptedCorpusFixture {
  corpus: CorpusIndex;
  server: ScriptedChatServer;
}

/** Registers the mocha hooks that build and close a `ScriptedCorpusFixture`; read its fields inside tests. */
export function useScriptedCorpus(): ScriptedCorpusFixture {
  const fixture = {} as ScriptedCorpusFixture;
  before(async () => {
    fixture.corpus = await buildCorpusIndex();
  });
  after(async () => {
    await fixture.corpus?.close();
  });
  beforeEach(async () => {
    fixture.server = await startScriptedChatServer();
  });
  afterEach(async () => {
    await fixture.server.close();
  });
  return fixture;
}
