// ESLint flat config: typescript-eslint's recommended rules plus the project's own rules
// (layers, no default exports). test/unit/layers.test.ts checks the layers precisely; this catches them in the editor.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Relative imports that climb into one of these layers. */
function layerPattern(layers, message) {
  return { regex: `^(\\.\\./)+(${layers.join('|')})(/|$)`, message };
}

const noDefaultExport = {
  selector: 'ExportDefaultDeclaration',
  message: 'Use named exports (DEVELOPERS.md: no default exports).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'out/**', 'node_modules/**', 'e2e/harness/**', 'e2e/node24/**', 'test-results/**', 'bench/results/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', noDefaultExport],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
      // Arrow's and LanceDB's row types are loose; narrow `any` stays allowed where a library hands it over.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
      // Tests assert terminal output column by column; literal spaces read better there than {3}.
      'no-regex-spaces': 'off',
      'max-len': ['error', { code: 200, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreComments: false, ignoreUrls: true }],
      eqeqeq: ['error', 'always'],
      'prefer-const': 'error',
      'no-var': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core is pure: no vscode.' }, ...nodeBuiltins.map((name) => ({ name, message: 'src/core is pure: no Node built-ins.' }))],
        patterns: [layerPattern(['node', 'vscode', 'webview', 'shared'], 'src/core never imports upward.')],
      }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/shared holds protocol types only.' }, ...nodeBuiltins.map((name) => ({ name, message: 'src/shared runs in the webview too: no Node built-ins.' }))],
        patterns: [layerPattern(['node', 'vscode', 'webview'], 'src/shared imports only core.')],
      }],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview talks to the host by messages only.' }, ...nodeBuiltins.map((name) => ({ name, message: 'The webview has no Node.' }))],
        patterns: [layerPattern(['node', 'vscode', 'core'], 'src/webview imports only src/shared.')],
      }],
    },
  },
  {
    files: ['src/node/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/node runs without VS Code (CLI, workers).' }],
        patterns: [layerPattern(['vscode', 'webview'], 'src/node never imports the VS Code or webview layers.')],
      }],
    },
  },
);
