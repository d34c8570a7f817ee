import { stepCountIs, streamText, type LanguageModel, type ModelMessage } from 'ai';
import { CancelledError, throwIfAborted } from '../errors';
import type { AgentRun } from './agentRun';
import type { ToolPlan } from './toolPlan';

export interface ModelTurnOptions {
  model: LanguageModel;
  plan: ToolPlan;
  run: AgentRun;
  /** Requests the whole question may make; a turn stops at what earlier turns left. */
  maxRequests: number;
  temperature?: number;
  maxRetries: number;
  abortSignal?: AbortSignal;
}

export interface ModelTurnResult {
  /** The text of each response that had any, trimmed, in order. */
  texts: string[];
  messages: ModelMessage[];
}

/**
 * One tool loop over `messages`: each request gets the tools and instructions the plan allows for its number
 * (numbers continue from earlier turns of the same question); text streams out as events.
 */
export async function runModelTurn(options: ModelTurnOptions, messages: ModelMessage[]): Promise<ModelTurnResult> {
  const { plan, run, abortSignal } = options;
  const stepOffset = plan.requestsMade;
  let streamError: unknown;
  const result = streamText({
    model: options.model,
    system: plan.instructions,
    messages,
    tools: plan.tools,
    temperature: options.temperature,
    maxRetries: options.maxRetries,
    abortSignal,
    stopWhen: stepCountIs(Math.max(1, options.maxRequests - stepOffset)),
    prepareStep: ({ stepNumber }) => {
      run.currentStep = stepOffset + stepNumber;
      return plan.forRequest(run.currentStep);
    },
    onStepFinish: (step) => {
      const toolNames = step.toolCalls.map((call) => call.toolName);
      plan.recordResponse(run.currentStep, toolNames);
      run.emit({ type: 'step-finished', stepNumber: run.currentStep, toolNames, finishReason: step.finishReason });
    },
    // Errors are read from the stream below; without this the SDK would also log them to the console.
    onError: () => undefined,
  });
  const texts: string[] = [''];
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') {
      texts[texts.length - 1] += part.text;
      run.emit({ type: 'text-delta', text: part.text, stepNumber: run.currentStep });
    } else if (part.type === 'finish-step') {
      texts.push('');
    } else if (part.type === 'error') {
      streamError ??= part.error;
    } else if (part.type === 'abort') {
      streamError ??= new CancelledError('The question');
    }
  }
  if (streamError !== undefined) {
    throw streamError;
  }
  throwIfAborted(abortSignal, 'The question');
  const response = await result.response;
  return { texts: texts.map((text) => text.trim()).filter((text) => text !== ''), messages: response.messages };
}
