import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore } from '../../../src/node/store/lanceStore';
import { corpusRoot } from '../../support/paths';
import { runInProcess } from '../cli/cliHarness';
import { decodePng } from '../../support/png';

describe('pictures and boxes in the index', function () {
  this.timeout(180_000);
  let folder: string;

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-store-pictures-'));
    fs.mkdirSync(path.join(folder, 'docs'));
    fs.copyFileSync(path.join(corpusRoot, 'pdf-docx/docling/picture_classification.pdf'), path.join(folder, 'docs', 'figures.pdf'));
    fs.copyFileSync(path.join(corpusRoot, 'pdf-docx/docling/word_sample.docx'), path.join(folder, 'docs', 'duck.docx'));
    const indexed = await runInProcess(['index', 'docs', '--quiet'], { cwd: folder });
    assert.equal(indexed.code, 0, indexed.stderr);
  });

  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('keeps picture items with their page, caption neighbour, boxes and decodable bytes', async () => {
    const store = await openStore({ uri: path.join(folder, '.haiku') });
    try {
      const documents = await store.listDocuments();
      const pdf = documents.find((document) => document.relativePath === 'docs/figures.pdf')!;
      const items = await store.getDocumentItems(pdf.id);
      const pictures = items.filter((item) => item.label === 'picture');
      assert.deepEqual(pictures.map((picture) => picture.pageNumbers), [[1], [2]]);
      for (const picture of pictures) {
        assert.equal(items[picture.position + 1].label, 'caption');
        assert.ok(picture.boxes?.[0] && picture.boxes[0].width > 100, JSON.stringify(picture.boxes));
        assert.equal(picture.picture?.bytes, undefined, 'bytes never travel with items');
        const image = await store.pictureBytes(pdf.id, picture.selfRef);
        assert.equal(image?.mimeType, 'image/png');
        const decoded = await decodePng(image!.bytes);
        assert.deepEqual([decoded.width, decoded.height], [image!.width, image!.height]);
      }
      assert.ok(items.filter((item) => item.label === 'paragraph').every((item) => (item.boxes?.length ?? 0) > 0), 'PDF text items keep their boxes');
      const text = items.find((item) => item.label === 'paragraph')!;
      assert.equal(await store.pictureBytes(pdf.id, text.selfRef), undefined);

      const docx = documents.find((document) => document.relativePath === 'docs/duck.docx')!;
      const duck = (await store.getDocumentItems(docx.id)).find((item) => item.label === 'picture')!;
      assert.match(duck.text, /cartoon duck/);
      assert.equal((await store.pictureBytes(docx.id, duck.selfRef))?.mimeType, 'image/png');
    } finally {
      await store.close();
    }
  });

  it("finds a figure's chunk through its caption words", async () => {
    const search = await runInProcess(['search', 'cute duckling', '--json'], { cwd: folder });
    const hits = JSON.parse(search.stdout) as Array<{ relativePath: string; pictureRefs: string[] }>;
    assert.equal(hits[0]?.relativePath, 'docs/duck.docx');
    assert.deepEqual(hits[0].pictureRefs, ['#/pictures/0']);
    // Expanded results name the picture a caption describes, even when the picture item has no text of its own.
    const expanded = await runInProcess(['search', 'Figure 2 example image', '--json', '--expand'], { cwd: folder });
    const figure = (JSON.parse(expanded.stdout) as Array<{ relativePath: string; pictureRefs: string[]; content: string }>).find((hit) => hit.relativePath === 'docs/figures.pdf');
    assert.ok(figure?.pictureRefs.includes('#/pictures/1'), JSON.stringify(figure));
  });
});

describe('haiku index --pictures none', function () {
  this.timeout(180_000);

  it('keeps picture items with their text but no image, and refuses an unknown mode', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-no-pictures-'));
    try {
      fs.mkdirSync(path.join(folder, 'docs'));
      fs.copyFileSync(path.join(corpusRoot, 'pdf-docx/docling/word_sample.docx'), path.join(folder, 'docs', 'duck.docx'));
      const bogus = await runInProcess(['index', 'docs', '--pictures', 'thumbnails'], { cwd: folder });
      assert.equal(bogus.code, 2);
      assert.match(bogus.stderr, /--pictures takes 'image', 'none' or 'description', got 'thumbnails'/);
      const indexed = await runInProcess(['index', 'docs', '--quiet', '--pictures', 'none'], { cwd: folder });
      assert.equal(indexed.code, 0, indexed.stderr);
      const store = await openStore({ uri: path.join(folder, '.haiku') });
      try {
        const [document] = await store.listDocuments();
        const duck = (await store.getDocumentItems(document.id)).find((item) => item.label === 'picture')!;
        assert.match(duck.text, /cartoon duck/);
        assert.equal(duck.picture, undefined);
        assert.equal(await store.pictureBytes(document.id, duck.selfRef), undefined);
      } finally {
        await store.close();
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
