/**
 * Waits for every step, then rethrows the first failure: steps on different tables run side by side, and none
 * is still writing when the queued operation that started them has failed.
 */
export async function settleAll(steps: ReadonlyArray<Promise<unknown> | undefined>): Promise<void> {
  const outcomes = await Promise.allSettled(steps);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    throw failed.reason;
  }
}
