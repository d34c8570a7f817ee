import * as path from 'node:path';
import * as fs from 'node:fs';
import * as util from 'node:util';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- mocha's CommonJS export is a class
import Mocha = require('mocha');

// The workbench forwards console output without applying printf formats; format before mocha prints.
(Mocha.reporters.Base as unknown as { consoleLog: (...parts: unknown[]) => void }).consoleLog = (...parts: unknown[]) => console.log(util.format(...parts));

/** Entry point the extension host calls (`extensionTestsPath`): runs every bundled `*.test.js` beside this file. */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false });
  // HAIKU_E2E_FILES=haiku-6 (or haiku-5,haiku-6) runs only the suites whose file name contains one of those texts (while working on one area).
  const only = process.env.HAIKU_E2E_FILES;
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (file.endsWith('.test.js') && (!only || only.split(',').some((part) => file.includes(part)))) {
      mocha.addFile(path.join(__dirname, file));
    }
  }
  return new Promise((resolve, reject) => {
    let passed = 0;
    const runner = mocha.run((failures) => {
      console.log(`${passed} passed, ${failures} failed`);
      if (failures > 0) {
        reject(new Error(`${failures} end-to-end tests failed.`));
      } else {
        resolve();
      }
    });
    runner.on('pass', () => passed++);
  });
}
