import type { HeldLease } from './writerLease';

/** True while a process with this pid exists on this host (lock and lease owners). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A held lease that calls `beat` every `intervalMs` (each after the previous one finished; failures are left to
 * the next beat, since a lease left unbeaten only goes stale) and `free` once on release.
 */
export function heartbeatLease(intervalMs: number, beat: () => Promise<void> | void, free: () => Promise<void> | void): HeldLease {
  let beating: Promise<void> = Promise.resolve();
  const heartbeat = setInterval(() => {
    beating = beating.then(beat).catch(() => undefined);
  }, intervalMs);
  heartbeat.unref();
  let released = false;
  return {
    release: async () => {
      if (released) {
        return;
      }
      released = true;
      clearInterval(heartbeat);
      await beating;
      await free();
    },
  };
}
