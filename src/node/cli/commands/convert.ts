import * as path from 'node:path';
import { numberFlag, type CliCommand } from '../command';
import { CONVERSION_TIMEOUT_MS } from '../../../core/limits';
import { JSON_OPTION, printJson } from '../indexAccess';
import type { DocumentItem, PictureData, SectionNode, SourceRange } from '../../../core/model/document';
import { buildSectionTree } from '../../../core/toc';
import { createConversionPool } from '../../convert/conversionPool';
import { namedLocation } from '../../../core/sourceRanges';

/** `haiku convert <file> [--json]`: shows what the converter made of a file (outline, then every item). */
export const convertCommand: CliCommand = {
  name: 'convert',
  arguments: [{ syntax: '<file>', description: 'A Markdown, HTML, PDF, DOCX or text file.' }],
  summary: 'Convert a file and print its items and section tree',
  description: "Convert one file without indexing it and print its section tree and every item (label, source line or page, text). With --json, a picture's bytes are base64.",
  options: [
    JSON_OPTION,
    { flags: '--timeout <seconds>', description: `Time limit for the conversion (default: ${CONVERSION_TIMEOUT_MS / 1000}, as when indexing).`, value: 'positive number' },
  ],
  async run(context) {
    const [file] = context.positionals;
    const filePath = path.resolve(context.io.cwd, file);
    const seconds = numberFlag(context, 'timeout');
    // The same worker, time limit and heap cap as indexing: a hostile file ends in a typed error naming it,
    // not in a stack overflow or an out-of-memory abort of this process.
    const pool = createConversionPool({ size: 1, timeoutMs: seconds === undefined ? undefined : seconds * 1000 });
    let document;
    try {
      document = await pool.load(filePath, { rootPath: path.dirname(filePath), abortSignal: context.abortSignal });
    } finally {
      await pool.dispose();
    }
    const toc = buildSectionTree(document.items);
    if (context.flags.json === true) {
      printJson(context, { title: document.title, format: document.format, items: document.items.map(itemForJson), toc });
      return 0;
    }
    context.io.stdout(renderReadable(document.title, document.format, document.items, toc, document.warnings, document.pageCount));
    return 0;
  },
};

/** An item with its picture's bytes as base64: JSON.stringify would write a Uint8Array as one `"0": 137` entry per byte. */
function itemForJson(item: DocumentItem): DocumentItem | (Omit<DocumentItem, 'picture'> & { picture: Omit<PictureData, 'bytes'> & { bytes: string } }) {
  const bytes = item.picture?.bytes;
  if (item.picture === undefined || bytes === undefined) {
    return item;
  }
  return { ...item, picture: { ...item.picture, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') } };
}

function renderReadable(title: string, format: string, items: readonly DocumentItem[], toc: readonly SectionNode[], warnings: readonly string[], pageCount?: number): string {
  const lines: string[] = [`${title}  (${format}, ${items.length} items${pageCount !== undefined ? `, ${pageCount} pages` : ''})`, '', 'Sections:'];
  const outline = (nodes: readonly SectionNode[], indent: string) => {
    for (const node of nodes) {
      const pages = node.pageNumbers.length > 0 ? `  p.${node.pageNumbers.join(',')}` : '';
      lines.push(`${indent}${'#'.repeat(node.level)} ${node.title}  [items ${node.itemRange[0]}..${node.itemRange[1]})${pages}`);
      outline(node.children, indent + '  ');
    }
  };
  if (toc.length === 0) {
    lines.push('  (no section headers)');
  }
  outline(toc, '  ');
  lines.push('', 'Items:');
  for (const item of items) {
    const level = item.label === 'section_header' ? ` h${item.headingLevel}` : '';
    const depth = item.treeDepth > 0 ? ` depth ${item.treeDepth}` : '';
    const language = item.language ? ` ${item.language}` : '';
    const preview = item.text.replace(/\s+/g, ' ').trim();
    lines.push(`  ${String(item.position).padStart(4)} ${item.selfRef.padEnd(14)} ${item.label}${level}${depth}${language}  ${describeRange(item.sourceRange, item.pageNumbers)}  ${preview.length > 100 ? preview.slice(0, 99) + '…' : preview}`);
  }
  if (warnings.length > 0) {
    lines.push('', 'Warnings:', ...warnings.map((warning) => `  ${warning}`));
  }
  return lines.join('\n') + '\n';
}

/** `slide 3` (or the sheet and cells, or the notebook cell), `12:1-14:4` (1-based line:column as editors show them, end exclusive), or the pages, or `-`. */
function describeRange(range: SourceRange | undefined, pageNumbers: readonly number[]): string {
  const named = namedLocation(range);
  if (named !== undefined) {
    return named;
  }
  if (range?.startLine !== undefined && range.endLine !== undefined) {
    return `${range.startLine + 1}:${(range.startColumn ?? 0) + 1}-${range.endLine + 1}:${(range.endColumn ?? 0) + 1}`;
  }
  if (pageNumbers.length > 0) {
    return `p.${pageNumbers.join(',')}`;
  }
  return range?.page !== undefined ? `p.${range.page}` : '-';
}
