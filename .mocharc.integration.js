// `npm run test:integration`: the slowest unit test files (real conversions, workers, child processes, big indexes).
const base = require('./.mocharc.json');
const { integrationTestFiles } = require('./test/support/testTiers.js');

module.exports = { ...base, spec: integrationTestFiles };
