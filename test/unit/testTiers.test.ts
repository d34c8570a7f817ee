import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repositoryRoot } from '../support/paths';

// CommonJS, shared with .mocharc.fast.js and .mocharc.integration.js.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { integrationTestFiles } = require('../support/testTiers.js') as { integrationTestFiles: string[] };

describe('test tiers', () => {
  it('lists only unit test files that exist, once each (a renamed file would silently join the fast tier)', () => {
    assert.ok(integrationTestFiles.length > 0);
    assert.strictEqual(new Set(integrationTestFiles).size, integrationTestFiles.length);
    for (const file of integrationTestFiles) {
      assert.match(file, /^test\/unit\/.+\.test\.ts$/);
      assert.ok(fs.existsSync(path.join(repositoryRoot, file)), `${file} is listed in test/support/testTiers.js but does not exist`);
    }
  });

  it('leaves the listed files out of the fast tier and runs only them in the integration tier', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fast = require(path.join(repositoryRoot, '.mocharc.fast.js')) as { spec: string[]; ignore: string[] };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const integration = require(path.join(repositoryRoot, '.mocharc.integration.js')) as { spec: string[] };
    assert.deepStrictEqual(fast.spec, ['test/unit/**/*.test.ts']);
    assert.deepStrictEqual(fast.ignore, integrationTestFiles);
    assert.deepStrictEqual(integration.spec, integrationTestFiles);
  });
});
