/**
 * The code sandbox of `execute_code`: QuickJS (wasm) in a worker thread, driven from here.
 *
 * - The worker (`worker.ts` → `GuestSession`) evaluates guest code and forwards its host calls (search,
 *   list_documents, cite, readFile, listDir) here, where the `SandboxHost` answers them; results go back as text.
 * - Limits: a wall-clock deadline per `execute` (interrupt handler for compute, a timer for awaits, no host call
 *   starts past it), a memory and a stack limit, capped output. A timeout, crash or abort replaces the worker:
 *   the session resets and the result says so (`sessionReset`, and a note in stderr). A worker that does not
 *   report within `SANDBOX_WATCHDOG_GRACE_MS` after the deadline is killed.
 * - The worker only keeps the process alive while code runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CodeExecutionResult, CodeSandbox, SandboxHost } from '../../core/agent/codeSandbox';
import { hostCallSizeProblem, isSandboxHostMethod, toGuestDocument, toGuestSearchHit, type SandboxHostMethod } from '../../core/analysis/sandboxApi';
import { CancelledError, HaikuError, throwIfAborted } from '../../core/errors';
import {
  SANDBOX_CODE_TIMEOUT_SECONDS,
  SANDBOX_HOST_CALL_CONCURRENCY,
  SANDBOX_IN_FLIGHT_CALL_GRACE_SECONDS,
  SANDBOX_MAX_OUTPUT_CHARS,
  SANDBOX_MEMORY_LIMIT_BYTES,
  SANDBOX_READ_AHEAD_BATCH_CHARS,
  SANDBOX_SEARCH_DEFAULT_LIMIT,
  SANDBOX_SEARCH_MAX_LIMIT,
  SANDBOX_STACK_LIMIT_BYTES,
  SANDBOX_STARTUP_TIMEOUT_MS,
  SANDBOX_WATCHDOG_GRACE_MS,
  SANDBOX_WORKER_HEAP_MB,
  SANDBOX_WORKER_YOUNG_HEAP_MB,
} from '../../core/limits';
import { resolveWorkerScript, type WorkerScript } from '../workerResolution';
import type { MainToWorkerMessage, SandboxWorkerSettings, WorkerToMainMessage } from './protocol';
import { filesWithinRoom, ReadAheadPlanner } from './readAhead';
import { packTexts } from './packedText';

export interface CodeSandboxLimits {
  /** Wall-clock seconds per `execute`. */
  codeTimeoutSeconds: number;
  /** Characters kept of stdout (and, separately, of stderr) per `execute`. */
  maxOutputChars: number;
  /** QuickJS heap limit. */
  memoryLimitBytes: number;
  /** QuickJS stack limit; keep ≤ 256 KiB (see `SANDBOX_STACK_LIMIT_BYTES`). */
  stackLimitBytes: number;
  /** Past the deadline, how long a search or read already running may take to finish (seconds). */
  inFlightCallGraceSeconds: number;
}

export const DEFAULT_CODE_SANDBOX_LIMITS: Readonly<CodeSandboxLimits> = {
  codeTimeoutSeconds: SANDBOX_CODE_TIMEOUT_SECONDS,
  maxOutputChars: SANDBOX_MAX_OUTPUT_CHARS,
  memoryLimitBytes: SANDBOX_MEMORY_LIMIT_BYTES,
  stackLimitBytes: SANDBOX_STACK_LIMIT_BYTES,
  inFlightCallGraceSeconds: SANDBOX_IN_FLIGHT_CALL_GRACE_SECONDS,
};

export interface CreateCodeSandboxOptions {
  host: SandboxHost;
  limits?: Partial<CodeSandboxLimits>;
  /** Overrides where the worker script is found (see `resolveSandboxWorker`). */
  workerScript?: SandboxWorkerScript;
  abortSignal?: AbortSignal;
}

export type SandboxWorkerScript = WorkerScript;

const WASM_FILE_NAME = 'emscripten-module.wasm';
const compiledWasmByPath = new Map<string, Promise<WebAssembly.Module | undefined>>();

/**
 * Compiles QuickJS's wasm once per process and hands it to every worker, which then only instantiates it
 * (and shares V8's compiled code). The file is the one beside the worker script (the bundle's copy), or the
 * package's when running from source. Undefined when absent: the worker then loads the file itself and
 * reports what is missing.
 */
function compiledWasmFor(script: SandboxWorkerScript): Promise<WebAssembly.Module | undefined> {
  let wasmPath = path.join(path.dirname(script.file), WASM_FILE_NAME);
  if (!fs.existsSync(wasmPath) && script.file.endsWith('.ts')) {
    try {
      wasmPath = require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    } catch {
      return Promise.resolve(undefined);
    }
  }
  let compiled = compiledWasmByPath.get(wasmPath);
  if (!compiled) {
    compiled = fs.promises.readFile(wasmPath).then((bytes) => WebAssembly.compile(bytes)).catch(() => {
      compiledWasmByPath.delete(wasmPath);
      return undefined;
    });
    compiledWasmByPath.set(wasmPath, compiled);
  }
  return compiled;
}

const SESSION_RESET_NOTE = 'The sandbox session was reset: variables and functions from earlier execute_code calls are gone; define them again.';

/**
 * Where the worker script is (see `resolveWorkerScript`): `sandbox-worker.js` beside the bundle, `worker.js` beside
 * the tsc output, or `worker.ts` under tsx when running from source.
 */
export function resolveSandboxWorker(folder: string = __dirname): SandboxWorkerScript {
  return resolveWorkerScript(folder, { bundledFileName: 'sandbox-worker.js', sourceBaseName: 'worker', description: 'The sandbox worker', errorCode: 'sandbox_failed' });
}

/** Starts a sandbox (its worker and QuickJS) and waits until it can run code. */
export async function createCodeSandbox(options: CreateCodeSandboxOptions): Promise<CodeSandbox> {
  const limits: CodeSandboxLimits = { ...DEFAULT_CODE_SANDBOX_LIMITS, ...options.limits };
  const sandbox = new WorkerCodeSandbox(options.host, limits, options.workerScript ?? resolveSandboxWorker());
  try {
    await sandbox.start(options.abortSignal);
  } catch (error) {
    await sandbox.dispose();
    throw error;
  }
  return sandbox;
}

type ExecutionListener = {
  onMessage(message: WorkerToMainMessage): void;
  onExit(reason: string): void;
};

/** One worker thread running one guest session. */
class SandboxWorker {
  readonly ready: Promise<void>;
  /** What to send along with this worker's file reads (its cache holds what was sent). */
  readonly readAhead = new ReadAheadPlanner();
  private listener: ExecutionListener | undefined;
  private exited = false;
  private readonly worker: Worker;

  constructor(script: SandboxWorkerScript, settings: SandboxWorkerSettings) {
    this.worker = new Worker(script.file, {
      execArgv: script.execArgv,
      workerData: settings,
      stdout: false,
      stderr: false,
      // The guest heap lives in wasm memory capped by the worker itself; this bounds the thread's own V8 heap, so
      // that a leak on the host side of the bridge ends the worker, not the extension host.
      resourceLimits: { maxOldGenerationSizeMb: SANDBOX_WORKER_HEAP_MB, maxYoungGenerationSizeMb: SANDBOX_WORKER_YOUNG_HEAP_MB },
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new HaikuError('sandbox_failed', `The sandbox did not start within ${SANDBOX_STARTUP_TIMEOUT_MS / 1000} s.`));
        this.terminate('startup timeout');
      }, SANDBOX_STARTUP_TIMEOUT_MS);
      this.listener = {
        onMessage: (message) => {
          if (message.type === 'ready') {
            clearTimeout(timer);
            this.listen(undefined);
            resolve();
          } else if (message.type === 'startupFailed') {
            clearTimeout(timer);
            reject(new HaikuError('sandbox_failed', `The sandbox could not load QuickJS: ${message.message}. Check that emscripten-module.wasm ships next to the bundle.`));
            this.terminate('startup failed');
          }
        },
        onExit: (reason) => {
          clearTimeout(timer);
          reject(new HaikuError('sandbox_failed', `The sandbox worker stopped while starting: ${reason}.`));
        },
      };
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (message: WorkerToMainMessage) => this.listener?.onMessage(message));
    this.worker.on('error', (error: Error & { code?: string }) => this.exit(error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? `out of memory: the worker's heap passed ${SANDBOX_WORKER_HEAP_MB} MiB`
      : `${error.name}: ${error.message}`));
    this.worker.on('exit', (code) => this.exit(`exit code ${code}`));
  }

  /** Only a worker running code keeps the process alive: an idle sandbox never stops a CLI from exiting. */
  listen(listener: ExecutionListener | undefined): void {
    this.listener = listener;
    if (!this.exited) {
      if (listener) {
        this.worker.ref();
      } else {
        this.worker.unref();
      }
    }
  }

  /** `transferList`: buffers the message moves to the worker instead of copying (see `packTexts`). */
  post(message: MainToWorkerMessage, transferList: readonly ArrayBuffer[] = []): void {
    if (!this.exited) {
      this.worker.postMessage(message, transferList);
    }
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Kills the thread; whoever listens (a running execution, the startup) hears `reason` as an exit. */
  terminate(reason = 'terminated'): void {
    if (!this.exited) {
      this.exited = true;
      void this.worker.terminate().catch(() => undefined);
    }
    const listener = this.listener;
    this.listener = undefined;
    listener?.onExit(reason);
  }

  private exit(reason: string): void {
    if (this.exited) {
      return;
    }
    this.exited = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.onExit(reason);
  }
}

class WorkerCodeSandbox implements CodeSandbox {
  private worker: SandboxWorker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextExecutionId = 1;
  private disposed = false;
  private compiledWasm: WebAssembly.Module | undefined;

  constructor(private readonly host: SandboxHost, private readonly limits: CodeSandboxLimits, private readonly script: SandboxWorkerScript) {}

  async start(abortSignal?: AbortSignal): Promise<void> {
    this.compiledWasm = await compiledWasmFor(this.script);
    await this.readyWorker(abortSignal);
  }

  execute(code: string, options: { abortSignal?: AbortSignal } = {}): Promise<CodeExecutionResult> {
    const run = this.queue.then(() => this.run(code, options.abortSignal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    worker?.terminate('the sandbox was disposed');
  }

  private spawn(): SandboxWorker {
    return new SandboxWorker(this.script, {
      memoryLimitBytes: this.limits.memoryLimitBytes,
      stackLimitBytes: this.limits.stackLimitBytes,
      maxOutputChars: this.limits.maxOutputChars,
      inFlightCallGraceMs: this.limits.inFlightCallGraceSeconds * 1000,
      compiledWasm: this.compiledWasm,
    });
  }

  private async readyWorker(abortSignal?: AbortSignal): Promise<SandboxWorker> {
    if (this.disposed) {
      throw new HaikuError('sandbox_failed', 'The sandbox was disposed; create a new one for this question.');
    }
    if (!this.worker || !this.worker.alive) {
      this.worker = this.spawn();
    }
    const worker = this.worker;
    await abortable(worker.ready, abortSignal, () => this.reset(worker));
    return worker;
  }

  /** Kills the worker; a fresh one starts in the background so the next call does not wait for it. */
  private reset(worker: SandboxWorker): void {
    worker.terminate();
    if (this.worker === worker) {
      this.worker = this.disposed ? undefined : this.spawn();
    }
  }

  private async run(code: string, abortSignal?: AbortSignal): Promise<CodeExecutionResult> {
    throwIfAborted(abortSignal, 'The code execution');
    const worker = await this.readyWorker(abortSignal);
    const started = Date.now();
    const deadline = started + this.limits.codeTimeoutSeconds * 1000;
    const executionId = this.nextExecutionId++;
    // Per execution, so that a host call that never returns cannot hold a slot for later executions.
    const slots = new HostCallSlots(SANDBOX_HOST_CALL_CONCURRENCY);

    return new Promise<CodeExecutionResult>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: { stdout: string; stderr: string; success: boolean; sessionReset: boolean }): void => {
        if (settled) {
          return;
        }
        settled = true;
        cleanup();
        if (outcome.sessionReset) {
          this.reset(worker);
        }
        const stderr = outcome.sessionReset ? joinLines(outcome.stderr, SESSION_RESET_NOTE) : outcome.stderr;
        resolve({ code, stdout: outcome.stdout, stderr, success: outcome.success, durationMs: Date.now() - started, sessionReset: outcome.sessionReset });
      };
      const onAbort = (): void => {
        if (settled) {
          return;
        }
        settled = true;
        cleanup();
        this.reset(worker);
        reject(new CancelledError('The code execution'));
      };
      // The worker reports its own timeouts; this only fires if it stopped answering (stuck outside bytecode).
      // While host calls of this execution are still running here, the worker waits for them (up to its grace).
      const lastChance = deadline + this.limits.inFlightCallGraceSeconds * 1000 + SANDBOX_WATCHDOG_GRACE_MS;
      const onWatchdog = (): void => {
        if (slots.busy && Date.now() < lastChance) {
          watchdog = setTimeout(onWatchdog, lastChance - Date.now());
          return;
        }
        finish({
          stdout: '',
          stderr: `TimeoutError: the code did not stop within the time limit of ${this.limits.codeTimeoutSeconds} s and the sandbox was restarted.`,
          success: false,
          sessionReset: true,
        });
      };
      let watchdog = setTimeout(onWatchdog, deadline - started + SANDBOX_WATCHDOG_GRACE_MS);
      const cleanup = (): void => {
        clearTimeout(watchdog);
        abortSignal?.removeEventListener('abort', onAbort);
        worker.listen(undefined);
      };
      abortSignal?.addEventListener('abort', onAbort, { once: true });

      worker.listen({
        onMessage: (message) => {
          if (message.type === 'hostCall' && message.executionId === executionId) {
            void this.answerHostCall(worker, slots, message, deadline);
          } else if (message.type === 'executionResult' && message.executionId === executionId) {
            finish({ stdout: message.stdout, stderr: message.stderr, success: message.success, sessionReset: message.needsReset });
          }
        },
        onExit: (reason) => finish({
          stdout: '',
          stderr: `SandboxError: the sandbox worker stopped (${reason}).`,
          success: false,
          sessionReset: true,
        }),
      });
      worker.post({ type: 'execute', executionId, code, deadline, codeTimeoutSeconds: this.limits.codeTimeoutSeconds });
    });
  }

  private async answerHostCall(worker: SandboxWorker, slots: HostCallSlots, call: Extract<WorkerToMainMessage, { type: 'hostCall' }>, deadline: number): Promise<void> {
    const { callId, method } = call;
    const args = Array.isArray(call.args) ? call.args : [];
    let reply: MainToWorkerMessage;
    let transferList: ArrayBuffer[] = [];
    await slots.acquire();
    try {
      if (!worker.alive) {
        // The execution ended (timeout, abort, crash) while this call waited: nobody will read its result.
        return;
      }
      if (Date.now() >= deadline) {
        throw namedError('TimeoutError', `${method}() was not started: the time limit of ${this.limits.codeTimeoutSeconds} s for this execute_code call has passed.`);
      }
      if (!isSandboxHostMethod(method)) {
        throw namedError('TypeError', `Unknown host function ${String(method)}().`);
      }
      const sizeProblem = hostCallSizeProblem(method, args);
      if (sizeProblem !== undefined) {
        throw namedError('RangeError', sizeProblem);
      }
      if (method === 'readFile') {
        ({ reply, transferList } = await this.readWithReadAhead(worker, callId, stringArgument(args[0], 'readFile(path): path'), call.readAheadChars));
      } else {
        reply = { type: 'hostResult', callId, ok: true, value: await this.callHost(method, args) };
      }
    } catch (error) {
      const name = error instanceof Error && ['TypeError', 'TimeoutError', 'RangeError'].includes(error.name) ? error.name : 'Error';
      reply = { type: 'hostResult', callId, ok: false, name, message: error instanceof Error ? error.message : String(error) };
    } finally {
      slots.release();
    }
    worker.post(reply, transferList);
  }

  /**
   * One file, plus the files the worker's read-ahead asks for (`ReadAheadPlanner`), read together; files sent
   * ahead stop at the first that fails or would pass the worker's room (at most `SANDBOX_READ_AHEAD_BATCH_CHARS`).
   * All of them cross packed in one buffer, which the reply moves to the worker.
   */
  private async readWithReadAhead(worker: SandboxWorker, callId: number, path: string, readAheadChars: unknown): Promise<{ reply: MainToWorkerMessage; transferList: ArrayBuffer[] }> {
    const room = typeof readAheadChars === 'number' && Number.isFinite(readAheadChars) ? Math.min(readAheadChars, SANDBOX_READ_AHEAD_BATCH_CHARS) : 0;
    const listing = await this.host.listDir('/documents').catch(() => [] as string[]);
    const planned = worker.readAhead.plan(path, listing);
    const ahead = room > 0 ? planned : [];
    const [value, texts] = await Promise.all([
      this.host.readFile(path),
      Promise.all(ahead.map((aheadPath) => this.host.readFile(aheadPath).catch(() => undefined))),
    ]);
    const readAhead = filesWithinRoom(ahead, texts, room);
    worker.readAhead.sent(path, readAhead.length);
    const { packed, transferList } = packTexts([value, ...readAhead.map(([, text]) => text)]);
    const reply: MainToWorkerMessage = readAhead.length > 0
      ? { type: 'hostResult', callId, ok: true, value: packed[0], readAhead: readAhead.map(([aheadPath], index) => [aheadPath, packed[index + 1]]) }
      : { type: 'hostResult', callId, ok: true, value: packed[0] };
    return { reply, transferList };
  }

  /** Checks the arguments (they come from guest code) and runs the host function; returns what the guest parses. */
  private async callHost(method: SandboxHostMethod, args: unknown[]): Promise<string> {
    switch (method) {
      case 'search': {
        const query = stringArgument(args[0], 'search(query, limit): query');
        const limit = args[1] === null || args[1] === undefined ? SANDBOX_SEARCH_DEFAULT_LIMIT : Number(args[1]);
        if (!Number.isFinite(limit) || limit < 1) {
          throw namedError('TypeError', 'search(query, limit): limit must be a number of at least 1.');
        }
        const results = await this.host.search(query, Math.min(Math.floor(limit), SANDBOX_SEARCH_MAX_LIMIT));
        return JSON.stringify(results.map(toGuestSearchHit));
      }
      case 'list_documents':
        return JSON.stringify((await this.host.listDocuments()).map(toGuestDocument));
      case 'cite': {
        if (!args.every((id) => typeof id === 'string')) {
          throw namedError('TypeError', 'cite(chunkIds): pass one chunk id string or an array of them.');
        }
        return JSON.stringify(await this.host.cite(args as string[]));
      }
      case 'readFile':
        return await this.host.readFile(stringArgument(args[0], 'readFile(path): path'));
      case 'listDir':
        return JSON.stringify(await this.host.listDir(stringArgument(args[0], 'listDir(path): path')));
    }
  }
}

/** A counting semaphore over host calls. */
class HostCallSlots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}

  /** Some call holds a slot (is running on the host). */
  get busy(): boolean {
    return this.active > 0;
  }

  acquire(): Promise<void> {
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.active--;
    }
  }
}

function stringArgument(value: unknown, what: string): string {
  if (typeof value !== 'string') {
    throw namedError('TypeError', `${what} must be a string.`);
  }
  return value;
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function joinLines(first: string, second: string): string {
  return first === '' ? second : `${first}\n${second}`;
}

async function abortable<T>(promise: Promise<T>, abortSignal: AbortSignal | undefined, onAbort: () => void): Promise<T> {
  if (!abortSignal) {
    return promise;
  }
  throwIfAborted(abortSignal, 'Starting the sandbox');
  return new Promise<T>((resolve, reject) => {
    const listener = (): void => {
      onAbort();
      reject(new CancelledError('Starting the sandbox'));
    };
    abortSignal.addEventListener('abort', listener, { once: true });
    promise.then(
      (value) => {
        abortSignal.removeEventListener('abort', listener);
        resolve(value);
      },
      (error: unknown) => {
        abortSignal.removeEventListener('abort', listener);
        reject(error);
      },
    );
  });
}
