import { INDEX_IN_PROCESS_MAX_BYTES, INDEX_IN_PROCESS_MAX_FILES } from '../../core/limits';
import { createConversionPool, type ConversionPool } from '../convert/conversionPool';
import type { ScannedFile } from './scanner';

/**
 * Whether a run's changed files are few and small enough to convert in-process: a worker's start-up would cost
 * more than they do (their parsers are linear at this size).
 */
export function convertsInProcess(files: number, bytes: number): boolean {
  return files <= INDEX_IN_PROCESS_MAX_FILES && bytes <= INDEX_IN_PROCESS_MAX_BYTES;
}

/**
 * Starts a first build's conversion workers while it scans (nothing stored: every file found will convert), so
 * that they load their converters (~0.2–0.3 s each) beside the scan instead of after it. A caller's pool starts as
 * soon as the run knows it is a first build. A run without one makes its own pool only once the files found pass
 * what a run converts in-process (`convertsInProcess`): a few small files never start a worker. No more workers start
 * than files were found: a second one beside a single big file held ~100 MiB for nothing.
 */
export class EarlyWorkers {
  /** The run's own pool, once started (the run uses it unless its changed files turn out few and small). */
  ownPool: ConversionPool | undefined;
  private firstBuild = false;
  private stopped = false;
  /** Workers asked to start so far: no more than files found (one big file never waits for a second worker). */
  private warmed = 0;
  private files = 0;
  private bytes = 0;
  private readonly known: Promise<void>;

  constructor(private readonly options: { callerPool: ConversionPool | undefined; workers: number; stored: Promise<ReadonlyMap<string, unknown>> }) {
    this.known = options.stored.then((states) => {
      this.firstBuild = states.size === 0;
      this.startIfDue();
    }, () => undefined);
  }

  /** A file the scan found. */
  found(file: ScannedFile): void {
    this.files++;
    this.bytes += file.size;
    this.startIfDue();
  }

  /** Stops the run's own pool (after its conversions, or when the run ended before using it). */
  async dispose(): Promise<void> {
    await this.known;
    this.stopped = true;
    await this.ownPool?.dispose();
  }

  private startIfDue(): void {
    const { callerPool, workers } = this.options;
    const wanted = Math.min(workers, this.files);
    if (!this.firstBuild || this.stopped || wanted <= this.warmed) {
      return;
    }
    if (callerPool) {
      this.warmed = wanted;
      callerPool.warmUp?.(wanted);
    } else if (this.ownPool || !convertsInProcess(this.files, this.bytes)) {
      this.warmed = wanted;
      this.ownPool ??= createConversionPool({ size: workers });
      this.ownPool.warmUp?.(wanted);
    }
  }
}
