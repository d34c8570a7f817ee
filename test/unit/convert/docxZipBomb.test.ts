import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { convertDocx } from '../../../src/node/convert/docx';
import { repositoryRoot } from '../../support/paths';

interface ZipPart {
  name: string;
  /** Deflated bytes. */
  data: Buffer;
  /** What the central directory says the part inflates to. */
  declaredSize: number;
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) {
      crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
    }
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A zip of deflated parts; CRCs are left 0 for parts too large to hash here (mammoth's jszip does not check them). */
function zipOf(parts: Array<ZipPart & { crc?: number }>): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(part.crc ?? 0, 14);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(part.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(part.crc ?? 0, 16);
    entry.writeUInt32LE(part.data.length, 20);
    entry.writeUInt32LE(part.declaredSize, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, name, part.data);
    directory.push(entry, name);
    offset += local.length + name.length + part.data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

function xmlPart(name: string, text: string): ZipPart & { crc: number } {
  const bytes = Buffer.from(text, 'utf8');
  return { name, data: zlib.deflateRawSync(bytes), declaredSize: bytes.length, crc: crc32(bytes) };
}

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
    const document = await convertDocx(zipOf([xmlPart('[Content_Types].xml', CONTENT_TYPES), xmlPart('_rels/.rels', RELATIONSHIPS), xmlPart('word/document.xml', DOCUMENT)]), { fileName: 'small.docx' });
    assert.match(document.content, /Hello from a small document/);
  });

  for (const variant of [
    { title: 'refuses a DOCX whose document.xml declares 1.5 GB, before inflating it', declaredSize: 1_500_000_000, message: /would inflate to 1431 MiB, more than the 256 MiB a DOCX may/ },
    { title: 'refuses a DOCX whose header lies (declares 2,000 bytes, inflates to 1.5 GB)', declaredSize: 2_000, message: /its part word\/document\.xml inflates past the 2000 bytes its header declares/ },
  ]) {
    it(`${variant.title}, peak RSS under 1 GiB`, () => {
      const bomb = { name: 'word/document.xml', data: deflatedRun(1_500_000_000), declaredSize: variant.declaredSize };
      const file = path.join(folder, `bomb-${variant.declaredSize}.docx`);
      fs.writeFileSync(file, zipOf([xmlPart('[Content_Types].xml', CONTENT_TYPES), xmlPart('_rels/.rels', RELATIONSHIPS), bomb]));
      const outcome = convertInChild(file);
      console.log(`      ${path.basename(file)} (${(fs.statSync(file).size / 1e6).toFixed(1)} MB): ${outcome.code}, peak RSS ${Math.round(outcome.peakMb)} MB`);
      assert.equal(outcome.code, 'file_too_large', outcome.message);
      assert.match(outcome.message ?? '', variant.message);
      assert.ok(outcome.peakMb < 1024, `peak RSS ${Math.round(outcome.peakMb)} MB`);
    });
  }
});
