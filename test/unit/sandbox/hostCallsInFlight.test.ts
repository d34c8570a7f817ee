import * as assert from 'node:assert/strict';
import type { SandboxHost } from '../../../src/core/agent/codeSandbox';
import { SANDBOX_API_DESCRIPTION } from '../../../src/core/analysis/sandboxApi';
import { SANDBOX_HOST_CALLS_IN_FLIGHT_MAX } from '../../../src/core/limits';
import { createCodeSandbox } from '../../../src/node/sandbox/codeSandbox';

/** A host whose every file is 150,000 characters: 20,000 of them buffered would be 3 GB. */
function bulkyHost(): SandboxHost {
  const text = 'x'.repeat(150_000);
  return {
    search: async () => [],
    listDocuments: async () => [],
    cite: async () => ({ accepted: [], unknown: [] }),
    readFile: async (file) => `${text}${file}`,
    listDir: async () => ['a'],
  };
}

describe('sandbox host calls in flight', function () {
  this.timeout(120_000);

  it('tells the model the bound', () => {
    assert.ok(SANDBOX_API_DESCRIPTION.includes(`at most ${SANDBOX_HOST_CALLS_IN_FLIGHT_MAX} searches and reads may be pending at once`));
  });

  it('refuses 20,000 parallel reads with a clear error, and host memory stays bounded', async () => {
    const sandbox = await createCodeSandbox({ host: bulkyHost(), limits: { codeTimeoutSeconds: 60 } });
    try {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const result = await sandbox.execute("const texts = await Promise.all(Array.from({ length: 20000 }, (_, index) => readFile('/documents/d' + index + '/content.md')));\ntexts.length");
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const growthMb = (peak - before) / 1024 / 1024;
      assert.equal(result.success, false);
      assert.match(result.stderr, new RegExp(`RangeError: readFile\\(\\): too many host calls in flight \\(limit ${SANDBOX_HOST_CALLS_IN_FLIGHT_MAX}\\): await them in smaller batches`));
      assert.ok(growthMb < 300, `host RSS grew by ${Math.round(growthMb)} MB (limit 300)`);
      // Batches within the bound work, in the same session.
      const batch = await sandbox.execute(`const batch = await Promise.all(Array.from({ length: ${SANDBOX_HOST_CALLS_IN_FLIGHT_MAX} }, (_, index) => listDir('/documents/d' + index)));\nbatch.length`);
      assert.equal(batch.stderr, '');
      assert.equal(batch.stdout.trim(), String(SANDBOX_HOST_CALLS_IN_FLIGHT_MAX));
    } finally {
      await sandbox.dispose();
    }
  });
});
