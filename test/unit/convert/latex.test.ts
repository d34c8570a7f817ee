import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConvertedDocument } from '../../../src/core/model/document';
import { convertFile } from '../../../src/node/convert/convertFile';
import { decodeCommonPng } from '../../../src/node/convert/pictures/pngDecoder';
import { formatsRoot, groundTruthHeadings, headingTexts, tableRows, wordRecall } from '../../support/formatRecall';

const paperFolder = path.join(formatsRoot, 'latex', '1706.03762');

/** Pixels of a PNG picture that are not near-white: a rendered figure has many, a blank page none. */
function inkedPixels(bytes: Uint8Array): number {
  const image = decodeCommonPng(bytes);
  assert.ok(image, 'the picture decodes as PNG');
  let inked = 0;
  for (let pixel = 0; pixel < image.width * image.height; pixel++) {
    const offset = pixel * image.channels;
    const grey = image.channels >= 3 ? (image.data[offset] + image.data[offset + 1] + image.data[offset + 2]) / 3 : image.data[offset];
    if (grey < 200) {
      inked++;
    }
  }
  return inked;
}

describe('LaTeX converter', () => {
  describe('the "Attention Is All You Need" paper (main.tex with \\input files, PNG and PDF figures)', () => {
    let document: ConvertedDocument;
    let expected: string;
    let milliseconds = 0;
    before(async function () {
      this.timeout(240_000);
      expected = fs.readFileSync(path.join(paperFolder, 'main.tex.groundtruth.md'), 'utf8');
      const started = performance.now();
      document = await convertFile(path.join(paperFolder, 'main.tex'));
      milliseconds = performance.now() - started;
    });

    it('reads the included files: word recall ≥ 0.85 of docling, every docling heading found', () => {
      const recall = wordRecall(expected, document.items);
      assert.ok(recall >= 0.85, `recall ${recall.toFixed(3)} (converted in ${Math.round(milliseconds)} ms)`);
      assert.equal(document.format, 'latex');
      assert.equal(document.title, 'Attention Is All You Need');
      assert.equal(document.items[0].label, 'title');
      const headings = headingTexts(document);
      for (const heading of groundTruthHeadings(expected)) {
        assert.ok(headings.includes(heading), `heading "${heading}" missing from ${JSON.stringify(headings)}`);
      }
      const section = document.items.find((item) => item.label === 'section_header' && item.text === 'Encoder and Decoder Stacks');
      assert.equal(section?.headingLevel, 2);
      assert.deepEqual(document.warnings, []);
    });

    it('turns tabulars into table items: \\multicolumn repeated over its columns, \\multirow down its rows, rules dropped', () => {
      const tables = document.items.filter((item) => item.label === 'table');
      assert.equal(tables.length, 4);
      const translation = tableRows(tables[1].text);
      assert.deepEqual(translation[0], ['Model', 'BLEU', 'BLEU', '', 'Training Cost (FLOPs)', 'Training Cost (FLOPs)']);
      assert.deepEqual(translation[1], ['Model', 'EN-DE', 'EN-FR', '', 'EN-DE', 'EN-FR']);
      assert.ok(translation.some((row) => row[0] === 'Transformer (big)' && row[1] === '28.4' && row[4] === '$2.3\\cdot10^{19}$'));
      assert.ok(!tables.some((table) => /\\(hline|toprule|specialrule|rule|cmidrule)/.test(table.text)));
      const variations = tableRows(tables[2].text);
      assert.equal(variations.filter((row) => row[0] === '(A)').length, 4, 'the \\multirow{4} label on each of its rows');
      // Each table is followed by its caption.
      assert.equal(document.items[tables[1].position + 1].label, 'caption');
      assert.match(document.items[tables[1].position + 1].text, /^The Transformer achieves better BLEU scores/);
    });

    it('keeps figures as pictures with bytes: PNG files as they are, PDF figures rendered (page 1) with ink on them, each followed by its caption', () => {
      const pictures = document.items.filter((item) => item.label === 'picture');
      assert.deepEqual(pictures.map((item) => item.text), [
        'Figures/ModalNet-21', 'Figures/ModalNet-19', 'Figures/ModalNet-20', './vis/making_more_difficult5_new.pdf', './vis/anaphora_resolution_new.pdf',
        './vis/anaphora_resolution2_new.pdf', './vis/attending_to_head_new.pdf', './vis/attending_to_head2_new.pdf',
      ]);
      for (const picture of pictures) {
        assert.equal(picture.picture?.mimeType, 'image/png', picture.text);
        assert.ok(picture.picture?.bytes && picture.picture.bytes.length > 1000, picture.text);
      }
      const png = fs.readFileSync(path.join(paperFolder, 'Figures', 'ModalNet-19.png'));
      assert.deepEqual(Buffer.from(pictures[1].picture!.bytes!), png);
      for (const rendered of pictures.slice(3)) {
        assert.ok(inkedPixels(rendered.picture!.bytes!) > 2000, `${rendered.text} is rendered with its drawing and text, not blank`);
      }
      const captionAfter = (index: number) => document.items.slice(pictures[index].position + 1).find((item) => item.label !== 'picture');
      assert.equal(captionAfter(0)?.label, 'caption');
      assert.equal(captionAfter(0)?.text, 'The Transformer - model architecture.');
      assert.match(captionAfter(3)?.text ?? '', /^An example of the attention mechanism/);
    });

    it('keeps display math as formula items with macros expanded, inline math as $…$, citations as [key], references as numbers', () => {
      const formulas = document.items.filter((item) => item.label === 'formula').map((item) => item.text);
      assert.ok(formulas.includes('\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}(\\frac{QK^T}{\\sqrt{d_k}})V'), JSON.stringify(formulas));
      assert.ok(formulas.some((formula) => formula.startsWith('\\begin{align*}') && formula.includes('d_{\\text{model}}')));
      const text = document.items.map((item) => item.text).join('\n');
      assert.match(text, /produce outputs of dimension \$d_\{\\text\{model\}\}=512\$/);
      assert.match(text, /long short-term memory \[hochreiter1997\]/);
      assert.match(text, /shown in the left and right halves of Figure 1, respectively/);
      assert.match(text, /as described in Section 3\.2\.2/);
      assert.doesNotMatch(text, /\\(cite|ref|label|textbf|emph|hspace|vspace|newcommand)\b/);
      assert.doesNotMatch(text, /TODO\(noam\)|llion@: FAIR/, 'comments are dropped');
    });

    it('turns thebibliography into a "References" section of entries, and itemize into list items', () => {
      const references = document.items.findIndex((item) => item.label === 'section_header' && item.text === 'References');
      assert.ok(references > 0);
      const entries = document.items.slice(references + 1).filter((item) => item.label === 'list_item');
      assert.equal(entries[0].text, '[layernorm2016] Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton. Layer normalization. arXiv preprint arXiv:1607.06450, 2016.');
      assert.ok(entries.some((entry) => entry.text.includes('Çaglar Gülçehre')), 'accents become letters');
      const applications = document.items.filter((item) => item.label === 'list_item' && item.text.startsWith('In "encoder-decoder attention" layers'));
      assert.equal(applications.length, 1);
    });

    it('gives items of the root file its 0-based lines, and items of included files none', () => {
      const lines = fs.readFileSync(path.join(paperFolder, 'main.tex'), 'utf8').split('\n');
      const conclusion = document.items.find((item) => item.label === 'section_header' && item.text === 'Conclusion');
      assert.ok(conclusion?.sourceRange?.startLine !== undefined);
      assert.equal(lines[conclusion.sourceRange.startLine], '\\section{Conclusion}');
      assert.equal(lines[document.items[0].sourceRange!.startLine!], '\\title{Attention Is All You Need}');
      const background = document.items.find((item) => item.text.startsWith('The goal of reducing sequential computation'));
      assert.equal(background?.sourceRange, undefined, 'from background.tex');
    });
  });

  describe('includes and bad input', () => {
    let folder: string;
    beforeEach(() => {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-latex-'));
    });
    afterEach(() => {
      fs.rmSync(folder, { recursive: true, force: true });
    });

    it('refuses an \\input leading outside the document folder (a path or a symbolic link) with a warning, and reads the rest', async () => {
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-latex-outside-'));
      try {
        fs.writeFileSync(path.join(outside, 'secret.tex'), 'The secret text.\n');
        fs.mkdirSync(path.join(folder, 'paper'));
        fs.symlinkSync(path.join(outside, 'secret.tex'), path.join(folder, 'paper', 'linked.tex'));
        const main = path.join(folder, 'paper', 'main.tex');
        fs.writeFileSync(main, `\\documentclass{article}\n\\begin{document}\nBefore.\n\n\\input{${path.relative(path.dirname(main), path.join(outside, 'secret'))}}\n\\input{linked}\n\nAfter.\n\\end{document}\n`);
        const document = await convertFile(main);
        const text = document.items.map((item) => item.text).join('\n');
        assert.doesNotMatch(text, /secret/);
        assert.match(text, /Before\./);
        assert.match(text, /After\./);
        assert.equal(document.warnings.filter((warning) => /points outside the document's folder/.test(warning)).length, 2, document.warnings.join('\n'));
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });

    it('reads figures only inside the picture roots: an image outside keeps its caption, without bytes, and a warning says why', async () => {
      const png = fs.readFileSync(path.join(paperFolder, 'Figures', 'ModalNet-23.png'));
      fs.mkdirSync(path.join(folder, 'paper'));
      const otherPng = fs.readFileSync(path.join(paperFolder, 'Figures', 'ModalNet-22.png'));
      fs.writeFileSync(path.join(folder, 'outside.png'), otherPng);
      fs.writeFileSync(path.join(folder, 'paper', 'inside.png'), png);
      const main = path.join(folder, 'paper', 'main.tex');
      fs.writeFileSync(main, '\\begin{document}\n\\begin{figure}\\includegraphics{inside}\\caption{Inside.}\\end{figure}\n\\begin{figure}\\includegraphics[width=3cm]{../outside}\\caption{Outside.}\\end{figure}\n\\end{document}\n');
      const document = await convertFile(main);
      assert.deepEqual(document.items.map((item) => [item.label, item.text, item.picture?.bytes?.length]), [
        ['picture', 'inside', png.length],
        ['caption', 'Inside.', undefined],
        ['picture', '../outside', undefined],
        ['caption', 'Outside.', undefined],
      ]);
      assert.ok(document.warnings.some((warning) => /outside the indexed folders/.test(warning)), document.warnings.join('\n'));
      const allowed = await convertFile(main, { pictureRoots: [folder] });
      assert.equal(allowed.items[2].picture?.bytes?.length, otherPng.length);
      const none = await convertFile(main, { pictures: 'none' });
      assert.equal(none.items[0].picture, undefined);
    });

    it('reads an include cycle once, with a warning', async () => {
      fs.writeFileSync(path.join(folder, 'main.tex'), '\\begin{document}\n\\section{Start}\n\\input{a}\n\\end{document}\n');
      fs.writeFileSync(path.join(folder, 'a.tex'), 'Text of a.\n\n\\input{b}\n');
      fs.writeFileSync(path.join(folder, 'b.tex'), 'Text of b.\n\n\\input{a}\n\\input{main}\n');
      const document = await convertFile(path.join(folder, 'main.tex'));
      assert.deepEqual(document.items.map((item) => item.text), ['Start', 'Text of a.', 'Text of b.']);
      assert.ok(document.warnings.some((warning) => /include cycle/.test(warning)), document.warnings.join('\n'));
    });

    it('warns about a missing include and a \\bibliography without .bbl; reads the .bbl when there is one', async () => {
      const main = path.join(folder, 'paper.tex');
      fs.writeFileSync(main, '\\begin{document}\nSee \\cite{knuth}.\n\\input{missing}\n\\bibliography{refs}\n\\end{document}\n');
      let document = await convertFile(main);
      assert.ok(document.warnings.some((warning) => /\\input\{missing\} names a file that does not exist/.test(warning)));
      assert.ok(document.warnings.some((warning) => /no \.bbl file/.test(warning)));
      fs.writeFileSync(path.join(folder, 'paper.bbl'), '\\begin{thebibliography}{1}\n\\bibitem{knuth}\nDonald Knuth.\n\\newblock {\\em The \\TeX book}, 1984.\n\\end{thebibliography}\n');
      document = await convertFile(main);
      assert.deepEqual(document.items.map((item) => `${item.label}: ${item.text}`), ['paragraph: See [knuth].', 'section_header: References', 'list_item: [knuth] Donald Knuth. The TeX book, 1984.']);
    });

    it('stays fast and bounded on hostile nesting: deep environments, unclosed braces, nested commands, a macro bomb', async function () {
      this.timeout(60_000);
      const main = path.join(folder, 'hostile.tex');
      const depth = 20_000;
      fs.writeFileSync(main, [
        '\\def\\bomb{\\bomb\\bomb}',
        '\\begin{document}',
        `${'\\begin{center}'.repeat(depth)}Deep text.${'\\end{center}'.repeat(depth)}`,
        '',
        `${'\\textbf{'.repeat(depth)}Bold text.${'}'.repeat(depth)}`,
        '',
        `Bomb: \\bomb. $\\bomb$`,
        '',
        `${'{'.repeat(200_000)}Unclosed.`,
        '\\end{document}',
      ].join('\n'));
      const started = performance.now();
      const document = await convertFile(main);
      const seconds = (performance.now() - started) / 1000;
      assert.ok(seconds < 20, `${seconds.toFixed(1)} s`);
      const text = document.items.map((item) => item.text).join('\n');
      assert.match(text, /Deep text\./);
      assert.match(text, /Bold text\./);
      assert.match(text, /Bomb:/);
      assert.match(text, /Unclosed\./);
      assert.ok(document.warnings.some((warning) => /nested more than/.test(warning)));
    });

    it('converts lists, description labels, code, nested groups and unknown commands without leaking markup', async () => {
      const main = path.join(folder, 'doc.tex');
      fs.writeFileSync(main, [
        '\\documentclass{article}',
        '\\newcommand{\\product}[1][Haiku]{\\textbf{#1} tool}',
        '\\def\\loop{\\loop}',
        '\\begin{document}',
        '\\section*{Lists} % a comment',
        '\\begin{enumerate}',
        '  \\item First \\product{} and \\product[Other]',
        '  \\begin{itemize}\\item Nested \\unknowncommand[x]{kept text}\\end{itemize}',
        '  \\item[Term] Described 50\\% of \\emph{it}',
        '\\end{enumerate}',
        '\\begin{verbatim}',
        'x = 1 % not a comment',
        '\\end{verbatim}',
        'Loop: \\loop done.',
        '\\end{document}',
      ].join('\n'));
      const document = await convertFile(main);
      assert.deepEqual(document.items.map((item) => [item.label, item.text, item.treeDepth]), [
        ['section_header', 'Lists', 0],
        ['list_item', 'First Haiku tool and Other tool', 1],
        ['list_item', 'Nested kept text', 2],
        ['list_item', 'Term: Described 50% of it', 1],
        ['code', 'x = 1 % not a comment', 0],
        ['paragraph', 'Loop: done.', 0],
      ]);
      assert.deepEqual(document.items[0].sourceRange, { startLine: 4, startColumn: 0, endLine: 4, endColumn: 28 });
    });
  });
});
