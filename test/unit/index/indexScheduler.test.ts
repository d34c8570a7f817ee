import * as assert from 'node:assert';
import { IndexScheduler, type IndexJob, type IndexJobOutcome, type IndexSchedulerOptions } from '../../../src/core/indexScheduler';

const DEBOUNCE_MS = 30;

/** A job as the runner saw it, with sorted paths so assertions do not depend on event order. */
interface SeenJob {
  full: boolean;
  rebuild: boolean;
  changed: string[];
  named: string[];
  deleted: string[];
}

function seen(job: IndexJob): SeenJob {
  return { full: job.full, rebuild: job.rebuild, changed: [...job.changed].sort(), named: [...job.named].sort(), deleted: [...job.deleted].sort() };
}

const nothing: SeenJob = { full: false, rebuild: false, changed: [], named: [], deleted: [] };

/**
 * A scheduler whose jobs are recorded; a job can be held open (`hold`) until released, to test what happens while
 * one runs. A held job that is aborted ends as 'cancelled', as the indexer's does.
 */
function harness(overrides: Partial<IndexSchedulerOptions> = {}) {
  const jobs: SeenJob[] = [];
  const errors: unknown[] = [];
  let refusals = 0;
  let running = 0;
  let mostAtOnce = 0;
  let holdNext = false;
  let release: (() => void) | undefined;
  let jobStarted: (() => void) | undefined;
  const state = { mayRun: true, acceptsWork: true, idleWithWork: false, throwNext: false };
  const scheduler = new IndexScheduler({
    debounceMs: DEBOUNCE_MS,
    mayRun: () => state.mayRun,
    acceptsWork: () => state.acceptsWork,
    onRefused: () => refusals++,
    idleWithWork: () => state.idleWithWork,
    onJobError: (error) => errors.push(error),
    runJob: async (job, abort): Promise<IndexJobOutcome> => {
      jobs.push(seen(job));
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        jobStarted?.();
        if (holdNext) {
          holdNext = false;
          await new Promise<void>((resolve) => {
            release = resolve;
            abort.signal.addEventListener('abort', () => resolve());
          });
        }
        if (state.throwNext) {
          state.throwNext = false;
          throw new Error('runner bug');
        }
        return abort.signal.aborted ? 'cancelled' : 'done';
      } finally {
        running--;
      }
    },
    ...overrides,
  });
  return {
    scheduler,
    jobs,
    errors,
    state,
    get refusals() {
      return refusals;
    },
    get mostAtOnce() {
      return mostAtOnce;
    },
    /** The next job waits until `release()` (or its abort). */
    hold(): Promise<void> {
      holdNext = true;
      return new Promise((resolve) => {
        jobStarted = () => {
          jobStarted = undefined;
          resolve();
        };
      });
    },
    release(): void {
      release?.();
    },
  };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('IndexScheduler', () => {
  it('coalesces file events within the debounce into one job, the last event of a path winning', async () => {
    const { scheduler, jobs } = harness();
    scheduler.fileChanged('/w/a.md');
    scheduler.fileChanged('/w/a.md');
    scheduler.fileChanged('/w/b.md');
    scheduler.fileDeleted('/w/b.md');
    scheduler.fileDeleted('/w/c.md');
    scheduler.fileChanged('/w/c.md');
    await sleep(DEBOUNCE_MS / 3);
    // Each event restarts the debounce: nothing ran yet.
    scheduler.fileChanged('/w/d.md');
    assert.equal(jobs.length, 0);
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, changed: ['/w/a.md', '/w/c.md', '/w/d.md'], deleted: ['/w/b.md'] }]);
  });

  it('indexes named files at once, and a later deletion takes a file out of the named ones', async () => {
    const { scheduler, jobs } = harness({ debounceMs: 60_000 });
    scheduler.indexNamedFiles(['/w/notes.txt', '/w/gone.md']);
    scheduler.fileDeleted('/w/gone.md');
    // The deletion restarted the (long) watcher debounce: only a new request at once drains it.
    scheduler.indexNamedFiles(['/w/other.txt']);
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, changed: ['/w/notes.txt', '/w/other.txt'], named: ['/w/notes.txt', '/w/other.txt'], deleted: ['/w/gone.md'] }]);
  });

  it('runs one job at a time: work queued while a job runs becomes the next job, in one piece', async () => {
    const test = harness();
    const { scheduler, jobs } = test;
    const started = test.hold();
    scheduler.requestFullSync();
    await started;
    scheduler.fileChanged('/w/a.md');
    scheduler.indexNamedFiles(['/w/b.md']);
    await sleep(DEBOUNCE_MS * 2);
    assert.equal(jobs.length, 1, 'the second job waits for the first');
    test.release();
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, full: true }, { ...nothing, changed: ['/w/a.md', '/w/b.md'], named: ['/w/b.md'] }]);
    assert.equal(test.mostAtOnce, 1);
  });

  it('a rebuild cancels the running job and then drops and syncs everything', async () => {
    const test = harness();
    const { scheduler, jobs } = test;
    const started = test.hold();
    scheduler.fileChanged('/w/a.md');
    await started;
    scheduler.requestRebuild();
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, changed: ['/w/a.md'] }, { ...nothing, full: true, rebuild: true }]);
  });

  it('cancelRunning cancels the job (as a settings change does) and waits for the drain to end', async () => {
    const test = harness();
    const { scheduler, jobs } = test;
    const started = test.hold();
    scheduler.requestFullSync();
    await started;
    await scheduler.cancelRunning();
    assert.equal(jobs.length, 1);
    // A cancelled full sync that was not paused is not repeated by the scheduler (the caller asks again).
    await scheduler.whenIdle();
    assert.equal(jobs.length, 1);
    scheduler.requestFullSync();
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, full: true }, { ...nothing, full: true }]);
  });

  it('pause cancels the running job and queues events; resume runs the cut-short full sync with them', async () => {
    const test = harness();
    const { scheduler, jobs } = test;
    const started = test.hold();
    scheduler.requestFullSync();
    await started;
    scheduler.pause();
    assert.equal(scheduler.paused, true);
    scheduler.fileChanged('/w/a.md');
    // Paused with work queued counts as idle: callers waiting on a build do not hang.
    await scheduler.whenIdle();
    assert.equal(jobs.length, 1);
    assert.equal(scheduler.resume(), true);
    assert.equal(scheduler.resume(), false, 'resuming twice does nothing');
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, full: true }, { ...nothing, full: true, changed: ['/w/a.md'] }]);
  });

  it('a build or a rebuild unpauses', async () => {
    const { scheduler, jobs } = harness();
    scheduler.pause();
    scheduler.requestFullSync();
    await scheduler.whenIdle();
    assert.equal(jobs.length, 0, 'a sync request alone waits while paused');
    scheduler.requestBuild();
    await scheduler.whenIdle();
    assert.equal(scheduler.paused, false);
    scheduler.pause();
    scheduler.requestRebuild();
    await scheduler.whenIdle();
    assert.deepStrictEqual(jobs, [{ ...nothing, full: true }, { ...nothing, full: true, rebuild: true }]);
  });

  it('a runner that throws is reported and the queue goes on', async () => {
    const test = harness();
    const { scheduler, jobs, errors, state } = test;
    state.throwNext = true;
    const started = test.hold();
    scheduler.fileChanged('/w/a.md');
    await started;
    scheduler.fileChanged('/w/b.md');
    await sleep(DEBOUNCE_MS * 2);
    test.release();
    await scheduler.whenIdle();
    assert.deepStrictEqual(errors.map((error) => (error as Error).message), ['runner bug']);
    assert.deepStrictEqual(jobs, [{ ...nothing, changed: ['/w/a.md'] }, { ...nothing, changed: ['/w/b.md'] }]);
  });

  it('refuses all work when it accepts none (a read-only index), and keeps it while jobs may not run (untrusted)', async () => {
    const test = harness();
    const { scheduler, jobs, state } = test;
    state.acceptsWork = false;
    scheduler.fileChanged('/w/a.md');
    scheduler.requestRebuild();
    await scheduler.whenIdle();
    assert.equal(test.refusals, 2);
    state.acceptsWork = true;
    state.mayRun = false;
    state.idleWithWork = true;
    scheduler.fileChanged('/w/b.md');
    await scheduler.whenIdle();
    assert.equal(jobs.length, 0);
    state.mayRun = true;
    state.idleWithWork = false;
    scheduler.requestFullSync();
    await scheduler.whenIdle();
    // The refused events are gone; the ones kept while untrusted run with the sync.
    assert.deepStrictEqual(jobs, [{ ...nothing, full: true, changed: ['/w/b.md'] }]);
  });

  it('starts nothing once disposed and cancels the running job', async () => {
    const test = harness();
    const { scheduler, jobs } = test;
    const started = test.hold();
    scheduler.requestFullSync();
    await started;
    scheduler.fileChanged('/w/a.md');
    scheduler.dispose();
    await scheduler.cancelRunning();
    scheduler.requestFullSync();
    await sleep(DEBOUNCE_MS * 2);
    assert.deepStrictEqual(jobs, [{ ...nothing, full: true }]);
  });
});
