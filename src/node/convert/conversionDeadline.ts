import { CancelledError, ConversionError } from '../../core/errors';

export interface ConversionRaceOptions {
  fileName: string;
  timeoutMilliseconds: number;
  abortSignal?: AbortSignal;
}

/**
 * Races a conversion against its time limit and the abort signal. The losing work is not stopped here (callers
 * destroy what it runs on, e.g. the pdf.js loading task); its late rejection is swallowed. Only asynchronous work
 * can be raced: the timer needs the event loop.
 */
export function raceConversion<T>(work: Promise<T>, options: ConversionRaceOptions): Promise<T> {
  const { fileName, timeoutMilliseconds, abortSignal } = options;
  return raceDeadline(work, { timeoutMilliseconds, abortSignal, timeoutError: () => conversionTimeoutError(fileName, timeoutMilliseconds), cancelled: `Converting ${fileName}` });
}

export interface DeadlineRaceOptions {
  timeoutMilliseconds: number;
  abortSignal?: AbortSignal;
  /** The error a timeout rejects with. */
  timeoutError: () => Error;
  /** What an abort cancelled, for its `CancelledError`. */
  cancelled: string;
}

/**
 * Races work against a time limit and an abort signal (already aborted: rejected at once). The losing work is not
 * stopped here (callers stop what it runs on); its late rejection is swallowed.
 */
export async function raceDeadline<T>(work: Promise<T>, options: DeadlineRaceOptions): Promise<T> {
  const { timeoutMilliseconds, abortSignal } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(options.timeoutError()), Math.max(0, timeoutMilliseconds));
    if (abortSignal) {
      onAbort = () => reject(new CancelledError(options.cancelled));
      if (abortSignal.aborted) {
        onAbort();
      } else {
        abortSignal.addEventListener('abort', onAbort, { once: true });
      }
    }
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) {
      abortSignal?.removeEventListener('abort', onAbort);
    }
  }
}

export function conversionTimeoutError(fileName: string, timeoutMilliseconds: number): ConversionError {
  const seconds = Math.max(1, Math.round(timeoutMilliseconds / 1000));
  return new ConversionError('conversion_timeout', fileName, `took longer than ${seconds} s to convert and was abandoned; the file may be damaged or unusually complex. Exclude it or split it into smaller files.`);
}
