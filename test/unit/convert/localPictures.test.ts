import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DocumentItem } from '../../../src/core/model/document';
import { convertFile } from '../../../src/node/convert/convertFile';
import { repositoryRoot } from '../../support/paths';
import { decodePng } from '../../support/png';

const fixtureRoot = path.join(repositoryRoot, 'test/fixtures/pictures/docs');
const page = path.join(fixtureRoot, 'page.md');

function pictures(items: readonly DocumentItem[]): DocumentItem[] {
  return items.filter((item) => item.label === 'picture');
}

function captionOf(items: readonly DocumentItem[], picture: DocumentItem): string | undefined {
  const next = items[picture.position + 1];
  return next?.label === 'caption' ? next.text : undefined;
}

describe('local pictures of Markdown and HTML', () => {
  it('turns a local image of the Markdown page into a picture item with decodable bytes, alt text and its caption', async () => {
    const document = await convertFile(page, { pictureRoots: [fixtureRoot] });
    const [pump, flow, repeated, svg, missing, outside, remote, seal] = pictures(document.items);
    assert.equal(pictures(document.items).length, 8);
    assert.equal(pump.text, 'Cross-section of the centrifugal pump');
    assert.equal(pump.picture?.mimeType, 'image/png');
    const decoded = await decodePng(pump.picture!.bytes!);
    assert.deepEqual([decoded.width, decoded.height], [160, 120]);
    assert.deepEqual([pump.picture!.width, pump.picture!.height], [160, 120]);
    assert.equal(captionOf(document.items, pump), 'Figure 3: Impeller with backward-curved vanes inside the volute casing.');
    // A caption set above its figure is placed after it, so a caption at p describes the picture at p − 1.
    assert.equal(flow.text, 'Flow diagram');
    assert.ok(flow.picture?.bytes);
    assert.equal(captionOf(document.items, flow), 'Figure 4: Coolant flow from the reservoir through the heat exchanger.');
    assert.equal(repeated.picture?.digest, pump.picture!.digest);
    assert.equal(repeated.picture?.bytes, undefined, 'identical bytes are stored once per document');
    for (const textOnly of [svg, missing, outside, remote]) {
      assert.equal(textOnly.picture, undefined, textOnly.text);
      assert.ok(textOnly.text.length > 0, 'alt text is kept');
    }
    // `<figure>` with `<figcaption>` first: the picture still comes first, its caption right after it.
    assert.equal(seal.text, 'Seal assembly');
    assert.equal(seal.picture?.digest, flow.picture!.digest);
    assert.equal(captionOf(document.items, seal), 'Figure 5: Seal assembly, exploded view.');
    assert.equal(document.items.at(-1)?.text, 'Maintenance intervals are listed in the service table.');
    assert.deepEqual(document.warnings.slice().sort(), [
      '1 picture points outside the indexed folders and was not read; the alt text and captions are kept.',
      '1 picture points to a file that does not exist; the alt text and captions are kept.',
      '1 picture was in a format that is not extracted (SVG, or an unknown encoding); their captions are kept.',
    ]);
  });

  it('reads no image with pictures off, and only alt text when the document has no file', async () => {
    const off = await convertFile(page, { pictureRoots: [fixtureRoot], pictures: 'none' });
    assert.equal(pictures(off.items).length, 8);
    assert.ok(pictures(off.items).every((item) => item.picture === undefined));
    assert.deepEqual(off.warnings, []);
  });

  it('refuses an image outside the indexed roots even when the document folder would allow it', async () => {
    const narrow = await convertFile(page, { pictureRoots: [path.join(fixtureRoot, 'nothing-here')] });
    assert.ok(pictures(narrow.items).every((item) => item.picture === undefined));
    // Without roots, the document's folder is the limit: the sibling `private.png` stays unread.
    const defaulted = await convertFile(page);
    assert.ok(pictures(defaulted.items)[0].picture?.bytes);
    assert.equal(pictures(defaulted.items)[5].picture, undefined);
  });

  it('places a local image inside a text paragraph after the paragraph (a remote badge stays alt text) and resolves site-root paths', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-inline-pictures-'));
    try {
      fs.copyFileSync(path.join(fixtureRoot, 'images/pump.png'), path.join(folder, 'pump.png'));
      const markdown = path.join(folder, 'inline.md');
      fs.mkdirSync(path.join(folder, 'public'));
      fs.copyFileSync(path.join(fixtureRoot, 'images/flow.png'), path.join(folder, 'public', 'flow.png'));
      fs.writeFileSync(markdown, 'The pump ![pump icon](pump.png) is shown inline, next to [![build](https://example.com/badge.svg)](https://example.com).\n\n![Site-root flow](/flow.png)\n');
      const document = await convertFile(markdown, { pictureRoots: [folder] });
      assert.deepEqual(document.items.map((item) => `${item.label}: ${item.text}`), ['paragraph: The pump pump icon is shown inline, next to build.', 'picture: pump icon', 'picture: Site-root flow']);
      assert.ok(document.items[1].picture?.bytes);
      // `/flow.png` is the documentation site's root (its `public/` folder), not the disk's.
      assert.equal((await decodePng(document.items[2].picture!.bytes!)).width, 200);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('reads `<img>` of an HTML page, never runs SVG, and keeps a caption paragraph after the figure', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-html-pictures-'));
    try {
      fs.copyFileSync(path.join(fixtureRoot, 'images/pump.png'), path.join(folder, 'pump.png'));
      fs.copyFileSync(path.join(fixtureRoot, 'images/logo.svg'), path.join(folder, 'logo.svg'));
      const html = path.join(folder, 'page.html');
      fs.writeFileSync(html, '<h1>Pumps</h1><p><img src="pump.png" alt="Pump"></p><p>Figure 1. The pump.</p><img src="logo.svg" alt="Logo"><img src="http://127.0.0.1:9/x.png" alt="Remote"><p>Done.</p>');
      const document = await convertFile(html, { pictureRoots: [folder] });
      const [pump, logo, remote] = pictures(document.items);
      assert.equal((await decodePng(pump.picture!.bytes!)).width, 160);
      assert.equal(captionOf(document.items, pump), 'Figure 1. The pump.');
      assert.equal(logo.picture, undefined);
      assert.equal(remote.picture, undefined);
      assert.equal(document.warnings.length, 1, document.warnings.join('\n'));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
