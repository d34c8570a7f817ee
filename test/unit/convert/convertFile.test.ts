import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { convertFile, convertFiles, converterFor, loadDocument, type ConvertFilesResult } from '../../../src/node/convert/convertFile';
import { ConversionError, type HaikuErrorCode } from '../../../src/core/errors';
import { documentIdForPath } from '../../../src/core/hash';
import { BINARY_SNIFF_BYTES } from '../../../src/core/limits';
import { corpusRoot } from '../../support/paths';

function expectConversionError(code: HaikuErrorCode, filePath: string, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ConversionError, `expected a ConversionError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(error.path, filePath);
    assert.ok(error.message.includes(filePath), error.message);
    if (pattern) {
      assert.match(error.message, pattern);
    }
    return true;
  };
}

describe('convertFile', function () {
  this.timeout(60_000);
  let folder: string;

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-convert-'));
  });

  after(() => {
    fs.rmSync(folder, { recursive: true, force: true });
  });

  function write(name: string, content: string | Uint8Array): string {
    const filePath = path.join(folder, name);
    fs.mkdirSync(path.dirname(filePath), { recursive: true });
    fs.writeFileSync(filePath, content);
    return filePath;
  }

  it('picks the converter by extension, text for anything unknown', () => {
    assert.deepEqual(
      ['a.md', 'b.MARKDOWN', 'c.mdx', 'd.html', 'e.htm', 'f.docx', 'g.pdf', 'h.txt', 'i.rst', 'j.adoc', 'Makefile'].map(converterFor),
      ['markdown', 'markdown', 'markdown', 'html', 'html', 'docx', 'pdf', 'text', 'restructuredText', 'asciidoc', 'text'],
    );
  });

  it('converts Markdown, HTML, DOCX, rst and unknown text files from disk', async () => {
    const markdown = await convertFile(path.join(corpusRoot, 'vite-docs', 'docs', 'guide', 'cli.md'));
    assert.equal(markdown.format, 'markdown');
    const html = await convertFile(path.join(corpusRoot, 'go-docs', 'doc', 'gdb.html'));
    assert.equal(html.format, 'html');
    assert.equal(html.title, 'Debugging Go Code with GDB');
    const docx = await convertFile(path.join(corpusRoot, 'pdf-docx', 'docling', 'word_sample.docx'));
    assert.equal(docx.format, 'docx');
    const restructured = await convertFile(write('guide.rst', '\uFEFFTitle\n=====\n\nBody.\n'));
    assert.deepEqual(restructured.items.map((item) => [item.label, item.text]), [['section_header', 'Title'], ['paragraph', 'Body.']]);
    const unknown = await convertFile(write('config.ini', '[section]\nkey = value\n'));
    assert.equal(unknown.format, 'text');
    assert.equal(unknown.items[0].text, '[section]\nkey = value');
  });

  it('refuses a zero-byte file with empty_file', async () => {
    const filePath = write('empty.md', '');
    await assert.rejects(convertFile(filePath), expectConversionError('empty_file', filePath));
  });

  it('refuses a binary file with a text extension with binary_file', async () => {
    const bytes = new Uint8Array(BINARY_SNIFF_BYTES + 100).fill(0x41);
    bytes[BINARY_SNIFF_BYTES - 1] = 0;
    const filePath = write('image.md', bytes);
    await assert.rejects(convertFile(filePath), expectConversionError('binary_file', filePath));
    // A NUL beyond the sniffed window is not looked for (it is still valid UTF-8).
    const late = new Uint8Array(BINARY_SNIFF_BYTES + 100).fill(0x41);
    late[BINARY_SNIFF_BYTES + 10] = 0;
    const lateDocument = await convertFile(write('late.txt', late));
    assert.equal(lateDocument.items.length, 1);
  });

  it('refuses invalid UTF-8 with invalid_encoding', async () => {
    // "café" in Latin-1: 0xE9 alone is not UTF-8.
    const filePath = write('latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await assert.rejects(convertFile(filePath), expectConversionError('invalid_encoding', filePath));
  });

  it('decodes text with a UTF-16 byte-order mark instead of calling it binary', async () => {
    const littleEndian = write('windows.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Caf\u00e9 notes\r\n\r\nSecond', 'utf16le')]));
    assert.deepEqual((await convertFile(littleEndian)).items.map((item) => item.text), ['Caf\u00e9 notes', 'Second']);
    const swapped = Buffer.from('# Big endian', 'utf16le').swap16();
    const bigEndian = write('big-endian.md', Buffer.concat([Buffer.from([0xfe, 0xff]), swapped]));
    assert.equal((await convertFile(bigEndian)).title, 'Big endian');
  });

  it('refuses a file over the size limit with file_too_large, before reading it', async () => {
    const filePath = write('big.md', '# Big\n\n' + 'x'.repeat(5000));
    await assert.rejects(convertFile(filePath, { maxBytes: 1024 }), expectConversionError('file_too_large', filePath));
    // Over the limit is refused even when the bytes could not be read at all (so it was not read).
    if (process.getuid?.() !== 0) {
      fs.chmodSync(filePath, 0o000);
      try {
        await assert.rejects(convertFile(filePath, { maxBytes: 1024 }), expectConversionError('file_too_large', filePath));
      } finally {
        fs.chmodSync(filePath, 0o644);
      }
    }
    // Text formats have the same limit as any file (a 44 MB Markdown file converts in segments): 5 KB fits 10 KB.
    assert.equal((await convertFile(filePath, { maxBytes: 10_000 })).title, 'Big');
  });

  it('refuses a missing file, a folder and an unreadable file with unreadable_file', async () => {
    const missing = path.join(folder, 'missing.md');
    await assert.rejects(convertFile(missing), expectConversionError('unreadable_file', missing));
    const subfolder = path.join(folder, 'folder.md');
    fs.mkdirSync(subfolder);
    await assert.rejects(convertFile(subfolder), expectConversionError('unreadable_file', subfolder));
    if (process.getuid?.() !== 0) {
      const locked = write('locked.md', '# Locked');
      fs.chmodSync(locked, 0o000);
      try {
        await assert.rejects(convertFile(locked), expectConversionError('unreadable_file', locked));
      } finally {
        fs.chmodSync(locked, 0o644);
      }
    }
  });

  it('refuses a named pipe at once instead of blocking on it (nothing writes to it)', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const pipe = path.join(folder, 'pipe.md');
    execFileSync('mkfifo', [pipe]);
    await assert.rejects(convertFile(pipe), expectConversionError('unreadable_file', pipe, /not a regular file/));
  });

  it('reads files of every size whole: around the read buffer boundaries and past 64 KiB', async () => {
    for (const size of [1, 2, 4095, 4096, 65_535, 65_536, 65_537, 200_001]) {
      const body = 'x'.repeat(size - 1);
      const filePath = write(`size-${size}.txt`, `${body}y`);
      const document = await loadDocument({ rootPath: folder, filePath });
      assert.equal(document.contentHash, createHash('sha256').update(`${body}y`).digest('hex'), `size ${size}`);
      const text = document.items.map((item) => item.text).join('');
      assert.equal(text.length, size, `size ${size}`);
      assert.ok(text.endsWith('y'), `size ${size}`);
    }
  });

  it('refuses a corrupt DOCX with corrupt_file (not a zip, and a truncated real one)', async () => {
    const notZip = write('notes.docx', 'plain text pretending to be a document');
    await assert.rejects(convertFile(notZip), expectConversionError('corrupt_file', notZip));
    const real = fs.readFileSync(path.join(corpusRoot, 'pdf-docx', 'docling', 'word_sample.docx'));
    const truncated = write('truncated.docx', real.subarray(0, Math.floor(real.length / 2)));
    await assert.rejects(convertFile(truncated), expectConversionError('corrupt_file', truncated));
  });

  it('names a bad PDF by its path, like every other file, so two reports.pdf in different folders are told apart', async () => {
    const notPdf = write('first/report.pdf', 'a text file someone named .pdf');
    await assert.rejects(convertFile(notPdf), expectConversionError('corrupt_file', notPdf, /not a PDF/));
    const real = fs.readFileSync(path.join(corpusRoot, 'pdf-docx', 'docling', 'multi_page.pdf'));
    const truncated = write('second/report.pdf', real.subarray(0, Math.floor(real.length / 2)));
    await assert.rejects(convertFile(truncated), expectConversionError('corrupt_file', truncated));
    const empty = write('third/report.pdf', '');
    await assert.rejects(convertFile(empty), expectConversionError('empty_file', empty));
  });

  it('refuses a password-protected DOCX with encrypted_file and a legacy .doc with corrupt_file', async () => {
    // Both are OLE compound files; an encrypted OOXML package holds an "EncryptedPackage" stream.
    const signature = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const encrypted = write('secret.docx', Buffer.concat([signature, Buffer.alloc(1024), Buffer.from('EncryptedPackage', 'utf16le'), Buffer.alloc(512)]));
    await assert.rejects(convertFile(encrypted), expectConversionError('encrypted_file', encrypted));
    const legacy = write('old.docx', Buffer.concat([signature, Buffer.alloc(1024), Buffer.from('WordDocument', 'utf16le'), Buffer.alloc(512)]));
    await assert.rejects(convertFile(legacy), (error: Error) => expectConversionError('corrupt_file', legacy)(error) && /legacy binary Word/.test(error.message));
  });

  it('turns a converter failure (pathologically deep HTML) into a ConversionError instead of a crash', async () => {
    const filePath = write('deep.html', '<div>'.repeat(30_000) + 'deep' + '</div>'.repeat(30_000));
    await assert.rejects(convertFile(filePath), (error: Error) => expectConversionError('corrupt_file', filePath)(error) && /could not be converted/.test(error.message));
  });

  it('converts a batch, continuing past bad files and reporting each error', async () => {
    const good = write('batch/good.md', '# Good\n\nText.');
    const empty = write('batch/empty.txt', '');
    const binary = write('batch/binary.html', new Uint8Array([0x3c, 0x70, 0x3e, 0x00, 0x01]));
    const alsoGood = write('batch/also.txt', 'Also good.');
    const missing = path.join(folder, 'batch', 'gone.md');
    const reported: ConvertFilesResult[] = [];
    const results = await convertFiles([good, empty, binary, missing, alsoGood], { onResult: (result) => reported.push(result) });
    assert.deepEqual(reported, results);
    assert.deepEqual(
      results.map((result) => [path.basename(result.filePath), result.document?.title ?? (result.error as ConversionError).code]),
      [['good.md', 'Good'], ['empty.txt', 'empty_file'], ['binary.html', 'binary_file'], ['gone.md', 'unreadable_file'], ['also.txt', 'also.txt']],
    );
  });

  it('stops on an aborted signal with a cancelled error', async () => {
    const controller = new AbortController();
    controller.abort();
    const filePath = write('cancel.md', '# Cancel');
    await assert.rejects(convertFile(filePath, { abortSignal: controller.signal }), (error: Error & { code?: string }) => error.code === 'cancelled');
    await assert.rejects(convertFiles([filePath], { abortSignal: controller.signal }), (error: Error & { code?: string }) => error.code === 'cancelled');
  });

  it('loads a document with its id, file URI, relative path and sha256', async () => {
    const filePath = write('docs/sub/page.md', '# Page\n\nHello.\n');
    const document = await loadDocument({ rootPath: folder, filePath: 'docs/sub/page.md' });
    assert.equal(document.relativePath, 'docs/sub/page.md');
    assert.equal(document.id, documentIdForPath('docs/sub/page.md'));
    assert.equal(document.uri, pathToFileURL(filePath).href);
    assert.equal(document.contentHash, createHash('sha256').update(fs.readFileSync(filePath)).digest('hex'));
    assert.equal(document.title, 'Page');
    const absolute = await loadDocument({ rootPath: folder, filePath });
    assert.equal(absolute.id, document.id);
  });
});
