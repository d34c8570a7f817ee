import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

/**
 * Runs the in-host suites (`dist-test/suite/*.test.js`) inside a real VS Code: code-server's build driven by
 * headless Chromium (`e2e/run-e2e.js`, reached through the `e2e/code-shim.sh` stand-in executable).
 * Loads the extension under test and the scripted fake language model (`test-fixtures/fake-lm`). Runs twice: in a
 * folder without documents (`dist-test/empty-suite`), then in `samples/` (`dist-test/suite`).
 */
async function main(): Promise<void> {
  const repositoryRoot = path.resolve(__dirname, '../..');
  // The whole in-host run's limit (e2e/run-e2e.js): the chat suites need more than the default 300 s on a busy machine.
  process.env.VSCODE_E2E_TIMEOUT ??= '900';
  // A folder with no documents first (the runner opens a fresh empty folder when given none): activation must
  // stay idle there. Only Haiku loads; no model is needed.
  const only = process.env.HAIKU_E2E_FILES;
  if (!only || only.split(',').some((part) => 'haiku-empty-window'.includes(part))) {
    await runTests({
      vscodeExecutablePath: path.join(repositoryRoot, 'e2e', 'code-shim.sh'),
      extensionDevelopmentPath: repositoryRoot,
      extensionTestsPath: path.join(repositoryRoot, 'dist-test', 'empty-suite', 'index.js'),
      launchArgs: [],
      extensionTestsEnv: { HAIKU_E2E_OUT: path.join(repositoryRoot, 'test-results', 'e2e-empty') },
    });
  }
  // Each group in a fresh window: the suites that add files, change settings or attach chat context start from a
  // clean workbench instead of the state the earlier suites left (open editors, views, chat sessions).
  const samplePrefixes = SAMPLE_SUITE_GROUPS.flatMap((group) => group.split(','));
  // A filter that names only no-model suites starts no window with the fake model.
  const groups = only ? (only.split(',').some((part) => samplePrefixes.some((prefix) => prefix.includes(part))) ? [only] : []) : SAMPLE_SUITE_GROUPS;
  // The no-model suites of a filtered run: those whose prefix contains one of the filter's texts.
  const noModelGroups = only ? NO_MODEL_SUITE_GROUPS.filter((group) => group.split(',').some((prefix) => only.split(',').some((part) => prefix.includes(part)))) : NO_MODEL_SUITE_GROUPS;
  if (!only) {
    // A filtered run picks its suites by name; the full run must leave none out.
    checkEverySuiteIsGrouped(path.join(repositoryRoot, 'dist-test', 'suite'), [...groups, ...NO_MODEL_SUITE_GROUPS]);
  }
  const failures: string[] = [];
  for (const group of groups) {
    try {
      await runTests({
        vscodeExecutablePath: path.join(repositoryRoot, 'e2e', 'code-shim.sh'),
        extensionDevelopmentPath: [repositoryRoot, path.join(repositoryRoot, 'test-fixtures', 'fake-lm')],
        extensionTestsPath: path.join(repositoryRoot, 'dist-test', 'suite', 'index.js'),
        launchArgs: [path.join(repositoryRoot, 'samples')],
        extensionTestsEnv: { HAIKU_TEST_MODE: '1', HAIKU_E2E_OUT: path.join(repositoryRoot, 'test-results', 'e2e'), HAIKU_E2E_FILES: group },
      });
    } catch (error) {
      failures.push(`${group}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // Haiku alone, no language model at all (no fake-lm): what a user without Copilot or an endpoint sees.
  for (const group of noModelGroups) {
    try {
      await runTests({
        vscodeExecutablePath: path.join(repositoryRoot, 'e2e', 'code-shim.sh'),
        extensionDevelopmentPath: repositoryRoot,
        extensionTestsPath: path.join(repositoryRoot, 'dist-test', 'suite', 'index.js'),
        launchArgs: [path.join(repositoryRoot, 'samples')],
        extensionTestsEnv: { HAIKU_TEST_MODE: '1', HAIKU_E2E_OUT: path.join(repositoryRoot, 'test-results', 'e2e-no-model'), HAIKU_E2E_FILES: group },
      });
    } catch (error) {
      failures.push(`${group} (no model): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0) {
    throw new Error(`in-host suites failed: ${failures.join('; ')}`);
  }
}

/** The in-host suites of `samples/`, by file-name prefix; one window per group. */
const SAMPLE_SUITE_GROUPS = ['haiku-1-,haiku-10-,haiku-2-,haiku-3-,haiku-4-,haiku-5-', 'haiku-6-', 'haiku-7-', 'haiku-8-', 'haiku-9-', 'haiku-12-', 'haiku-13-', 'haiku-config-file', 'haiku-vision'];

/** Suites run with Haiku alone, without the fake language model (they skip themselves when a model exists). */
const NO_MODEL_SUITE_GROUPS = ['haiku-11-'];

/** A new suite file must join a group, or it would silently never run. */
function checkEverySuiteIsGrouped(folder: string, groups: readonly string[]): void {
  const parts = groups.flatMap((group) => group.split(','));
  const orphans = fs.readdirSync(folder).filter((file) => file.endsWith('.test.js') && !parts.some((part) => file.includes(part)));
  if (orphans.length > 0) {
    throw new Error(`in-host suites in no group of test/e2e/runTest.ts: ${orphans.join(', ')}`);
  }
}

main().catch((error: unknown) => {
  console.error('End-to-end tests failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
