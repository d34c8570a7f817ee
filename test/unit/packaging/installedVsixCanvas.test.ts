import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { DocumentItem } from '../../../src/core/model/document';
import { temporaryFolder } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';
import { decodePng } from '../../support/png';
import { ensureVsixFiles, vsixPath } from './packagedArtifacts';
import { unzipFolder } from './zipArchive';

const PNG_SIGNATURE = '89504e470d0a1a0a';

/** glibc's Node reports its runtime glibc version; musl's (Alpine, whose VSIX is alpine-x64) does not. */
function onGlibcLinuxX64(): boolean {
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return process.platform === 'linux' && process.arch === 'x64' && header?.glibcVersionRuntime !== undefined;
}

/** This environment without NODE_PATH, so a module is found from the unpacked extension or not at all. */
function environmentWithoutNodePath(): NodeJS.ProcessEnv {
  const environment = { ...process.env };
  delete environment.NODE_PATH;
  return environment;
}

/** Share of near-black pixels and of pixels neither near-white nor near-black. */
function inkShares(image: { width: number; height: number; channels: number; data: ArrayLike<number> }): { black: number; inked: number } {
  let black = 0;
  let inked = 0;
  const count = image.width * image.height;
  for (let index = 0; index < count; index++) {
    const offset = index * image.channels;
    const grey = image.channels >= 3 ? (image.data[offset] + image.data[offset + 1] + image.data[offset + 2]) / 3 : image.data[offset];
    black += grey <= 25 ? 1 : 0;
    inked += grey < 235 && grey > 25 ? 1 : 0;
  }
  return { black: black / count, inked: inked / count };
}

type JsonPictureItem = Omit<DocumentItem, 'picture'> & { picture?: { bytes?: string; mimeType: string; width?: number; height?: number } };

/**
 * Issue 27, tested as installed: the built linux-x64 VSIX unpacked (outside the repository, so its node_modules are
 * out of reach) must carry @napi-rs/canvas for its own bundles, so its conversion worker renders a PDF figure from
 * its page region. Without canvas each figure falls back to its largest raw image: for amt_handbook_sample.pdf two
 * masked images, 138x64 and 210x137 and ~70 % black (the "black blobs" of the issue).
 */
describe('the linux-x64 VSIX as installed: PDF figures rendered with its own @napi-rs/canvas', function () {
  this.timeout(1_200_000);
  let folder: ReturnType<typeof temporaryFolder>;
  let extension: string;

  before(function () {
    if (!onGlibcLinuxX64()) {
      this.skip();
    }
    ensureVsixFiles(['linux-x64']);
    folder = temporaryFolder('haiku-installed-vsix-canvas-');
    extension = path.join(folder.path, 'extension');
    unzipFolder(vsixPath('linux-x64'), 'extension/', extension);
  });
  after(() => folder?.cleanup());

  it('resolves and loads @napi-rs/canvas from the unpacked dist/ (as the bundles require it), NODE_PATH unset', () => {
    const dist = path.join(extension, 'dist');
    const script = [
      "const { createRequire } = require('node:module');",
      `const requireFromWorker = createRequire(${JSON.stringify(path.join(dist, 'conversion-worker.js'))});`,
      "const canvas = requireFromWorker('@napi-rs/canvas');",
      "const png = canvas.createCanvas(4, 3).toBuffer('image/png');",
      "console.log(JSON.stringify({ resolved: requireFromWorker.resolve('@napi-rs/canvas'), signature: png.subarray(0, 8).toString('hex') }));",
    ].join('\n');
    const output = execFileSync(process.execPath, ['-e', script], { cwd: folder.path, env: environmentWithoutNodePath(), encoding: 'utf8' });
    const { resolved, signature } = JSON.parse(output) as { resolved: string; signature: string };
    assert.ok(resolved.startsWith(path.join(dist, 'node_modules', '@napi-rs', 'canvas') + path.sep), resolved);
    assert.equal(signature, PNG_SIGNATURE);
  });

  it("converts amt_handbook_sample.pdf with the unpacked dist/cli.js (the extension's conversion worker) into 2 rendered figures", async () => {
    const pdf = path.join(corpusRoot, 'pdf-docx', 'docling', 'amt_handbook_sample.pdf');
    const output = execFileSync(process.execPath, [path.join(extension, 'dist', 'cli.js'), 'convert', pdf, '--json'], {
      cwd: folder.path, env: environmentWithoutNodePath(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
    });
    const document = JSON.parse(output) as { items: JsonPictureItem[] };
    const figures = document.items.filter((item) => item.label === 'picture');
    assert.equal(figures.length, 2, JSON.stringify(figures.map((figure) => figure.boxes)));
    for (const figure of figures) {
      assert.equal(figure.picture?.mimeType, 'image/png');
      const bytes = new Uint8Array(Buffer.from(figure.picture.bytes ?? '', 'base64'));
      assert.equal(Buffer.from(bytes.subarray(0, 8)).toString('hex'), PNG_SIGNATURE);
      const image = await decodePng(bytes);
      // Rendered from the figure's region, so shaped like its box; the fallback raw image is shaped like itself.
      const [box] = figure.boxes!;
      assert.ok(Math.abs(image.width / image.height - box.width / box.height) < 0.05 * (box.width / box.height),
        `${image.width}x${image.height} is not the shape of the figure's box ${JSON.stringify(box)}: the raw-image fallback, not a rendering`);
      assert.ok(image.width >= box.width, `rendered at scale 1 or more: ${image.width} px for ${box.width} pt`);
      const shares = inkShares(image);
      assert.ok(shares.black < 0.3, `not a black blob: ${JSON.stringify(shares)}`);
      assert.ok(shares.inked > 0.2, `drawn, not blank: ${JSON.stringify(shares)}`);
    }
  });
});
