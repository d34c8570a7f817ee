import type { ConvertedDocument, SourceRange } from '../../core/model/document';
import { ConversionError, throwIfAborted } from '../../core/errors';
import { NOTEBOOK_MAX_CELLS, NOTEBOOK_OUTPUT_MAX_CHARS } from '../../core/limits';
import { DocumentBuilder, LineIndex } from './documentBuilder';
import { convertHtml, type ConvertOptions, type LocalImageConvertOptions } from './html';
import { convertMarkdown } from './markdown';
import { PictureCollector } from './pictures/pictureCollector';

/** The parts of an nbformat 4 (or 3) notebook the converter reads; everything is checked, since it is the user's JSON. */
interface NotebookCell {
  cell_type?: unknown;
  source?: unknown;
  /** nbformat 3 code cells. */
  input?: unknown;
  /** nbformat 3 heading cells. */
  level?: unknown;
  outputs?: unknown;
}

interface NotebookOutput {
  output_type?: unknown;
  name?: unknown;
  text?: unknown;
  data?: Record<string, unknown>;
  ename?: unknown;
  evalue?: unknown;
}

/** Where a cell's `source` lies in the JSON text, by lines, when the notebook is laid out as Jupyter writes it. */
interface CellLines {
  /** The whole cell, from its `cell_type` key to the end of its source. */
  cell: SourceRange;
  /** Line of the JSON text holding line 0 of the source, when each source line is one JSON line (a pretty-printed array). */
  firstSourceLine?: number;
}

/**
 * Jupyter notebooks (`.ipynb`). Markdown cells go through the Markdown converter (headings, lists, tables, code,
 * local images); code cells become `code` items in the kernel's language, followed by their text outputs
 * (`stream`, `execute_result`/`display_data` `text/plain`, errors) as `code` items of language `output` (or
 * `error`), HTML tables among outputs (pandas) as `table` items, and their PNG/JPEG outputs as pictures with bytes.
 * Provenance is the cell's index (`sourceRange.cell`, named "cell n") and the lines of the cell in the JSON file:
 * a Markdown item covers its own source lines when the source is written one line per JSON line (as Jupyter writes
 * it), else its whole cell. Invalid JSON or a file without cells is a `corrupt_file` error.
 */
export async function convertNotebook(text: string, options: ConvertOptions & LocalImageConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const where = options.filePath ?? options.fileName;
  let notebook: unknown;
  try {
    notebook = JSON.parse(text);
  } catch (error) {
    throw new ConversionError('corrupt_file', where, `is not a valid Jupyter notebook: its JSON does not parse (${error instanceof Error ? error.message : String(error)}). Open and save it in Jupyter to repair it, or exclude it.`, { cause: error });
  }
  const cells = notebookCells(notebook);
  if (!cells) {
    throw new ConversionError('corrupt_file', where, 'is not a Jupyter notebook: its JSON has no "cells" list (nbformat 4) or "worksheets" (nbformat 3). Open and save it in Jupyter to repair it, or exclude it.');
  }
  const builder = new DocumentBuilder();
  const language = kernelLanguage(notebook);
  const lineIndex = new LineIndex(text);
  const located = locateCells(text, lineIndex, cells.length);
  const collector = options.pictures === 'none' ? undefined : new PictureCollector();
  if (cells.length > NOTEBOOK_MAX_CELLS) {
    builder.warn(`The notebook has ${cells.length.toLocaleString('en-US')} cells; only the first ${NOTEBOOK_MAX_CELLS.toLocaleString('en-US')} are indexed. Split the notebook to index all of it.`);
  }
  const markdownWarnings: string[] = [];
  for (let index = 0; index < Math.min(cells.length, NOTEBOOK_MAX_CELLS); index++) {
    throwIfAborted(options.abortSignal);
    if (builder.full) {
      break;
    }
    const cell = cells[index];
    const firstItemOfCell = builder.items.length;
    const lines = located?.[index];
    const cellRange = lines?.cell;
    const type = typeof cell.cell_type === 'string' ? cell.cell_type : '';
    if (type === 'markdown') {
      const source = sourceText(cell.source);
      if (!source.trim()) {
        continue;
      }
      const { fileName, abortSignal, filePath, pictureRoots, pictures } = options;
      const converted = await convertMarkdown(source, { fileName, abortSignal, filePath, pictureRoots, pictures });
      markdownWarnings.push(...converted.warnings);
      for (const item of converted.items) {
        builder.add({
          label: item.label,
          text: item.text,
          headingLevel: item.headingLevel,
          treeDepth: item.treeDepth,
          language: item.language,
          picture: item.picture,
          sourceRange: rangeInCell(item.sourceRange, lines, lineIndex),
        });
      }
    } else if (type === 'heading') {
      // nbformat 3: a heading is its own cell.
      const heading = sourceText(cell.source).trim();
      if (heading) {
        builder.add({ label: 'section_header', text: heading, headingLevel: typeof cell.level === 'number' ? cell.level : 1, sourceRange: cellRange });
      }
    } else if (type === 'code') {
      const source = sourceText(cell.source ?? cell.input).trimEnd();
      if (source.trim()) {
        builder.add({ label: 'code', text: source, language, sourceRange: rangeInCell({ startLine: 0, startColumn: 0, endLine: source.split('\n').length - 1, endColumn: 0 }, lines, lineIndex) ?? cellRange });
      }
      await addOutputs(cell.outputs, builder, collector, cellRange);
    } else if (type === 'raw') {
      const source = sourceText(cell.source).trim();
      if (source) {
        builder.add({ label: 'paragraph', text: source, sourceRange: cellRange });
      }
    }
    // Every item of the cell is named by it ("cell 4"), whatever lines of the JSON it also points at.
    for (const item of builder.items.slice(firstItemOfCell)) {
      item.sourceRange = { ...item.sourceRange, cell: index };
    }
  }
  const title = builder.first('title')?.text ?? builder.first('section_header')?.text ?? options.fileName;
  const warnings = [...builder.allWarnings(), ...new Set(markdownWarnings), ...(collector?.warnings() ?? [])];
  return { format: 'notebook', title, items: builder.items, content: builder.toMarkdown(), warnings };
}

/** The cells of nbformat 4 (`cells`) or 3 (`worksheets[*].cells`); undefined when neither is there. */
function notebookCells(notebook: unknown): NotebookCell[] | undefined {
  if (!isRecord(notebook)) {
    return undefined;
  }
  if (Array.isArray(notebook.cells)) {
    return notebook.cells.filter(isRecord) as NotebookCell[];
  }
  if (Array.isArray(notebook.worksheets)) {
    return notebook.worksheets.filter(isRecord).flatMap((sheet) => (Array.isArray(sheet.cells) ? sheet.cells.filter(isRecord) : [])) as NotebookCell[];
  }
  return undefined;
}

/** The kernel's language (`language_info.name`, else `kernelspec.language`, else nbformat 3's `language`); `python` when none says. */
function kernelLanguage(notebook: unknown): string {
  const metadata = isRecord(notebook) && isRecord(notebook.metadata) ? notebook.metadata : {};
  const candidates = [
    isRecord(metadata.language_info) ? metadata.language_info.name : undefined,
    isRecord(metadata.kernelspec) ? metadata.kernelspec.language : undefined,
    metadata.language,
  ];
  const found = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '');
  return found?.trim().toLowerCase() ?? 'python';
}

/** Text outputs as `output`/`error` code items; PNG and JPEG outputs as pictures (a `text/plain` beside an image is its alt text). */
async function addOutputs(outputs: unknown, builder: DocumentBuilder, collector: PictureCollector | undefined, range: SourceRange | undefined): Promise<void> {
  if (!Array.isArray(outputs)) {
    return;
  }
  for (const output of outputs.filter(isRecord) as NotebookOutput[]) {
    const type = output.output_type;
    if (type === 'stream') {
      addOutputText(builder, sourceText(output.text), output.name === 'stderr' ? 'error' : 'output', range);
    } else if (type === 'error' || type === 'pyerr') {
      const message = [output.ename, output.evalue].filter((part) => typeof part === 'string' && part).join(': ');
      addOutputText(builder, message, 'error', range);
    } else if (type === 'execute_result' || type === 'display_data' || type === 'pyout') {
      const data = isRecord(output.data) ? output.data : (output as Record<string, unknown>);
      const plain = sourceText(data['text/plain'] ?? data.text);
      const image = [['image/png', data['image/png'] ?? data.png], ['image/jpeg', data['image/jpeg'] ?? data.jpeg]].find(([, value]) => typeof value === 'string' || Array.isArray(value));
      if (image) {
        const bytes = Buffer.from(sourceText(image[1]).replace(/\s+/g, ''), 'base64');
        const picture = collector && bytes.byteLength > 0 ? (await collector.addEncodedScaled(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))).picture : undefined;
        // The text/plain of an image output is a repr such as `<Figure size 640x480 with 1 Axes>`: kept as the picture's text.
        builder.add({ label: 'picture', text: plain.trim(), picture, sourceRange: range });
      } else {
        // A pandas DataFrame shows as an HTML table beside its text repr: the table keeps rows and columns apart.
        const html = sourceText(data['text/html']);
        const tables = /<table[\s>]/i.test(html) ? (await convertHtml(html, { fileName: 'output.html', pictures: 'none' })).items.filter((item) => item.label === 'table') : [];
        if (tables.length > 0) {
          for (const table of tables) {
            builder.add({ label: 'table', text: table.text, sourceRange: range });
          }
        } else {
          addOutputText(builder, plain, 'output', range);
        }
      }
    }
  }
}

function addOutputText(builder: DocumentBuilder, text: string, language: 'output' | 'error', range: SourceRange | undefined): void {
  // Terminal colours in tracebacks and progress bars are not text.
  let body = text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').trimEnd();
  if (!body.trim()) {
    return;
  }
  if (body.length > NOTEBOOK_OUTPUT_MAX_CHARS) {
    body = body.slice(0, NOTEBOOK_OUTPUT_MAX_CHARS);
    builder.warn(`Some cell outputs are longer than ${NOTEBOOK_OUTPUT_MAX_CHARS.toLocaleString('en-US')} characters; only their beginning is indexed.`);
  }
  builder.add({ label: 'code', text: body, language, sourceRange: range });
}

/** A multiline field: nbformat stores it as a string or as a list of lines (each with its line end). */
function sourceText(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value) ? value.filter((part): part is string => typeof part === 'string').join('') : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Finds each cell's lines in the JSON text: its `"cell_type"` key, in order (a key inside a string would be
 * escaped, `\"cell_type\"`, and does not match), and the `"source"` value after it. Undefined when the keys
 * found do not match the cells one for one (unusual JSON): the items then carry no lines.
 */
function locateCells(text: string, lineIndex: LineIndex, cellCount: number): CellLines[] | undefined {
  const starts = [...text.matchAll(/"cell_type"\s*:/g)].map((match) => match.index);
  if (starts.length !== cellCount) {
    return undefined;
  }
  return starts.map((start, index) => {
    const next = starts[index + 1] ?? text.length;
    // Searched within the cell only, so cells without a source cost their own length, not the rest of the file.
    const found = /"(?:source|input)"\s*:\s*/.exec(text.slice(start, next));
    if (found) {
      found.index += start;
    }
    if (!found) {
      const startLine = lineIndex.position(start).line;
      return { cell: { startLine, startColumn: 0, endLine: startLine, endColumn: lineIndex.lineText(startLine).length } };
    }
    const valueStart = found.index + found[0].length;
    const valueEnd = jsonValueEnd(text, valueStart);
    const range = lineIndex.range(start, valueEnd);
    const cell: SourceRange = { startLine: range.startLine, startColumn: 0, endLine: range.endLine, endColumn: lineIndex.lineText(range.endLine ?? 0).length };
    if (text[valueStart] !== '[') {
      return { cell };
    }
    // One array element per JSON line, as Jupyter writes: the array spans its elements' lines plus its brackets.
    const elements = countArrayStrings(text, valueStart, valueEnd);
    const openLine = lineIndex.position(valueStart).line;
    const closeLine = lineIndex.position(valueEnd - 1).line;
    return closeLine - openLine - 1 === elements ? { cell, firstSourceLine: openLine + 1 } : { cell };
  });
}

/** The offset just past the JSON value (string or array of strings) starting at `start`. */
function jsonValueEnd(text: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < text.length) {
    const character = text[index];
    if (character === '"') {
      index = stringEnd(text, index);
      if (depth === 0) {
        return index;
      }
      continue;
    }
    if (character === '[' || character === '{') {
      depth++;
    } else if (character === ']' || character === '}') {
      depth--;
      if (depth <= 0) {
        return index + 1;
      }
    }
    index++;
  }
  return text.length;
}

/** The offset just past the JSON string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') {
    index += text[index] === '\\' ? 2 : 1;
  }
  return index + 1;
}

function countArrayStrings(text: string, start: number, end: number): number {
  let count = 0;
  let index = start + 1;
  while (index < end) {
    if (text[index] === '"') {
      count++;
      index = stringEnd(text, index);
    } else {
      index++;
    }
  }
  return count;
}

/** An item's range in its cell's source, moved to the JSON lines holding it; the whole cell when lines do not map one to one. */
function rangeInCell(range: SourceRange | undefined, lines: CellLines | undefined, lineIndex: LineIndex): SourceRange | undefined {
  if (!lines) {
    return undefined;
  }
  if (lines.firstSourceLine === undefined || range?.startLine === undefined || range.endLine === undefined) {
    return lines.cell;
  }
  const startLine = lines.firstSourceLine + range.startLine;
  const endLine = Math.min(lines.firstSourceLine + range.endLine, lines.cell.endLine ?? Number.POSITIVE_INFINITY);
  return { startLine, startColumn: 0, endLine, endColumn: lineIndex.lineText(endLine).length };
}
