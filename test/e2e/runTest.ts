import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

/**
 * Runs the in-host suites (`dist-test/suite/*.test.js`) inside a real VS Code: code-server's build driven by
 * headless Chromium (`e2e/run-e2e.js`, reached through the `e2e/code-shim.sh` stand-in executable).
 * Loads the extension under test and the scripted fake language model (`test-fixtures/fake-lm`).
 */
async function main(): Promise<void> {
  const repositoryRoot = path.resolve(__dirname, '../..');
  await runTests({
    vscodeExecutablePath: path.join(repositoryRoot, 'e2e', 'code-shim.sh'),
    extensionDevelopmentPath: [repositoryRoot, path.join(repositoryRoot, 'test-fixtures', 'fake-lm')],
    extensionTestsPath: path.join(repositoryRoot, 'dist-test', 'suite', 'index.js'),
    launchArgs: [path.join(repositoryRoot, 'samples')],
    extensionTestsEnv: { HAIKU_TEST_MODE: '1', HAIKU_E2E_OUT: path.join(repositoryRoot, 'test-results', 'e2e') },
  });
}

main().catch((error: unknown) => {
  console.error('End-to-end tests failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
