/**
 * Progress of `index` and `rebuild` on stderr (stdout stays the result): on a terminal one line redrawn in
 * place — a bar, files done of total, rate, time left, the current file — and plain lines when stderr is a
 * pipe or a file, so logs stay readable. No colour is used, so `NO_COLOR` has nothing to turn off.
 */
import { PROGRESS_BAR_WIDTH, PROGRESS_REDRAW_INTERVAL_MS } from '../../core/limits';
import type { IndexPhase, IndexProgress } from '../index/indexer';
import { booleanFlag, type CommandContext } from './command';
import { stripTerminalControls } from './terminalText';

export interface ProgressReporter {
  onProgress?: (progress: IndexProgress) => void;
  /** Clears the bar so the summary starts on a clean line. */
  finish(): void;
}

const PHASE_LABELS: Record<IndexPhase, string> = {
  scanning: 'Scanning',
  converting: 'Converting',
  embedding: 'Embedding',
  writing: 'Writing',
  removing: 'Removing',
  optimizing: 'Optimizing',
  done: 'Done',
};

/** Erase from the cursor to the end of the line (ANSI EL). */
const ERASE_LINE_END = '\x1b[K';

/** The reporter for a command's flags and terminal: none with `--quiet`, a bar on a terminal, else lines. */
export function createProgressReporter(context: CommandContext, now: () => number = Date.now): ProgressReporter {
  if (booleanFlag(context, 'quiet')) {
    return { finish: () => undefined };
  }
  const columns = context.io.stderrColumns;
  return columns === undefined ? lineReporter(context) : barReporter(context, columns, now);
}

/**
 * One line per file as its conversion ends (when it starts, the count would still be that of the files before
 * it: with many files in flight every line read [0/n]), and one per phase change.
 */
function lineReporter(context: CommandContext): ProgressReporter {
  let last = '';
  return {
    onProgress(progress) {
      if (progress.phase === 'done' || (progress.phase === 'converting' && progress.finishedFile === undefined)) {
        return;
      }
      const line = progress.finishedFile !== undefined ? `[${progress.filesDone}/${progress.filesTotal}] ${progress.finishedFile}` : `${PHASE_LABELS[progress.phase]}…`;
      if (line !== last) {
        last = line;
        context.io.stderr(line + '\n');
      }
    },
    finish: () => undefined,
  };
}

function barReporter(context: CommandContext, columns: number, now: () => number): ProgressReporter {
  const rate = rateMeter(now);
  let lastDraw = -Infinity;
  let lastPhase: IndexPhase | undefined;
  let drawn = false;
  return {
    onProgress(progress) {
      rate.record(progress);
      const time = now();
      // Redraw at a steady pace, and at once when the phase changes, so a fast run does not flood the terminal.
      if (progress.phase === 'done' || (progress.phase === lastPhase && time - lastDraw < PROGRESS_REDRAW_INTERVAL_MS)) {
        return;
      }
      lastPhase = progress.phase;
      lastDraw = time;
      drawn = true;
      context.rawStderr(`\r${fitToWidth(barLine(progress, rate.filesPerSecond()), columns - 1)}${ERASE_LINE_END}`);
    },
    finish() {
      if (drawn) {
        context.rawStderr(`\r${ERASE_LINE_END}`);
      }
    },
  };
}

/** `Converting [#####-----] 12/40 files  3.2 files/s  ETA 0:09  docs/guide.md` */
export function barLine(progress: IndexProgress, filesPerSecond: number | undefined): string {
  const label = PHASE_LABELS[progress.phase];
  if (progress.filesTotal === 0) {
    return `${label}…`;
  }
  const fraction = Math.min(1, progress.filesDone / progress.filesTotal);
  const filled = Math.round(fraction * PROGRESS_BAR_WIDTH);
  const parts = [`${label} [${'#'.repeat(filled)}${'-'.repeat(PROGRESS_BAR_WIDTH - filled)}] ${progress.filesDone}/${progress.filesTotal} files`];
  if (progress.phase === 'converting') {
    const remaining = progress.filesTotal - progress.filesDone;
    parts.push(filesPerSecond === undefined ? '-- files/s' : `${filesPerSecond.toFixed(1)} files/s`);
    parts.push(`ETA ${filesPerSecond ? clock(remaining / filesPerSecond) : '--:--'}`);
    if (progress.currentFile) {
      parts.push(stripTerminalControls(progress.currentFile));
    }
  }
  return parts.join('  ');
}

/** Files per second over the converting phase so far; undefined until there is a second of it. */
function rateMeter(now: () => number): { record(progress: IndexProgress): void; filesPerSecond(): number | undefined } {
  let started: { time: number; filesDone: number } | undefined;
  let latest: { time: number; filesDone: number } | undefined;
  return {
    record(progress) {
      if (progress.phase !== 'converting') {
        return;
      }
      latest = { time: now(), filesDone: progress.filesDone };
      started ??= latest;
    },
    filesPerSecond() {
      if (!started || !latest) {
        return undefined;
      }
      const seconds = (latest.time - started.time) / 1000;
      return seconds >= 1 ? (latest.filesDone - started.filesDone) / seconds : undefined;
    },
  };
}

/** `m:ss`, or `h:mm:ss` from an hour. */
function clock(totalSeconds: number): string {
  const seconds = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** Cut to the terminal's width: a wrapped line could not be redrawn in place. */
function fitToWidth(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}
