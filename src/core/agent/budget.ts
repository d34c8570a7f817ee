import { CITE_GRACE_REQUESTS, SEARCHES_PER_UNIT } from '../limits';

/**
 * The search budget of one question, in units: up to `SEARCHES_PER_UNIT` searches emitted in the same model
 * response share one unit (a model that rephrases its query three ways in one response spends one unit); a
 * search in a later response starts a new unit, as does each further group of three in one response.
 */
export class SearchBudget {
  private unitsUsed = 0;
  /** Searches granted per response (step number → count). */
  private readonly grantedPerStep = new Map<number, number>();

  constructor(readonly maxUnits: number) {}

  /** Claims one search in response `step`; false when it would need a unit the budget no longer has. */
  tryClaim(step: number): boolean {
    const granted = this.grantedPerStep.get(step) ?? 0;
    if (granted % SEARCHES_PER_UNIT === 0) {
      if (this.unitsUsed >= this.maxUnits) {
        return false;
      }
      this.unitsUsed += 1;
    }
    this.grantedPerStep.set(step, granted + 1);
    return true;
  }

  get used(): number {
    return this.unitsUsed;
  }

  /** No unit left: a later response cannot search any more. */
  get spent(): boolean {
    return this.unitsUsed >= this.maxUnits;
  }
}

/** `execute_code` calls per question. */
export class ExecutionBudget {
  private count = 0;

  constructor(readonly maxExecutions: number) {}

  tryClaim(): boolean {
    if (this.count >= this.maxExecutions) {
      return false;
    }
    this.count += 1;
    return true;
  }

  get used(): number {
    return this.count;
  }

  get spent(): boolean {
    return this.count >= this.maxExecutions;
  }
}

/** What a tool set may still offer for the next model request. */
export type ToolAvailability = 'all' | 'cite-only' | 'none';

/**
 * The request limit of one tool set. The first `requestLimit` requests it is active for (from `firstStep`, the
 * request after it was loaded when deferred) see every tool; after that only the cite tool stays, for
 * `CITE_GRACE_REQUESTS` further requests whose responses call one of this tool set's tools (responses that only
 * call other tools or answer in text do not consume that window). `null` disables.
 *
 * @param step 0-based number of the request about to be made.
 * @param toolNamesPerStep tool names each earlier response called, by step.
 */
export function toolAvailability(
  step: number,
  toolNamesPerStep: ReadonlyArray<readonly string[]>,
  requestLimit: number | null,
  toolSetNames: ReadonlySet<string>,
  firstStep = 0,
): ToolAvailability {
  const limitStep = requestLimit === null ? Infinity : firstStep + requestLimit;
  if (step < limitStep) {
    return 'all';
  }
  let graceUsed = 0;
  for (let earlier = limitStep; earlier < step; earlier++) {
    if ((toolNamesPerStep[earlier] ?? []).some((name) => toolSetNames.has(name))) {
      graceUsed += 1;
    }
  }
  return graceUsed < CITE_GRACE_REQUESTS ? 'cite-only' : 'none';
}
