/**
 * Costs of the code sandbox (QuickJS in a worker thread): startup, one `execute`, one awaited host call, and a
 * VFS read of a 1,000-item `items.jsonl`, each against a reference measured in the same run (the same loop in
 * plain Node calling the `SandboxHost` directly; the QuickJS session on the main thread without a worker).
 *
 * Run: `npx tsx bench/sandbox.ts [calls] [repeats]`. The worker is the esbuild bundle (as shipped) built into a
 * temp folder; startup is also measured for the tsx source worker that tests use.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import type { CodeSandbox, SandboxHost } from '../src/core/agent/codeSandbox';
import { createKnowledgeBaseSandboxHost } from '../src/core/analysis/knowledgeBaseSandboxHost';
import { toGuestDocument } from '../src/core/analysis/sandboxApi';
import { createVirtualFileSystem, itemsJsonl, tocFile } from '../src/core/analysis/virtualFileSystem';
import { createCodeSandbox, DEFAULT_CODE_SANDBOX_LIMITS, resolveSandboxWorker, type SandboxWorkerScript } from '../src/node/sandbox/codeSandbox';
import { GuestSession } from '../src/node/sandbox/guestSession';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { toGuestSearchHit } from '../src/core/analysis/sandboxApi';
import { createStructuredKnowledgeBase, type StructuredDocument } from '../test/support/structuredKnowledgeBase';

const positional = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const calls = Number(positional[0] ?? 1000);
const repeats = Number(positional[1] ?? 5);
/** `--analysis-only`: just the analysis program against plain Node. */
const analysisOnly = process.argv.includes('--analysis-only');
/** Warm runs of the analysis program on each side (sandbox and plain Node), alternating. */
const WARM_RUNS = 7;
const repositoryRoot = path.resolve(__dirname, '..');

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function medianOf(action: () => Promise<unknown>, count = repeats): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    samples.push(await timed(action));
  }
  return median(samples);
}

function bigDocument(items: number): StructuredDocument {
  return {
    id: 'dbig',
    uri: 'file:///bench/big.md',
    title: 'Big',
    items: Array.from({ length: items }, (_, index) => index % 50 === 0
      ? { selfRef: `#/texts/${index}`, label: 'section_header' as const, text: `Section ${index / 50}`, headingLevel: 1 + (index % 100 === 0 ? 0 : 1) }
      : { selfRef: `#/texts/${index}`, label: 'paragraph' as const, text: `Paragraph ${index}: ${'lorem ipsum dolor sit amet '.repeat(6)}` }),
    chunks: Array.from({ length: items / 5 }, (_, index) => ({ chunkId: `chunk-${index}`, itemRefs: Array.from({ length: 5 }, (__, offset) => `#/texts/${index * 5 + offset}`) })),
  };
}

export async function bundledWorker(folder: string): Promise<SandboxWorkerScript> {
  await esbuild.build({
    entryPoints: [path.join(repositoryRoot, 'src/node/sandbox/worker.ts')],
    outfile: path.join(folder, 'sandbox-worker.js'),
    bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: true,
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
    logLevel: 'silent',
  });
  fs.copyFileSync(path.join(repositoryRoot, 'node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm'), path.join(folder, 'emscripten-module.wasm'));
  return resolveSandboxWorker(folder);
}

const ANALYSIS_QUERIES = ['build configuration', 'environment variables', 'testing packages', 'module cache', 'deploy static site',
  'plugin hooks', 'go command flags', 'server options', 'workspace modules', 'error handling'];

/**
 * The analysis program as guest code: list the documents, read every toc.json and items.jsonl, count sections and
 * paragraphs, keep long paragraphs' chunk ids, run 10 searches. `programInNode` is the same program over a host.
 */
const ANALYSIS_PROGRAM = `
const documents = await list_documents();
let sections = 0, paragraphs = 0, items = 0;
const longParagraphChunks = [];
const countSections = (nodes) => nodes.reduce((total, node) => total + 1 + countSections(node.children), 0);
for (const document of documents) {
  const toc = await readJson('/documents/' + document.id + '/toc.json');
  sections += countSections(toc.tree);
  for (const line of await readLines('/documents/' + document.id + '/items.jsonl')) {
    const item = JSON.parse(line);
    items++;
    if (item.label === 'paragraph') {
      paragraphs++;
      if (item.text.length > 400 && item.chunk_ids.length > 0) { longParagraphChunks.push(item.chunk_ids[0]); }
    }
  }
}
let hits = 0;
for (const query of ${JSON.stringify(ANALYSIS_QUERIES)}) { hits += (await search(query, 10)).length; }
[documents.length, sections, items, paragraphs, longParagraphChunks.length, hits].join(' ')`;

async function programInNode(host: SandboxHost): Promise<string> {
  type Node = { children: Node[] };
  const documents = (await host.listDocuments()).map(toGuestDocument);
  let sections = 0;
  let paragraphs = 0;
  let items = 0;
  const longParagraphChunks: string[] = [];
  const countSections = (nodes: Node[]): number => nodes.reduce((total, node) => total + 1 + countSections(node.children), 0);
  for (const document of documents) {
    const toc = JSON.parse(await host.readFile(`/documents/${document.id}/toc.json`)) as { tree: Node[] };
    sections += countSections(toc.tree);
    const text = await host.readFile(`/documents/${document.id}/items.jsonl`);
    for (const line of text === '' ? [] : text.split('\n')) {
      const item = JSON.parse(line) as { label: string; text: string; chunk_ids: string[] };
      items++;
      if (item.label === 'paragraph') {
        paragraphs++;
        if (item.text.length > 400 && item.chunk_ids.length > 0) {
          longParagraphChunks.push(item.chunk_ids[0]);
        }
      }
    }
  }
  let hits = 0;
  for (const query of ANALYSIS_QUERIES) {
    hits += (JSON.parse(JSON.stringify((await host.search(query, 10)).map(toGuestSearchHit))) as unknown[]).length;
  }
  return [documents.length, sections, items, paragraphs, longParagraphChunks.length, hits].join(' ');
}

/** 100 corpus documents (the Go and Vite pages, then copies of the first ones under another folder) indexed in a temp folder. */
async function hundredDocumentIndex(folder: string): Promise<Awaited<ReturnType<typeof openStore>>> {
  const corpus = path.join(repositoryRoot, '..', 'shared', 'corpus');
  const sources = ['go-docs', 'vite-docs'].flatMap((name) => fs.readdirSync(path.join(corpus, name), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(md|html)$/.test(file)).sort().map((file) => path.join(corpus, name, file)));
  const documentsFolder = path.join(folder, 'hundred');
  for (let index = 0; index < 100; index++) {
    const source = sources[index % sources.length];
    const target = path.join(documentsFolder, index < sources.length ? 'original' : 'copy', path.relative(corpus, source));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
  }
  const store = await openStore({ uri: path.join(folder, 'hundred-index') });
  await indexPaths({ roots: [documentsFolder], store, baseFolder: documentsFolder });
  return store;
}

export async function analysisProgram(folder: string, script: SandboxWorkerScript, add: (what: string, value: number, reference: number | undefined) => void, runs = repeats): Promise<void> {
  const store = await hundredDocumentIndex(folder);
  try {
    const expected = await programInNode(createKnowledgeBaseSandboxHost({ knowledgeBase: store }));
    // Wall time and the process's CPU time (all threads: main, sandbox worker, LanceDB), the latter steadier on a busy machine.
    type Sample = { wall: number; cpu: number };
    const cpuMilliseconds = (): number => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    };
    const medianOfSamples = (samples: readonly Sample[]): Sample => ({ wall: median(samples.map((sample) => sample.wall)), cpu: median(samples.map((sample) => sample.cpu)) });
    const medianSamples = async (run: () => Promise<Sample>): Promise<Sample> => {
      const samples: Sample[] = [];
      for (let index = 0; index < runs; index++) {
        samples.push(await run());
      }
      return medianOfSamples(samples);
    };
    const inNode = async (host: SandboxHost): Promise<Sample> => {
      const [wall, cpu] = [performance.now(), cpuMilliseconds()];
      await programInNode(host);
      return { wall: performance.now() - wall, cpu: cpuMilliseconds() - cpu };
    };
    /** The program in a fresh sandbox; with `withStartup`, creating the sandbox counts too. */
    const inSandbox = async (host: SandboxHost, withStartup: boolean): Promise<Sample> => {
      let [wall, cpu] = [performance.now(), cpuMilliseconds()];
      const sandbox = await createCodeSandbox({ host, workerScript: script, limits: { codeTimeoutSeconds: 120 } });
      try {
        if (!withStartup) {
          [wall, cpu] = [performance.now(), cpuMilliseconds()];
        }
        const result = await sandbox.execute(ANALYSIS_PROGRAM);
        if (!result.success || result.stdout.trim() !== expected) {
          throw new Error(`the analysis program differs in the sandbox: ${result.stdout} ${result.stderr} (Node: ${expected})`);
        }
        return { wall: performance.now() - wall, cpu: cpuMilliseconds() - cpu };
      } finally {
        await sandbox.dispose();
      }
    };
    // Cold: a new host per run, so both build every VFS file from the store; the sandbox's start-up counts (what a question pays).
    const coldNode = await medianSamples(() => inNode(createKnowledgeBaseSandboxHost({ knowledgeBase: store })));
    const coldSandbox = await medianSamples(() => inSandbox(createKnowledgeBaseSandboxHost({ knowledgeBase: store }), true));
    // Warm: the host's VFS files are built and the sandbox has started; what remains is reading, parsing, the bridge.
    // Runs alternate (which goes first too), so a machine getting busier or the JIT still warming up weighs on both
    // sides alike: timed one side after the other, the Node reference swung 110–235 ms between runs.
    const warmHost = createKnowledgeBaseSandboxHost({ knowledgeBase: store });
    for (let warmUp = 0; warmUp < 3; warmUp++) {
      await programInNode(warmHost);
    }
    const warmNodeSamples: Sample[] = [];
    const warmSandboxSamples: Sample[] = [];
    for (let index = 0; index < WARM_RUNS; index++) {
      const nodeFirst = index % 2 === 0;
      if (nodeFirst) {
        warmNodeSamples.push(await inNode(warmHost));
      }
      warmSandboxSamples.push(await inSandbox(warmHost, false));
      if (!nodeFirst) {
        warmNodeSamples.push(await inNode(warmHost));
      }
    }
    const warmNode = medianOfSamples(warmNodeSamples);
    const warmSandbox = medianOfSamples(warmSandboxSamples);
    console.error(`analysis program result (documents sections items paragraphs long-paragraphs hits): ${expected}`);
    add('analysis program, 100 documents + 10 searches, cold VFS, with sandbox start-up: sandbox vs plain Node', coldSandbox.wall, coldNode.wall);
    add('  the same, CPU time of the process', coldSandbox.cpu, coldNode.cpu);
    add('analysis program, warm VFS, sandbox started: sandbox vs plain Node', warmSandbox.wall, warmNode.wall);
    add('  the same, CPU time of the process', warmSandbox.cpu, warmNode.cpu);
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-sandbox-'));
  const rows: Array<[string, string, string, string]> = [];
  const add = (what: string, value: number, reference: number | undefined, unit = 'ms'): void => {
    rows.push([what, `${value.toFixed(3)} ${unit}`, reference === undefined ? '' : `${reference.toFixed(3)} ${unit}`, reference === undefined ? '' : `${(value / reference).toFixed(1)}×`]);
  };
  try {
    const script = await bundledWorker(folder);
    if (analysisOnly) {
      await analysisProgram(folder, script, add);
      return;
    }
    const knowledgeBase = createStructuredKnowledgeBase([bigDocument(1000)]);
    const host: SandboxHost = createKnowledgeBaseSandboxHost({ knowledgeBase });
    // A host whose calls cost nothing: what remains is the sandbox's own overhead.
    const cheapHost: SandboxHost = { ...host, listDocuments: async () => [] };

    // --- Startup ---
    const startBundled = await medianOf(async () => (await createCodeSandbox({ host, workerScript: script })).dispose());
    const startSource = await medianOf(async () => (await createCodeSandbox({ host })).dispose(), 3);
    const startInThread = await medianOf(async () => (await GuestSession.create({ ...DEFAULT_CODE_SANDBOX_LIMITS, callHost: async () => '[]' })).dispose());
    add('startup: createCodeSandbox (bundled worker)', startBundled, startInThread);
    add('startup: createCodeSandbox (tsx source worker, tests)', startSource, startInThread);
    add('startup: QuickJS session on this thread (reference)', startInThread, undefined);

    const sandbox: CodeSandbox = await createCodeSandbox({ host: cheapHost, workerScript: script });
    const session = await GuestSession.create({ ...DEFAULT_CODE_SANDBOX_LIMITS, callHost: async () => JSON.stringify((await cheapHost.listDocuments()).map(toGuestDocument)) });
    try {
      // --- One execute ---
      await sandbox.execute('1 + 1');
      const executeSamples: number[] = [];
      for (let index = 0; index < 200; index++) {
        executeSamples.push(await timed(() => sandbox.execute('1 + 1')));
      }
      const sessionSamples: number[] = [];
      for (let index = 0; index < 200; index++) {
        sessionSamples.push(await timed(() => session.execute('1 + 1', Date.now() + 60_000, 60)));
      }
      add('execute("1 + 1") round trip', median(executeSamples), median(sessionSamples));

      // --- Awaited host calls ---
      const loop = `for (let index = 0; index < ${calls}; index++) { await list_documents(); }`;
      const plain = await medianOf(async () => {
        for (let index = 0; index < calls; index++) {
          JSON.parse(JSON.stringify((await cheapHost.listDocuments()).map(toGuestDocument)));
        }
      });
      const inSandbox = await medianOf(async () => {
        const result = await sandbox.execute(loop);
        if (!result.success) {
          throw new Error(result.stderr);
        }
      });
      const inThread = await medianOf(() => session.execute(loop, Date.now() + 60_000, 60));
      const parallel = await medianOf(() => sandbox.execute(`await Promise.all(Array.from({ length: ${calls} }, () => list_documents()))`));
      add(`${calls} awaited host calls: sandbox (worker) vs plain Node`, inSandbox, plain);
      add(`${calls} awaited host calls: QuickJS on this thread vs plain Node`, inThread, plain);
      add(`${calls} host calls via Promise.all: sandbox vs plain Node`, parallel, plain);
      add('one awaited host call (sandbox, worker)', inSandbox / calls, plain / calls);
    } finally {
      await sandbox.dispose();
      session.dispose();
    }

    // --- VFS read of a 1,000-item items.jsonl ---
    const itemsPath = '/documents/dbig/items.jsonl';
    const firstBuild = await medianOf(() => createVirtualFileSystem(knowledgeBase).readFile(itemsPath));
    const fileSystem = createVirtualFileSystem(knowledgeBase);
    const text = await fileSystem.readFile(itemsPath);
    const cachedRead = await medianOf(() => fileSystem.readFile(itemsPath), 50);
    const storedItems = await knowledgeBase.getDocumentItems('dbig');
    const formatOnly = await medianOf(async () => itemsJsonl(storedItems), 50);
    const tocOnly = await medianOf(async () => tocFile({ id: 'dbig', title: 'Big' }, storedItems), 50);
    const plainLines = await medianOf(async () => (await fileSystem.readFile(itemsPath)).split('\n').map((line) => JSON.parse(line) as unknown), 50);
    const vfsSandbox = await createCodeSandbox({ host, workerScript: script });
    try {
      await vfsSandbox.execute(`(await readLines('${itemsPath}')).length`);
      const guestLines = await medianOf(() => vfsSandbox.execute(`(await readLines('${itemsPath}')).map((line) => JSON.parse(line)).length`), 20);
      const guestToc = await medianOf(() => vfsSandbox.execute(`(await readJson('/documents/dbig/toc.json')).tree.length`), 20);
      add(`VFS build of items.jsonl (1,000 items, ${(text.length / 1024).toFixed(0)} KiB) vs cached read`, firstBuild, cachedRead);
      add('  of which formatting items.jsonl (no store access) vs cached read', formatOnly, cachedRead);
      add('  of which building toc.json (no store access)', tocOnly, undefined);
      add('readLines + JSON.parse of it in the sandbox vs plain Node', guestLines, plainLines);
      add('readJson(toc.json) in the sandbox', guestToc, undefined);
    } finally {
      await vfsSandbox.dispose();
    }

    // --- A realistic analysis program over a LanceDB index of 100 documents, against the same program in Node ---
    await analysisProgram(folder, script, add);

    // --- Real host calls: full-text search on a LanceDB index of three Vite guide pages ---
    const databasePath = path.join(folder, 'index');
    const store = await openStore({ uri: databasePath });
    const guide = path.join(repositoryRoot, '..', 'shared', 'corpus', 'vite-docs', 'docs', 'guide');
    await indexPaths({ roots: ['dep-pre-bundling.md', 'env-and-mode.md', 'static-deploy.md'].map((file) => path.join(guide, file)), store, baseFolder: guide });
    const storeHost = createKnowledgeBaseSandboxHost({ knowledgeBase: store });
    const searches = 100;
    const queries = ['dependency pre-bundling', 'environment variables', 'deploy static site', 'mode production', 'cache'];
    const storeSandbox = await createCodeSandbox({ host: storeHost, workerScript: script });
    try {
      await storeSandbox.execute('await search("warm up")');
      const directSearch = await medianOf(async () => {
        for (let index = 0; index < searches; index++) {
          JSON.parse(JSON.stringify((await storeHost.search(queries[index % queries.length], 10)).map(toGuestSearchHit)));
        }
      }, 3);
      const sandboxSearch = await medianOf(() => storeSandbox.execute(`const queries = ${JSON.stringify(queries)}; for (let index = 0; index < ${searches}; index++) { await search(queries[index % queries.length], 10); }`), 3);
      add(`${searches} awaited LanceDB searches (full text, limit 10): sandbox vs plain Node`, sandboxSearch, directSearch);
    } finally {
      await storeSandbox.dispose();
      await store.close();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    printRows(rows);
  }
}

function printRows(rows: Array<[string, string, string, string]>): void {
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column].length), ['measure', 'value', 'reference', 'ratio'][column].length));
  const line = (cells: string[]): string => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(line(['measure', 'value', 'reference', 'ratio']));
  for (const row of rows) {
    console.log(line(row));
  }
  console.log(`\nlimits: code_timeout ${DEFAULT_CODE_SANDBOX_LIMITS.codeTimeoutSeconds} s, max_output_chars ${DEFAULT_CODE_SANDBOX_LIMITS.maxOutputChars}, memory ${DEFAULT_CODE_SANDBOX_LIMITS.memoryLimitBytes / 1024 / 1024} MiB, stack ${DEFAULT_CODE_SANDBOX_LIMITS.stackLimitBytes / 1024} KiB; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
}

// `npm run bench` imports the analysis program from here; only a direct run measures everything.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
