import { tool } from 'ai';
import { z } from 'zod';
import type { CapabilityName } from './instructions';

export const LOAD_CAPABILITY_TOOL_NAME = 'load_capability';

/** What loading needs from the run's tool plan. */
export interface CapabilityLoader {
  /** Loads the capability for the requests after the current one; returns what to tell the model. */
  load(name: CapabilityName): string;
}

/**
 * `load_capability(name)`: in routed mode the capabilities are deferred; this loads one, adding its instructions and
 * tools from the next request on for the rest of the question. Its description stays one line on purpose: the
 * first request carries it instead of every tool set.
 */
export function createLoadCapabilityTool(loader: CapabilityLoader, names: readonly [CapabilityName, ...CapabilityName[]]) {
  return tool({
    description: 'Load a capability (listed in the instructions); its tools and instructions are available from your next response on.',
    inputSchema: z.object({ name: z.enum(names).describe('The capability to load.') }),
    execute: ({ name }) => Promise.resolve(loader.load(name)),
  });
}
