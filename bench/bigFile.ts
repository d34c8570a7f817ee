/**
 * A 44 MB Markdown file (a single-page specification of real text: SciFact abstracts under numbered headings, with
 * lists, code and tables) indexed through our indexer, full text only, in a child process of its own so that its
 * peak RSS is the indexing's alone (conversion workers are threads of that process). Part of `npm run bench`; alone:
 *   npx tsx bench/bigFile.ts [--megabytes 44] [--repeat 3]
 */
import './benchSupport';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadScifactCorpus } from '../scripts/scifactCorpus';
import { createConversionPool } from '../src/node/convert/conversionPool';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { bundledConversionWorker, formatBytes, formatMs, median, ownPeakRssBytes, runBenchChild, type BenchRow } from './benchSupport';

/** The issue's goal for a 44 MB Markdown file: indexed within this time… */
const GOAL_SECONDS = 15;
/** …and this peak RSS of the whole process (bytes). */
const GOAL_PEAK_RSS_BYTES = 2 ** 30;

interface BigFileFigures {
  totalMs: number;
  maxRssBytes: number;
  chunks: number;
  failed: number;
  durations: Record<string, number>;
}

/**
 * Writes `bytes` of Markdown: `##` parts of 20 `###` sections, each section three abstracts as paragraphs (every third
 * one a list of its sentences), a code block every 7th and a table every 11th section. Sections of about a chunk's
 * size and more, as a specification has; the abstracts repeat (with new numbers) past SciFact's 7 MB.
 */
export function writeBigMarkdown(file: string, bytes: number): void {
  const corpus = loadScifactCorpus();
  const descriptor = fs.openSync(file, 'w');
  let written = fs.writeSync(descriptor, '# A big specification\n\nEvery section below quotes three abstracts.\n\n');
  let abstract = 0;
  for (let section = 1; written < bytes; section++) {
    const parts: string[] = [];
    if (section % 20 === 1) {
      parts.push(`## Part ${Math.ceil(section / 20)}: ${corpus[abstract % corpus.length].title}\n`);
    }
    parts.push(`### ${section}. ${corpus[abstract % corpus.length].title}\n`);
    for (let paragraph = 0; paragraph < 3; paragraph++, abstract++) {
      const text = corpus[abstract % corpus.length].text;
      parts.push(abstract % 3 === 2 ? `${text.split(/(?<=\.) /).map((sentence) => `- ${sentence}`).join('\n')}\n` : `${text}\n`);
    }
    if (section % 7 === 0) {
      parts.push(`\`\`\`js\nconst section = ${section};\nconsole.log(measure(section));\n\`\`\`\n`);
    }
    if (section % 11 === 0) {
      parts.push(`| key | value |\n|---|---|\n| section | ${section} |\n| abstract | ${corpus[abstract % corpus.length]._id} |\n`);
    }
    const text = `${parts.join('\n')}\n`;
    written += fs.writeSync(descriptor, text.slice(0, Math.max(0, bytes - written)));
  }
  fs.closeSync(descriptor);
}

/** Indexes the folder's file (the child's part); prints one JSON line. */
async function indexInChild(documentsFolder: string, indexFolder: string, workerFile: string): Promise<void> {
  const store = await openStore({ uri: indexFolder });
  const started = performance.now();
  const pool = createConversionPool({ workerScript: { file: workerFile, execArgv: [] } });
  const summary = await indexPaths({ roots: [documentsFolder], baseFolder: documentsFolder, store, conversionPool: pool }).finally(() => pool.dispose());
  const totalMs = performance.now() - started;
  const stats = await store.stats();
  await store.close();
  const figures: BigFileFigures = { totalMs, maxRssBytes: ownPeakRssBytes(), chunks: stats.chunks, failed: summary.failed.length, durations: summary.durations };
  if (summary.failed.length > 0) {
    process.stderr.write(`${summary.failed.map((failure) => failure.reason).join('\n')}\n`);
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** `repeat` runs of the child on one generated file; medians of time and peak RSS. */
export async function bigFileBenchmarks(work: string, rows: BenchRow[], notes: string[], options: { megabytes?: number; repeat?: number } = {}): Promise<void> {
  const megabytes = options.megabytes ?? 44;
  const documentsFolder = path.join(work, 'big-file');
  fs.mkdirSync(documentsFolder, { recursive: true });
  const file = path.join(documentsFolder, 'specification.md');
  writeBigMarkdown(file, megabytes * 1_000_000);
  const worker = await bundledConversionWorker();
  const runs: BigFileFigures[] = [];
  for (let round = 0; round < (options.repeat ?? 3); round++) {
    const indexFolder = path.join(work, `big-file-index-${round}`);
    process.stderr.write(`Big file: indexing ${megabytes} MB of Markdown in a child process (round ${round + 1})…\n`);
    runs.push(runBenchChild<BigFileFigures>(__filename, ['--child', documentsFolder, indexFolder, worker.file], 'big-file indexing'));
    fs.rmSync(indexFolder, { recursive: true, force: true });
  }
  const failed = runs.find((run) => run.failed > 0);
  if (failed) {
    throw new Error(`The ${megabytes} MB Markdown file was not indexed (${failed.failed} failed).`);
  }
  const seconds = median(runs.map((run) => run.totalMs)) / 1000;
  const peak = median(runs.map((run) => run.maxRssBytes));
  const label = `${megabytes} MB Markdown file (one document, ${runs[0].chunks} chunks, full text)`;
  rows.push({ measure: `${label}: indexing time`, ours: formatMs(seconds * 1000), reference: `${GOAL_SECONDS} s`, ratio: seconds / GOAL_SECONDS, goal: `≤ ${GOAL_SECONDS} s`, met: seconds <= GOAL_SECONDS });
  rows.push({ measure: `${label}: peak RSS of the indexing process`, ours: formatBytes(peak), reference: '1 GiB', ratio: peak / GOAL_PEAK_RSS_BYTES, goal: '< 1 GiB', met: peak < GOAL_PEAK_RSS_BYTES });
  const phases = (run: BigFileFigures) => `convert+chunk ${formatMs(run.durations.convertMs)}, write ${formatMs(run.durations.writeMs)}, optimize ${formatMs(run.durations.optimizeMs)}`;
  notes.push(`Big file: ${megabytes} MB of Markdown, ${runs.length} runs in a child process each (times ${runs.map((run) => formatMs(run.totalMs)).join(' / ')}, peak RSS ${runs.map((run) => formatBytes(run.maxRssBytes)).join(' / ')}); the median run: ${phases(runs.slice().sort((left, right) => left.totalMs - right.totalMs)[Math.floor(runs.length / 2)])}.`);
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    await indexInChild(process.argv[3], process.argv[4], process.argv[5]);
    return;
  }
  const { values } = parseArgs({ options: { megabytes: { type: 'string', default: '44' }, repeat: { type: 'string', default: '3' } } });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-big-file-'));
  try {
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    await bigFileBenchmarks(work, rows, notes, { megabytes: Number(values.megabytes), repeat: Number(values.repeat) });
    for (const row of rows) {
      process.stdout.write(`${row.measure}: ${row.ours} (goal ${row.goal}; ${row.met ? 'met' : 'not met'})\n`);
    }
    process.stdout.write(`${notes.join('\n')}\nload average ${os.loadavg().map((load) => load.toFixed(1)).join(' / ')}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
