// Mocha's spec reporter plus the plain closing line CI reads: `N passed, N failed, N skipped`.
// With HAIKU_TEST_TIMINGS=<file> it also writes each test file's wall time (hooks included) there as JSON,
// slowest first: how the files of `test/support/testTiers.js` were chosen.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const timingsFile = process.env.HAIKU_TEST_TIMINGS;
    const fileMilliseconds = new Map();
    const started = new Map();
    if (timingsFile) {
      // A file's top-level suites are the root's children; their begin-to-end spans add up to the file's time.
      runner.on(EVENT_SUITE_BEGIN, (suite) => {
        if (suite.file && suite.parent?.root) started.set(suite, performance.now());
      });
      runner.on(EVENT_SUITE_END, (suite) => {
        const start = started.get(suite);
        if (start === undefined) return;
        const file = path.relative(process.cwd(), suite.file).split(path.sep).join('/');
        fileMilliseconds.set(file, (fileMilliseconds.get(file) ?? 0) + performance.now() - start);
      });
    }
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
      if (timingsFile) {
        const sorted = [...fileMilliseconds].sort((a, b) => b[1] - a[1]).map(([file, milliseconds]) => ({ file, seconds: Math.round(milliseconds) / 1000 }));
        fs.writeFileSync(timingsFile, `${JSON.stringify(sorted, undefined, 2)}\n`);
      }
    });
  }
}

module.exports = SpecWithSummary;
