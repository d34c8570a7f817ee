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
 * what a run converts in-process (`convertsInProcess`): a few small files never start a worker.
 */
export class EarlyWorkers {
  /** The run's own pool, once started (the run uses it unless its changed files turn out few and small). */
  ownPool: ConversionPool | undefined;
  private firstBuild = false;
  private started = false;
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
    this.started = true;
    await this.ownPool?.dispose();
  }

  private startIfDue(): void {
    if (!this.firstBuild || this.started) {
      return;
    }
    const { callerPool, workers } = this.options;
    if (callerPool) {
      this.started = true;
      callerPool.warmUp?.(workers);
    } else if (!convertsInProcess(this.files, this.bytes)) {
      this.started = true;
      this.ownPool = createConversionPool({ size: workers });
      this.ownPool.warmUp?.(workers);
    }
  }
}
