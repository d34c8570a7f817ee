import * as assert from 'node:assert/strict';
import { binaryFormat, type BinaryFormat } from './binaryFormat';
import { ensureVsixFiles, vsixPath } from './packagedArtifacts';
import { zipEntries } from './zipArchive';

/** Each VSIX target, the LanceDB and @napi-rs/canvas package suffix its addons are named by, and what they must be. */
const TARGETS: { target: string; suffix: string; format: BinaryFormat['format']; architecture: string; libc?: 'glibc' | 'musl' }[] = [
  { target: 'linux-x64', suffix: 'linux-x64-gnu', format: 'ELF', architecture: 'x64', libc: 'glibc' },
  { target: 'linux-arm64', suffix: 'linux-arm64-gnu', format: 'ELF', architecture: 'arm64', libc: 'glibc' },
  { target: 'alpine-x64', suffix: 'linux-x64-musl', format: 'ELF', architecture: 'x64', libc: 'musl' },
  { target: 'alpine-arm64', suffix: 'linux-arm64-musl', format: 'ELF', architecture: 'arm64', libc: 'musl' },
  { target: 'darwin-arm64', suffix: 'darwin-arm64', format: 'Mach-O', architecture: 'arm64' },
  { target: 'win32-x64', suffix: 'win32-x64-msvc', format: 'PE', architecture: 'x64' },
  { target: 'win32-arm64', suffix: 'win32-arm64-msvc', format: 'PE', architecture: 'arm64' },
];

/**
 * The VSIX of every target (`npm run package:all`): the manifest names the target, the two native addons (LanceDB's,
 * bundled; @napi-rs/canvas's, in dist/node_modules) are that target's (format, architecture, C library), dist/cli.js
 * (the MCP server definition's script) is there, and no source map.
 */
describe('VSIX contents per target', function () {
  this.timeout(1_800_000);

  before(() => ensureVsixFiles(TARGETS.map((entry) => entry.target)));

  for (const expected of TARGETS) {
    it(`haiku-${expected.target}.vsix carries only ${expected.suffix}'s addons, dist/cli.js and no .map`, () => {
      const entries = zipEntries(vsixPath(expected.target));
      const names = entries.map((entry) => entry.name);
      const manifest = entries.find((entry) => entry.name === 'extension.vsixmanifest')!.read().toString('utf8');
      assert.match(manifest, new RegExp(`<Identity [^>]*TargetPlatform="${expected.target}"`));
      for (const required of ['extension/dist/cli.js', 'extension/dist/cli-main.js', 'extension/dist/cli-reader.js', 'extension/dist/embedding-client.js', 'extension/dist/extension.js', 'extension/dist/backend.js', 'extension/dist/sandbox-worker.js', 'extension/dist/node_modules/@napi-rs/canvas/index.js', 'extension/package.json', 'extension/readme.md', 'extension/changelog.md', 'extension/media/icon.png']) {
        assert.ok(names.includes(required), `${expected.target}: ${required} is missing`);
      }
      assert.deepEqual(names.filter((name) => name.endsWith('.map')), [], 'source maps');
      const addons = entries.filter((entry) => entry.name.endsWith('.node'));
      assert.deepEqual(addons.map((entry) => entry.name.replace(/-[A-Z0-9]{8}\.node$/, '.node')).sort(), [
        `extension/dist/lancedb.${expected.suffix}.node`,
        `extension/dist/node_modules/@napi-rs/canvas-${expected.suffix}/skia.${expected.suffix}.node`,
      ]);
      for (const addon of addons) {
        const format = binaryFormat(addon.read());
        assert.equal(format.format, expected.format, addon.name);
        assert.equal(format.architecture, expected.architecture, addon.name);
        if (expected.libc === 'glibc') {
          assert.ok(format.needed?.includes('libc.so.6'), `${addon.name}: glibc build: ${format.needed?.join(' ')}`);
        } else if (expected.libc === 'musl') {
          // musl's C library is plain libc.so; a glibc build would need libc.so.6.
          assert.ok(format.needed?.includes('libc.so') && !format.needed.includes('libc.so.6'), `${addon.name}: musl build: ${format.needed?.join(' ')}`);
        }
      }
      const packageJson = JSON.parse(entries.find((entry) => entry.name === 'extension/package.json')!.read().toString('utf8')) as { name: string; extensionKind: string[]; activationEvents: string[] };
      assert.equal(packageJson.name, 'haiku');
      assert.deepEqual(packageJson.extensionKind, ['workspace']);
      assert.ok(!packageJson.activationEvents.includes('onStartupFinished'));
    });
  }
});
