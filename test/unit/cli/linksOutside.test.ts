import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runInProcess } from './cliHarness';

describe('haiku index and links that leave the indexed folder', function () {
  this.timeout(120_000);
  let root: string;
  let outside: string;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-cli-links-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-cli-outside-'));
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs', 'guide.md'), '# Guide\n\nInside the workspace.\n');
    fs.writeFileSync(path.join(outside, 'private.txt'), 'zebrafinch private notes\n');
    fs.symlinkSync(path.join(outside, 'private.txt'), path.join(root, 'docs', 'private.txt'));
  });

  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('skips them and says which, unless --follow-links-outside', async () => {
    const skipped = await runInProcess(['index', 'docs', '--quiet'], { cwd: root });
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.match(skipped.stdout, /Skipped 1 linked file pointing outside the indexed folders/);
    assert.ok(skipped.stdout.includes(`docs/private.txt -> ${fs.realpathSync(path.join(outside, 'private.txt'))}`), skipped.stdout);
    const hidden = await runInProcess(['search', 'zebrafinch'], { cwd: root });
    assert.match(hidden.stdout, /No results/);

    const followed = await runInProcess(['index', 'docs', '--quiet', '--follow-links-outside'], { cwd: root });
    assert.equal(followed.code, 0, followed.stderr);
    assert.doesNotMatch(followed.stdout, /Skipped/);
    const found = await runInProcess(['search', 'zebrafinch'], { cwd: root });
    assert.match(found.stdout, /private\.txt/);
  });
});
