import * as assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CodeSandbox, SandboxHost } from '../../../src/core/agent/codeSandbox';
import { createKnowledgeBaseSandboxHost } from '../../../src/core/analysis/knowledgeBaseSandboxHost';
import { SANDBOX_HOST_CALL_CONCURRENCY, SANDBOX_READ_AHEAD_BATCH_CHARS, SANDBOX_STACK_TRACE_LINES, SANDBOX_WATCHDOG_GRACE_MS } from '../../../src/core/limits';
import { SANDBOX_API_DESCRIPTION } from '../../../src/core/analysis/sandboxApi';
import { isHaikuError } from '../../../src/core/errors';
import { createCodeSandbox, type CodeSandboxLimits } from '../../../src/node/sandbox/codeSandbox';
import { repositoryRoot } from '../../support/paths';
import { createStructuredKnowledgeBase, type StructuredDocument } from '../../support/structuredKnowledgeBase';

const guide: StructuredDocument = {
  id: 'dguide',
  uri: 'file:///work/docs/guide.md',
  title: 'User guide',
  relativePath: 'docs/guide.md',
  items: [
    { selfRef: '#/texts/0', label: 'section_header', text: 'Install', headingLevel: 1 },
    { selfRef: '#/texts/1', label: 'paragraph', text: 'Run the installer for apples.' },
    { selfRef: '#/texts/2', label: 'section_header', text: 'Usage', headingLevel: 1 },
    { selfRef: '#/texts/3', label: 'paragraph', text: 'Open the app and pick apples.' },
  ],
  chunks: [
    { chunkId: 'c-install', itemRefs: ['#/texts/0', '#/texts/1'] },
    { chunkId: 'c-usage', itemRefs: ['#/texts/2', '#/texts/3'] },
  ],
};

const secret: StructuredDocument = {
  id: 'dsecret',
  uri: 'file:///work/private/secret.md',
  title: 'Secret',
  relativePath: 'private/secret.md',
  items: [{ selfRef: '#/texts/0', label: 'paragraph', text: 'Secret apples are kept here.' }],
  chunks: [{ chunkId: 'c-secret', itemRefs: ['#/texts/0'] }],
};

const onlyDocs = "relative_path LIKE 'docs/%'";

interface RecordingHost extends SandboxHost {
  searches: Array<{ query: unknown; limit: unknown }>;
  cited: string[][];
}

function recordingHost(overrides: Partial<SandboxHost> = {}): RecordingHost {
  const searches: RecordingHost['searches'] = [];
  const cited: string[][] = [];
  const base = createKnowledgeBaseSandboxHost({ knowledgeBase: createStructuredKnowledgeBase([guide, secret]), filter: onlyDocs });
  return {
    searches,
    cited,
    search: async (query, limit) => {
      searches.push({ query, limit });
      return base.search(query, limit);
    },
    listDocuments: () => base.listDocuments(),
    cite: async (chunkIds) => {
      cited.push(chunkIds);
      return base.cite(chunkIds);
    },
    readFile: (file) => base.readFile(file),
    listDir: (folder) => base.listDir(folder),
    ...overrides,
  };
}

async function sandboxWith(limits: Partial<CodeSandboxLimits> = {}, host: SandboxHost = recordingHost()): Promise<CodeSandbox> {
  return createCodeSandbox({ host, limits: { codeTimeoutSeconds: 10, ...limits } });
}

describe('code sandbox (QuickJS in a worker)', function () {
  this.timeout(60_000);
  let shared: CodeSandbox;
  let sharedHost: RecordingHost;

  before(async () => {
    sharedHost = recordingHost();
    shared = await sandboxWith({}, sharedHost);
  });
  after(async () => {
    await shared.dispose();
  });

  describe('execution', () => {
    it('keeps top-level declarations and globals between calls (JS_EVAL_FLAG_ASYNC)', async () => {
      const first = await shared.execute('const kept = 21; let counter = 1; var legacy = "v"; function twice(x) { return 2 * x; } globalThis.explicit = "g";');
      assert.strictEqual(first.success, true, first.stderr);
      const second = await shared.execute('counter += 1; await null; console.log(twice(kept), counter, legacy, explicit)');
      assert.strictEqual(second.stdout, '42 2 v g\n');
      assert.strictEqual(second.sessionReset, false);
    });

    it('lets a re-run snippet declare the same top-level const/let names again', async () => {
      const snippet = 'const rerun = await Promise.resolve(1); let rerunCount = (globalThis.rerunCount ?? 0) + 1; for (const item of [1]) { const inner = item; } rerunCount';
      assert.strictEqual((await shared.execute(snippet)).stdout, '1\n');
      const again = await shared.execute(snippet);
      assert.deepStrictEqual([again.success, again.stdout], [true, '2\n'], again.stderr);
      const block = await shared.execute('{ const fixed = 1; try { fixed = 2; } catch (error) { console.log(error.name); } }');
      assert.strictEqual(block.stdout, 'TypeError\n', 'block-level const stays const');
      const api = await shared.execute('const search = 1');
      assert.strictEqual(api.success, false);
      assert.match(api.stderr, /redeclaration of 'search'\n'search' already exists/);
      assert.strictEqual((await shared.execute('function search() {}')).success, false);
      await shared.execute('class Widget {}');
      assert.match((await shared.execute('class Widget {}')).stderr, /redeclaration of 'Widget'\n'Widget' already exists/);
    });

    it('supports top-level await and prints the last expression like a REPL (undefined is not printed)', async () => {
      const result = await shared.execute('const total = await Promise.resolve(5); total * 2');
      assert.deepStrictEqual([result.stdout, result.success], ['10\n', true]);
      assert.strictEqual((await shared.execute('void 0')).stdout, '');
      assert.strictEqual((await shared.execute('({ a: [1, "x"], b: null })')).stdout, '{"a":[1,"x"],"b":null}\n');
      assert.strictEqual((await shared.execute('Promise.resolve("awaited for you")')).stdout, 'awaited for you\n');
    });

    it('captures console output: log/info/debug to stdout, warn/error to stderr', async () => {
      const result = await shared.execute('console.log("a", 1, {k: true}, [1, 2]); console.info("b"); console.debug("c"); console.warn("w"); console.error(new TypeError("e"));');
      assert.strictEqual(result.stdout, 'a 1 {"k":true} [1,2]\nb\nc\n');
      assert.strictEqual(result.stderr, 'w\nTypeError: e');
      assert.strictEqual(result.success, true);
    });

    it('reports guest exceptions with name, message and stack, keeps output printed before, and keeps variables', async () => {
      await shared.execute('const beforeError = "still here";');
      const result = await shared.execute('console.log("partial"); function fail() { throw new RangeError("bad range"); }\nfail()');
      assert.strictEqual(result.success, false);
      assert.strictEqual(result.stdout, 'partial\n');
      assert.match(result.stderr, /^RangeError: bad range\n\s+at fail \(execute_code\.js:1:\d+\)/);
      assert.strictEqual(result.sessionReset, false);
      assert.strictEqual((await shared.execute('beforeError')).stdout, 'still here\n');
      const syntax = await shared.execute('let = = 1');
      assert.strictEqual(syntax.success, false);
      assert.match(syntax.stderr, /^SyntaxError: /);
      const thrownValue = await shared.execute('throw { code: 7 }');
      assert.strictEqual(thrownValue.stderr, 'Uncaught {"code":7}');
    });

    it('returns the code and a duration with every result', async () => {
      const result = await shared.execute('1 + 1');
      assert.strictEqual(result.code, '1 + 1');
      assert.ok(result.durationMs >= 0 && result.durationMs < 5_000);
    });

    it('runs concurrent execute calls one after the other', async () => {
      const [first, second] = await Promise.all([
        shared.execute('var order = []; await null; order.push("first"); order.length'),
        shared.execute('order.push("second"); order.join(",")'),
      ]);
      assert.strictEqual(first.stdout, '1\n');
      assert.strictEqual(second.stdout, 'first,second\n');
    });
  });

  describe('host functions', () => {
    it('search() returns plain snake_case hits scoped by the filter, with the default limit', async () => {
      sharedHost.searches.length = 0;
      const result = await shared.execute('const hits = await search("apples"); hits.sort((a, b) => a.rank - b.rank); hits.map((hit) => [Object.keys(hit).join(","), hit.document_id, hit.chunk_id])');
      assert.strictEqual(result.success, true, result.stderr);
      const rows = JSON.parse(result.stdout) as Array<[string, string, string]>;
      assert.strictEqual(rows.length, 2);
      assert.strictEqual(rows[0][0], 'chunk_id,document_id,uri,title,content,headings,labels,page_numbers,doc_item_refs,picture_refs,score,rank');
      assert.ok(rows.every((row) => row[1] === 'dguide'), 'the secret document is filtered out');
      assert.deepStrictEqual(sharedHost.searches, [{ query: 'apples', limit: 10 }]);
      await shared.execute('await search("apples", 500.7)');
      assert.deepStrictEqual(sharedHost.searches[1], { query: 'apples', limit: 100 }, 'clamped');
      const bad = await shared.execute('await search({ toString() { return "apples"; } })');
      assert.strictEqual(bad.success, false);
      assert.match(bad.stderr, /^TypeError: search\(query, limit\): query must be a string/);
      assert.strictEqual(sharedHost.searches.length, 2);
    });

    it('serves at most SANDBOX_HOST_CALL_CONCURRENCY host calls at once; Promise.all over many searches queues', async () => {
      let active = 0;
      let peak = 0;
      const base = recordingHost();
      const host = recordingHost({
        search: async (query, limit) => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((resolve) => setTimeout(resolve, 5));
          active--;
          return base.search(query, limit);
        },
      });
      const sandbox = await sandboxWith({}, host);
      try {
        const result = await sandbox.execute('(await Promise.all(Array.from({ length: 20 }, (_, index) => search("apples " + index, 1)))).length');
        assert.strictEqual(result.stdout, '20\n', result.stderr);
        assert.strictEqual(peak, SANDBOX_HOST_CALL_CONCURRENCY);
      } finally {
        await sandbox.dispose();
      }
    });

    it('list_documents() lists the filtered documents', async () => {
      const result = await shared.execute('await list_documents()');
      assert.deepStrictEqual(JSON.parse(result.stdout), [
        { id: 'dguide', title: 'User guide', uri: 'file:///work/docs/guide.md', relative_path: 'docs/guide.md', format: 'markdown', created_at: '2026-01-01T00:00:00.000Z' },
      ]);
    });

    it('cite() accepts one id or an array and reports unknown ids (outside the filter too)', async () => {
      sharedHost.cited.length = 0;
      const result = await shared.execute('[await cite("c-install"), await cite(["c-usage", "c-secret", "nope"])]');
      assert.deepStrictEqual(JSON.parse(result.stdout), [{ accepted: ['c-install'], unknown: [] }, { accepted: ['c-usage'], unknown: ['c-secret', 'nope'] }]);
      assert.deepStrictEqual(sharedHost.cited, [['c-install'], ['c-usage', 'c-secret', 'nope']]);
      const bad = await shared.execute('await cite([1, 2])');
      assert.match(bad.stderr, /^TypeError: cite\(chunkIds\)/);
    });

    it('reads the VFS: readFile, readJson, readLines, listDir, exists, Path', async () => {
      const result = await shared.execute(`
        const folder = Path.join('/documents', (await listDir('/documents'))[0]);
        const toc = await readJson(Path.join(folder, 'toc.json'));
        const lines = await readLines(folder + '/items.jsonl');
        const [start, end] = toc.tree[1].item_range;
        console.log(folder, Path.basename(folder + '/toc.json'), Path.dirname(folder), lines.length);
        console.log(lines.slice(start, end).map((line) => JSON.parse(line).text).join(' | '));
        console.log(await exists(folder + '/toc.json'), await exists(folder + '/nope.txt'), await exists('/documents/dsecret'), await exists('/'));
        (await readFile(folder + '/metadata.json')).length > 0`);
      assert.strictEqual(result.success, true, result.stderr);
      assert.strictEqual(result.stdout, '/documents/dguide toc.json /documents 4\nUsage | Open the app and pick apples.\ntrue false false true\ntrue\n');
    });

    it('never shows documents outside the filter, whatever the path', async () => {
      const result = await shared.execute(`
        const outcomes = [];
        for (const file of ['/documents/dsecret/content.txt', '/documents/dguide/../dsecret/items.jsonl', '../../documents/dsecret/metadata.json']) {
          try { outcomes.push(await readFile(file)); } catch (error) { outcomes.push(error.code); }
        }
        try { await listDir('/documents/dsecret'); } catch (error) { outcomes.push(error.code + ' ' + error.message.slice(0, 40)); }
        outcomes`);
      assert.deepStrictEqual(JSON.parse(result.stdout), ['ENOENT', 'ENOENT', 'ENOENT', "ENOENT ENOENT: no such file or directory, '/doc"]);
    });

    it('carries NUL (and the bridge marker) whole across the bridge, both ways', async () => {
      const printed = await shared.execute("console.log('A\\u0000B'); console.error('\\u0001J' + 'x'); 'tail\\u0000end'");
      assert.strictEqual(printed.stdout, 'A\u0000B\ntail\u0000end\n');
      assert.strictEqual(printed.stderr, '\u0001Jx');
      const thrown = await shared.execute("throw new Error('bad\\u0000thing')");
      assert.match(thrown.stderr, /^Error: bad\u0000thing\n/);
      // content.txt through the real VFS, over a document whose text holds NULs.
      const fileSystem = createKnowledgeBaseSandboxHost({ knowledgeBase: createStructuredKnowledgeBase([{ ...guide, content: 'before\u0000after\u0000' + 'x'.repeat(10) }]) });
      const host = recordingHost({ readFile: async (file) => (file.endsWith('content.txt') ? fileSystem.readFile(file) : `\u0001${file}`) });
      const sandbox = await sandboxWith({}, host);
      try {
        const read = await sandbox.execute(`
          const text = await readFile('/documents/dguide/content.txt');
          console.log(text.length, JSON.stringify(text));
          console.log(JSON.stringify(await readFile('/x\\u0000y')));
          await search('needle\\u0000hay');`);
        assert.strictEqual(read.success, true, read.stderr);
        assert.strictEqual(read.stdout, `23 "before\\u0000after\\u0000xxxxxxxxxx"\n"\\u0001/x\\u0000y"\n[]\n`);
        assert.deepStrictEqual(host.searches.map((entry) => entry.query), ['needle\u0000hay']);
      } finally {
        await sandbox.dispose();
      }
    });

    it('hands long texts over exactly (multi-byte characters, surrogate pairs) on the fast string path', async () => {
      const text = 'Grüße, 東京, emoji 🙂 and plain text. '.repeat(2_000);
      const sandbox = await sandboxWith({}, recordingHost({ readFile: async () => text }));
      try {
        const result = await sandbox.execute(`const text = await readFile('/documents/dguide/content.txt'); [text.length, text.slice(0, 40), text.codePointAt(text.indexOf('🙂'))]`);
        assert.strictEqual(result.stdout, `${JSON.stringify([text.length, text.slice(0, 40), 0x1f642])}\n`, result.stderr);
      } finally {
        await sandbox.dispose();
      }
    });

    it('answers repeated reads of a VFS file from the worker, without another host call', async () => {
      const reads: string[] = [];
      const base = recordingHost();
      const sandbox = await sandboxWith({}, recordingHost({ readFile: async (file) => { reads.push(file); return base.readFile(file); } }));
      try {
        const first = await sandbox.execute(`(await readFile('/documents/dguide/toc.json')) === (await readFile('/documents/dguide/toc.json'))`);
        const again = await sandbox.execute(`(await readJson('/documents/dguide/toc.json')).doc_id`);
        assert.deepStrictEqual([first.stdout, again.stdout], ['true\n', 'dguide\n'], first.stderr + again.stderr);
        assert.deepStrictEqual(reads, ['/documents/dguide/toc.json']);
      } finally {
        await sandbox.dispose();
      }
    });

    it('sends the next documents\' files along when code reads one file of every document in order (each read once)', async () => {
      const ids = Array.from({ length: 40 }, (_, index) => `d${index}`);
      const reads: string[] = [];
      let running = 0;
      let mostAtOnce = 0;
      const host = recordingHost({
        listDir: async (folder) => (folder === '/documents' ? ids : []),
        readFile: async (file) => {
          reads.push(file);
          mostAtOnce = Math.max(mostAtOnce, ++running);
          await new Promise((resolve) => setImmediate(resolve));
          running--;
          return JSON.stringify({ file });
        },
      });
      const sandbox = await sandboxWith({}, host);
      try {
        const sequential = await sandbox.execute(`
          let names = [];
          for (const id of ${JSON.stringify(ids)}) { names.push((await readJson('/documents/' + id + '/toc.json')).file); }
          names.every((name, index) => name === '/documents/d' + index + '/toc.json') && names.length`);
        assert.strictEqual(sequential.stdout, '40\n', sequential.stderr);
        assert.strictEqual(reads.length, 40, 'every file read once');
        assert.ok(mostAtOnce > 1, 'files were read in batches');
        // Reads issued all at once get no read-ahead (it would fetch each other's files twice).
        reads.length = 0;
        const parallel = await sandbox.execute(`(await Promise.all(${JSON.stringify(ids)}.map((id) => readJson('/documents/' + id + '/items.jsonl')))).length`);
        assert.strictEqual(parallel.stdout, '40\n', parallel.stderr);
        assert.strictEqual(reads.length, 40);
      } finally {
        await sandbox.dispose();
      }
    });

    it('splits read-ahead over the batch size: large files all arrive whole, in order', async () => {
      const ids = Array.from({ length: 8 }, (_, index) => `d${index}`);
      const size = Math.ceil(SANDBOX_READ_AHEAD_BATCH_CHARS / 2.5);
      const host = recordingHost({
        listDir: async (folder) => (folder === '/documents' ? ids : []),
        readFile: async (file) => file.padEnd(size, '.'),
      });
      const sandbox = await sandboxWith({}, host);
      try {
        const result = await sandbox.execute(`
          let ok = 0;
          for (const id of ${JSON.stringify(ids)}) { const text = await readFile('/documents/' + id + '/content.txt'); if (text.length === ${size} && text.startsWith('/documents/' + id + '/')) { ok++; } }
          ok`);
        assert.strictEqual(result.stdout, `${ids.length}\n`, result.stderr);
      } finally {
        await sandbox.dispose();
      }
    });

    it('turns a host rejection into a catchable guest error that fails the call if uncaught', async () => {
      const result = await shared.execute('await readFile("/documents/dguide/missing.txt")');
      assert.strictEqual(result.success, false);
      assert.match(result.stderr, /^Error: ENOENT: no such file or directory, '\/documents\/dguide\/missing\.txt'/);
      assert.strictEqual(result.sessionReset, false);
    });
  });

  describe('isolation', () => {
    it('exposes exactly the documented API next to the ECMAScript globals', async () => {
      const standard = 'AggregateError Array ArrayBuffer BigInt BigInt64Array BigUint64Array Boolean DataView Date Error EvalError FinalizationRegistry Float16Array Float32Array Float64Array Function Infinity Int16Array Int32Array Int8Array InternalError Iterator JSON Map Math NaN Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set SharedArrayBuffer String Symbol SyntaxError TypeError URIError Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval globalThis isFinite isNaN parseFloat parseInt undefined unescape'.split(' ');
      // Ours are the non-writable, non-configurable ones; anything else non-standard is a variable of an earlier test.
      const result = await shared.execute('Object.getOwnPropertyNames(globalThis).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name).writable])');
      const extra = (JSON.parse(result.stdout) as Array<[string, boolean]>).filter(([name, writable]) => !standard.includes(name) && !writable).map(([name]) => name).sort();
      assert.deepStrictEqual(extra, ['Path', 'cite', 'console', 'exists', 'listDir', 'list_documents', 'readFile', 'readJson', 'readLines', 'search']);
      for (const name of extra) {
        assert.match(SANDBOX_API_DESCRIPTION, new RegExp(`\\b${name}[.(]`), `${name} is documented`);
      }
      for (const name of ['Path.join', 'Path.basename', 'Path.dirname', 'console.log', 'console.warn', 'console.error', 'console.info', 'console.debug']) {
        const [object, member] = name.split('.');
        assert.strictEqual((await shared.execute(`typeof ${object}.${member}`)).stdout, 'function\n');
        assert.ok(SANDBOX_API_DESCRIPTION.includes(member), `${name} is documented`);
      }
    });

    it('has no require, process, fetch, timers, import or Node objects', async () => {
      const result = await shared.execute('[typeof require, typeof process, typeof fetch, typeof setTimeout, typeof setInterval, typeof queueMicrotask, typeof module, typeof exports, typeof Buffer, typeof WebAssembly, typeof __dirname]');
      assert.deepStrictEqual(JSON.parse(result.stdout), Array(11).fill('undefined'));
      const dynamicImport = await shared.execute('await import("node:fs")');
      assert.strictEqual(dynamicImport.success, false);
    });

    it('gives Function constructors only the guest global', async () => {
      const result = await shared.execute(`[
        Function('return typeof this.process')(),
        search.constructor.constructor('return typeof process')(),
        (async () => {}).constructor('return typeof require')() instanceof Promise,
        console.log.constructor('return typeof globalThis.require')(),
        Object.getOwnPropertyNames(globalThis).filter((name) => /^(call|write|raw|bridge)$/.test(name)).length,
        Object.getOwnPropertyNames(Function('return this')()).includes('process'),
      ]`);
      assert.deepStrictEqual(JSON.parse(result.stdout), ['undefined', 'undefined', true, 'undefined', 0, false]);
    });

    it('freezes the API: assignments, deletions and new properties do not stick', async () => {
      const result = await shared.execute(`
        search.injected = 1; console.log = null; Path.join = null;
        try { search = () => 'fake'; } catch (error) { }
        [delete globalThis.search, search.injected, typeof console.log, typeof Path.join, Object.isFrozen(search), Object.isFrozen(console), Object.isFrozen(Path)]`);
      assert.deepStrictEqual(JSON.parse(result.stdout), [false, null, 'function', 'function', true, true, true]);
      const redeclare = await shared.execute('const readFile = 1');
      assert.strictEqual(redeclare.success, false, 'the API cannot be shadowed at the top level');
    });

    it('keeps prototype pollution inside the guest: the host and its calls are unaffected', async () => {
      const host = recordingHost();
      const sandbox = await sandboxWith({}, host);
      try {
        const polluted = await sandbox.execute(`
          Object.prototype.polluted = 'yes';
          search.__proto__.pollutedFunction = 'yes';
          Array.prototype.pollutedArray = 'yes';
          Object.defineProperty(Object.prototype, 'toJSON', { value: function () { return 'hijacked'; }, configurable: true });
          String.prototype.trim = function () { return 'x'; };
          JSON.parse = () => ({ hijacked: true });
          JSON.stringify = () => 'hijacked';
          Reflect.apply = () => { throw new Error('hijacked'); };
          const hits = await search('apples', 1);
          await cite([hits[0].chunk_id]);
          hits.length`);
        assert.strictEqual(polluted.success, true, polluted.stderr);
        assert.deepStrictEqual(host.cited, [['c-install']]);
        assert.deepStrictEqual(host.searches, [{ query: 'apples', limit: 1 }], 'the host received exactly the guest\'s arguments');
        const plain: Record<string, unknown> = {};
        assert.strictEqual(plain.polluted, undefined);
        assert.strictEqual((Function.prototype as unknown as Record<string, unknown>).pollutedFunction, undefined);
        assert.strictEqual(([] as unknown as Record<string, unknown>).pollutedArray, undefined);
        assert.strictEqual(' a '.trim(), 'a');
        assert.strictEqual(JSON.stringify({ a: 1 }), '{"a":1}');
      } finally {
        await sandbox.dispose();
      }
    });
  });

  describe('limits', () => {
    it('stops an infinite loop at the time limit, resets the session, and the next call works', async () => {
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 1 });
      try {
        await sandbox.execute('const survivor = 1;');
        const started = Date.now();
        const result = await sandbox.execute('console.log("before"); while (true) {}');
        const elapsed = Date.now() - started;
        assert.strictEqual(result.success, false);
        assert.strictEqual(result.sessionReset, true);
        assert.strictEqual(result.stdout, 'before\n', 'output printed before the interrupt is kept');
        assert.match(result.stderr, /interrupted.*time limit of 1 s/);
        assert.match(result.stderr, /session was reset: variables .* are gone/);
        // Under 4 s: the interrupt stopped it, not the watchdog (1 s + 5 s grace); slack for a loaded CI machine.
        assert.ok(elapsed >= 950 && elapsed < 4_000, `stopped after ${elapsed} ms`);
        const next = await sandbox.execute('typeof survivor');
        assert.deepStrictEqual([next.success, next.stdout, next.sessionReset], [true, 'undefined\n', false]);
      } finally {
        await sandbox.dispose();
      }
    });

    it('stops a computation that runs inside awaited continuations too', async () => {
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 1 });
      try {
        const result = await sandbox.execute('await list_documents(); for (;;) { await null; }');
        assert.deepStrictEqual([result.success, result.sessionReset], [false, true]);
        assert.strictEqual((await sandbox.execute('2 + 2')).stdout, '4\n');
      } finally {
        await sandbox.dispose();
      }
    });

    it('lets a host call in flight at the deadline finish, starts no other, returns the output and keeps the session', async () => {
      const finished: string[] = [];
      const host = recordingHost({
        search: async (query) => {
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          finished.push(query);
          return [];
        },
      });
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 1 }, host);
      try {
        await sandbox.execute('const earlier = "kept";');
        const started = Date.now();
        const result = await sandbox.execute('console.log("searching"); const hits = await search("apples"); console.log("resumed"); await cite(["c-install"]);');
        const elapsed = Date.now() - started;
        assert.deepStrictEqual(finished, ['apples'], 'the search in flight ran to its end');
        assert.ok(elapsed >= 1_400 && elapsed < 4_000, `returned after ${elapsed} ms`);
        assert.deepStrictEqual([result.success, result.sessionReset, result.stdout], [false, false, 'searching\n']);
        assert.match(result.stderr, /^TimeoutError: the time limit of 1 s was reached while a search or read was running; it finished/);
        assert.doesNotMatch(result.stderr, /session was reset/);
        assert.deepStrictEqual(host.cited, [], 'no host call started after the deadline');
        const next = await sandbox.execute('[earlier, typeof hits]');
        assert.deepStrictEqual([next.success, next.stdout], [true, '["kept","undefined"]\n'], next.stderr);
      } finally {
        await sandbox.dispose();
      }
    });

    it('does not let a hung host call block past the time limit and the grace for calls in flight', async () => {
      let released = false;
      const host = recordingHost({ search: () => new Promise(() => undefined), cite: async (ids) => { released = true; return { accepted: ids, unknown: [] }; } });
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 1, inFlightCallGraceSeconds: 0.5 }, host);
      try {
        await sandbox.execute('const earlier = "kept";');
        const started = Date.now();
        const result = await sandbox.execute('console.log("searching"); const hits = await search("apples"); await cite(["c-install"]);');
        const elapsed = Date.now() - started;
        assert.strictEqual(result.success, false);
        assert.strictEqual(result.sessionReset, false, 'a hung host call is not runaway guest code');
        assert.strictEqual(result.stdout, 'searching\n');
        assert.match(result.stderr, /^TimeoutError: the time limit of 1 s was reached while a search or read was running, which did not finish within 0.5 s more/);
        assert.ok(elapsed >= 1_400 && elapsed < 4_500, `returned after ${elapsed} ms`);
        assert.strictEqual(released, false, 'nothing after the hung call ran');
        assert.strictEqual((await sandbox.execute('earlier')).stdout, 'kept\n');
        // Hung calls of the timed-out execution hold no slots: a later execution's calls still run.
        const hanging = await sandbox.execute('await Promise.all([1, 2, 3, 4, 5].map(() => search("x")))');
        assert.strictEqual(hanging.success, false);
        const later = await sandbox.execute('(await cite("c-install")).accepted');
        assert.deepStrictEqual([later.success, later.stdout], [true, '["c-install"]\n'], later.stderr);
        assert.strictEqual(released, true, 'cite ran although five searches still hang');
      } finally {
        await sandbox.dispose();
      }
    });

    it('keeps the session when the code awaits a promise that never settles', async () => {
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 1 });
      try {
        await sandbox.execute('const earlier = "kept";');
        const result = await sandbox.execute('console.log("waiting"); await new Promise(() => {});');
        assert.deepStrictEqual([result.success, result.sessionReset, result.stdout], [false, false, 'waiting\n']);
        assert.match(result.stderr, /^TimeoutError: the time limit of 1 s was reached while the code was awaiting a promise that never settles/);
        assert.strictEqual((await sandbox.execute('earlier')).stdout, 'kept\n');
      } finally {
        await sandbox.dispose();
      }
    });

    it('fails deep recursion with a clean stack overflow error, a short trace, and the session kept', async () => {
      await shared.execute('const beforeRecursion = "kept";');
      const result = await shared.execute('function down(n) { return down(n + 1) + 1; }\ndown(0)');
      assert.strictEqual(result.success, false);
      assert.strictEqual(result.sessionReset, false);
      assert.match(result.stderr, /^InternalError: stack overflow\n/);
      const lines = result.stderr.split('\n');
      assert.ok(lines.length <= SANDBOX_STACK_TRACE_LINES + 2, `${lines.length} lines`);
      assert.match(lines[lines.length - 1], /\.\.\. \d+ more frames/);
      assert.strictEqual((await shared.execute('beforeRecursion')).stdout, 'kept\n');
    });

    it('fails a memory bomb with a clean out-of-memory error and keeps the session', async () => {
      const sandbox = await sandboxWith({ memoryLimitBytes: 16 * 1024 * 1024 });
      try {
        await sandbox.execute('const beforeBomb = "kept";');
        const result = await sandbox.execute('var hoard = []; while (true) { hoard.push(new Float64Array(1 << 20)); }');
        assert.strictEqual(result.success, false);
        assert.match(result.stderr, /out of memory/);
        assert.strictEqual(result.sessionReset, false);
        const after = await sandbox.execute('hoard = null; beforeBomb');
        assert.strictEqual(after.stdout, 'kept\n', after.stderr);
        const bigString = await sandbox.execute('"y".repeat(64 * 1024 * 1024).length');
        assert.strictEqual(bigString.success, false);
        assert.match(bigString.stderr, /out of memory|invalid string length/i);
      } finally {
        await sandbox.dispose();
      }
    });

    it('holds the memory limit for strings and ArrayBuffers: "out of memory" with the process RSS bounded, session kept', async () => {
      const sandbox = await sandboxWith({ memoryLimitBytes: 64 * 1024 * 1024, codeTimeoutSeconds: 60 });
      let peak = 0;
      const baseline = process.memoryUsage.rss();
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      try {
        await sandbox.execute('const beforeBomb = "kept"; const block = "x".repeat(1 << 20);');
        const bombs = [
          'var hoard = []; for (let index = 0; index < 2000; index++) { hoard.push((String(index) + block).slice(1)); } hoard.length',
          'hoard = null; var buffers = []; for (let index = 0; index < 2000; index++) { buffers.push(new ArrayBuffer(1 << 20)); } buffers.length',
          'buffers = null; var arrays = []; for (let index = 0; index < 2000; index++) { arrays.push(new Uint8Array(1 << 20).fill(7)); } arrays.length',
        ];
        for (const bomb of bombs) {
          const result = await sandbox.execute(bomb);
          assert.strictEqual(result.success, false, `${bomb}: ${result.stdout}`);
          assert.match(result.stderr, /out of memory/);
          assert.strictEqual(result.sessionReset, false);
        }
        const after = await sandbox.execute('arrays = null; beforeBomb');
        assert.strictEqual(after.stdout, 'kept\n', after.stderr);
      } finally {
        clearInterval(sampler);
        await sandbox.dispose();
      }
      const grownMiB = (peak - baseline) / 1024 / 1024;
      // The 64 MiB guest heap plus the wasm overhead; on the old code this reached gigabytes.
      assert.ok(grownMiB < 256, `process RSS grew by ${grownMiB.toFixed(0)} MiB under the memory bomb`);
    });

    it('truncates an output flood with a marker that counts what was cut', async () => {
      const sandbox = await sandboxWith({ maxOutputChars: 1_000 });
      try {
        const result = await sandbox.execute('for (let index = 0; index < 10000; index++) console.log("line " + String(index).padStart(4, "0"));');
        const fullLength = 10_000 * 'line 0000\n'.length;
        assert.strictEqual(result.success, true);
        assert.strictEqual(result.stdout, `${'line 0000\nline 0001\n'.slice(0, 0)}${result.stdout.slice(0, 1_000)}[output truncated: ${fullLength - 1_000} more characters]`);
        assert.ok(result.stdout.startsWith('line 0000\nline 0001\n'));
        const value = await sandbox.execute('"z".repeat(5000)');
        assert.strictEqual(value.stdout, `${'z'.repeat(1_000)}\n[output truncated: 4001 more characters]`);
      } finally {
        await sandbox.dispose();
      }
    });

    it('bounds an endless output flood by both limits', async () => {
      const sandbox = await sandboxWith({ maxOutputChars: 2_000, codeTimeoutSeconds: 1 });
      try {
        const result = await sandbox.execute('while (true) console.log("flood");');
        assert.strictEqual(result.success, false);
        assert.strictEqual(result.sessionReset, true);
        assert.ok(result.stdout.length < 2_100, `${result.stdout.length} characters`);
        assert.match(result.stdout, /\[output truncated: \d+ more characters\]$/);
      } finally {
        await sandbox.dispose();
      }
    });
  });

  describe('lifecycle', () => {
    it('aborts a running execution: rejects with CancelledError, resets, and the next call works', async () => {
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 60 });
      try {
        await sandbox.execute('const beforeAbort = 1;');
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 200);
        const started = Date.now();
        await assert.rejects(sandbox.execute('while (true) {}', { abortSignal: controller.signal }), (error: unknown) => isHaikuError(error, 'cancelled'));
        assert.ok(Date.now() - started < 5_000, 'the abort, not the 60 s limit, ended it');
        const next = await sandbox.execute('typeof beforeAbort');
        assert.strictEqual(next.stdout, 'undefined\n');
        await assert.rejects(sandbox.execute('1', { abortSignal: AbortSignal.abort() }), (error: unknown) => isHaikuError(error, 'cancelled'));
      } finally {
        await sandbox.dispose();
      }
    });

    it('reports a crashed worker as a reset and replaces it', async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-sandbox-'));
      const script = path.join(folder, 'crashing-worker.js');
      // A worker that starts fine and dies on its first execution, like a wasm fault would.
      fs.writeFileSync(script, "const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ type: 'ready' }); parentPort.on('message', () => process.exit(3));");
      const sandbox = await createCodeSandbox({ host: recordingHost(), limits: { codeTimeoutSeconds: 5 }, workerScript: { file: script, execArgv: [] } });
      try {
        const result = await sandbox.execute('1');
        assert.deepStrictEqual([result.success, result.sessionReset], [false, true]);
        assert.match(result.stderr, /^SandboxError: the sandbox worker stopped \(exit code 3\)\.\nThe sandbox session was reset/);
        const again = await sandbox.execute('1');
        assert.strictEqual(again.sessionReset, true, 'a fresh worker was started (and crashed again)');
      } finally {
        await sandbox.dispose();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });

    it('kills a worker that stops answering once the deadline and the grace period have passed', async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-sandbox-'));
      const script = path.join(folder, 'silent-worker.js');
      // Stands for a worker stuck where the interrupt handler cannot reach (it never reports back).
      fs.writeFileSync(script, "const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ type: 'ready' }); parentPort.on('message', () => {});");
      const sandbox = await createCodeSandbox({ host: recordingHost(), limits: { codeTimeoutSeconds: 1 }, workerScript: { file: script, execArgv: [] } });
      try {
        const started = Date.now();
        const result = await sandbox.execute('1');
        const elapsed = Date.now() - started;
        assert.deepStrictEqual([result.success, result.sessionReset], [false, true]);
        assert.match(result.stderr, /^TimeoutError: the code did not stop within the time limit of 1 s and the sandbox was restarted\./);
        assert.ok(elapsed >= 1_000 + SANDBOX_WATCHDOG_GRACE_MS - 50 && elapsed < 1_000 + SANDBOX_WATCHDOG_GRACE_MS + 3_000, `${elapsed} ms`);
      } finally {
        await sandbox.dispose();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });

    it('does not keep the process alive while idle, even without dispose', () => {
      const script = [
        "const { createCodeSandbox } = require('./src/node/sandbox/codeSandbox');",
        "const { createKnowledgeBaseSandboxHost } = require('./src/core/analysis/knowledgeBaseSandboxHost');",
        "const { createStructuredKnowledgeBase } = require('./test/support/structuredKnowledgeBase');",
        'const host = createKnowledgeBaseSandboxHost({ knowledgeBase: createStructuredKnowledgeBase([]) });',
        "createCodeSandbox({ host }).then((sandbox) => sandbox.execute('await list_documents(); 6 * 7')).then((result) => console.log(result.stdout.trim()));",
      ].join('\n');
      const child = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { cwd: repositoryRoot, encoding: 'utf8', timeout: 30_000 });
      assert.strictEqual(child.status, 0, child.stderr);
      assert.strictEqual(child.stdout.trim(), '42', 'the execution finished before the process exited');
    });

    it('settles a running execution when the sandbox is disposed under it', async () => {
      const sandbox = await sandboxWith({ codeTimeoutSeconds: 60 });
      const running = sandbox.execute('while (true) {}');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await sandbox.dispose();
      const result = await running;
      assert.deepStrictEqual([result.success, result.sessionReset], [false, true]);
      assert.match(result.stderr, /the sandbox worker stopped \(the sandbox was disposed\)/);
    });

    it('refuses to run after dispose', async () => {
      const sandbox = await sandboxWith();
      assert.strictEqual((await sandbox.execute('1')).stdout, '1\n');
      await sandbox.dispose();
      await assert.rejects(sandbox.execute('1'), (error: unknown) => isHaikuError(error, 'sandbox_failed'));
    });
  });
});
