import * as assert from 'node:assert/strict';
import { isPathInside } from '../../../src/core/pathContainment';

describe('isPathInside', () => {
  const cases: Array<[child: string, parent: string, inside: boolean]> = [
    ['/x/index', '/x/index', true],
    ['/x/index/a.md', '/x/index', true],
    ['/x/index/deep/er/a.md', '/x/index', true],
    // A sibling sharing the prefix is outside: the prefix bug of the old copies.
    ['/x/index2', '/x/index', false],
    ['/x/index2/a.md', '/x/index', false],
    ['/x/index.md', '/x/index', false],
    ['/x', '/x/index', false],
    // A child whose name starts with two dots is still a child, not a step up.
    ['/x/..notes', '/x', true],
    ['/x/..notes/a.md', '/x', true],
    ['/x/.hidden/a.md', '/x', true],
    // Trailing slashes on either side do not matter.
    ['/x/index/', '/x/index', true],
    ['/x/index', '/x/index/', true],
    ['/x/index/a.md', '/x/index/', true],
    ['/x/index/a.md', '/x/index//', true],
    ['/x/index2', '/x/index/', false],
    // The file-system root contains everything.
    ['/etc/passwd', '/', true],
    ['/', '/', true],
    // Windows: backslashes, mixed separators, drive letters in either case, a drive root, UNC shares.
    ['C:\\x\\index\\a.md', 'C:\\x\\index', true],
    ['C:\\x\\index2\\a.md', 'C:\\x\\index', false],
    ['c:\\x\\index\\a.md', 'C:\\x\\index\\', true],
    ['C:/x/index/a.md', 'c:\\x\\index', true],
    ['D:\\x\\index\\a.md', 'C:\\x\\index', false],
    ['C:\\x\\a.md', 'C:\\', true],
    ['C:\\', 'C:\\', true],
    ['\\\\server\\share\\a.md', '\\\\server\\share', true],
    ['\\\\server\\share2\\a.md', '\\\\server\\share', false],
  ];
  for (const [child, parent, inside] of cases) {
    it(`${JSON.stringify(child)} is ${inside ? '' : 'not '}inside ${JSON.stringify(parent)}`, () => {
      assert.equal(isPathInside(child, parent), inside);
    });
  }
});
