// `npm run test:fast`: every unit test file except the slow integration tier (test/support/testTiers.js).
const base = require('./.mocharc.json');
const { integrationTestFiles } = require('./test/support/testTiers.js');

module.exports = { ...base, spec: ['test/unit/**/*.test.ts'], ignore: integrationTestFiles };
