// The VSIX targets Haiku ships and, for each, the suffix of LanceDB's per-platform package
// (`@lancedb/lancedb-<suffix>`, an optional dependency of @lancedb/lancedb 0.31.0) whose `.node` the bundles carry.
// darwin-x64 is not here: LanceDB's last Intel-Mac build is 0.22.3, and the store needs 0.31.0.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const LANCEDB_VERSION = '0.31.0';

/** vsce `--target` → LanceDB native package suffix. */
export const LANCEDB_SUFFIX_BY_TARGET = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
  'alpine-x64': 'linux-x64-musl',
  'alpine-arm64': 'linux-arm64-musl',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64-msvc',
  'win32-arm64': 'win32-arm64-msvc',
};

export const PACKAGE_TARGETS = Object.keys(LANCEDB_SUFFIX_BY_TARGET);

/** @napi-rs/canvas as package.json pins it (1.1.1), so a VSIX carries what the CLI runs: pdf.js renders PDF figures and scanned pages into it (pdfRender.ts). */
export const CANVAS_VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).dependencies['@napi-rs/canvas'];

/** vsce `--target` → suffix of canvas's per-platform package (`@napi-rs/canvas-<suffix>`, an optional dependency of @napi-rs/canvas 1.1.1). */
export const CANVAS_SUFFIX_BY_TARGET = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
  'alpine-x64': 'linux-x64-musl',
  'alpine-arm64': 'linux-arm64-musl',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64-msvc',
  'win32-arm64': 'win32-arm64-msvc',
};

/** The vsce target of the machine running this (musl Linux is `alpine-*`), or undefined when Haiku has none. */
export function hostTarget() {
  const arch = process.arch;
  if (process.platform === 'linux') {
    return `${isMusl() ? 'alpine' : 'linux'}-${arch}`;
  }
  const target = `${process.platform}-${arch}`;
  return target in LANCEDB_SUFFIX_BY_TARGET ? target : undefined;
}

/** glibc's Node reports the runtime glibc version; musl's does not. */
function isMusl() {
  const header = process.report?.getReport?.().header;
  if (header && typeof header === 'object') {
    return !header.glibcVersionRuntime;
  }
  try {
    return execFileSync('ldd', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).includes('musl');
  } catch (error) {
    return String(error?.stderr ?? '').includes('musl');
  }
}

/** The CLI's npm package (`haiku` is taken on npm); src/node/cli/program.ts knows it too, for `haiku --version`. */
export const NPM_PACKAGE_NAME = 'haiku-rag-cli';
