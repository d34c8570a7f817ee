import { ConversionError, throwIfAborted } from '../../core/errors';
import type { ZipArchive } from './zipArchive';

/**
 * A small streaming XML reader for spreadsheet parts (XLSX sheets, shared strings, styles; ODS content). It calls
 * back per start tag, end tag and text, checks that tags nest and close (a damaged part is an error naming the
 * problem, not a silently shorter sheet), decodes the predefined and numeric entities and never expands a DTD.
 * Names are passed as written (`table:table-cell`); `localName` drops the prefix.
 */

export interface XmlHandlers {
  open?(name: string, attributes: Readonly<Record<string, string>>, selfClosing: boolean): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** The part is not well-formed XML; `offset` is where the reader gave up. */
export class XmlSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(`${reason} (at character ${offset})`);
    this.name = 'XmlSyntaxError';
  }
}

/** `x:c` → `c`. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

const NAME = /^[A-Za-z_\u00C0-\uFFFF][\w.\-:\u00B7\u00C0-\uFFFF]*$/;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g;
const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Replaces `&lt;`-style and numeric references; an unknown entity stays as written (no DTD is read). */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) {
    return text;
  }
  return text.replace(ENTITY, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[body] ?? whole;
  });
}

/**
 * Reads `text` from start to end, calling `handlers`. Throws `XmlSyntaxError` when a tag is cut off, an end tag
 * does not match its start tag, an element is left open at the end, or there is no root element.
 */
export function readXml(text: string, handlers: XmlHandlers): void {
  const stack: string[] = [];
  let sawRoot = false;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const open = text.indexOf('<', index);
    const textEnd = open < 0 ? length : open;
    if (textEnd > index) {
      const chunk = text.slice(index, textEnd);
      if (stack.length > 0) {
        handlers.text?.(decodeEntities(chunk));
      } else if (/\S/.test(chunk) && !(index === 0 && chunk.trim() === '\uFEFF')) {
        throw new XmlSyntaxError('text outside the root element', index);
      }
    }
    if (open < 0) {
      break;
    }
    const next = text.charCodeAt(open + 1);
    if (next === 63 /* ? */) {
      const end = text.indexOf('?>', open + 2);
      if (end < 0) {
        throw new XmlSyntaxError('unterminated processing instruction', open);
      }
      index = end + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      if (text.startsWith('<!--', open)) {
        const end = text.indexOf('-->', open + 4);
        if (end < 0) {
          throw new XmlSyntaxError('unterminated comment', open);
        }
        index = end + 3;
      } else if (text.startsWith('<![CDATA[', open)) {
        const end = text.indexOf(']]>', open + 9);
        if (end < 0 || stack.length === 0) {
          throw new XmlSyntaxError('unterminated or misplaced CDATA section', open);
        }
        handlers.text?.(text.slice(open + 9, end));
        index = end + 3;
      } else if (text.startsWith('<!DOCTYPE', open) && !sawRoot) {
        // Skipped, internal subset included: entities it declares are never expanded.
        index = skipDoctype(text, open);
      } else {
        throw new XmlSyntaxError('unexpected markup declaration', open);
      }
      continue;
    }
    const end = tagEnd(text, open + 1);
    if (end < 0) {
      throw new XmlSyntaxError('a tag is cut off', open);
    }
    if (next === 47 /* / */) {
      const name = text.slice(open + 2, end).trim();
      const expected = stack.pop();
      if (expected !== name) {
        throw new XmlSyntaxError(expected === undefined ? `end tag </${name}> without a start tag` : `end tag </${name}> where </${expected}> was expected`, open);
      }
      handlers.close?.(name);
      index = end + 1;
      continue;
    }
    const selfClosing = text.charCodeAt(end - 1) === 47;
    const body = text.slice(open + 1, selfClosing ? end - 1 : end);
    const space = body.search(/\s/);
    const name = space < 0 ? body : body.slice(0, space);
    if (!NAME.test(name)) {
      throw new XmlSyntaxError(`malformed tag <${name.slice(0, 40)}>`, open);
    }
    if (stack.length === 0 && sawRoot) {
      throw new XmlSyntaxError('a second root element', open);
    }
    sawRoot = true;
    const attributes: Record<string, string> = {};
    if (space >= 0) {
      ATTRIBUTE.lastIndex = 0;
      for (let match = ATTRIBUTE.exec(body); match; match = ATTRIBUTE.exec(body)) {
        attributes[match[1]] = decodeEntities(match[2] ?? match[3] ?? '');
      }
    }
    handlers.open?.(name, attributes, selfClosing);
    if (selfClosing) {
      handlers.close?.(name);
    } else {
      stack.push(name);
    }
    index = end + 1;
  }
  if (stack.length > 0) {
    throw new XmlSyntaxError(`<${stack[stack.length - 1]}> is never closed (the part is cut off)`, length);
  }
  if (!sawRoot) {
    throw new XmlSyntaxError('no root element', 0);
  }
}

/** The index of the `>` closing the tag that starts before `from`, skipping quoted attribute values (`>` is legal inside them); -1 when cut off. */
function tagEnd(text: string, from: number): number {
  let quote = 0;
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (quote !== 0) {
      if (code === quote) {
        quote = 0;
      }
    } else if (code === 34 || code === 39) {
      quote = code;
    } else if (code === 62) {
      return index;
    } else if (code === 60) {
      return -1;
    }
  }
  return -1;
}

function skipDoctype(text: string, from: number): number {
  let depth = 0;
  for (let index = from + 2; index < text.length; index++) {
    const character = text[index];
    if (character === '[') {
      depth++;
    } else if (character === ']') {
      depth--;
    } else if (character === '>' && depth <= 0) {
      return index + 1;
    }
  }
  throw new XmlSyntaxError('unterminated DOCTYPE', from);
}

/** What the readers of a spreadsheet's parts need for their error messages. */
export interface SpreadsheetPartContext {
  filePath: string;
  /** "an XLSX workbook", "an ODS spreadsheet". */
  kind: string;
  /** What to do to repair it ("Re-save it from Excel or LibreOffice"). */
  repair: string;
  abortSignal?: AbortSignal;
}

/**
 * Reads one part of the archive with `handlers`; false when the archive has no such part. A part that is not
 * well-formed XML is a `corrupt_file` error naming the part and the problem.
 */
export function readXmlPart(archive: ZipArchive, part: string, context: SpreadsheetPartContext, handlers: XmlHandlers): boolean {
  throwIfAborted(context.abortSignal);
  const text = archive.text(part);
  if (text === undefined) {
    return false;
  }
  try {
    readXml(text, handlers);
  } catch (error) {
    if (error instanceof XmlSyntaxError) {
      throw new ConversionError('corrupt_file', context.filePath, `is a damaged ${context.kind.replace(/^an? /, '')}: its part ${part} is not well-formed XML (${error.message}). ${context.repair} or exclude it from indexing.`, { cause: error });
    }
    throw error;
  }
  return true;
}

/** The error for a part the workbook names but the archive lacks. */
export function missingPartError(context: SpreadsheetPartContext, part: string): ConversionError {
  return new ConversionError('corrupt_file', context.filePath, `is a damaged ${context.kind.replace(/^an? /, '')}: its part ${part} is missing. ${context.repair} or exclude it from indexing.`);
}
