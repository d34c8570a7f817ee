import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PICTURE_MAX_SIDE_PX } from '../../../src/core/limits';
import { convertFile } from '../../../src/node/convert/convertFile';
import { decodeCommonPng } from '../../../src/node/convert/pictures/pngDecoder';
import { encodePng } from '../../../src/node/convert/pictures/pngEncoder';
import { decodePng } from '../../support/png';
import { repositoryRoot } from '../../support/paths';

/** A `width`x`height` RGB gradient: left half dark, right half light, so scaling can be checked by its colours. */
function gradientPng(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 3;
      data[offset] = x < width / 2 ? 20 : 230;
      data[offset + 1] = Math.floor((y / height) * 255);
      data[offset + 2] = 128;
    }
  }
  return encodePng({ width, height, channels: 3, data });
}

describe('oversized pictures', function () {
  this.timeout(60_000);
  let folder: string;

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-big-picture-'));
    fs.writeFileSync(path.join(folder, 'square.png'), gradientPng(4000, 4000));
    fs.writeFileSync(path.join(folder, 'wide.png'), gradientPng(5000, 1000));
    fs.writeFileSync(path.join(folder, 'small.png'), gradientPng(300, 200));
    fs.writeFileSync(path.join(folder, 'page.md'), '# Pictures\n\n![Square](square.png)\n\n![Wide](wide.png)\n\n![Small](small.png)\n');
  });

  after(() => {
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it(`stores a 4000x4000 PNG scaled to ${PICTURE_MAX_SIDE_PX} px on its long side, and leaves small ones as they are`, async () => {
    const document = await convertFile(path.join(folder, 'page.md'), { pictureRoots: [folder] });
    const [square, wide, small] = document.items.filter((item) => item.label === 'picture');
    for (const [item, expected] of [[square, [2048, 2048]], [wide, [2048, 410]], [small, [300, 200]]] as const) {
      const decoded = await decodePng(item.picture!.bytes!);
      assert.deepEqual([decoded.width, decoded.height], expected, item.text);
      assert.deepEqual([item.picture!.width, item.picture!.height], expected, item.text);
    }
    const decoded = await decodePng(square.picture!.bytes!);
    // The colours survive the scaling: dark on the left, light on the right.
    assert.equal(decoded.data[(1000 * 2048 + 10) * decoded.channels], 20);
    assert.equal(decoded.data[(1000 * 2048 + 2030) * decoded.channels], 230);
    assert.equal(fs.readFileSync(path.join(folder, 'small.png')).equals(Buffer.from(small.picture!.bytes!)), true, 'a small PNG keeps its own bytes');
  });

  it('scales an oversized JPEG too (with @napi-rs/canvas, installed for the CLI), keeping it JPEG', async () => {
    const { createCanvas } = await import('@napi-rs/canvas');
    const canvas = createCanvas(3000, 2000);
    const context = canvas.getContext('2d');
    context.fillStyle = '#336699';
    context.fillRect(0, 0, 3000, 2000);
    fs.writeFileSync(path.join(folder, 'photo.jpg'), canvas.toBuffer('image/jpeg', 80));
    fs.writeFileSync(path.join(folder, 'photo.md'), '# Photo\n\n![Photo](photo.jpg)\n');
    const document = await convertFile(path.join(folder, 'photo.md'), { pictureRoots: [folder] });
    const [photo] = document.items.filter((item) => item.label === 'picture');
    assert.equal(photo.picture?.mimeType, 'image/jpeg');
    assert.deepEqual([photo.picture!.width, photo.picture!.height], [2048, 1365]);
    const { loadImage } = await import('@napi-rs/canvas');
    const stored = await loadImage(Buffer.from(photo.picture!.bytes!));
    assert.deepEqual([stored.width, stored.height], [2048, 1365]);
  });

  it('decodes filtered PNGs (a canvas encoder, the fixtures) exactly as fast-png does', async () => {
    const { createCanvas } = await import('@napi-rs/canvas');
    const canvas = createCanvas(700, 500);
    const context = canvas.getContext('2d');
    const gradient = context.createLinearGradient(0, 0, 700, 500);
    gradient.addColorStop(0, 'rgba(200, 30, 60, 0.6)');
    gradient.addColorStop(1, 'rgba(10, 160, 240, 1)');
    context.fillStyle = gradient;
    context.fillRect(0, 0, 700, 500);
    context.fillStyle = '#123456';
    context.fillText('Filters: sub, up, average, Paeth', 40, 250);
    const fixtures = fs.readdirSync(path.join(repositoryRoot, 'test/fixtures/pictures/docs/images')).filter((name) => name.endsWith('.png'));
    const files: Array<[string, Uint8Array]> = [['canvas', new Uint8Array(canvas.toBuffer('image/png'))], ...fixtures.map((name): [string, Uint8Array] => [name, fs.readFileSync(path.join(repositoryRoot, 'test/fixtures/pictures/docs/images', name))])];
    for (const [name, bytes] of files) {
      const ours = decodeCommonPng(bytes);
      const reference = await decodePng(bytes);
      if (!ours) {
        assert.notEqual(name, 'canvas', 'an 8-bit RGBA PNG takes the native path');
        continue;
      }
      assert.deepEqual([ours.width, ours.height, ours.channels], [reference.width, reference.height, reference.channels], name);
      assert.ok(Buffer.from(ours.data).equals(Buffer.from(Uint8Array.from(reference.data))), `${name}: pixels differ`);
    }
  });
});
