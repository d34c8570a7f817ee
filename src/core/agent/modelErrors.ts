import { APICallError, RetryError } from 'ai';
import { CancelledError, HaikuError, errorMessage, isHaikuError } from '../errors';

/** What the error messages may say about the model in use. */
export interface ModelDescription {
  /** Shown in messages, e.g. `qwen3:8b`. */
  name?: string;
  /** The server's base URL, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl?: string;
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/** Codes that mean no server listens there: retrying the request cannot help. */
const NO_SERVER_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The connection error code somewhere in an error's cause chain. */
export function connectionErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) {
      return code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the error says nothing listens at the address (refused, unknown host), as opposed to a dropped connection. */
export function isNoServerError(error: unknown): boolean {
  const code = connectionErrorCode(error);
  return code !== undefined && NO_SERVER_CODES.has(code);
}

/** The `model_unreachable` error for a server that does not answer at `where`. */
export function modelUnreachableError(where: string, detail: string, options?: { cause?: unknown }): HaikuError {
  return new HaikuError(
    'model_unreachable',
    `Cannot reach the model server at ${where} (${detail}). Start it (for Ollama: 'ollama serve') or point Haiku at the right base URL.`,
    { ...options, remedy: { settings: ['qa.model.baseUrl'] } },
  );
}

/** The server's own error text, shortened to what fits in one line. */
function serverSaid(error: APICallError): string {
  let text = error.responseBody ?? error.message;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    text = (typeof parsed.error === 'string' ? parsed.error : parsed.error?.message) ?? parsed.message ?? text;
  } catch {
    // Not JSON: keep the raw body.
  }
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}

/**
 * Turns whatever the AI SDK or a provider threw into a `HaikuError` whose one-line message says what happened and
 * what to do: `model_unreachable` when no server answers, `model_failed` for unknown models, models without tool
 * calling, rejected keys, timeouts and other server errors; `cancelled` when the caller aborted.
 */
export function toModelError(error: unknown, model: ModelDescription = {}, abortSignal?: AbortSignal): HaikuError {
  if (isHaikuError(error)) {
    return error;
  }
  if (abortSignal?.aborted) {
    return new CancelledError('The question');
  }
  if (RetryError.isInstance(error)) {
    return toModelError(error.lastError, model, abortSignal);
  }
  const name = model.name ? `'${model.name}'` : 'the model';
  const where = model.baseUrl ?? (APICallError.isInstance(error) ? error.url : 'the configured base URL');
  if (error instanceof Error && (error.name === 'TimeoutError' || /timed? ?out/i.test(error.message)) && !APICallError.isInstance(error)) {
    return new HaikuError('model_failed', `The model ${name} at ${where} did not answer in time. Try again, pick a smaller or faster model, or check the server's load.`, { cause: error });
  }
  const connectionCode = connectionErrorCode(error);
  if (connectionCode !== undefined || (APICallError.isInstance(error) && error.statusCode === undefined && /cannot connect/i.test(error.message))) {
    return modelUnreachableError(where, connectionCode ?? errorMessage(error), { cause: error });
  }
  if (APICallError.isInstance(error)) {
    const said = serverSaid(error);
    const status = error.statusCode;
    if (/tool/i.test(said) && (status === 400 || status === undefined || status >= 500 || /support/i.test(said))) {
      return new HaikuError('model_failed', `The model ${name} does not support tool calling (server said: ${said}). Pick a model with tool support, e.g. qwen3, llama3.1 or gpt-oss.`, { cause: error });
    }
    if (status === 404) {
      return new HaikuError(
        'model_failed',
        `The model server at ${where} does not know the model ${name} (404: ${said}). Check the model name (for Ollama: 'ollama pull <name>') and that the base URL ends in /v1.`,
        { cause: error, remedy: { settings: ['qa.model.name', 'qa.model.baseUrl'] } },
      );
    }
    if (status === 401 || status === 403) {
      return new HaikuError('model_failed', `The model server at ${where} rejected the API key (${status}: ${said}). Set a valid key.`, { cause: error, remedy: { settings: ['qa.model.apiKey'] } });
    }
    if (status === 400) {
      return new HaikuError('model_failed', `The model server at ${where} rejected the request for ${name} (400: ${said}). Check that the model supports chat completions with tools.`, { cause: error });
    }
    return new HaikuError('model_failed', `The model server at ${where} failed${status ? ` (${status})` : ''}: ${said}. Try again or check the server's logs.`, { cause: error });
  }
  return new HaikuError('model_failed', `The model ${name} failed: ${errorMessage(error).replace(/\s+/g, ' ').trim()}`, { cause: error });
}
