import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertPdf } from '../../../src/node/convert/pdf';
import { renderHighlightedPage } from '../../../src/node/visualize/pageRenderer';
import { corpusRoot, repositoryRoot } from '../../support/paths';
import { decodePng } from '../../support/png';

/** Test artifacts are kept for a person to look at (CI uploads test-results/). */
const artifacts = path.join(repositoryRoot, 'test-results', 'visualize');

describe('rendering a PDF page with highlighted boxes', function () {
  this.timeout(120_000);

  it('draws the chosen item strongly where its words are, the context faintly, and nothing elsewhere', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/2305.03393v1-pg9.pdf')));
    const document = await convertPdf(bytes, { fileName: '2305.03393v1-pg9.pdf' });
    const heading = document.items.find((item) => item.label === 'section_header' && item.text.includes('Hyper Parameter Optimization'))!;
    const following = document.items[heading.position + 1];
    const rendered = await renderHighlightedPage(bytes, { page: 1, strong: heading.boxes!, faint: following.boxes! });
    fs.mkdirSync(artifacts, { recursive: true });
    fs.writeFileSync(path.join(artifacts, '2305.03393v1-pg9-heading.png'), rendered.png);

    const image = await decodePng(rendered.png);
    assert.deepEqual([image.width, image.height], [rendered.width, rendered.height]);
    assert.equal(rendered.strong.length, heading.boxes!.length);
    const pixel = (x: number, y: number) => {
      const offset = (y * image.width + x) * image.channels;
      return [image.data[offset], image.data[offset + 1], image.data[offset + 2]];
    };
    // Inside the strong box the page's white background turns amber (blue channel well below red).
    const strong = rendered.strong[0];
    const amber = countPixels(strong, pixel, ([red, , blue]) => red > 200 && blue < 200);
    assert.ok(amber > 0.5 * strong.width * strong.height, `${amber} amber pixels in ${strong.width}x${strong.height}`);
    // The heading's words lie inside its box at 2x scale: the box is about as tall as one line.
    assert.ok(strong.height > 20 && strong.height < 60 && strong.width > 300, JSON.stringify(strong));
    // Far from every highlight the page stays white or ink, never amber.
    const corner = { left: 0, top: 0, width: 40, height: 40 };
    assert.equal(countPixels(corner, pixel, ([red, green, blue]) => red > 200 && blue < 200 && green > 150), 0);
    // The faint context is bluish, not amber.
    const faint = rendered.faint[0];
    assert.ok(countPixels(faint, pixel, ([red, , blue]) => blue > red) > 0.3 * faint.width * faint.height);
  });

  it('says what is wrong for a page that does not exist or a file that is not a PDF', async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(corpusRoot, 'pdf-docx/docling/2305.03393v1-pg9.pdf')));
    await assert.rejects(renderHighlightedPage(bytes, { page: 3, strong: [] }), /has no page 3 \(it has 1\)/);
    await assert.rejects(renderHighlightedPage(new TextEncoder().encode('not a pdf'), { page: 1, strong: [], fileName: 'x.pdf' }), /x\.pdf: could not be opened as a PDF/);
  });
});

function countPixels(area: { left: number; top: number; width: number; height: number }, pixel: (x: number, y: number) => number[], predicate: (rgb: number[]) => boolean): number {
  let count = 0;
  for (let y = area.top + 3; y < area.top + area.height - 3; y++) {
    for (let x = area.left + 3; x < area.left + area.width - 3; x++) {
      if (predicate(pixel(x, y))) {
        count++;
      }
    }
  }
  return count;
}
