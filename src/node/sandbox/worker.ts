/**
 * Entry point of the sandbox worker thread (bundled to `dist/sandbox-worker.js`). It owns one `GuestSession`
 * and forwards the guest's host calls to the main thread, where `createCodeSandbox` answers them from its
 * `SandboxHost`. A crash here cannot take the extension host down; the main thread just replaces the worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { hostCallSizeProblem } from '../../core/analysis/sandboxApi';
import { SANDBOX_READ_AHEAD_BATCH_CHARS, SANDBOX_WORKER_CACHE_CHARS } from '../../core/limits';
import { GuestSession } from './guestSession';
import { packedLength, type PackedText } from './packedText';
import { warmUpGuestPaths } from './warmUp';
import type { MainToWorkerMessage, SandboxWorkerSettings, WorkerToMainMessage } from './protocol';

if (!parentPort) {
  throw new Error('sandbox worker: must run as a worker thread (see createCodeSandbox).');
}
const port = parentPort;
const settings = workerData as SandboxWorkerSettings;
const pendingCalls = new Map<number, { resolve: (value: string | PackedText) => void; reject: (error: Error) => void }>();
let nextCallId = 1;
let currentExecutionId = 0;

function send(message: WorkerToMainMessage): void {
  port.postMessage(message);
}

/**
 * Read-only VFS answers kept in this thread: the files of one question never change (the host builds each once),
 * so a second read of a file, in this or a later execution, does not cross to the host thread again. Files the
 * host sends ahead (see `ReadAheadPlanner`) land here too. Bounded by `SANDBOX_WORKER_CACHE_CHARS`.
 */
const readOnlyCache = new Map<string, string | PackedText>();
let readOnlyCacheChars = 0;
/** `readFile` calls waiting for the host: read-ahead is only asked for when reads come one after another. */
let readsInFlight = 0;

function cacheAnswer(key: string, value: string | PackedText): void {
  const chars = typeof value === 'string' ? value.length : packedLength(value);
  if (!readOnlyCache.has(key) && readOnlyCacheChars + chars <= SANDBOX_WORKER_CACHE_CHARS) {
    readOnlyCache.set(key, value);
    readOnlyCacheChars += chars;
  }
}

function callHost(method: string, args: unknown[]): Promise<string | PackedText> {
  // Oversized arguments are refused here, so they never cross to (and occupy) the host thread.
  const sizeProblem = hostCallSizeProblem(method, args);
  if (sizeProblem !== undefined) {
    const error = new Error(sizeProblem);
    error.name = 'RangeError';
    return Promise.reject(error);
  }
  const cacheKey = (method === 'readFile' || method === 'listDir') && typeof args[0] === 'string' ? `${method}\u0000${args[0]}` : undefined;
  const cached = cacheKey === undefined ? undefined : readOnlyCache.get(cacheKey);
  if (cached !== undefined) {
    return Promise.resolve(cached);
  }
  // Concurrent reads (Promise.all over files) would fetch each other's files twice: no read-ahead for them.
  const readAheadChars = method === 'readFile' && readsInFlight === 0 ? Math.max(0, Math.min(SANDBOX_READ_AHEAD_BATCH_CHARS, SANDBOX_WORKER_CACHE_CHARS - readOnlyCacheChars)) : 0;
  const answer = new Promise<string | PackedText>((resolve, reject) => {
    const callId = nextCallId++;
    pendingCalls.set(callId, { resolve, reject });
    send({ type: 'hostCall', executionId: currentExecutionId, callId, method, args, readAheadChars });
  });
  if (cacheKey === undefined) {
    return answer;
  }
  if (method === 'readFile') {
    readsInFlight++;
  }
  return answer.then((value) => {
    cacheAnswer(cacheKey, value);
    return value;
  }).finally(() => {
    if (method === 'readFile') {
      readsInFlight--;
    }
  });
}

// The warm-up runs before 'ready': hosts start the sandbox ahead of its first use (see AgentRun.prepareSandbox).
const sessionReady = GuestSession.create({ ...settings, callHost }).then(async (session) => {
  await warmUpGuestPaths(settings);
  return session;
});

sessionReady.then(
  () => send({ type: 'ready' }),
  (error: unknown) => send({ type: 'startupFailed', message: error instanceof Error ? error.message : String(error) }),
);

port.on('message', (message: MainToWorkerMessage) => {
  if (message.type === 'hostResult') {
    const pending = pendingCalls.get(message.callId);
    pendingCalls.delete(message.callId);
    if (!pending) {
      return;
    }
    if (message.ok) {
      for (const [path, text] of message.readAhead ?? []) {
        cacheAnswer(`readFile\u0000${path}`, text);
      }
      pending.resolve(message.value);
    } else {
      const error = new Error(message.message);
      error.name = message.name;
      pending.reject(error);
    }
    return;
  }
  if (message.type === 'execute') {
    currentExecutionId = message.executionId;
    void sessionReady
      .then((session) => session.execute(message.code, message.deadline, message.codeTimeoutSeconds))
      .then(
        (outcome) => send({ type: 'executionResult', executionId: message.executionId, ...outcome }),
        (error: unknown) => send({
          type: 'executionResult',
          executionId: message.executionId,
          stdout: '',
          stderr: `SandboxError: ${error instanceof Error ? error.message : String(error)}`,
          success: false,
          needsReset: true,
        }),
      );
  }
});
