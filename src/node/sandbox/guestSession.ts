import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import { SANDBOX_ERROR_DESCRIPTION_BUDGET_MS, SANDBOX_HOST_CALLS_IN_FLIGHT_MAX, SANDBOX_IN_FLIGHT_CALL_GRACE_SECONDS, SANDBOX_STACK_TRACE_LINES, SANDBOX_WASM_OVERHEAD_BYTES } from '../../core/limits';
import { rewriteTopLevelDeclarations } from '../../core/analysis/topLevelDeclarations';
import { SANDBOX_GLOBAL_NAMES } from '../../core/analysis/sandboxApi';
import { BINARY_JSON_PROBE, encodeBinaryJson, encodeBinaryJsonLines, encodeBinaryJsonText, lineRanges } from './binaryJson';
import { codeUnits, packText, unpackText, type PackedText } from './packedText';
import { GUEST_PRELUDE_SOURCE } from './guestPrelude';

/**
 * One QuickJS runtime + context holding a guest's state across executions. Runs inside the sandbox worker
 * (see `worker.ts`); it knows nothing of messages: host calls go through `callHost`.
 *
 * Design (shared notes §2): the SYNC wasm variant, host functions that return guest promises settled by the
 * host, `JS_EVAL_FLAG_ASYNC` for top-level await with persistent top-level declarations, an interrupt handler
 * for the CPU deadline and a wall-clock timer for awaits on the host.
 */

/** QuickJS's `JS_EVAL_FLAG_ASYNC` (not in quickjs-emscripten's typings): top-level await, result = Promise<{value}>. */
const JS_EVAL_FLAG_ASYNC = 1 << 7;
const GUEST_FILE_NAME = 'execute_code.js';

export interface GuestSessionOptions {
  memoryLimitBytes: number;
  stackLimitBytes: number;
  maxOutputChars: number;
  /**
   * Performs a host call; resolves with JSON text, except `readFile`: the file's text, as a string or packed (what
   * the worker receives from the host thread), rejects with an Error.
   */
  callHost(method: string, args: unknown[]): Promise<string | PackedText>;
  /** Epoch milliseconds; tests substitute a controllable clock. */
  clock?: () => number;
  /** The QuickJS wasm compiled by the main thread (shared compiled code, no compile per worker). */
  compiledWasm?: WebAssembly.Module;
  /** How long past the deadline host calls in flight may take to finish before the execution ends without them (ms). */
  inFlightCallGraceMs?: number;
  /** False: hand values over as JSON text even when QuickJS's binary format works (tests of the fallback). */
  binaryJson?: boolean;
}

/**
 * Guest file functions answered from one `readFile` on the host: the text crosses exactly and without UTF-8
 * transcoding (QuickJS's binary format), and `readLines` gets its lines split here (the guest's split was slow).
 */
const FILE_SHAPES: Readonly<Record<string, (values: GuestValueFactory, text: PackedText) => QuickJSHandle>> = {
  readFile: (values, text) => values.createText(text),
  readLines: (values, text) => values.createLines(text),
  // The text, parsed by the guest: building the value on the host (V8's JSON.parse, then encoding every object) was
  // faster only once V8 had optimised the encoder, and each question's worker starts cold.
  readJson: (values, text) => values.createText(text),
};

export interface GuestOutcome {
  stdout: string;
  stderr: string;
  success: boolean;
  /** The context can no longer be trusted (interrupted, timed out, or a host-side fault): start a new session. */
  needsReset: boolean;
}

/** Keeps the first `limit` characters and counts the rest. */
class CappedText {
  private text = '';
  private dropped = 0;
  constructor(private readonly limit: number) {}

  append(chunk: string): void {
    const room = this.limit - this.text.length;
    if (room >= chunk.length) {
      this.text += chunk;
    } else {
      this.text += chunk.slice(0, Math.max(0, room));
      this.dropped += chunk.length - Math.max(0, room);
    }
  }

  toString(): string {
    if (this.dropped === 0) {
      return this.text;
    }
    const separator = this.text.endsWith('\n') || this.text === '' ? '' : '\n';
    return `${this.text}${separator}[output truncated: ${this.dropped} more characters]`;
  }
}

class Execution {
  readonly stdout: CappedText;
  readonly stderr: CappedText;
  readonly done: Promise<GuestOutcome>;
  private resolveDone!: (outcome: GuestOutcome) => void;
  finished = false;
  /** Host calls started and not yet settled. */
  inFlight = 0;
  /** The deadline passed while host calls were in flight: the execution ends when the last one settles. */
  endsWhenCallsSettle = false;

  constructor(readonly deadline: number, readonly codeTimeoutSeconds: number, maxOutputChars: number) {
    this.stdout = new CappedText(maxOutputChars);
    this.stderr = new CappedText(maxOutputChars);
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  finish(success: boolean, needsReset: boolean, error?: string): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    if (error !== undefined) {
      this.stderr.append(error.endsWith('\n') ? error : error + '\n');
    }
    this.resolveDone({ stdout: this.stdout.toString(), stderr: this.stderr.toString().replace(/\n$/, ''), success, needsReset });
  }
}

const WASM_PAGE_BYTES = 64 * 1024;
/** Emscripten's default initial memory for this build (its stack and static data live in it). */
const WASM_INITIAL_BYTES = 16 * 1024 * 1024;
/** The module declares at most 2 GiB of memory; a larger maximum would not link. */
const WASM_MAXIMUM_BYTES = 2 * 1024 * 1024 * 1024;
const wasmModulesByLimit = new Map<number, Promise<QuickJSWASMModule>>();

/**
 * The wasm memory's maximum for a heap limit. QuickJS's own limit (`setMemoryLimit`) does not hold in this
 * build: its allocator accounting counts 8 bytes per block under Emscripten (no `malloc_usable_size`), so a guest
 * could hold gigabytes of strings or ArrayBuffers "under" 64 MiB. Capping the linear memory makes `malloc` fail
 * instead, which QuickJS reports as a catchable "out of memory".
 */
function wasmMemoryMaximumBytes(memoryLimitBytes: number): number {
  return Math.ceil((memoryLimitBytes + SANDBOX_WASM_OVERHEAD_BYTES) / WASM_PAGE_BYTES) * WASM_PAGE_BYTES;
}

/**
 * The wasm module is loaded once per thread and memory limit (one memory per module): from the compiled module
 * the main thread sent, else the variant finds `emscripten-module.wasm` next to itself (the bundle's folder, or
 * node_modules from source).
 */
function loadModule(compiledWasm: WebAssembly.Module | undefined, memoryLimitBytes: number): Promise<QuickJSWASMModule> {
  let module = wasmModulesByLimit.get(memoryLimitBytes);
  if (!module) {
    const maximumBytes = Math.min(WASM_MAXIMUM_BYTES, Math.max(WASM_INITIAL_BYTES, wasmMemoryMaximumBytes(memoryLimitBytes)));
    // Reserved at its maximum from the start (untouched pages cost no memory): a memory that grows detaches the
    // views quickjs-emscripten holds across a call (`newPromise` failed with "detached ArrayBuffer" once a guest
    // had made thousands of promises).
    const wasmMemory = new WebAssembly.Memory({ initial: maximumBytes / WASM_PAGE_BYTES, maximum: maximumBytes / WASM_PAGE_BYTES });
    module = newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, compiledWasm ? { wasmModule: compiledWasm, wasmMemory } : { wasmMemory }));
    wasmModulesByLimit.set(memoryLimitBytes, module);
  }
  return module;
}

export class GuestSession {
  private current: Execution | undefined;
  private interrupted = false;
  private disposed = false;
  private readonly preludeApi: QuickJSHandle;
  private readonly completeFunction: QuickJSHandle;

  private readonly now: () => number;
  /** A guest string for `text`, fast for long texts (see `createStringFactory`). */
  private readonly newLargeString: (text: string) => QuickJSHandle;
  /** Guest copies of JSON values (see `GuestValueFactory`). */
  private readonly values: GuestValueFactory;

  private constructor(
    private readonly options: GuestSessionOptions,
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
  ) {
    this.now = options.clock ?? Date.now;
    this.newLargeString = createStringFactory(context);
    const bridge = this.createBridge();
    const prelude = context.unwrapResult(context.evalCode(GUEST_PRELUDE_SOURCE.replace('__STACK_LINES__', String(SANDBOX_STACK_TRACE_LINES)), 'sandbox-api.js'));
    this.preludeApi = context.unwrapResult(context.callFunction(prelude, context.undefined, bridge));
    prelude.dispose();
    bridge.dispose();
    this.completeFunction = context.getProp(this.preludeApi, 'complete');
    this.values = new GuestValueFactory(context, this.preludeApi, this.newLargeString, options.binaryJson ?? true);
  }

  /** File contents cross in QuickJS's binary format (false: as JSON text, the slower fallback). */
  get handsOverBinaryJson(): boolean {
    return this.values.binary;
  }

  static async create(options: GuestSessionOptions): Promise<GuestSession> {
    const module = await loadModule(options.compiledWasm, options.memoryLimitBytes);
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(options.memoryLimitBytes);
    // Above 256 KiB deep guest recursion can overflow the host's own stack instead of raising a guest error.
    runtime.setMaxStackSize(options.stackLimitBytes);
    const context = runtime.newContext();
    try {
      return new GuestSession(options, runtime, context);
    } catch (error) {
      context.dispose();
      runtime.dispose();
      throw error;
    }
  }

  /** Runs `code` until it settles, the CPU deadline interrupts it, or the wall clock passes `deadline`. */
  async execute(code: string, deadline: number, codeTimeoutSeconds: number): Promise<GuestOutcome> {
    if (this.disposed) {
      throw new Error('The guest session was disposed.');
    }
    if (this.current) {
      throw new Error('An execution is already running in this session.');
    }
    const execution = new Execution(deadline, codeTimeoutSeconds, this.options.maxOutputChars);
    this.current = execution;
    this.interrupted = false;
    this.runtime.setInterruptHandler(() => {
      if (this.now() >= deadline) {
        this.interrupted = true;
        return true;
      }
      return false;
    });
    // A guest awaiting a slow host call runs no bytecode, so the interrupt handler cannot fire: race the clock.
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const graceMs = this.options.inFlightCallGraceMs ?? SANDBOX_IN_FLIGHT_CALL_GRACE_SECONDS * 1000;
    const timer = setTimeout(() => {
      if (execution.inFlight === 0) {
        this.finishTimedOut(execution, 'the code was awaiting a promise that never settles');
        return;
      }
      // "One already running finishes": wait for the calls in flight (bounded), start none, run no more guest code.
      execution.endsWhenCallsSettle = true;
      graceTimer = setTimeout(() => this.finishTimedOut(execution, `a search or read was running, which did not finish within ${graceMs / 1000} s more; its result was dropped`), graceMs);
    }, Math.max(0, deadline - this.now()));
    try {
      this.start(execution, code);
      return await execution.done;
    } finally {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      this.runtime.removeInterruptHandler();
      this.current = undefined;
    }
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.completeFunction.dispose();
    this.preludeApi.dispose();
    this.values.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }

  private start(execution: Execution, code: string): void {
    const context = this.context;
    try {
      // Top-level const/let become var so that re-running a snippet does not fail on "redeclaration".
      const rewritten = rewriteTopLevelDeclarations(code, SANDBOX_GLOBAL_NAMES);
      let evaluated = context.evalCode(rewritten, GUEST_FILE_NAME, JS_EVAL_FLAG_ASYNC);
      if (evaluated.error && rewritten !== code) {
        // Errors here are parse errors (nothing ran): let the code as written decide.
        evaluated.error.dispose();
        evaluated = context.evalCode(code, GUEST_FILE_NAME, JS_EVAL_FLAG_ASYNC);
      }
      if (evaluated.error) {
        const description = this.describeGuestError(evaluated.error);
        evaluated.error.dispose();
        const redeclared = /redeclaration of '([^']+)'/.exec(description);
        this.finishFailed(execution, redeclared
          ? `${description}\n'${redeclared[1]}' already exists (a sandbox function, or a class or function declared by an earlier call): use another name.`
          : description);
        return;
      }
      const completion = context.callFunction(this.completeFunction, context.undefined, evaluated.value);
      evaluated.value.dispose();
      if (completion.error) {
        const description = this.describeGuestError(completion.error);
        completion.error.dispose();
        this.finishFailed(execution, description);
        return;
      }
      // complete() reports through done(); watching its promise as well catches what it cannot report
      // (uncatchable errors such as an interrupt or running out of memory while describing an error).
      const settled = context.resolvePromise(completion.value);
      completion.value.dispose();
      settled.then((result) => this.onCompleted(execution, result), (error: unknown) => this.finishFaulted(execution, error));
      // resolvePromise attaches its reaction inside the VM: jobs must run after it, or nothing ever settles.
      this.runJobs();
    } catch (error) {
      this.finishFaulted(execution, error);
    }
  }

  private onCompleted(execution: Execution, result: { value: QuickJSHandle } | { error: QuickJSHandle }): void {
    if ('error' in result) {
      const description = execution.finished ? '' : this.describeGuestError(result.error);
      result.error.dispose();
      this.finishFailed(execution, description);
      return;
    }
    result.value.dispose();
    // Normally done() has finished the execution already.
    this.finishFailed(execution, 'SandboxError: the code finished without reporting its outcome.');
  }

  /** `done(ok, text)` from the prelude's `complete`: the only way an outcome reaches the host. */
  private onDone(okHandle: QuickJSHandle, textHandle: QuickJSHandle): void {
    const execution = this.current;
    if (!execution || execution.finished) {
      return;
    }
    const ok = this.context.typeof(okHandle) === 'boolean' && this.context.dump(okHandle) === true;
    const text = this.context.typeof(textHandle) === 'string' ? this.readString(textHandle) : undefined;
    if (this.interrupted) {
      this.finishInterrupted(execution);
    } else if (ok) {
      if (text !== undefined) {
        execution.stdout.append(text.endsWith('\n') ? text : text + '\n');
      }
      execution.finish(true, false);
    } else {
      execution.finish(false, false, text ?? 'Error: unknown error');
    }
  }

  private finishFailed(execution: Execution, description: string): void {
    if (this.interrupted) {
      this.finishInterrupted(execution);
    } else {
      execution.finish(false, false, description);
    }
  }

  private finishInterrupted(execution: Execution): void {
    execution.finish(false, true, `InternalError: interrupted. The code ran past the time limit of ${execution.codeTimeoutSeconds} s and was stopped.`);
  }

  /**
   * The deadline passed while no bytecode ran (the guest was awaiting): nothing runaway, so the session keeps its
   * variables; output printed so far is returned.
   */
  private finishTimedOut(execution: Execution, situation: string): void {
    execution.finish(false, false, `TimeoutError: the time limit of ${execution.codeTimeoutSeconds} s was reached while ${situation}. ` +
      'No further search or read started and no further code of this call ran; variables from before are kept. Print partial results earlier, or do less per call.');
  }

  /** A host-side throw from the wasm bridge: the module's state is unknown, so the session must go. */
  private finishFaulted(execution: Execution, error: unknown): void {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    execution.finish(false, true, `SandboxError: the interpreter failed (${message}).`);
  }

  private runJobs(): void {
    const result = this.runtime.executePendingJobs();
    if ('error' in result && result.error) {
      result.error.dispose();
    }
    const execution = this.current;
    if (this.interrupted && execution) {
      this.finishInterrupted(execution);
    }
  }

  private describeGuestError(handle: QuickJSHandle): string {
    // describeError runs guest code: give it a short fresh budget so a hostile getter cannot hang us.
    const savedInterrupted = this.interrupted;
    const budgetEnd = this.now() + SANDBOX_ERROR_DESCRIPTION_BUDGET_MS;
    this.runtime.setInterruptHandler(() => this.now() >= budgetEnd);
    try {
      const describe = this.context.getProp(this.preludeApi, 'describeError');
      const described = this.context.callFunction(describe, this.context.undefined, handle);
      describe.dispose();
      if (described.error) {
        described.error.dispose();
        return this.dumpError(handle);
      }
      const text = this.context.typeof(described.value) === 'string' ? this.readString(described.value) : this.dumpError(handle);
      described.value.dispose();
      return text;
    } catch {
      return this.dumpError(handle);
    } finally {
      this.interrupted = savedInterrupted;
      const deadline = this.current?.deadline ?? 0;
      this.runtime.setInterruptHandler(() => {
        if (this.now() >= deadline) {
          this.interrupted = true;
          return true;
        }
        return false;
      });
    }
  }

  private dumpError(handle: QuickJSHandle): string {
    try {
      const dumped: unknown = this.context.dump(handle);
      if (dumped !== null && typeof dumped === 'object' && 'message' in dumped) {
        const { name, message } = dumped as { name?: unknown; message?: unknown };
        return `${String(name ?? 'Error')}: ${String(message)}`;
      }
      return `Uncaught ${JSON.stringify(dumped) ?? String(dumped)}`;
    } catch (error) {
      return `Error: ${error instanceof Error ? error.message : String(error)}`;
    }
  }


  /** A string from the guest, decoded from the prelude's NUL-safe form (see `encode` in the prelude). */
  private readString(handle: QuickJSHandle): string {
    return decodeFromGuest(this.context.getString(handle));
  }

  /** The raw host bridge handed to the prelude (never put on the guest's global object). */
  private createBridge(): QuickJSHandle {
    const context = this.context;
    const bridge = context.newObject();
    const call = context.newFunction('call', (methodHandle, ...argumentHandles) => this.hostCall(methodHandle, argumentHandles));
    const done = context.newFunction('done', (okHandle, textHandle) => {
      this.onDone(okHandle, textHandle);
    });
    const write = context.newFunction('write', (streamHandle, textHandle) => {
      const execution = this.current;
      if (execution && context.typeof(textHandle) === 'string') {
        const text = this.readString(textHandle);
        (context.getNumber(streamHandle) === 2 ? execution.stderr : execution.stdout).append(text);
      }
    });
    context.setProp(bridge, 'call', call);
    context.setProp(bridge, 'write', write);
    context.setProp(bridge, 'done', done);
    call.dispose();
    write.dispose();
    done.dispose();
    return bridge;
  }

  private hostCall(methodHandle: QuickJSHandle, argumentHandles: QuickJSHandle[]): QuickJSHandle {
    const context = this.context;
    const deferred = context.newPromise();
    const execution = this.current;
    const rejectNow = (name: string, message: string): QuickJSHandle => {
      const error = context.newError({ name, message });
      deferred.reject(error);
      error.dispose();
      return deferred.handle;
    };
    if (context.typeof(methodHandle) !== 'string') {
      return rejectNow('TypeError', 'Invalid host call.');
    }
    const method = context.getString(methodHandle);
    // Only primitives cross: nothing of a guest object (getters, toJSON, prototypes) is ever read here.
    const args: Array<string | number | null> = [];
    for (const handle of argumentHandles) {
      const kind = context.typeof(handle);
      if (kind === 'string') {
        args.push(this.readString(handle));
      } else if (kind === 'number') {
        args.push(context.getNumber(handle));
      } else if (kind === 'undefined') {
        args.push(null);
      } else {
        return rejectNow('TypeError', `${method}(): arguments must be strings or numbers.`);
      }
    }
    if (!execution || execution.finished) {
      return rejectNow('Error', `${method}() cannot start: no execute_code call is running.`);
    }
    if (this.now() >= execution.deadline) {
      return rejectNow('TimeoutError', `${method}() was not started: the time limit of ${execution.codeTimeoutSeconds} s for this execute_code call has passed. No further searches or reads start in this call; print what you have.`);
    }
    if (execution.inFlight >= SANDBOX_HOST_CALLS_IN_FLIGHT_MAX) {
      // Each call in flight holds its result's bytes on the host side until the guest takes them: bound them.
      return rejectNow('RangeError', `${method}(): too many host calls in flight (limit ${SANDBOX_HOST_CALLS_IN_FLIGHT_MAX}): await them in smaller batches (at most ${SANDBOX_HOST_CALLS_IN_FLIGHT_MAX} at a time).`);
    }
    execution.inFlight++;
    const shape = Object.hasOwn(FILE_SHAPES, method) ? FILE_SHAPES[method] : undefined;
    this.options.callHost(shape ? 'readFile' : method, args).then(
      (value) => this.settleHostCall(execution, deferred, (resolved) => {
        let handle: QuickJSHandle;
        try {
          handle = shape
            ? shape(this.values, typeof value === 'string' ? packText(value) : value)
            : this.newLargeString(encodeForGuest(typeof value === 'string' ? value : unpackText(value)));
        } catch (error) {
          if (!isGuestHandle(error)) {
            throw error;
          }
          // The guest's own error (out of memory while building the value): the call rejects with it.
          resolved.reject(error);
          error.dispose();
          return;
        }
        resolved.resolve(handle);
        handle.dispose();
      }),
      (error: unknown) => this.settleHostCall(execution, deferred, (rejected) => {
        const name = error instanceof Error && error.name ? error.name : 'Error';
        // Messages are plain text for the guest: a NUL (it would cut the message) becomes a visible escape.
        const message = (error instanceof Error ? error.message : String(error)).replace(/\u0000/g, '\\u0000');
        const handle = context.newError({ name, message });
        // "ENOENT: ..." style messages also get error.code, as Node's fs errors have.
        const kind = /^(E[A-Z]+):/.exec(message);
        if (kind) {
          const code = context.newString(kind[1]);
          context.setProp(handle, 'code', code);
          code.dispose();
        }
        rejected.reject(handle);
        handle.dispose();
      }),
    );
    return deferred.handle;
  }

  private settleHostCall(
    execution: Execution,
    deferred: ReturnType<QuickJSContext['newPromise']>,
    settle: (deferred: ReturnType<QuickJSContext['newPromise']>) => void,
  ): void {
    execution.inFlight--;
    // A result arriving after its execution ended (un-awaited call, timeout) is dropped: guest code only runs
    // inside an execution. Past the deadline no guest code resumes either (the interrupt would stop it and reset
    // the session); the execution ends once its last call in flight has finished.
    const pastDeadline = execution.endsWhenCallsSettle || this.now() >= execution.deadline;
    if (this.disposed || execution !== this.current || execution.finished || pastDeadline) {
      if (!this.disposed) {
        deferred.dispose();
      }
      if (pastDeadline && execution.inFlight === 0 && execution === this.current) {
        this.finishTimedOut(execution, 'a search or read was running; it finished, and its result was not handed to the code');
      }
      return;
    }
    try {
      settle(deferred);
      this.runJobs();
    } catch (error) {
      this.finishFaulted(execution, error);
    }
  }
}

/**
 * quickjs-emscripten passes strings as C strings, which end at the first NUL. A string holding a NUL (or starting
 * with the marker) crosses as the marker plus its JSON text, which holds no NUL; the prelude mirrors these two.
 */
const BRIDGE_MARK = '\u0001';

function encodeForGuest(text: string): string {
  return text.includes('\u0000') || text.startsWith(BRIDGE_MARK) ? BRIDGE_MARK + JSON.stringify(text) : text;
}

function decodeFromGuest(text: string): string {
  if (!text.startsWith(BRIDGE_MARK)) {
    return text;
  }
  try {
    const decoded: unknown = JSON.parse(text.slice(1));
    return typeof decoded === 'string' ? decoded : text;
  } catch {
    // Not the prelude's encoding (guest code cannot reach the raw bridge, but stay total): keep the text as is.
    return text;
  }
}

/** The parts of quickjs-emscripten 0.32's context that `newString` and `decodeBinaryJSON` use (not in its typings). */
interface ContextInternals {
  memory: { module: { _malloc(bytes: number): number; _free(pointer: number): void; HEAPU8: Uint8Array }; heapValueHandle(pointer: number): QuickJSHandle };
  ffi: {
    QTS_NewString(context: unknown, pointer: number): number;
    QTS_bjson_decode(context: unknown, buffer: unknown): number;
    QTS_NewArrayBuffer(context: unknown, pointer: number, length: number): number;
    QTS_ResolveException(context: unknown, value: number): number;
    QTS_FreeValuePointer(context: unknown, value: number): void;
  };
  ctx: { value: unknown };
}

function isGuestHandle(value: unknown): value is QuickJSHandle {
  return typeof value === 'object' && value !== null && 'alive' in value && 'dispose' in value && (value as { alive: unknown }).alive === true;
}

function splitLines(packed: PackedText): string[] {
  const text = unpackText(packed);
  const ranges = lineRanges(codeUnits(packed));
  const lines: string[] = [];
  for (let index = 0; index < ranges.length; index += 2) {
    lines.push(text.slice(ranges[index], ranges[index + 1]));
  }
  return lines;
}

/**
 * Guest copies of JSON values, written in QuickJS's binary format and read back by `QTS_bjson_decode` (no UTF-8
 * transcoding, no guest-side parsing). If this QuickJS build reads the probe differently (another format version)
 * or the internals are missing, values cross as JSON text parsed by the prelude's `JSON.parse` instead. A failed
 * decode (out of memory) throws the guest's error handle, which rejects the guest's call.
 */
class GuestValueFactory {
  readonly binary: boolean;
  private readonly internals: Partial<ContextInternals>;
  private readonly parseFunction: QuickJSHandle;

  constructor(private readonly context: QuickJSContext, preludeApi: QuickJSHandle, private readonly newLargeString: (text: string) => QuickJSHandle, useBinary: boolean) {
    this.internals = context as unknown as Partial<ContextInternals>;
    this.parseFunction = context.getProp(preludeApi, 'parse');
    const { ffi, ctx, memory } = this.internals;
    this.binary = useBinary && typeof ffi?.QTS_bjson_decode === 'function' && typeof ffi.QTS_NewArrayBuffer === 'function' && typeof ffi.QTS_ResolveException === 'function' && ctx !== undefined && memory !== undefined && this.probe();
  }

  /** The text as one guest string. */
  createText(packed: PackedText): QuickJSHandle {
    return this.binary ? this.decode(encodeBinaryJsonText(packed)) : this.viaText(unpackText(packed));
  }

  /** The lines of the text as `readLines` returns them. */
  createLines(packed: PackedText): QuickJSHandle {
    return this.binary ? this.decode(encodeBinaryJsonLines(packed)) : this.viaText(splitLines(packed));
  }

  dispose(): void {
    this.parseFunction.dispose();
  }

  /** Whether the guest reads the probe back exactly (types, -0, key order, a wide string with a NUL). */
  private probe(): boolean {
    const context = this.context;
    const check = context.unwrapResult(context.evalCode(`(function (value) {
      return JSON.stringify(value) === ${JSON.stringify(JSON.stringify(BINARY_JSON_PROBE))} && Object.is(value.a[3], -0) && value['é'].length === 4;
    })`, 'sandbox-probe.js'));
    try {
      const probe = this.decode(encodeBinaryJson(BINARY_JSON_PROBE));
      const verdict = context.callFunction(check, context.undefined, probe);
      probe.dispose();
      const works = !verdict.error && context.dump(verdict.value) === true;
      (verdict.error ?? verdict.value).dispose();
      return works;
    } catch (error) {
      (error as { dispose?: () => void }).dispose?.();
      return false;
    } finally {
      check.dispose();
    }
  }

  private viaText(value: unknown): QuickJSHandle {
    const text = this.newLargeString(JSON.stringify(value));
    try {
      return this.context.unwrapResult(this.context.callFunction(this.parseFunction, this.context.undefined, text));
    } finally {
      text.dispose();
    }
  }

  /** The guest value `bytes` (QuickJS's binary format) encode. */
  decode(bytes: Uint8Array): QuickJSHandle {
    const { ffi, ctx, memory } = this.internals as ContextInternals;
    // One copy into wasm memory, which the ArrayBuffer then owns (QuickJS frees it with the buffer).
    const pointer = memory.module._malloc(bytes.length);
    if (pointer === 0) {
      throw this.context.newError({ name: 'InternalError', message: 'out of memory' });
    }
    memory.module.HEAPU8.set(bytes, pointer);
    const buffer = memory.heapValueHandle(ffi.QTS_NewArrayBuffer(ctx.value, pointer, bytes.length));
    try {
      const result = ffi.QTS_bjson_decode(ctx.value, buffer.value);
      const errorPointer = ffi.QTS_ResolveException(ctx.value, result);
      if (errorPointer) {
        ffi.QTS_FreeValuePointer(ctx.value, result);
        throw memory.heapValueHandle(errorPointer);
      }
      return memory.heapValueHandle(result);
    } finally {
      buffer.dispose();
    }
  }
}

/** Texts shorter than this go through `newString` as is; the copy below pays off for file-sized texts. */
const FAST_STRING_MIN_LENGTH = 1024;

/**
 * `context.newString` encodes UTF-8 with Emscripten's JavaScript loop, about 50 ns per character: a 2 MB
 * `items.jsonl` took 100 ms to hand over, more than the guest needs to parse it. This encodes with the native
 * `TextEncoder` and copies the bytes into wasm memory, then calls the same `QTS_NewString`. Falls back to
 * `newString` when the internals are not there (another quickjs-emscripten version) or `malloc` fails (so the
 * guest sees the usual out-of-memory error).
 */
function createStringFactory(context: QuickJSContext): (text: string) => QuickJSHandle {
  const internals = context as unknown as Partial<ContextInternals>;
  const memory = internals.memory;
  const newString = internals.ffi?.QTS_NewString;
  if (!memory || typeof memory.module?._malloc !== 'function' || typeof memory.heapValueHandle !== 'function' || typeof newString !== 'function' || !internals.ctx) {
    return (text) => context.newString(text);
  }
  const encoder = new TextEncoder();
  const module = memory.module;
  const contextPointer = internals.ctx;
  const ffi = internals.ffi!;
  return (text) => {
    if (text.length < FAST_STRING_MIN_LENGTH) {
      return context.newString(text);
    }
    const bytes = encoder.encode(text);
    const pointer = module._malloc(bytes.length + 1);
    if (pointer === 0) {
      return context.newString(text);
    }
    try {
      // HEAPU8 is read after malloc: growing the memory replaces the view.
      module.HEAPU8.set(bytes, pointer);
      module.HEAPU8[pointer + bytes.length] = 0;
      return memory.heapValueHandle(ffi.QTS_NewString(contextPointer.value, pointer));
    } finally {
      module._free(pointer);
    }
  };
}
