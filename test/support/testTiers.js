// The integration tier: the slowest unit test files, which `npm run test:fast` leaves out and
// `npm run test:integration` runs. `npm test` runs every file either way.
// Chosen by timing each file (HAIKU_TEST_TIMINGS=<file> with the spec reporter, test/support/specWithSummary.js).
const integrationTestFiles = [];

module.exports = { integrationTestFiles };
