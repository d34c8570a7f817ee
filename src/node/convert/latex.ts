import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConvertedDocument, PictureData, SourceRange } from '../../core/model/document';
import { errorMessage, throwIfAborted } from '../../core/errors';
import { LATEX_MAX_INCLUDE_DEPTH, LATEX_MAX_MACRO_EXPANSIONS, LATEX_MAX_NESTING, LATEX_MAX_SOURCE_CHARS, LATEX_PDF_FIGURE_SCALE, MAX_TABLE_CELL_SPAN, MAX_TABLE_CELLS, PDF_PAGE_TIMEOUT_MS, PICTURE_MAX_SOURCE_PIXELS } from '../../core/limits';
import { isPathInside } from '../../core/pathContainment';
import { DocumentBuilder, LineIndex, markdownTable } from './documentBuilder';
import type { PictureProcessing } from './convertFile';
import { PictureCollector } from './pictures/pictureCollector';
import { readLocalImage } from './pictures/localImages';
import { ensureTransferToFixedLength } from './pdfJsShims';

export interface LatexConvertOptions {
  fileName: string;
  /** Absolute path of the root `.tex` file: `\input` and `\include` resolve against its folder. */
  filePath: string;
  abortSignal?: AbortSignal;
  pictures?: PictureProcessing;
  pictureRoots?: readonly string[];
}

/**
 * Converts a LaTeX document: `\input`/`\include` followed inside the root file's folder, sections, title and
 * abstract, lists, tabulars as tables (`\multicolumn`, `\multirow`), figures with their images (PNG/JPEG read,
 * PDF figures rendered), display math as formulas, the bibliography (`thebibliography` or the `.bbl` of
 * `\bibliography`) as "References". Markup is dropped, user macros expanded, `\cite` becomes `[key]`.
 * Items keep 0-based line ranges of the root file; items read from an included file carry none (their lines
 * belong to another file, and a document item names only its own file).
 */
export async function convertLatex(text: string, options: LatexConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const builder = new DocumentBuilder();
  const source = await assembleSource(text, options, builder);
  throwIfAborted(options.abortSignal);
  const converter = new LatexConverter(source, options, builder);
  await converter.convert();
  const title = converter.title ?? builder.items.find((item) => item.label === 'section_header')?.text ?? options.fileName.replace(/\.tex$/i, '');
  return { format: 'latex', title, items: builder.items, content: builder.toMarkdown(), warnings: [...builder.allWarnings(), ...converter.pictureWarnings()] };
}

// ---------------------------------------------------------------------------------------------------------------
// Source assembly: comments dropped, `\input` and `\include` (and the `.bbl` of `\bibliography`) inlined.

/** The document's whole source with included files inlined, and where each of its lines came from. */
interface AssembledSource {
  text: string;
  /** Per line of `text`: the 0-based line of the root file it came from, or undefined (an included file). */
  rootLines: (number | undefined)[];
  /** Lengths of the root file's lines, for the end column of ranges. */
  rootLineLengths: number[];
}

const INCLUDE_COMMAND = /\\(input|include|subfile|bibliography)\s*\{([^{}]*)\}|\\input\s+([^\s{}\\%]+)/g;

/** Environments whose text is verbatim: `%` is not a comment inside them. */
const VERBATIM_ENVIRONMENTS = ['verbatim', 'verbatim*', 'Verbatim', 'lstlisting', 'minted', 'comment'];

async function assembleSource(rootText: string, options: LatexConvertOptions, builder: DocumentBuilder): Promise<AssembledSource> {
  const rootFile = path.resolve(options.filePath);
  const rootFolder = path.dirname(rootFile);
  const realFolder = await fs.promises.realpath(rootFolder).catch(() => rootFolder);
  const parts: string[] = [];
  const rootLines: (number | undefined)[] = [undefined];
  let size = 0;
  const append = (piece: string, firstRootLine: number | undefined): void => {
    const lines = piece.split('\n');
    if (rootLines[rootLines.length - 1] === undefined && firstRootLine !== undefined) {
      rootLines[rootLines.length - 1] = firstRootLine;
    }
    for (let index = 1; index < lines.length; index++) {
      rootLines.push(firstRootLine === undefined ? undefined : firstRootLine + index);
    }
    parts.push(piece);
    size += piece.length;
  };
  const rootReal = await fs.promises.realpath(rootFile).catch(() => rootFile);

  const expand = async (fileText: string, isRoot: boolean, depth: number, stack: readonly string[]): Promise<void> => {
    throwIfAborted(options.abortSignal);
    const stripped = stripComments(fileText);
    const lines = isRoot ? new LineIndex(stripped) : undefined;
    const lineOf = (offset: number) => (lines ? lines.position(offset).line : undefined);
    let last = 0;
    for (const match of stripped.matchAll(INCLUDE_COMMAND)) {
      const index = match.index ?? 0;
      const command = match[1] ?? 'input';
      const names = (match[2] ?? match[3] ?? '').trim();
      const files = await includedFiles(command, names, rootFile, rootFolder);
      if (files === undefined) {
        continue;
      }
      append(stripped.slice(last, index), lineOf(last));
      last = index + match[0].length;
      const written = `\\${command}{${names}}`;
      if (depth >= LATEX_MAX_INCLUDE_DEPTH) {
        builder.warn(`${written} is nested more than ${LATEX_MAX_INCLUDE_DEPTH} files deep and was not read. Flatten the includes to index it.`);
        continue;
      }
      const found = await firstReadable(files);
      if (!found) {
        if (command !== 'bibliography') {
          builder.warn(`${written} names a file that does not exist next to ${path.basename(rootFile)}; its text is missing.`);
        } else {
          builder.warn(`${written}: no .bbl file next to ${path.basename(rootFile)} (run BibTeX to create one); the references are missing.`);
        }
        continue;
      }
      if (!isPathInside(found.real, realFolder) && !isPathInside(found.real, rootFolder)) {
        builder.warn(`${written} points outside the document's folder (${rootFolder}) and was not read. Copy the file into the folder to index it.`);
        continue;
      }
      if (found.real === rootReal || stack.includes(found.real)) {
        builder.warn(`${written} includes a file that is already being read (an include cycle); it was read once.`);
        continue;
      }
      if (size + found.size > LATEX_MAX_SOURCE_CHARS) {
        builder.warn(`${written} was not read: the document and its included files pass ${Math.round(LATEX_MAX_SOURCE_CHARS / (1024 * 1024))} MB. Split the document to index the rest.`);
        continue;
      }
      let included: string;
      try {
        included = new TextDecoder('utf-8', { fatal: true }).decode(await fs.promises.readFile(found.real)).replace(/^\uFEFF/, '');
      } catch {
        builder.warn(`${written} is not a readable UTF-8 text file and was not read.`);
        continue;
      }
      if (command === 'subfile') {
        included = documentBody(included) ?? included;
      } else if (command === 'bibliography') {
        included = /\\begin\{thebibliography\}[\s\S]*?\\end\{thebibliography\}/.exec(included)?.[0] ?? '';
      }
      // Included text starts and ends on lines of its own, so root lines keep their numbers around it.
      append('\n', undefined);
      await expand(included, false, depth + 1, [...stack, found.real]);
      append('\n', undefined);
    }
    append(stripped.slice(last), lineOf(last));
  };

  await expand(rootText.replace(/^\uFEFF/, ''), true, 0, [rootReal]);
  return { text: parts.join(''), rootLines, rootLineLengths: rootText.split('\n').map((line) => line.replace(/\r$/, '').length) };
}

/** The candidate files of an include command, in LaTeX's order of trying; undefined for a command that is not an include here. */
async function includedFiles(command: string, names: string, rootFile: string, rootFolder: string): Promise<string[] | undefined> {
  if (names === '') {
    return undefined;
  }
  if (command === 'bibliography') {
    // BibTeX writes `<root>.bbl`; a `.bbl` named like the `.bib` is tried as well.
    const base = rootFile.replace(/\.tex$/i, '');
    return [`${base}.bbl`, ...names.split(',').map((name) => path.resolve(rootFolder, `${name.trim().replace(/\.bib$/i, '')}.bbl`))];
  }
  const file = path.resolve(rootFolder, names);
  return path.extname(names) === '' ? [`${file}.tex`, file] : [file, `${file}.tex`];
}

async function firstReadable(files: readonly string[]): Promise<{ real: string; size: number } | undefined> {
  for (const file of files) {
    try {
      const real = await fs.promises.realpath(file);
      const stat = await fs.promises.stat(real);
      if (stat.isFile()) {
        return { real, size: stat.size };
      }
    } catch {
      // Try the next candidate.
    }
  }
  return undefined;
}

/**
 * The text with `%` comments removed (an escaped `\%` stays); line breaks are kept so lines keep their numbers.
 * Inside verbatim environments `%` is text.
 */
export function stripComments(text: string): string {
  const lines = text.split('\n');
  let verbatimEnd: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (verbatimEnd) {
      if (line.includes(verbatimEnd)) {
        verbatimEnd = undefined;
      }
      continue;
    }
    const comment = commentStart(line);
    const kept = comment < 0 ? line : line.slice(0, comment);
    const opened = /\\begin\{([^}]+)\}/g;
    for (const match of kept.matchAll(opened)) {
      if (VERBATIM_ENVIRONMENTS.includes(match[1]) && !kept.includes(`\\end{${match[1]}}`, match.index)) {
        verbatimEnd = `\\end{${match[1]}}`;
      }
    }
    lines[index] = verbatimEnd ? line : kept.replace(/\r$/, '');
  }
  return lines.join('\n');
}

function commentStart(line: string): number {
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (character === '\\') {
      index++;
    } else if (character === '%') {
      return index;
    }
  }
  return -1;
}

function documentBody(text: string): string | undefined {
  const start = text.indexOf('\\begin{document}');
  if (start < 0) {
    return undefined;
  }
  const end = text.indexOf('\\end{document}', start);
  return text.slice(start + '\\begin{document}'.length, end < 0 ? undefined : end);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading TeX: command names, argument groups.

interface Group {
  /** The text between the delimiters. */
  content: string;
  /** Offset of the content's first character. */
  start: number;
  /** Offset just past the closing delimiter. */
  end: number;
}

/** Skips spaces and at most one line break (TeX's rule before an argument). */
function skipSpace(text: string, index: number): number {
  let position = index;
  let breaks = 0;
  while (position < text.length) {
    const character = text[position];
    if (character === '\n') {
      if (++breaks > 1) {
        break;
      }
    } else if (character !== ' ' && character !== '\t' && character !== '\r') {
      break;
    }
    position++;
  }
  return position;
}

/** The balanced `{…}` group at `index` (after spaces), or undefined. An unclosed group runs to the end. */
function braceGroup(text: string, index: number): Group | undefined {
  const open = skipSpace(text, index);
  if (text[open] !== '{') {
    return undefined;
  }
  const close = matchingBrace(text, open);
  return { content: text.slice(open + 1, close), start: open + 1, end: Math.min(text.length, close + 1) };
}

/** The offset of the `}` closing the `{` at `open` (the text's length when it is never closed). */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let position = open; position < text.length; position++) {
    const character = text[position];
    if (character === '\\') {
      position++;
    } else if (character === '{') {
      depth++;
    } else if (character === '}' && --depth === 0) {
      return position;
    }
  }
  return text.length;
}

/** The `[…]` optional argument at `index` (after spaces), braces inside it balanced, or undefined. */
function bracketGroup(text: string, index: number): Group | undefined {
  const open = skipSpace(text, index);
  if (text[open] !== '[') {
    return undefined;
  }
  let depth = 0;
  for (let position = open + 1; position < text.length; position++) {
    const character = text[position];
    if (character === '\\') {
      position++;
    } else if (character === '{') {
      depth++;
    } else if (character === '}') {
      depth--;
    } else if (character === ']' && depth <= 0) {
      return { content: text.slice(open + 1, position), start: open + 1, end: position + 1 };
    }
  }
  return undefined;
}

/** The command at `index` (a backslash): its name (letters and a trailing `*`, or one other character) and where it ends. */
function commandAt(text: string, index: number): { name: string; end: number } {
  let position = index + 1;
  while (position < text.length && /[A-Za-z@]/.test(text[position])) {
    position++;
  }
  if (position === index + 1) {
    return { name: text[index + 1] ?? '', end: Math.min(text.length, index + 2) };
  }
  if (text[position] === '*') {
    position++;
  }
  return { name: text.slice(index + 1, position), end: position };
}

/** Skips `count` mandatory arguments and any optional ones before them; returns the offset after the last. */
function skipArguments(text: string, index: number, count: number): { end: number; groups: Group[] } {
  let position = index;
  const groups: Group[] = [];
  for (;;) {
    // Options come before the arguments (`\\includegraphics[scale=0.6]{file}`); a bracket after the last one is text.
    const optional = groups.length < count || count === 0 ? bracketGroup(text, position) : undefined;
    if (optional) {
      position = optional.end;
      continue;
    }
    if (groups.length >= count) {
      break;
    }
    const group = braceGroup(text, position);
    if (!group) {
      break;
    }
    groups.push(group);
    position = group.end;
  }
  return { end: position, groups };
}

/** The `\end{name}` closing the environment whose content starts at `from`, nested ones of the same name skipped. */
function environmentEnd(text: string, name: string, from: number): { contentEnd: number; end: number } {
  const pattern = new RegExp(`\\\\(begin|end)\\s*\\{${name.replace(/[*]/g, '\\*')}\\}`, 'g');
  pattern.lastIndex = from;
  let depth = 1;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    depth += match[1] === 'begin' ? 1 : -1;
    if (depth === 0) {
      return { contentEnd: match.index, end: match.index + match[0].length };
    }
  }
  return { contentEnd: text.length, end: text.length };
}

// ---------------------------------------------------------------------------------------------------------------
// What commands and environments mean.

const SECTION_COMMANDS: Readonly<Record<string, number>> = { part: 0, chapter: 1, section: 2, subsection: 3, subsubsection: 4, paragraph: 5, subparagraph: 6 };

/** Mandatory arguments of environments that take some before their content. */
const ENVIRONMENT_ARGUMENTS: Readonly<Record<string, number>> = {
  minipage: 1, tabular: 1, 'tabular*': 2, tabularx: 2, tabulary: 2, longtable: 1, array: 1, thebibliography: 1, multicols: 1, wrapfigure: 2, wraptable: 2,
  subfigure: 1, subtable: 1, minted: 1, figure: 0, table: 0, list: 2, adjustbox: 1, resizebox: 2,
};

const LIST_ENVIRONMENTS = new Set(['itemize', 'enumerate', 'description', 'compactitem', 'compactenum', 'inparaenum', 'asparaenum']);
const ORDERED_LISTS = new Set(['enumerate', 'compactenum', 'inparaenum', 'asparaenum']);
const FLOAT_ENVIRONMENTS = new Set(['figure', 'figure*', 'table', 'table*', 'wrapfigure', 'wraptable', 'sidewaysfigure', 'sidewaystable', 'subfigure', 'subtable']);
const TABULAR_ENVIRONMENTS = new Set(['tabular', 'tabular*', 'tabularx', 'tabulary', 'longtable', 'longtable*']);
const MATH_ENVIRONMENTS = new Set([
  'equation', 'equation*', 'align', 'align*', 'gather', 'gather*', 'multline', 'multline*', 'eqnarray', 'eqnarray*', 'displaymath', 'flalign', 'flalign*', 'alignat', 'alignat*', 'dmath', 'dmath*',
]);
/** Single equations keep only their content; multi-line environments keep `\begin…\end`, whose alignment is meaning. */
const SINGLE_EQUATIONS = new Set(['equation', 'equation*', 'displaymath', 'dmath', 'dmath*']);
const CODE_ENVIRONMENTS = new Set(['verbatim', 'verbatim*', 'Verbatim', 'lstlisting', 'minted', 'alltt']);
/** Environments whose content is not prose: drawings, hidden text, files written by the run. */
const SKIPPED_ENVIRONMENTS = new Set(['comment', 'tikzpicture', 'pgfpicture', 'filecontents', 'filecontents*', 'picture', 'titlepage*']);

/** Commands that vanish with their arguments (mandatory count). */
const DROPPED_COMMANDS: Readonly<Record<string, number>> = {
  label: 1, hspace: 1, 'hspace*': 1, vspace: 1, 'vspace*': 1, rule: 2, specialrule: 3, cmidrule: 1, cline: 1, color: 1, pagecolor: 1, bibliographystyle: 1, setlength: 2, addtolength: 2,
  addtocounter: 2, setcounter: 2, stepcounter: 1, pagestyle: 1, thispagestyle: 1, usepackage: 1, RequirePackage: 1, documentclass: 1, footnotemark: 0, graphicspath: 1, newcounter: 1,
  newlength: 1, includegraphics: 1, vskip: 0, hskip: 0, phantom: 1, hphantom: 1, vphantom: 1, nocite: 1, bibliography: 1, addcontentsline: 3, PassOptionsToPackage: 2, linespread: 1,
  definecolor: 3, hypersetup: 1, newtheorem: 2, 'newtheorem*': 2, captionsetup: 1, lstset: 1, setcitestyle: 1, fontsize: 2, selectfont: 0, input: 1, include: 1, vfill: 0, hfill: 0,
  cellcolor: 1, rowcolor: 1, columncolor: 1, arrayrulecolor: 1, setstretch: 1, enlargethispage: 1, includeonly: 1, date: 1, author: 1, title: 1, newpage: 0, clearpage: 0, maketitle: 0,
};

/** Commands whose last mandatory argument is their text (the others are sizes, colours, options). */
const TEXT_COMMANDS: Readonly<Record<string, number>> = {
  textbf: 1, textit: 1, emph: 1, texttt: 1, textsc: 1, textrm: 1, textsf: 1, textup: 1, textmd: 1, textsl: 1, textnormal: 1, underline: 1, uline: 1, mbox: 1, text: 1, fbox: 1, hbox: 1,
  textcolor: 2, colorbox: 2, scalebox: 2, resizebox: 3, raisebox: 2, parbox: 2, makebox: 1, framebox: 1, multicolumn: 3, multirow: 3, centerline: 1, textsuperscript: 1, textsubscript: 1,
  boldsymbol: 1, mathbf: 1, mathrm: 1, ensuremath: 1, sout: 1, st: 1, hl: 1, small: 0, caption: 1, subcaption: 1, subsection: 1, section: 1, paragraph: 1, chapter: 1, subsubsection: 1,
  acro: 1, acs: 1, acl: 1, acf: 1, ac: 1, gls: 1, Gls: 1, glspl: 1, nolinkurl: 1, path: 1, title: 1, textls: 2, enquote: 1, foreignlanguage: 2, tt: 0, bfseries: 0,
};

/** Zero-argument commands that stand for text. */
const SYMBOLS: Readonly<Record<string, string>> = {
  ldots: '…', dots: '…', textellipsis: '…', LaTeX: 'LaTeX', TeX: 'TeX', LaTeXe: 'LaTeX2e', BibTeX: 'BibTeX', today: '', '&': '&', '%': '%', $: '$', '#': '#', _: '_', '{': '{', '}': '}',
  ' ': ' ', ',': ' ', ';': ' ', ':': ' ', '!': '', '-': '', '/': '', '@': '', quad: ' ', qquad: ' ', enspace: ' ', thinspace: ' ', nobreakspace: ' ', textasciitilde: '~',
  textbackslash: '\\', textbar: '|', textless: '<', textgreater: '>', textendash: '–', textemdash: '—', textquoteleft: '‘', textquoteright: '’', textquotedblleft: '“', textquotedblright: '”',
  copyright: '©', textcopyright: '©', textregistered: '®', texttrademark: '™', S: '§', P: '¶', dag: '†', ddag: '‡', textdagger: '†', pounds: '£', euro: '€', textdegree: '°', degree: '°',
  L: 'Ł', l: 'ł', o: 'ø', O: 'Ø', ss: 'ß', ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ', aa: 'å', AA: 'Å', i: 'ı', j: 'ȷ', newline: '\n', linebreak: '\n', par: '\n', item: '\n', And: '\n', AND: '\n',
  and: '\n', cr: '\n', tabularnewline: '\n', textperiodcentered: '·', textbullet: '•', checkmark: '✓', times: '×', pm: '±', cdot: '·', to: '→', rightarrow: '→', leftarrow: '←',
  ie: 'i.e.', eg: 'e.g.', etal: 'et al.', etc: 'etc.', wrt: 'w.r.t.', vs: 'vs.',
};

/** Accent commands as Unicode combining marks (`\"u` → ü). */
const ACCENTS: Readonly<Record<string, string>> = {
  '"': '\u0308', "'": '\u0301', '`': '\u0300', '^': '\u0302', '~': '\u0303', '=': '\u0304', '.': '\u0307', c: '\u0327', v: '\u030C', H: '\u030B', u: '\u0306', k: '\u0328', r: '\u030A', d: '\u0323', b: '\u0331',
};

const CITE_COMMAND = /^(?:cite|citep|citet|citealp|citealt|citeauthor|citeyear|citeyearpar|parencite|textcite|autocite|footcite|fullcite|Cite|Citep|Citet|Parencite|Textcite|Autocite|citenum|supercite)\*?$/;
const REFERENCE_COMMAND = /^(?:ref|autoref|cref|Cref|nameref|pageref|vref|Vref|fref|Fref|hyperref|eqref|subref)\*?$/;
const DEFINITION_COMMAND = /^(?:newcommand|renewcommand|providecommand|DeclareRobustCommand|DeclareMathOperator|newenvironment|renewenvironment)\*?$/;

interface Macro {
  parameters: number;
  /** The first parameter's default (a `\newcommand` optional argument). */
  defaultArgument?: string;
  body: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The converter.

class LatexConverter {
  title: string | undefined;
  private readonly text: string;
  private readonly lines: LineIndex;
  private readonly macros = new Map<string, Macro>();
  private readonly labels = new Map<string, string>();
  private expansions = 0;
  private readonly levelShift: number;
  private author: { text: string; start: number; end: number } | undefined;
  private titleSource: { text: string; start: number; end: number } | undefined;
  private readonly collector = new PictureCollector();
  private readonly refusedPictures = new Map<string, number>();
  private readonly graphicsPaths: string[] = [''];
  /** Per `{` of the source, the offset of its `}` (or the source's length): found once, so walking stays linear however groups nest. */
  private readonly closers: Int32Array;
  /** Environments open around the one being walked. */
  private nesting = 0;

  constructor(
    private readonly source: AssembledSource,
    private readonly options: LatexConvertOptions,
    private readonly builder: DocumentBuilder,
  ) {
    this.text = source.text;
    this.lines = new LineIndex(source.text);
    this.levelShift = /\\(chapter|part)\*?\s*[[{]/.test(this.text) ? 0 : 1;
    this.closers = braceClosers(this.text);
  }

  async convert(): Promise<void> {
    const begin = /\\begin\s*\{document\}/.exec(this.text);
    const bodyStart = begin ? begin.index + begin[0].length : 0;
    const bodyEnd = begin ? environmentEnd(this.text, 'document', bodyStart).contentEnd : this.text.length;
    this.readDefinitions();
    this.numberLabels(bodyStart, bodyEnd);
    // The title leads the document wherever `\maketitle` stands (a notice above it stays below it here).
    this.emitTitle();
    await this.walk(bodyStart, bodyEnd, 0);
    this.builder.releaseHeldCaption();
  }

  pictureWarnings(): string[] {
    const lines = [...this.refusedPictures].map(([reason, count]) => `${count} figure${count === 1 ? '' : 's'} ${reason}; the captions are kept.`);
    return [...lines, ...this.collector.warnings()];
  }

  /** `\newcommand`, `\def`, `\DeclareMathOperator`, `\title`, `\author` and `\graphicspath` anywhere in the source. */
  private readDefinitions(): void {
    const pattern = /\\(newcommand|renewcommand|providecommand|DeclareRobustCommand|DeclareMathOperator|def|title|author|graphicspath)\*?(?![A-Za-z])/g;
    for (const match of this.text.matchAll(pattern)) {
      const after = (match.index ?? 0) + match[0].length;
      const kind = match[1];
      if (kind === 'title' || kind === 'author') {
        const group = skipArguments(this.text, after, 1).groups[0];
        if (group && kind === 'title' && this.titleSource === undefined) {
          this.titleSource = { text: group.content, start: match.index ?? 0, end: group.end };
        } else if (group && kind === 'author' && this.author === undefined) {
          this.author = { text: group.content, start: match.index ?? 0, end: group.end };
        }
        continue;
      }
      if (kind === 'graphicspath') {
        const group = braceGroup(this.text, after);
        for (const folder of group?.content.matchAll(/\{([^{}]*)\}/g) ?? []) {
          this.graphicsPaths.push(folder[1]);
        }
        continue;
      }
      const definition = kind === 'def' ? readDef(this.text, after) : readNewCommand(this.text, after, kind === 'DeclareMathOperator');
      if (definition && (!this.macros.has(definition.name) || kind === 'renewcommand' || kind === 'def')) {
        this.macros.set(definition.name, definition.macro);
      }
    }
  }

  /**
   * What `\ref{key}` prints: the section, figure, table or equation number where `\label{key}` stands, counted the
   * way LaTeX counts (sections by level, figures and tables by caption, equations by numbered environment).
   */
  private numberLabels(start: number, end: number): void {
    const pattern = /\\(part|chapter|section|subsection|subsubsection|caption|label|begin|end|appendix)(\*?)(?![A-Za-z])\s*(?:\{([^{}]*)\})?/g;
    pattern.lastIndex = start;
    const sections = [0, 0, 0, 0, 0];
    let appendix = false;
    let figures = 0;
    let tables = 0;
    let equations = 0;
    let floatKind: 'figure' | 'table' | undefined;
    let section = '';
    let current = '';
    for (let match = pattern.exec(this.text); match && match.index < end; match = pattern.exec(this.text)) {
      const [, command, star, argument = ''] = match;
      if (command === 'appendix') {
        appendix = true;
        sections.fill(0);
      } else if (command === 'begin' || command === 'end') {
        const name = argument.replace(/\*$/, '');
        if (name === 'figure' || name === 'table' || name === 'wrapfigure' || name === 'wraptable') {
          floatKind = command === 'begin' ? (name.endsWith('table') ? 'table' : 'figure') : undefined;
          current = section;
        } else if (MATH_ENVIRONMENTS.has(argument) && !argument.endsWith('*')) {
          current = command === 'begin' ? String(++equations) : section;
        }
      } else if (command === 'caption') {
        current = floatKind === 'table' ? String(++tables) : String(++figures);
      } else if (command === 'label') {
        if (!this.labels.has(argument)) {
          this.labels.set(argument, current);
        }
      } else if (star === '' && command !== 'part') {
        const level = { chapter: 0, section: 1, subsection: 2, subsubsection: 3 }[command] ?? 1;
        const depth = level - (this.levelShift === 1 ? 1 : 0);
        sections[depth] = (sections[depth] ?? 0) + 1;
        sections.fill(0, depth + 1);
        const parts = sections.slice(0, depth + 1);
        section = parts.map((value, index) => (index === 0 && appendix ? String.fromCharCode(64 + value) : String(value))).join('.');
        current = section;
      }
    }
  }

  /** `\title` as the title item, `\author` (with its `\thanks` notes) as a paragraph after it. */
  private emitTitle(): void {
    if (this.titleSource !== undefined) {
      const title = this.inline(this.titleSource.text.replace(/\\thanks\s*\{[^{}]*\}/g, '')).replace(/\s+/g, ' ').trim();
      if (title) {
        this.title = title;
        this.builder.add({ label: 'title', text: title, sourceRange: this.range(this.titleSource.start, this.titleSource.end) });
      }
    }
    if (this.author !== undefined) {
      const authors = this.inline(this.author.text);
      if (authors) {
        this.builder.add({ label: 'paragraph', text: authors, sourceRange: this.range(this.author.start, this.author.end) });
      }
    }
  }

  /** The root-file lines of `[start, end)`, or undefined when either end lies in an included file. */
  private range(start: number, end: number): SourceRange | undefined {
    const startLine = this.source.rootLines[this.lines.position(start).line];
    const endLine = this.source.rootLines[this.lines.position(Math.max(start, end - 1)).line];
    if (startLine === undefined || endLine === undefined || endLine < startLine) {
      return undefined;
    }
    return { startLine, startColumn: 0, endLine, endColumn: this.source.rootLineLengths[endLine] ?? 0 };
  }

  /** Walks block content in `[start, end)`: paragraphs, headings, environments. */
  private async walk(start: number, end: number, depth: number): Promise<void> {
    const text = this.text;
    let paragraphStart = -1;
    let paragraphEnd = -1;
    let raw = '';
    const extend = (from: number, to: number) => {
      if (paragraphStart < 0 && text.slice(from, to).trim() === '') {
        return;
      }
      if (paragraphStart < 0) {
        paragraphStart = from;
      }
      raw += text.slice(from, to);
      paragraphEnd = to;
    };
    const flush = () => {
      if (paragraphStart >= 0) {
        const paragraph = this.inline(raw);
        if (paragraph) {
          // The range starts at the paragraph's first character, not at the line break before it.
          const leading = raw.length - raw.trimStart().length;
          const trailing = raw.length - raw.trimEnd().length;
          this.builder.add({ label: 'paragraph', text: paragraph, treeDepth: depth, sourceRange: this.range(paragraphStart + leading, Math.max(paragraphStart + leading + 1, paragraphEnd - trailing)) });
        }
      }
      paragraphStart = -1;
      raw = '';
    };
    let index = start;
    while (index < end) {
      throwIfAborted(this.options.abortSignal);
      const character = text[index];
      if (character === '\n') {
        const next = skipBlanks(text, index + 1);
        if (text[next] === '\n') {
          flush();
          index = next;
          continue;
        }
        extend(index, index + 1);
        index++;
        continue;
      }
      if (character === '$') {
        if (text[index + 1] === '$') {
          const close = text.indexOf('$$', index + 2);
          const formulaEnd = close < 0 || close > end ? end : close + 2;
          flush();
          this.addFormula(text.slice(index + 2, close < 0 ? end : close), index, formulaEnd, depth);
          index = formulaEnd;
          continue;
        }
        const close = inlineMathEnd(text, index + 1, end);
        extend(index, close);
        index = close;
        continue;
      }
      if (character === '{') {
        const close = Math.min(end, this.closers[index] + 1);
        const inner = text.slice(index, close);
        if (/\\begin\s*\{|\\(?:sub)*section|\\includegraphics|\n[ \t]*\n/.test(inner)) {
          // A group around blocks (`{\small \begin{tabular}…}`) is walked through, its braces dropped.
          index++;
          continue;
        }
        extend(index, close);
        index = close;
        continue;
      }
      if (character === '}') {
        index++;
        continue;
      }
      if (character !== '\\') {
        extend(index, index + 1);
        index++;
        continue;
      }
      const command = commandAt(text, index);
      const name = command.name;
      const bareName = name.replace(/\*$/, '');
      if (SECTION_COMMANDS[bareName] !== undefined) {
        flush();
        const { end: after, groups } = skipArguments(text, command.end, 1);
        const heading = this.inline(groups[0]?.content ?? '').replace(/\s+/g, ' ').trim();
        if (heading) {
          const level = Math.max(1, SECTION_COMMANDS[bareName] - this.levelShift);
          this.builder.add({ label: 'section_header', text: heading, headingLevel: level, sourceRange: this.range(index, after) });
        }
        index = after;
        continue;
      }
      if (name === 'begin') {
        flush();
        index = await this.environment(index, command.end, end, depth);
        continue;
      }
      if (name === '[') {
        flush();
        const close = text.indexOf('\\]', command.end);
        const formulaEnd = close < 0 || close > end ? end : close + 2;
        this.addFormula(text.slice(command.end, close < 0 ? end : close), index, formulaEnd, depth);
        index = formulaEnd;
        continue;
      }
      if (name === '(') {
        const close = text.indexOf('\\)', command.end);
        const mathEnd = close < 0 || close > end ? end : close + 2;
        extend(index, mathEnd);
        index = mathEnd;
        continue;
      }
      if (name === 'par') {
        flush();
        index = command.end;
        continue;
      }
      if (name === 'def' || DEFINITION_COMMAND.test(name)) {
        flush();
        index = name === 'def' ? (readDef(text, command.end)?.end ?? command.end) : skipDefinition(text, command.end, name);
        continue;
      }
      if (name === 'caption') {
        flush();
        const { end: after, groups } = skipArguments(text, command.end, 1);
        const caption = this.inline(groups[0]?.content ?? '');
        if (caption) {
          this.builder.add({ label: 'caption', text: caption, treeDepth: depth, sourceRange: this.range(index, after) });
        }
        index = after;
        continue;
      }
      if (name === 'includegraphics') {
        flush();
        const { end: after, groups } = skipArguments(text, command.end, 1);
        await this.addPicture(groups[0]?.content ?? '', index, after, depth);
        index = after;
        continue;
      }
      if (name === 'verb' || name === 'verb*') {
        const delimiter = text[command.end];
        const close = delimiter ? text.indexOf(delimiter, command.end + 1) : -1;
        const verbEnd = close < 0 || close > end ? end : close + 1;
        extend(index, verbEnd);
        index = verbEnd;
        continue;
      }
      // Any other command belongs to the paragraph, with its arguments (a blank line inside them does not end it).
      const { end: after } = this.macros.has(name) || TEXT_COMMANDS[bareName] !== undefined || DROPPED_COMMANDS[name] !== undefined || CITE_COMMAND.test(name) || REFERENCE_COMMAND.test(name) || name === 'footnote' || name === 'thanks' || name === 'url' || name === 'href'
        ? skipArguments(text, command.end, this.argumentCount(name))
        : { end: command.end };
      if (paragraphStart < 0 && DROPPED_COMMANDS[name] !== undefined) {
        // A `\label` or `\vspace` between blocks starts no paragraph (its range would begin a line early).
        index = Math.min(end, after);
        continue;
      }
      extend(index, Math.min(end, after));
      index = Math.min(end, after);
    }
    flush();
  }

  private argumentCount(name: string): number {
    const macro = this.macros.get(name);
    if (macro) {
      return macro.parameters - (macro.defaultArgument !== undefined ? 1 : 0);
    }
    if (name === 'href') {
      return 2;
    }
    return TEXT_COMMANDS[name.replace(/\*$/, '')] ?? DROPPED_COMMANDS[name] ?? 1;
  }

  /** Handles `\begin{name}` at `index`; returns the offset after its `\end`. */
  private async environment(index: number, afterBegin: number, limit: number, depth: number): Promise<number> {
    const text = this.text;
    const nameGroup = braceGroup(text, afterBegin);
    if (!nameGroup) {
      return afterBegin;
    }
    const name = nameGroup.content.trim();
    const { contentEnd: rawContentEnd, end: rawEnd } = environmentEnd(text, name, nameGroup.end);
    const contentEnd = Math.min(rawContentEnd, limit);
    const end = Math.min(rawEnd, limit);
    const argumentCount = ENVIRONMENT_ARGUMENTS[name] ?? 0;
    const { end: contentStart, groups } = skipArguments(text, nameGroup.end, argumentCount);
    if (SKIPPED_ENVIRONMENTS.has(name)) {
      return end;
    }
    if (this.nesting >= LATEX_MAX_NESTING) {
      // Deeper than any real document nests: the content is kept as text, without its structure.
      this.builder.warn(`Environments are nested more than ${LATEX_MAX_NESTING} deep; the innermost are read as plain text.`);
      const paragraph = this.inline(text.slice(contentStart, contentEnd));
      if (paragraph) {
        this.builder.add({ label: 'paragraph', text: paragraph, treeDepth: depth, sourceRange: this.range(index, end) });
      }
      return end;
    }
    this.nesting++;
    try {
      return await this.nestedEnvironment(name, index, nameGroup.end, contentStart, contentEnd, end, groups, depth);
    } finally {
      this.nesting--;
    }
  }

  private async nestedEnvironment(name: string, index: number, nameEnd: number, contentStart: number, contentEnd: number, end: number, groups: readonly Group[], depth: number): Promise<number> {
    const text = this.text;
    if (name === 'abstract') {
      this.builder.add({ label: 'section_header', text: 'Abstract', headingLevel: 1, sourceRange: this.range(index, nameEnd) });
      await this.walk(contentStart, contentEnd, depth);
      return end;
    }
    if (LIST_ENVIRONMENTS.has(name)) {
      await this.list(contentStart, contentEnd, ORDERED_LISTS.has(name), depth);
      return end;
    }
    if (name === 'thebibliography') {
      this.builder.add({ label: 'section_header', text: 'References', headingLevel: 1, sourceRange: this.range(index, nameEnd) });
      await this.bibliography(contentStart, contentEnd, depth);
      return end;
    }
    if (FLOAT_ENVIRONMENTS.has(name)) {
      await this.float(contentStart, contentEnd, depth);
      return end;
    }
    if (TABULAR_ENVIRONMENTS.has(name)) {
      this.addTable(text.slice(contentStart, contentEnd), index, end, depth);
      return end;
    }
    if (MATH_ENVIRONMENTS.has(name)) {
      const formula = SINGLE_EQUATIONS.has(name) ? text.slice(contentStart, contentEnd) : text.slice(index, end);
      this.addFormula(formula, index, end, depth);
      return end;
    }
    if (CODE_ENVIRONMENTS.has(name)) {
      const code = text.slice(contentStart, contentEnd).replace(/^[ \t]*\n/, '').replace(/\n[ \t]*$/, '');
      if (code.trim()) {
        this.builder.add({ label: 'code', text: code, treeDepth: depth, language: name === 'minted' ? groups[0]?.content.trim() || undefined : undefined, sourceRange: this.range(index, end) });
      }
      return end;
    }
    // Anything else (center, quote, minipage, theorem …) is a container: its content is walked.
    await this.walk(contentStart, contentEnd, depth);
    return end;
  }

  private async list(start: number, end: number, ordered: boolean, depth: number): Promise<void> {
    const items = topLevelItems(this.text, start, end, this.closers);
    for (const item of items) {
      throwIfAborted(this.options.abortSignal);
      const labelGroup = bracketGroup(this.text, item.start);
      const bodyStart = labelGroup ? labelGroup.end : item.start;
      const nested = firstNestedBlock(this.text, bodyStart, item.end);
      const label = labelGroup ? this.inline(labelGroup.content) : '';
      const body = this.inline(this.text.slice(bodyStart, nested));
      const itemText = label && body ? `${label}: ${body}` : label || body;
      if (itemText) {
        this.builder.add({ label: 'list_item', text: itemText, treeDepth: depth + 1, sourceRange: this.range(item.start - 5, nested) }, { ordered });
      }
      if (nested < item.end) {
        await this.walk(nested, item.end, depth + 1);
      }
    }
  }

  private async bibliography(start: number, end: number, depth: number): Promise<void> {
    const pattern = /\\bibitem\s*(?:\[([^\]]*)\])?\s*\{([^{}]*)\}/g;
    pattern.lastIndex = start;
    const entries: Array<{ key: string; start: number; bodyStart: number }> = [];
    for (let match = pattern.exec(this.text); match && match.index < end; match = pattern.exec(this.text)) {
      entries.push({ key: match[2].trim(), start: match.index, bodyStart: match.index + match[0].length });
    }
    entries.forEach((entry, position) => {
      const bodyEnd = entries[position + 1]?.start ?? end;
      const body = this.inline(this.text.slice(entry.bodyStart, bodyEnd).replace(/\\newblock\b/g, ' ')).replace(/\s+/g, ' ').trim();
      this.builder.add({ label: 'list_item', text: `[${entry.key}] ${body}`.trim(), treeDepth: depth + 1, sourceRange: this.range(entry.start, bodyEnd) });
    });
  }

  /**
   * A figure or table float: its images (pictures) and tabulars (tables) in order, text between them as
   * paragraphs, then the caption (captions are taken out wherever they stand, as LaTeX typesets them).
   */
  private async float(start: number, end: number, depth: number): Promise<void> {
    const text = this.text;
    const captions: string[] = [];
    let captionStart = -1;
    let captionEnd = -1;
    const events: Array<{ kind: 'picture' | 'table'; start: number; end: number; argument: string; contentStart?: number; contentEnd?: number }> = [];
    const excluded: Array<[number, number]> = [];
    const pattern = /\\(caption\*?|subcaption\*?|label|includegraphics\*?|begin)(?![A-Za-z])/g;
    pattern.lastIndex = start;
    for (let match = pattern.exec(text); match && match.index < end; match = pattern.exec(text)) {
      const after = match.index + match[0].length;
      if (match[1] === 'begin') {
        const nameGroup = braceGroup(text, after);
        const name = nameGroup?.content.trim() ?? '';
        if (nameGroup && TABULAR_ENVIRONMENTS.has(name)) {
          const { contentEnd, end: tableEnd } = environmentEnd(text, name, nameGroup.end);
          const contentStart = skipArguments(text, nameGroup.end, ENVIRONMENT_ARGUMENTS[name] ?? 1).end;
          events.push({ kind: 'table', start: match.index, end: Math.min(end, tableEnd), argument: '', contentStart, contentEnd: Math.min(end, contentEnd) });
          pattern.lastIndex = Math.min(end, tableEnd);
        }
        continue;
      }
      const { end: commandEnd, groups } = skipArguments(text, after, 1);
      if (match[1].startsWith('includegraphics')) {
        events.push({ kind: 'picture', start: match.index, end: commandEnd, argument: groups[0]?.content ?? '' });
      } else {
        excluded.push([match.index, commandEnd]);
        if (match[1] !== 'label' && groups[0]) {
          captions.push(this.inline(groups[0].content));
          captionStart = captionStart < 0 ? match.index : captionStart;
          captionEnd = commandEnd;
        }
      }
      pattern.lastIndex = commandEnd;
    }
    let cursor = start;
    const textBetween = (from: number, to: number) => {
      let between = '';
      let position = from;
      for (const [excludedStart, excludedEnd] of excluded) {
        if (excludedEnd <= position || excludedStart >= to) {
          continue;
        }
        between += text.slice(position, Math.max(position, excludedStart));
        position = Math.max(position, excludedEnd);
      }
      between += text.slice(position, Math.max(position, to));
      const paragraph = this.inline(between);
      if (paragraph) {
        this.builder.add({ label: 'paragraph', text: paragraph, treeDepth: depth, sourceRange: this.range(from, to) });
      }
    };
    for (const event of events) {
      textBetween(cursor, event.start);
      if (event.kind === 'picture') {
        await this.addPicture(event.argument, event.start, event.end, depth);
      } else {
        this.addTable(text.slice(event.contentStart, event.contentEnd), event.start, event.end, depth);
      }
      cursor = event.end;
    }
    textBetween(cursor, end);
    const caption = captions.filter(Boolean).join(' ');
    if (caption) {
      this.builder.add({ label: 'caption', text: caption, treeDepth: depth, sourceRange: this.range(captionStart, captionEnd) });
    }
  }

  private addFormula(formula: string, start: number, end: number, depth: number): void {
    const cleaned = this.expandMath(formula.replace(/\\(label|tag)\*?\s*\{[^{}]*\}/g, '').replace(/\\nonumber\b|\\notag\b/g, ''))
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{2,}/g, '\n')
      .trim();
    if (cleaned) {
      this.builder.add({ label: 'formula', text: cleaned, treeDepth: depth, sourceRange: this.range(start, end) });
    }
  }

  /** A tabular's rows (`\\`) and cells (`&`), `\multicolumn` repeated over its columns, `\multirow` down its rows. */
  private addTable(body: string, start: number, end: number, depth: number): void {
    const cleaned = body
      .replace(/\\(?:hline|toprule|midrule|bottomrule|endhead|endfirsthead|endfoot|endlastfoot|hdashline|morecmidrules)\b(?:\s*\[[^\]]*\])?/g, ' ')
      .replace(/\\(?:cmidrule|cline)\s*(?:\([^)]*\))?\s*\{[^{}]*\}/g, ' ')
      .replace(/\\specialrule\s*\{[^{}]*\}\s*\{[^{}]*\}\s*\{[^{}]*\}/g, ' ')
      .replace(/\\addlinespace\b(?:\s*\[[^\]]*\])?/g, ' ')
      .replace(/\\rule\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}\s*\{[^{}]*\}/g, ' ');
    const rows: string[][] = [];
    const pendingRows = new Map<number, { text: string; remaining: number }>();
    let truncated = false;
    for (const rawRow of splitTopLevel(cleaned, '\\\\')) {
      const rowSource = rawRow.replace(/^\s*\[[^\]]*\]/, '');
      if (!rowSource.trim()) {
        continue;
      }
      const row: string[] = [];
      for (const rawCell of splitTopLevel(rowSource, '&')) {
        const cell = rawCell.trim();
        let span = 1;
        let cellText = cell;
        let rowSpan = 1;
        const multicolumn = /^\\multicolumn\s*\{\s*(\d+)\s*\}/.exec(cell);
        if (multicolumn) {
          span = Math.min(MAX_TABLE_CELL_SPAN, Math.max(1, Number(multicolumn[1])));
          cellText = skipArguments(cell, '\\multicolumn'.length, 3).groups[2]?.content ?? '';
        }
        const multirow = /^\\multirow\s*\{\s*(\d+)\s*\}/.exec(cellText.trim());
        if (multirow) {
          rowSpan = Math.min(MAX_TABLE_CELL_SPAN, Math.max(1, Number(multirow[1])));
          const inner = cellText.trim();
          cellText = skipArguments(inner, '\\multirow'.length, 3).groups[2]?.content ?? '';
        }
        const rendered = this.inline(cellText).replace(/\s+/g, ' ').trim();
        for (let copy = 0; copy < span; copy++) {
          const column = row.length;
          const pending = pendingRows.get(column);
          row.push(rendered === '' && pending ? pending.text : rendered);
          if (rowSpan > 1 && rendered) {
            pendingRows.set(column, { text: rendered, remaining: rowSpan - 1 });
          } else if (pending && rendered === '') {
            pending.remaining--;
            if (pending.remaining <= 0) {
              pendingRows.delete(column);
            }
          } else {
            pendingRows.delete(column);
          }
        }
      }
      if (row.some((cell) => cell !== '')) {
        rows.push(row);
      }
      if (rows.length * Math.max(1, ...rows.map((cells) => cells.length)) > MAX_TABLE_CELLS) {
        truncated = true;
        rows.pop();
        break;
      }
    }
    if (truncated) {
      this.builder.warn(`A table has more than ${MAX_TABLE_CELLS.toLocaleString('en-US')} cells; only its first rows are indexed.`);
    }
    if (rows.length > 0) {
      this.builder.add({ label: 'table', text: markdownTable(rows), treeDepth: depth, sourceRange: this.range(start, end) });
    }
  }

  private async addPicture(reference: string, start: number, end: number, depth: number): Promise<void> {
    const name = reference.trim();
    if (!name) {
      return;
    }
    const picture = this.options.pictures === 'none' ? undefined : await this.readPicture(name);
    this.builder.add({ label: 'picture', text: name, treeDepth: depth, sourceRange: this.range(start, end), picture });
  }

  /** The image `\includegraphics{name}` names (extensions tried as pdfLaTeX does), read only inside the picture roots. */
  private async readPicture(name: string): Promise<PictureData | undefined> {
    const folder = path.dirname(this.options.filePath);
    const extensions = path.extname(name) ? [''] : ['.pdf', '.png', '.jpg', '.jpeg', '.PDF', '.PNG', '.JPG', '.JPEG'];
    let file: string | undefined;
    for (const prefix of this.graphicsPaths) {
      for (const extension of extensions) {
        const candidate = path.resolve(folder, prefix, name + extension);
        if (fs.existsSync(candidate)) {
          file = candidate;
          break;
        }
      }
      if (file) {
        break;
      }
    }
    if (!file) {
      this.refuse('name image files that do not exist');
      return undefined;
    }
    const allowedRoots = this.options.pictureRoots && this.options.pictureRoots.length > 0 ? this.options.pictureRoots : [folder];
    const result = await readLocalImage(file, { documentPath: this.options.filePath, allowedRoots });
    if (result.refusal === 'outside') {
      this.refuse('point outside the indexed folders and were not read');
    } else if (result.refusal === 'too_large') {
      this.refuse('are image files too large to read');
    }
    if (!result.bytes) {
      return undefined;
    }
    if (isPdf(result.bytes)) {
      let png: Uint8Array;
      try {
        png = await this.renderedPdf(result.bytes);
      } catch (error) {
        this.refuse(`are PDF files that could not be rendered (${errorMessage(error)})`);
        return undefined;
      }
      return (await this.collector.addEncodedScaled(png)).picture;
    }
    return (await this.collector.addEncodedScaled(result.bytes)).picture;
  }

  /** Page 1 of a PDF figure as PNG, drawn by pdf.js into @napi-rs/canvas, within the page time limit. */
  private async renderedPdf(bytes: Uint8Array): Promise<Uint8Array> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        renderFirstPage(bytes, this.options.abortSignal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`rendering took longer than ${Math.round(PDF_PAGE_TIMEOUT_MS / 1000)} s`)), PDF_PAGE_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private refuse(reason: string): void {
    this.refusedPictures.set(reason, (this.refusedPictures.get(reason) ?? 0) + 1);
  }

  /** Inline LaTeX as plain text: markup dropped, macros expanded, math kept as `$…$`, whitespace collapsed. */
  private inline(source: string): string {
    return this.inlineRaw(source, 0)
      .replace(/[ \t\r\n]+/g, ' ')
      .replace(/ ?\uE000 ?/g, '\n')
      .replace(/\n{2,}/g, '\n')
      .trim()
      .normalize('NFC');
  }

  /** Line breaks the author asked for (`\\`) are marked `\uE000` so whitespace collapsing keeps them. */
  private inlineRaw(source: string, level: number): string {
    if (level > LATEX_MAX_NESTING) {
      // Past any real nesting (or a macro that expands into itself): what is left is read as words.
      return source.replace(/\\[A-Za-z@]+\*?|[{}$]/g, ' ');
    }
    let out = '';
    let index = 0;
    while (index < source.length) {
      const character = source[index];
      if (character === '$') {
        const display = source[index + 1] === '$';
        const open = index + (display ? 2 : 1);
        const close = display ? source.indexOf('$$', open) : inlineMathEnd(source, open, source.length) - 1;
        const mathEnd = close < 0 ? source.length : close;
        out += `$${this.expandMath(source.slice(open, mathEnd)).trim()}$`;
        index = mathEnd + (display ? 2 : 1);
        continue;
      }
      if (character === '~') {
        out += ' ';
        index++;
        continue;
      }
      if (character === '{' || character === '}') {
        index++;
        continue;
      }
      if (character === '-' && source.startsWith('---', index)) {
        out += '—';
        index += 3;
        continue;
      }
      if (character === '-' && source[index + 1] === '-') {
        out += '–';
        index += 2;
        continue;
      }
      if ((character === '`' && source[index + 1] === '`') || (character === "'" && source[index + 1] === "'")) {
        out += '"';
        index += 2;
        continue;
      }
      if (character !== '\\') {
        out += character;
        index++;
        continue;
      }
      const command = commandAt(source, index);
      const name = command.name;
      const bareName = name.replace(/\*$/, '');
      if (name === '\\') {
        out += '\uE000';
        index = bracketGroup(source, command.end)?.end ?? command.end;
        continue;
      }
      if (name === '(' || name === '[') {
        const closer = name === '(' ? '\\)' : '\\]';
        const close = source.indexOf(closer, command.end);
        const mathEnd = close < 0 ? source.length : close;
        out += `$${this.expandMath(source.slice(command.end, mathEnd)).trim()}$`;
        index = mathEnd + 2;
        continue;
      }
      if (ACCENTS[name] !== undefined) {
        const group = /[A-Za-z]/.test(name) ? braceGroup(source, command.end) : undefined;
        if (group) {
          out += this.inlineRaw(group.content, level + 1) + ACCENTS[name];
          index = group.end;
        } else {
          const position = skipSpace(source, command.end);
          const target = source[position] === '{' ? braceGroup(source, position) : undefined;
          const letter = target ? target.content.replace(/^\\/, '') : (source[position] ?? '');
          out += (letter === 'i' ? 'i' : letter) + ACCENTS[name];
          index = target ? target.end : position + 1;
        }
        continue;
      }
      const macro = this.macros.get(name);
      if (macro && this.expansions < LATEX_MAX_MACRO_EXPANSIONS) {
        this.expansions++;
        const expanded = expandMacro(source, command.end, macro);
        out += this.inlineRaw(expanded.text, level + 1);
        index = expanded.end;
        continue;
      }
      if (SYMBOLS[name] !== undefined) {
        out += SYMBOLS[name] === '\n' ? '\uE000' : SYMBOLS[name];
        index = command.end;
        if (/^[A-Za-z]+$/.test(name) && source[index] === '{' && source[index + 1] === '}') {
          index += 2;
        }
        continue;
      }
      if (CITE_COMMAND.test(name)) {
        const { end: after, groups } = skipArguments(source, command.end, 1);
        const keys = (groups[0]?.content ?? '').split(',').map((key) => key.trim()).filter(Boolean);
        out += keys.length > 0 ? `[${keys.join(', ')}]` : '';
        index = after;
        continue;
      }
      if (REFERENCE_COMMAND.test(name)) {
        const { end: after, groups } = skipArguments(source, command.end, name === 'hyperref' ? 1 : 1);
        const key = (groups[0]?.content ?? '').trim();
        const number = this.labels.get(key);
        out += number ? (name.startsWith('eqref') ? `(${number})` : number) : `[${key}]`;
        index = after;
        continue;
      }
      if (name === 'footnote' || name === 'thanks' || name === 'footnotetext') {
        const { end: after, groups } = skipArguments(source, command.end, 1);
        const note = this.inlineRaw(groups[0]?.content ?? '', level + 1).trim();
        out += note ? ` (${note}) ` : '';
        index = after;
        continue;
      }
      if (name === 'url' || name === 'nolinkurl') {
        const { end: after, groups } = skipArguments(source, command.end, 1);
        out += groups[0]?.content.trim() ?? '';
        index = after;
        continue;
      }
      if (name === 'href') {
        const { end: after, groups } = skipArguments(source, command.end, 2);
        out += this.inlineRaw(groups[1]?.content ?? groups[0]?.content ?? '', level + 1);
        index = after;
        continue;
      }
      if (name === 'verb' || name === 'verb*') {
        const delimiter = source[command.end];
        const close = delimiter ? source.indexOf(delimiter, command.end + 1) : -1;
        out += close < 0 ? '' : source.slice(command.end + 1, close);
        index = close < 0 ? source.length : close + 1;
        continue;
      }
      if (name === 'begin' || name === 'end') {
        const group = braceGroup(source, command.end);
        const environment = group?.content.trim() ?? '';
        index = name === 'begin' && group ? skipArguments(source, group.end, ENVIRONMENT_ARGUMENTS[environment] ?? 0).end : (group?.end ?? command.end);
        out += ' ';
        continue;
      }
      if (name === 'item') {
        const label = bracketGroup(source, command.end);
        out += '\uE000' + (label ? `${this.inlineRaw(label.content, level + 1)}: ` : '');
        index = label ? label.end : command.end;
        continue;
      }
      if (name === 'def' || DEFINITION_COMMAND.test(name)) {
        index = name === 'def' ? (readDef(source, command.end)?.end ?? command.end) : skipDefinition(source, command.end, name);
        continue;
      }
      if (DROPPED_COMMANDS[name] !== undefined) {
        index = skipArguments(source, command.end, DROPPED_COMMANDS[name]).end;
        continue;
      }
      if (TEXT_COMMANDS[bareName] !== undefined) {
        const count = TEXT_COMMANDS[bareName];
        const { end: after, groups } = skipArguments(source, command.end, count);
        out += count === 0 ? '' : this.inlineRaw(groups[count - 1]?.content ?? '', level + 1);
        index = after;
        continue;
      }
      // An unknown command: its name and options go, the text of its arguments stays (`\foo{text}` → text).
      index = bracketGroup(source, command.end)?.end ?? command.end;
      if (/^[A-Za-z]/.test(name) && source[index] === ' ') {
        index++;
      }
    }
    return out;
  }

  /** Math with user macros expanded (`\dmodel` → `d_{\text{model}}`), the rest as written. */
  private expandMath(math: string, level = 0): string {
    if (this.macros.size === 0 || level > LATEX_MAX_NESTING) {
      return math;
    }
    let out = '';
    let index = 0;
    while (index < math.length) {
      const backslash = math.indexOf('\\', index);
      if (backslash < 0) {
        out += math.slice(index);
        break;
      }
      out += math.slice(index, backslash);
      const command = commandAt(math, backslash);
      const macro = this.macros.get(command.name);
      if (macro && this.expansions < LATEX_MAX_MACRO_EXPANSIONS) {
        this.expansions++;
        const expanded = expandMacro(math, command.end, macro);
        out += this.expandMath(expanded.text, level + 1);
        index = expanded.end;
        continue;
      }
      out += math.slice(backslash, command.end);
      index = command.end;
    }
    return out;
  }
}

interface FigureCanvas {
  width: number;
  height: number;
  toBuffer(mimeType: 'image/png'): Uint8Array;
}

/**
 * Renders page 1 of a PDF figure on white. Unlike `renderHighlightedPage` (src/node/visualize), glyphs are drawn as
 * paths (`disableFontFace`): Node has no FontFace, and with it enabled a figure's text came out as empty boxes.
 * unpdf (pdf.js) and @napi-rs/canvas are loaded on first use, so a document without PDF figures never loads them.
 */
async function renderFirstPage(pdf: Uint8Array, abortSignal: AbortSignal | undefined): Promise<Uint8Array> {
  ensureTransferToFixedLength();
  const { createIsomorphicCanvasFactory, getResolvedPDFJS } = await import('unpdf');
  const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(parameters: object): { promise: Promise<PdfJsFigureDocument>; destroy(): Promise<void> } };
  const CanvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
  const task = pdfjs.getDocument({
    data: new Uint8Array(pdf),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    maxImageSize: PICTURE_MAX_SOURCE_PIXELS,
    CanvasFactory,
  });
  try {
    const document = await task.promise;
    const page = await document.getPage(1);
    const unscaled = page.getViewport({ scale: 1 });
    // A poster-sized page renders at a smaller scale instead of allocating gigabytes.
    const scale = Math.min(LATEX_PDF_FIGURE_SCALE, Math.sqrt(PICTURE_MAX_SOURCE_PIXELS / Math.max(1, unscaled.width * unscaled.height)));
    const viewport = page.getViewport({ scale });
    const { canvas, context } = new CanvasFactory().create(Math.max(1, Math.ceil(viewport.width)), Math.max(1, Math.ceil(viewport.height))) as unknown as {
      canvas: FigureCanvas;
      context: { fillStyle: string; fillRect(x: number, y: number, width: number, height: number): void };
    };
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    throwIfAborted(abortSignal);
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    return new Uint8Array(canvas.toBuffer('image/png'));
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

interface PdfJsFigureDocument {
  getPage(pageNumber: number): Promise<{
    getViewport(parameters: { scale: number }): { width: number; height: number };
    render(parameters: object): { promise: Promise<void> };
  }>;
}


function isPdf(bytes: Uint8Array): boolean {
  return new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).includes('%PDF-');
}

function skipBlanks(text: string, index: number): number {
  let position = index;
  while (position < text.length && (text[position] === ' ' || text[position] === '\t' || text[position] === '\r')) {
    position++;
  }
  return position;
}

/** The offset after the `$` closing inline math that starts at `from` (an escaped `\$` does not close it). */
function inlineMathEnd(text: string, from: number, limit: number): number {
  for (let position = from; position < limit; position++) {
    if (text[position] === '\\') {
      position++;
    } else if (text[position] === '$') {
      return position + 1;
    }
  }
  return limit;
}

/** `\newcommand{\name}[n][default]{body}` (or `\newcommand\name…`, `\DeclareMathOperator{\name}{text}`). */
function readNewCommand(text: string, index: number, operator: boolean): { name: string; macro: Macro; end: number } | undefined {
  let position = skipSpace(text, index);
  if (text[position] === '*') {
    position++;
  }
  let name: string;
  const group = braceGroup(text, position);
  if (group) {
    name = group.content.trim().replace(/^\\/, '');
    position = group.end;
  } else {
    const start = skipSpace(text, position);
    if (text[start] !== '\\') {
      return undefined;
    }
    const command = commandAt(text, start);
    name = command.name;
    position = command.end;
  }
  const count = bracketGroup(text, position);
  let parameters = 0;
  if (count && /^\s*\d\s*$/.test(count.content)) {
    parameters = Number(count.content);
    position = count.end;
  }
  const defaultArgument = parameters > 0 ? bracketGroup(text, position) : undefined;
  if (defaultArgument) {
    position = defaultArgument.end;
  }
  const body = braceGroup(text, position);
  if (!body || !name) {
    return undefined;
  }
  return { name, macro: { parameters, defaultArgument: defaultArgument?.content, body: operator ? `\\operatorname{${body.content}}` : body.content }, end: body.end };
}

/** `\def\name#1#2{body}` (delimited parameters are read as undelimited ones). */
function readDef(text: string, index: number): { name: string; macro: Macro; end: number } | undefined {
  const start = skipSpace(text, index);
  if (text[start] !== '\\') {
    return undefined;
  }
  const command = commandAt(text, start);
  const open = text.indexOf('{', command.end);
  if (open < 0 || open - command.end > 40) {
    return undefined;
  }
  const parameters = (text.slice(command.end, open).match(/#\d/g) ?? []).length;
  const close = matchingBrace(text, open);
  return { name: command.name, macro: { parameters, body: text.slice(open + 1, close) }, end: Math.min(text.length, close + 1) };
}

/** The end of a `\newcommand`-like definition (its name, options and body, or two bodies for an environment). */
function skipDefinition(text: string, index: number, name: string): number {
  const definition = readNewCommand(text, index, false);
  if (!definition) {
    return index;
  }
  return /environment/.test(name) ? (braceGroup(text, definition.end)?.end ?? definition.end) : definition.end;
}

/** A macro's body with its arguments (read after `index`) put in for `#1`…`#9`. */
function expandMacro(text: string, index: number, macro: Macro): { text: string; end: number } {
  const argumentsRead: string[] = [];
  let position = index;
  for (let parameter = 0; parameter < macro.parameters; parameter++) {
    if (parameter === 0 && macro.defaultArgument !== undefined) {
      const optional = bracketGroup(text, position);
      argumentsRead.push(optional ? optional.content : macro.defaultArgument);
      position = optional ? optional.end : position;
      continue;
    }
    const group = braceGroup(text, position);
    if (group) {
      argumentsRead.push(group.content);
      position = group.end;
      continue;
    }
    // An undelimited argument without braces is the next single token.
    const start = skipSpace(text, position);
    if (text[start] === '\\') {
      const command = commandAt(text, start);
      argumentsRead.push(text.slice(start, command.end));
      position = command.end;
    } else {
      argumentsRead.push(text[start] ?? '');
      position = Math.min(text.length, start + 1);
    }
  }
  const body = macro.body.replace(/#(\d)/g, (_, digit: string) => argumentsRead[Number(digit) - 1] ?? '');
  return { text: body, end: position };
}

/** The `\item`s directly inside a list (nested environments and groups skipped): where each item's text starts and ends. */
function topLevelItems(text: string, start: number, end: number, closers: Int32Array): Array<{ start: number; end: number }> {
  const starts: number[] = [];
  let index = start;
  while (index < end) {
    const character = text[index];
    if (character === '{') {
      index = closers[index] + 1;
      continue;
    }
    if (character !== '\\') {
      index++;
      continue;
    }
    const command = commandAt(text, index);
    if (command.name === 'begin') {
      const group = braceGroup(text, command.end);
      index = group ? environmentEnd(text, group.content.trim(), group.end).end : command.end;
      continue;
    }
    if (command.name === 'item') {
      starts.push(command.end);
    }
    index = command.end;
  }
  return starts.map((itemStart, position) => ({ start: itemStart, end: Math.min(end, (starts[position + 1] ?? end + 5) - 5) }));
}

/** The offset of the first nested list, table, float or display math inside an item (its end when there is none). */
function firstNestedBlock(text: string, start: number, end: number): number {
  // Searched in the item's own text: a search running on past the item would make long lists quadratic.
  const pattern = /\\begin\s*\{([^}]+)\}|\\\[|\$\$/g;
  for (const match of text.slice(start, end).matchAll(pattern)) {
    const name = match[1];
    if (name === undefined || LIST_ENVIRONMENTS.has(name) || TABULAR_ENVIRONMENTS.has(name) || FLOAT_ENVIRONMENTS.has(name) || MATH_ENVIRONMENTS.has(name) || CODE_ENVIRONMENTS.has(name)) {
      return start + (match.index ?? 0);
    }
  }
  return end;
}

/** The closing brace of every `{` (escaped braces skipped), the text's length for one never closed. */
function braceClosers(text: string): Int32Array {
  const closers = new Int32Array(text.length).fill(text.length);
  const open: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const character = text.charCodeAt(index);
    if (character === 92) {
      index++;
    } else if (character === 123) {
      open.push(index);
    } else if (character === 125 && open.length > 0) {
      closers[open.pop()!] = index;
    }
  }
  return closers;
}

/** Splits at `separator` where it is not inside braces and not escaped (`\&`). */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (text.startsWith(separator, index) && depth === 0) {
      parts.push(text.slice(last, index));
      index += separator.length - 1;
      last = index + 1;
      continue;
    }
    if (character === '\\') {
      index++;
    } else if (character === '{') {
      depth++;
    } else if (character === '}') {
      depth = Math.max(0, depth - 1);
    }
  }
  parts.push(text.slice(last));
  return parts;
}
