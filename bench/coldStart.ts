/**
 * Cold starts (issue 29): `haiku --version` and `haiku help` against Node's own start (`node -e 0`), a one-shot
 * `haiku search` against raw LanceDB's fresh-process floor (bench/lancedbColdFloor.js), and a process's first hybrid
 * search against its first full-text one, beside raw LanceDB's same two (bench/lancedbFirstSearchFloor.js). Each set
 * runs alternately in the same loop (which goes first alternates),
 * and every figure is a median, because the machine is shared.
 */
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VECTOR_INDEX_PROBES, VECTOR_INDEX_REFINE_FACTOR } from '../src/core/limits';
import { type BenchRow, formatMs, median, runBenchChild } from './benchSupport';
import { syntheticQueries, writeSyntheticMarkdown } from './syntheticCorpus';

const repositoryRoot = path.resolve(__dirname, '..');
const cliEntry = path.join(repositoryRoot, 'dist', 'cli.js');
const fullCli = path.join(repositoryRoot, 'dist', 'cli-main.js');

/**
 * CPU time (user + system) of this process's waited-for children so far, from /proc (Linux; 10 ms ticks): on a
 * loaded machine a child's wall time is mostly waiting for a core, its CPU time is what it costs.
 */
function childrenCpuMs(): number {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted from the state field (field 3) here.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

interface Timed {
  wallMs: number;
  cpuMs: number;
}

/** Wall and CPU time of one `node <args>` run, which must exit 0. */
function timedNode(args: readonly string[]): Timed {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const child = childProcess.spawnSync(process.execPath, args, { cwd: repositoryRoot, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, env: benchEnvironment });
  const wallMs = performance.now() - started;
  if (child.status !== 0) {
    throw new Error(`node ${args.join(' ')} failed (${child.status}): ${child.stderr}`);
  }
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore };
}

/** The CLI's V8 code cache goes to a folder of the bench's own (warmed by the first round, as a user's second command). */
let benchEnvironment: NodeJS.ProcessEnv = process.env;

const wall = (runs: readonly Timed[]): number => median(runs.map((run) => run.wallMs));
const cpu = (runs: readonly Timed[]): number => median(runs.map((run) => run.cpuMs));

/** Runs each variant once per round, rotating which goes first; returns each variant's times. */
function alternate(rounds: number, variants: ReadonlyArray<readonly string[]>): Timed[][] {
  const times = variants.map(() => [] as Timed[]);
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < variants.length; step++) {
      const index = (round + step) % variants.length;
      times[index].push(timedNode(variants[index]));
    }
  }
  return times;
}

export function cliStartupBenchmarks(rows: BenchRow[], notes: string[], rounds = 11): void {
  if (!fs.existsSync(cliEntry) || !fs.existsSync(fullCli)) {
    throw new Error('dist/cli.js or dist/cli-main.js is missing: run `npm run build` first.');
  }
  const [nodeFloor, version, help, fullVersion] = alternate(rounds, [['-e', '0'], [cliEntry, '--version'], [cliEntry, 'help'], [fullCli, '--version']]);
  for (const [measure, runs] of [['`haiku --version`', version], ['`haiku help`', help]] as const) {
    rows.push({ measure: `${measure}, fresh process, CPU time (wall: ${formatMs(wall(runs))})`, ours: formatMs(cpu(runs)), reference: `${formatMs(cpu(nodeFloor))} (\`node -e 0\`; wall ${formatMs(wall(nodeFloor))})`, ratio: cpu(runs) / cpu(nodeFloor), goal: '≤ 150 ms', met: cpu(runs) <= 150 });
  }
  notes.push(`CLI start (medians of ${rounds}, alternating; CPU from /proc in 10 ms ticks): \`node -e 0\` ${formatMs(wall(nodeFloor))} wall / ${formatMs(cpu(nodeFloor))} CPU; \`haiku --version\` ${formatMs(wall(version))} / ${formatMs(cpu(version))} and \`haiku help\` ${formatMs(wall(help))} / ${formatMs(cpu(help))} from the small entry (dist/cli.js); \`--version\` through the whole CLI bundle (dist/cli-main.js, what dist/cli.js was before) ${formatMs(wall(fullVersion))} / ${formatMs(cpu(fullVersion))}.`);
}

/** A one-shot full-text `haiku search` on `indexFolder` against raw LanceDB's fresh-process floor on the same table. */
export function coldSearchBenchmarks(indexFolder: string, query: string, label: string, rows: BenchRow[], notes: string[], rounds = 9): void {
  const [ours, floor] = alternate(rounds, [
    [cliEntry, 'search', query, '--db', indexFolder, '--search-type', 'fts', '--limit', '10'],
    [path.join(__dirname, 'lancedbColdFloor.js'), indexFolder, query],
  ]);
  const ratio = wall(ours) / wall(floor);
  rows.push({ measure: `${label}: one-shot \`haiku search\` (full text), fresh process`, ours: formatMs(wall(ours)), reference: `${formatMs(wall(floor))} (raw LanceDB: require, connect, open, one FTS query)`, ratio, goal: '≤ 1.3×', met: ratio <= 1.3 });
  notes.push(`${label} cold search (medians of ${rounds}, alternating): \`haiku search --search-type fts\` ${formatMs(wall(ours))} wall / ${formatMs(cpu(ours))} CPU (${(cpu(ours) / cpu(floor)).toFixed(2)}× in CPU), raw LanceDB floor ${formatMs(wall(floor))} / ${formatMs(cpu(floor))}.`);
}

/**
 * A process's first hybrid search against its first full-text search, each in a fresh child on `indexFolder`, and
 * the same two in raw LanceDB (bench/lancedbFirstSearchFloor.js: the full-text query alone, or beside one ANN query
 * with our probes and refinement), whose ratio is the floor LanceDB itself sets for ours.
 */
export function firstHybridBenchmarks(indexFolder: string, query: string, dimensions: number, label: string, rows: BenchRow[], notes: string[], rounds = 5): void {
  type Run = { wallMs: number; cpuMs: number };
  const runs = { fullText: [] as Run[], hybrid: [] as Run[], rawFullText: [] as Run[], rawHybrid: [] as Run[] };
  const child = path.join(__dirname, 'firstSearchChild.ts');
  const rawChild = path.join(__dirname, 'lancedbFirstSearchFloor.js');
  const annSettings = [String(VECTOR_INDEX_PROBES), String(VECTOR_INDEX_REFINE_FACTOR)];
  for (let round = 0; round < rounds; round++) {
    const modes = ['fullText', 'hybrid', 'rawFullText', 'rawHybrid'] as const;
    for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
      const run =
        mode === 'rawFullText' || mode === 'rawHybrid'
          ? runBenchChild<Run>(rawChild, [indexFolder, mode === 'rawHybrid' ? 'hybrid' : 'fullText', query, String(dimensions), ...annSettings], `raw LanceDB first ${mode} search`)
          : runBenchChild<Run>(child, [indexFolder, mode, query, String(dimensions)], `first ${mode} search`);
      runs[mode].push(run);
    }
  }
  const wall = (mode: keyof typeof runs) => median(runs[mode].map((run) => run.wallMs));
  const cpu = (mode: keyof typeof runs) => median(runs[mode].map((run) => run.cpuMs));
  const ratio = wall('hybrid') / wall('fullText');
  const rawRatio = wall('rawHybrid') / wall('rawFullText');
  rows.push({ measure: `${label}: first hybrid search in a process`, ours: formatMs(wall('hybrid')), reference: `${formatMs(wall('fullText'))} (first full-text search in a process; raw LanceDB's own ratio ${rawRatio.toFixed(2)}×)`, ratio, goal: '≤ 1.5×', met: ratio <= 1.5 });
  rows.push({ measure: `${label}: first hybrid search in a process, against raw LanceDB's`, ours: formatMs(wall('hybrid')), reference: `${formatMs(wall('rawHybrid'))} (raw LanceDB: the same full-text and ANN queries side by side)`, ratio: wall('hybrid') / wall('rawHybrid'), goal: 'report', met: true });
  notes.push(
    `${label} first search in a fresh process (medians of ${rounds}, alternating): hybrid ${formatMs(wall('hybrid'))} wall / ${formatMs(cpu('hybrid'))} CPU, full text ${formatMs(wall('fullText'))} wall / ${formatMs(cpu('fullText'))} CPU; ` +
      `raw LanceDB (${VECTOR_INDEX_PROBES} probes, refine factor ${VECTOR_INDEX_REFINE_FACTOR}) hybrid ${formatMs(wall('rawHybrid'))} / ${formatMs(cpu('rawHybrid'))} CPU, full text ${formatMs(wall('rawFullText'))} / ${formatMs(cpu('rawFullText'))} CPU (${rawRatio.toFixed(2)}×).`,
  );
}

/**
 * The three rows on the indexes `bench/run.ts` built: SciFact's (full text) when it ran, else `syntheticIndex`, for
 * the one-shot search, and the synthetic one (vectors) for the first hybrid search.
 */
export function coldStartBenchmarks(work: string, syntheticIndex: string, syntheticLabel: string, syntheticQuery: string, dimensions: number, rows: BenchRow[], notes: string[]): void {
  benchEnvironment = { ...process.env, HAIKU_COMPILE_CACHE_DIR: path.join(work, 'compile-cache') };
  timedNode([cliEntry, 'docs', '--db', syntheticIndex]);
  cliStartupBenchmarks(rows, notes);
  const scifactIndex = path.join(work, 'scifact-ours');
  if (fs.existsSync(scifactIndex)) {
    coldSearchBenchmarks(scifactIndex, 'cancer cells', 'SciFact', rows, notes);
  } else {
    coldSearchBenchmarks(syntheticIndex, syntheticQuery, syntheticLabel, rows, notes);
  }
  firstHybridBenchmarks(syntheticIndex, syntheticQuery, dimensions, syntheticLabel, rows, notes);
}

/** Alone: `npx tsx bench/coldStart.ts` (after `npm run build`), on a synthetic index of 200 files built here. */
async function standalone(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-cold-'));
  try {
    const documents = path.join(work, 'documents');
    const index = path.join(work, 'synthetic-ours');
    writeSyntheticMarkdown(documents, { fileCount: Number(process.argv[2] ?? 200), sectionsPerFile: 100 });
    const indexed = runBenchChild<{ chunks: number }>(path.join(__dirname, 'syntheticIndexChild.ts'), [documents, index, '384'], 'indexing');
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    coldStartBenchmarks(work, index, `${(indexed.chunks / 1000).toFixed(0)}k synthetic`, syntheticQueries(1)[0], 384, rows, notes);
    for (const row of rows) {
      process.stdout.write(`${row.measure}: ${row.ours} vs ${row.reference} = ${row.ratio.toFixed(2)}× (goal ${row.goal}, ${row.met ? 'met' : 'not met'})\n`);
    }
    process.stdout.write(`${notes.map((note) => `- ${note}`).join('\n')}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  standalone().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
