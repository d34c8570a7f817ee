import * as assert from 'node:assert/strict';
import { notIndexedReason, NotIndexedFiles, remedySettingOf } from '../../../src/vscode/notIndexed';
import { vscodeRemedy } from '../../../src/vscode/errorWording';

const corrupt = { fsPath: '/work/docs/broken.pdf', message: 'broken.pdf: the PDF is damaged.', code: 'corrupt_file' };
const oversized = { fsPath: '/work/docs/big/huge.md', message: 'big/huge.md: the file is 60 MB, above the 50 MB limit.', code: 'file_too_large' };

describe('files not indexed (Problems panel, status item, Not indexed node)', () => {
  it('a full sync replaces every earlier failure; a vanished root names no file', () => {
    const files = new NotIndexedFiles();
    assert.equal(files.apply({ kind: 'full', failed: [oversized, corrupt, { fsPath: '/work/gone', message: 'no such file or folder.', code: 'not_found' }] }), true);
    assert.deepEqual(files.list.map((file) => file.fsPath), ['/work/docs/big/huge.md', '/work/docs/broken.pdf']);
    assert.equal(files.count, 2);
    // The same failures again change nothing (no refresh of the views).
    assert.equal(files.apply({ kind: 'full', failed: [corrupt, oversized] }), false);
    // The oversized file indexes once the limit is raised: the next full sync no longer lists it.
    assert.equal(files.apply({ kind: 'full', failed: [corrupt] }), true);
    assert.deepEqual(files.list, [corrupt]);
  });

  it('an update clears the files it touched (indexed now, or deleted, or under a deleted folder) and keeps the others', () => {
    const files = new NotIndexedFiles();
    files.apply({ kind: 'full', failed: [corrupt, oversized] });
    // The corrupt PDF was fixed and re-indexed by the watcher: no failure for it this time.
    assert.equal(files.apply({ kind: 'files', touched: ['/work/docs/broken.pdf'], failed: [] }), true);
    assert.deepEqual(files.list, [oversized]);
    // A file that fails again keeps its (new) reason.
    files.apply({ kind: 'files', touched: ['/work/docs/broken.pdf'], failed: [{ ...corrupt, message: 'still damaged' }] });
    assert.equal(files.list.find((file) => file.fsPath === corrupt.fsPath)?.message, 'still damaged');
    // Deleting the folder removes the file under it; /work/docs/bigger is not inside /work/docs/big.
    files.apply({ kind: 'files', touched: ['/work/docs/bigger'], failed: [] });
    assert.equal(files.count, 2);
    files.apply({ kind: 'files', touched: ['/work/docs/big'], failed: [] });
    assert.deepEqual(files.list.map((file) => file.fsPath), ['/work/docs/broken.pdf']);
  });

  it('an oversized file names the size setting to change; a corrupt file names none', () => {
    assert.equal(remedySettingOf(oversized), 'index.maxFileBytes');
    assert.equal(remedySettingOf(corrupt), undefined);
    const remedy = vscodeRemedy({ settings: [remedySettingOf(oversized)!] });
    assert.equal(remedy?.text, 'Setting: haiku.index.maxFileSizeMB.');
    assert.deepEqual(remedy?.button, { command: 'workbench.action.openSettings', title: 'Open Setting', arguments: ['haiku.index.maxFileSizeMB'] });
  });

  it('names the file by its name in the reason, not by the full path the indexer put first', () => {
    assert.equal(notIndexedReason({ fsPath: '/w/docs/broken.pdf', message: '/w/docs/broken.pdf: is damaged or not a valid PDF.' }), 'broken.pdf is damaged or not a valid PDF.');
    assert.equal(notIndexedReason({ fsPath: '/w/docs/big/huge.md', message: 'docs/big/huge.md: the file is 60 MB, above the 50 MB limit.' }), 'huge.md: the file is 60 MB, above the 50 MB limit.');
    assert.equal(notIndexedReason({ fsPath: 'C:\\w\\a.pdf', message: 'C:\\w\\a.pdf: is encrypted.' }), 'a.pdf is encrypted.');
    // A message that does not start with this file's path stays as it is.
    assert.equal(notIndexedReason({ fsPath: '/w/a.pdf', message: 'other/a.pdf: is damaged.' }), 'other/a.pdf: is damaged.');
    assert.equal(notIndexedReason({ fsPath: '/w/a.pdf', message: 'Something went wrong.' }), 'Something went wrong.');
  });
});
