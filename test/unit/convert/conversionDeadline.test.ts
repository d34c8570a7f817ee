import * as assert from 'node:assert/strict';
import { raceConversion } from '../../../src/node/convert/conversionDeadline';
import { isHaikuError } from '../../../src/core/errors';

describe('conversion deadline', () => {
  it('abandons work that never finishes with a conversion_timeout error naming the file', async () => {
    const started = performance.now();
    const endless = new Promise<string>(() => undefined);
    await assert.rejects(raceConversion(endless, { fileName: 'slow.pdf', timeoutMilliseconds: 50 }), (error: unknown) => {
      assert.ok(isHaikuError(error, 'conversion_timeout'));
      assert.match((error as Error).message, /^slow\.pdf: took longer than 1 s/);
      return true;
    });
    assert.ok(performance.now() - started < 1_000);
  });

  it('stops at once when aborted, before or during the work', async () => {
    const endless = new Promise<string>(() => undefined);
    await assert.rejects(raceConversion(endless, { fileName: 'a.pdf', timeoutMilliseconds: 10_000, abortSignal: AbortSignal.abort() }), (error: unknown) => isHaikuError(error, 'cancelled'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(raceConversion(endless, { fileName: 'a.pdf', timeoutMilliseconds: 10_000, abortSignal: controller.signal }), (error: unknown) => isHaikuError(error, 'cancelled'));
  });

  it('passes results and failures of work that finishes in time through', async () => {
    assert.equal(await raceConversion(Promise.resolve('done'), { fileName: 'a.pdf', timeoutMilliseconds: 10_000 }), 'done');
    await assert.rejects(raceConversion(Promise.reject(new Error('broken')), { fileName: 'a.pdf', timeoutMilliseconds: 10_000 }), /broken/);
  });
});
