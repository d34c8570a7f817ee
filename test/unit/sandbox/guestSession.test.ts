import * as assert from 'node:assert';
import { GuestSession } from '../../../src/node/sandbox/guestSession';

/** The QuickJS session on this thread, with a controllable clock: deadline rules that timing cannot pin down. */
describe('sandbox guest session (in-thread, controlled clock)', () => {
  const realStart = Date.now();
  let offset = 0;
  const clock = (): number => Date.now() + offset;
  const calls: Array<{ method: string; args: unknown[] }> = [];
  let session: GuestSession;

  before(async () => {
    session = await GuestSession.create({
      memoryLimitBytes: 32 * 1024 * 1024,
      stackLimitBytes: 256 * 1024,
      maxOutputChars: 10_000,
      clock,
      callHost: async (method, args) => {
        calls.push({ method, args });
        if (args[0] === '/documents/slow') {
          // This read ends after the deadline: the code that continues from it may not start another one.
          offset += 120_000;
        }
        if (args[0] === '/documents/crlf') {
          return 'first\r\nsecond\r\n';
        }
        return method === 'readFile' ? 'text of ' + String(args[0]) : '[]';
      },
    });
  });
  after(() => session.dispose());

  it('a call in flight at the deadline finishes; no guest code resumes, no host call starts, variables are kept', async () => {
    assert.ok(realStart > 0);
    await session.execute('const before = "kept"; console.log("ready")', clock() + 60_000, 60);
    calls.length = 0;
    const deadline = clock() + 60_000;
    const outcome = await session.execute(`
      console.log('reading');
      const first = await readFile('/documents/slow');
      console.log('resumed');
      await readFile('/documents/after');`, deadline, 60);
    assert.strictEqual(outcome.stdout, 'reading\n');
    assert.match(outcome.stderr, /^TimeoutError: the time limit of 60 s was reached while a search or read was running; it finished, .* variables from before are kept/);
    assert.deepStrictEqual([outcome.success, outcome.needsReset], [false, false]);
    assert.deepStrictEqual(calls.map((call) => call.args[0]), ['/documents/slow'], 'the second read never reached the host');
    const next = await session.execute('[before, typeof first]', clock() + 60_000, 60);
    assert.strictEqual(next.stdout, '["kept","undefined"]\n');
  });

  it('starts no host call once the deadline has passed; the rejection is catchable', async () => {
    const outcome = await session.execute(`
      let refused;
      try { await readFile('/documents/late'); } catch (error) { refused = error.name + ': ' + error.message; }
      console.log(refused);`, clock() - 1, 60);
    assert.match(outcome.stdout, /^TimeoutError: readFile\(\) was not started: the time limit of 60 s for this execute_code call has passed/);
  });

  it('passes only primitives to the host, one argument per chunk id for cite', async () => {
    calls.length = 0;
    const outcome = await session.execute("await cite(['a', 'b']); await search('q'); await search('q', 3.9)", clock() + 60_000, 60);
    assert.strictEqual(outcome.success, true, outcome.stderr);
    assert.deepStrictEqual(calls.map((call) => [call.method, call.args]), [['cite', ['a', 'b']], ['search', ['q', null]], ['search', ['q', 3]]]);
  });

  it('readLines splits on LF and CRLF and drops the final empty line', async () => {
    const outcome = await session.execute("await readLines('/documents/crlf')", clock() + 60_000, 60);
    assert.strictEqual(outcome.stdout, '["first","second"]\n');
  });
});
