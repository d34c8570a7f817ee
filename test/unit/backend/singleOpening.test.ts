import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repositoryRoot } from '../../support/paths';

/** The one module that opens an index; the store's own internals (src/node/store) are where opening is implemented. */
const OPENING_MODULE = path.join('src', 'node', 'backend', 'openIndex.ts');
const STORE_INTERNALS = path.join('src', 'node', 'store') + path.sep;

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Calls that open an index: `openStore(` anywhere, or `connect(` in a file that imports LanceDB. */
function openingCalls(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const importsLance = /from\s+['"]@lancedb\/lancedb['"]/.test(text);
  return text.split('\n').flatMap((line, index) => {
    const code = line.replace(/\/\/.*$/, '');
    const opens = /\bopenStore\s*\(/.test(code) || (importsLance && /\bconnect\s*\(/.test(code));
    return opens && !/^\s*(\*|\/\*\*)/.test(line) && !/export async function openStore/.test(line) ? [`${path.relative(repositoryRoot, file)}:${index + 1}: ${line.trim()}`] : [];
  });
}

describe('one place opens an index', () => {
  it('only src/node/backend/openIndex.ts calls openStore( or lancedb.connect( outside the store internals', () => {
    const calls = sourceFiles(path.join(repositoryRoot, 'src'))
      .filter((file) => !path.relative(repositoryRoot, file).startsWith(STORE_INTERNALS))
      .flatMap(openingCalls);
    const elsewhere = calls.filter((call) => !call.startsWith(`${OPENING_MODULE}:`));
    assert.deepEqual(elsewhere, [], 'open an index through openIndex (src/node/backend/openIndex.ts)');
    assert.ok(calls.some((call) => call.includes('openStore(')) && calls.some((call) => call.includes('lancedb.connect(')), `the scan sees the opening module's own calls: ${calls.join('\n')}`);
  });

  it('MCP imports nothing from the CLI', () => {
    const offenders = sourceFiles(path.join(repositoryRoot, 'src', 'node', 'mcp')).flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/from\s+['"]([^'"]+)['"]/g)]
        .filter((match) => path.resolve(path.dirname(file), match[1]).startsWith(path.join(repositoryRoot, 'src', 'node', 'cli') + path.sep))
        .map((match) => `${path.relative(repositoryRoot, file)} imports ${match[1]}`),
    );
    assert.deepEqual(offenders, []);
  });
});
