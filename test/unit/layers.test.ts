import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtinModules } from 'node:module';

/**
 * Enforces the layer rules of DEVELOPERS.md: core is pure (no vscode, no Node built-ins, nothing above it),
 * node never reaches vscode or the webview, shared and webview stay free of host code.
 */
const sourceRoot = path.resolve(__dirname, '../../src');
const nodeBuiltins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

function sourceFiles(folder: string): string[] {
  if (!fs.existsSync(folder)) {
    return [];
  }
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const pattern = /(?:^|\s)(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    found.push(match[1] ?? match[2] ?? match[3] ?? match[4]);
  }
  return found;
}

/** The layer a relative import lands in, or undefined for packages. */
function targetLayer(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) {
    return undefined;
  }
  const resolved = path.relative(sourceRoot, path.resolve(path.dirname(file), specifier));
  return resolved.split(path.sep)[0];
}

const rules: Record<string, { layers: string[]; vscode: boolean; builtins: boolean }> = {
  core: { layers: ['core'], vscode: false, builtins: false },
  shared: { layers: ['shared', 'core'], vscode: false, builtins: false },
  webview: { layers: ['webview', 'shared'], vscode: false, builtins: false },
  node: { layers: ['node', 'core', 'shared'], vscode: false, builtins: true },
  vscode: { layers: ['vscode', 'node', 'core', 'shared'], vscode: true, builtins: true },
};

describe('layers', () => {
  for (const [layer, rule] of Object.entries(rules)) {
    it(`src/${layer} imports only what its layer may`, () => {
      const violations: string[] = [];
      for (const file of sourceFiles(path.join(sourceRoot, layer))) {
        for (const specifier of importsOf(file)) {
          const where = `${path.relative(sourceRoot, file)} imports '${specifier}'`;
          const target = targetLayer(file, specifier);
          if (target !== undefined && !rule.layers.includes(target)) {
            violations.push(`${where} (layer ${target})`);
          } else if (specifier === 'vscode' && !rule.vscode) {
            violations.push(where);
          } else if (nodeBuiltins.has(specifier) && !rule.builtins) {
            violations.push(`${where} (Node built-in)`);
          }
        }
      }
      assert.deepStrictEqual(violations, []);
    });
  }

  it('detects a violation (self-check of the scanner)', () => {
    const probe = path.join(sourceRoot, 'core', '__probe__.ts');
    assert.deepStrictEqual(targetLayer(probe, '../vscode/extension'), 'vscode');
    assert.ok(nodeBuiltins.has('node:fs') && nodeBuiltins.has('fs'));
  });
});
