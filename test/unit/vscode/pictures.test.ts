import * as assert from 'node:assert';
import * as path from 'node:path';
import { buildSectionTree } from '../../../src/core/toc';
import type { StoredItem } from '../../../src/core/model/search';
import { loadDocument } from '../../../src/node/convert/convertFile';
import { figureLabel, figuresDirectlyIn, figuresOfSection, formatFigureList, imageDataUri, parsePicturePath, picturePath } from '../../../src/vscode/pictureViewModel';
import { repositoryRoot } from '../../support/paths';

function item(position: number, label: StoredItem['label'], text: string, extra: Partial<StoredItem> = {}): StoredItem {
  return { position, selfRef: label === 'picture' ? `#/pictures/${position}` : `#/texts/${position}`, label, text, headingLevel: label === 'section_header' ? 1 : 0, pageNumbers: [], treeDepth: 0, documentId: 'doc', chunkIds: [], ...extra };
}

describe('pictures in VS Code: labels, tree placement, URIs', () => {
  const items: StoredItem[] = [
    item(0, 'picture', '', { pageNumbers: [1] }),
    item(1, 'section_header', 'Intro'),
    item(2, 'picture', 'A duck (alt text)'),
    item(3, 'section_header', 'Deeper', { headingLevel: 2 }),
    item(4, 'picture', 'alt', { picture: { mimeType: 'image/jpeg', width: 640, height: 480, digest: 'd' } }),
    item(5, 'caption', 'Figure 3: the caption wins over alt text.'),
    item(6, 'picture', ''),
  ];
  const sections = buildSectionTree(items);

  it('labels a figure by its caption, else its alt text, else its page, else its number', () => {
    assert.strictEqual(figureLabel(items[4], items), 'Figure 3: the caption wins over alt text.');
    assert.strictEqual(figureLabel(items[2], items), 'A duck (alt text)');
    assert.strictEqual(figureLabel(items[0], items), 'Figure on page 1');
    assert.strictEqual(figureLabel(items[6], items), 'Figure 7');
  });

  it('puts each figure under its innermost section, and lists a section\'s figures with subsections', () => {
    const [intro] = sections;
    assert.deepStrictEqual(figuresDirectlyIn(items, undefined, sections).map((figure) => figure.position), [0]);
    assert.deepStrictEqual(figuresDirectlyIn(items, intro.itemRange, intro.children).map((figure) => figure.position), [2]);
    assert.deepStrictEqual(figuresDirectlyIn(items, intro.children[0].itemRange, []).map((figure) => figure.position), [4, 6]);
    assert.deepStrictEqual(figuresOfSection(items, intro).map((figure) => figure.position), [2, 4, 6]);
    const list = formatFigureList(figuresOfSection(items, intro), items, 'haiku_readPicture');
    assert.match(list, /^Figures \(3; read the image with haiku_readPicture/);
    assert.match(list, /- #\/pictures\/4: Figure 3: the caption wins over alt text\. \[image\/jpeg 640×480\]/);
    assert.match(list, /- #\/pictures\/6: \(no caption\) \[no image stored\]/);
    assert.strictEqual(formatFigureList([], items, 'x'), '');
  });

  it('names a picture by a path that round-trips, with the image type as extension', () => {
    const named = picturePath('0123abcdef', '#/pictures/12', 'papers/picture_classification.pdf', 'image/jpeg');
    assert.strictEqual(named, '/0123abcdef/12/picture_classification figure 13.jpg');
    assert.deepStrictEqual(parsePicturePath(named!), { documentId: '0123abcdef', selfRef: '#/pictures/12' });
    assert.strictEqual(picturePath('doc', '#/texts/1', 'a.pdf'), undefined);
    assert.strictEqual(picturePath('../doc', '#/pictures/1', 'a.pdf'), undefined);
    assert.strictEqual(parsePicturePath('/doc/1'), undefined);
    assert.strictEqual(parsePicturePath('/doc/x/y.png'), undefined);
    assert.match(picturePath('d', '#/pictures/0', 'odd/na:me?.docx')!, /^\/d\/0\/na_me_ figure 1\.png$/);
  });

  it('labels the figures of a real DOCX by caption and encodes a data URI the webview can show', async function () {
    this.timeout(60_000);
    const document = await loadDocument({ rootPath: path.join(repositoryRoot, 'samples'), filePath: 'papers/word_sample.docx' });
    const stored = document.items.map((entry) => ({ ...entry, documentId: document.id, chunkIds: [] }));
    const [figure] = figuresDirectlyIn(stored, undefined, []);
    assert.ok(figure?.picture?.bytes, 'the duck picture has bytes');
    assert.strictEqual(figureLabel(figure, stored), 'Figure 1: This is a cute duckling');
    const uri = imageDataUri(figure.picture.bytes, figure.picture.mimeType);
    assert.ok(uri.startsWith('data:image/png;base64,iVBORw0KGgo'), uri.slice(0, 40));
    assert.strictEqual(Buffer.from(uri.split(',')[1], 'base64').length, figure.picture.bytes.length);
  });
});
