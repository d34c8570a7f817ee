import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Style rules from DEVELOPERS.md that a machine can check: named exports only, no barrel files. */
const sourceRoot = path.resolve(__dirname, '../../src');

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** A barrel re-exports other modules and declares nothing itself. */
export function isBarrel(text: string): boolean {
  const statements = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '').split(';').map((part) => part.trim()).filter(Boolean);
  return statements.length > 0 && statements.every((statement) => /^export\s+(\*|\{[^}]*\}|type\s+\{[^}]*\})\s+from\s+['"]/.test(statement));
}

describe('code style', () => {
  it('has no default exports in src', () => {
    const offenders = sourceFiles(sourceRoot).filter((file) => /^\s*export\s+default\b/m.test(fs.readFileSync(file, 'utf8')));
    assert.deepStrictEqual(offenders.map((file) => path.relative(sourceRoot, file)), []);
  });

  it('has no barrel files in src', () => {
    const offenders = sourceFiles(sourceRoot).filter((file) => isBarrel(fs.readFileSync(file, 'utf8')));
    assert.deepStrictEqual(offenders.map((file) => path.relative(sourceRoot, file)), []);
  });

  it('recognises a barrel (self-check)', () => {
    assert.strictEqual(isBarrel("export * from './a';\nexport { b } from './b';"), true);
    assert.strictEqual(isBarrel("import { a } from './a';\nexport const c = a;"), false);
  });
});
