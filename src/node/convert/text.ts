import type { ConvertedDocument } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { DocumentBuilder } from './documentBuilder';
import type { ConvertOptions } from './html';

export interface TextConvertOptions extends ConvertOptions {
  /** reStructuredText: underlined (and over-and-underlined) titles become section headers. */
  restructuredText?: boolean;
}

/** An reStructuredText adornment line: one repeated punctuation character. */
const ADORNMENT = /^([=\-`:'"~^_*+#<>.])\1+\s*$/;

/**
 * Plain text (and any text file without a dedicated converter): paragraphs split on blank lines, no sections.
 * With `restructuredText`, adorned titles become section headers; levels follow the order in which adornment
 * styles first appear, as reStructuredText defines them.
 */
export function convertText(text: string, options: TextConvertOptions): ConvertedDocument {
  throwIfAborted(options.abortSignal);
  const lines = text.split(/\r\n|\r|\n/);
  const builder = new DocumentBuilder();
  const adornmentLevels: string[] = [];
  let paragraphStart = -1;

  const flushParagraph = (endLine: number) => {
    if (paragraphStart >= 0) {
      const body = lines.slice(paragraphStart, endLine + 1).join('\n').trim();
      if (body) {
        builder.add({ label: 'paragraph', text: body, sourceRange: { startLine: paragraphStart, startColumn: 0, endLine, endColumn: lines[endLine].length } });
      }
      paragraphStart = -1;
    }
  };

  for (let index = 0; index < lines.length; index++) {
    if (index % 1000 === 0) {
      throwIfAborted(options.abortSignal);
    }
    const line = lines[index];
    if (options.restructuredText) {
      const heading = restructuredTextHeading(lines, index);
      if (heading) {
        flushParagraph(index - 1);
        let level = adornmentLevels.indexOf(heading.style) + 1;
        if (level === 0) {
          adornmentLevels.push(heading.style);
          level = adornmentLevels.length;
        }
        builder.add({
          label: 'section_header',
          text: heading.text,
          headingLevel: Math.min(level, 6),
          sourceRange: { startLine: heading.startLine, startColumn: 0, endLine: heading.endLine, endColumn: lines[heading.endLine].length },
        });
        index = heading.endLine;
        continue;
      }
    }
    if (line.trim()) {
      if (paragraphStart < 0) {
        paragraphStart = index;
      }
    } else {
      flushParagraph(index - 1);
    }
  }
  flushParagraph(lines.length - 1);
  const firstHeader = builder.first('section_header');
  return { format: 'text', title: firstHeader?.text ?? options.fileName, items: builder.items, content: text, warnings: builder.allWarnings() };
}

/** A title at `index`: text over an adornment at least as long, optionally with a matching overline above. */
function restructuredTextHeading(lines: readonly string[], index: number): { text: string; style: string; startLine: number; endLine: number } | undefined {
  const line = lines[index];
  const previousBlank = index === 0 || !lines[index - 1].trim();
  // Overline + title + underline.
  const overline = ADORNMENT.exec(line);
  if (overline && previousBlank && index + 2 < lines.length) {
    const title = lines[index + 1];
    const underline = lines[index + 2];
    if (title.trim() && !ADORNMENT.test(title) && underline.trim() === line.trim() && line.trim().length >= title.trim().length) {
      return { text: title.trim(), style: `over${overline[1]}`, startLine: index, endLine: index + 2 };
    }
  }
  // Title + underline.
  if (previousBlank && line.trim() && !ADORNMENT.test(line) && !/^\s/.test(line) && index + 1 < lines.length) {
    const underline = ADORNMENT.exec(lines[index + 1]);
    if (underline && lines[index + 1].trim().length >= line.trim().length && (index + 2 >= lines.length || !lines[index + 2].trim() || !ADORNMENT.test(lines[index + 2]))) {
      return { text: line.trim(), style: underline[1], startLine: index, endLine: index + 1 };
    }
  }
  return undefined;
}
