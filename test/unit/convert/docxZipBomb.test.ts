import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { convertDocx } from '../../../src/node/convert/docx';
import { repositoryRoot } from '../../support/paths';
import { writeZip } from '../../support/zipWriter';

const CONTENT_TYPES = '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELATIONSHIPS = '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const DOCUMENT = '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello from a small document.</w:t></w:r></w:p></w:body></w:document>';

/**
 * `size` bytes of one repeated byte, deflated: one fully flushed segment (independent of what precedes it) repeated,
 * then an empty final block. Built in milliseconds, where deflating 1.5 GB would take seconds.
 */
function deflatedRun(size: number): Buffer {
  const blockSize = 1024 * 1024;
  const segment = zlib.deflateRawSync(Buffer.alloc(blockSize, 0x41), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const count = Math.ceil(size / blockSize);
  return Buffer.concat([...Array.from({ length: count }, () => segment), Buffer.from([0x03, 0x00])]);
}

/** Converts `file` in a child process; its outcome and peak resident memory. */
function convertInChild(file: string): { code?: string; message?: string; peakMb: number } {
  const script = `
    const fs = require('node:fs');
    const { convertDocx } = require(${JSON.stringify(path.join(repositoryRoot, 'src/node/convert/docx.ts'))});
    convertDocx(fs.readFileSync(${JSON.stringify(file)}), { fileName: 'bomb.docx' }).then(
      () => ({ code: 'converted' }),
      (error) => ({ code: error.code, message: error.message }),
    ).then((outcome) => process.stdout.write(JSON.stringify({ ...outcome, peakMb: process.resourceUsage().maxRSS / 1024 })));
  `;
  const child = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { cwd: repositoryRoot, encoding: 'utf8', timeout: 120_000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as { code?: string; message?: string; peakMb: number };
}

describe('DOCX zip bombs', function () {
  this.timeout(180_000);
  let folder: string;

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-docx-bomb-'));
  });

  after(() => {
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('converts a small honest DOCX written the same way', async () => {
    const document = await convertDocx(writeZip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }, { name: '_rels/.rels', data: RELATIONSHIPS }, { name: 'word/document.xml', data: DOCUMENT }]), { fileName: 'small.docx' });
    assert.match(document.content, /Hello from a small document/);
  });

  for (const variant of [
    { title: 'refuses a DOCX whose document.xml declares 1.5 GB, before inflating it', declaredSize: 1_500_000_000, message: /would inflate to 1431 MiB, more than the 256 MiB a DOCX may/ },
    { title: 'refuses a DOCX whose header lies (declares 2,000 bytes, inflates to 1.5 GB)', declaredSize: 2_000, message: /its part word\/document\.xml inflates past the 2000 bytes its header declares/ },
  ]) {
    it(`${variant.title}, peak RSS under 1 GiB`, () => {
      // Deflated already, its CRC left 0: too large to hash here (mammoth's jszip does not check it).
      const bomb = { name: 'word/document.xml', deflated: deflatedRun(1_500_000_000), declaredSize: variant.declaredSize };
      const file = path.join(folder, `bomb-${variant.declaredSize}.docx`);
      fs.writeFileSync(file, writeZip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }, { name: '_rels/.rels', data: RELATIONSHIPS }, bomb]));
      const outcome = convertInChild(file);
      console.log(`      ${path.basename(file)} (${(fs.statSync(file).size / 1e6).toFixed(1)} MB): ${outcome.code}, peak RSS ${Math.round(outcome.peakMb)} MB`);
      assert.equal(outcome.code, 'file_too_large', outcome.message);
      assert.match(outcome.message ?? '', variant.message);
      assert.ok(outcome.peakMb < 1024, `peak RSS ${Math.round(outcome.peakMb)} MB`);
    });
  }
});
