import type { KnowledgeBase } from '../../../src/core/model/search';
import { runAgent, type RunAgentOptions } from '../../../src/core/agent/runAgent';
import type { AgentEvent } from '../../../src/core/agent/agentEvents';
import { createOpenAiCompatibleModel } from '../../../src/node/agent/openAiCompatibleModel';
import type { ScriptedChatServer } from '../../support/scriptedChatServer';

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
