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
export async function raceConversion<T>(work: Promise<T>, options: ConversionRaceOptions): Promise<T> {
  const { fileName, timeoutMilliseconds, abortSignal } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(conversionTimeoutError(fileName, timeoutMilliseconds)), Math.max(0, timeoutMilliseconds));
    if (abortSignal) {
      onAbort = () => reject(new CancelledError(`Converting ${fileName}`));
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
