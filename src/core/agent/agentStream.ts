import type { AgentEvent } from './agentEvents';
import { runAgent, type AgentAnswer, type RunAgentOptions } from './runAgent';

export interface AgentStream {
  /** Every event of the run, in order; ends when the run ends (also on failure: then `answer` rejects). */
  events: AsyncIterable<AgentEvent>;
  answer: Promise<AgentAnswer>;
}

/**
 * `runAgent` as an async iterable of typed events, for consumers that prefer `for await` to a callback.
 * `options.onEvent`, when given, still sees every event first.
 */
export function streamAgent(options: RunAgentOptions): AgentStream {
  const queue: AgentEvent[] = [];
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const answer = runAgent({
    ...options,
    onEvent: (event) => {
      options.onEvent?.(event);
      queue.push(event);
      notify();
    },
  }).finally(() => {
    finished = true;
    notify();
  });
  // The caller observes failures through `answer`; this keeps an unobserved rejection from crashing the host.
  answer.catch(() => undefined);
  const events: AsyncIterable<AgentEvent> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length > 0) {
          yield queue.shift()!;
        }
        if (finished) {
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
  return { events, answer };
}
