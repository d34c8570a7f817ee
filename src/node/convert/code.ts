import type { ConvertedDocument } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { CODE_ITEM_MAX_CHARS } from '../../core/limits';
import { DocumentBuilder } from './documentBuilder';
import type { ConvertOptions } from './html';

/** Source-code extensions and their Markdown fence language, as haiku.rag's `TextFileHandler.code_markdown_identifier` lists them. */
export const CODE_LANGUAGE_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.astro': 'astro', '.bash': 'bash', '.c': 'c', '.clj': 'clojure', '.cljs': 'clojure', '.cpp': 'cpp', '.cs': 'csharp',
  '.css': 'css', '.dart': 'dart', '.elm': 'elm', '.ex': 'elixir', '.exs': 'elixir', '.fs': 'fsharp', '.fsx': 'fsharp',
  '.go': 'go', '.gql': 'graphql', '.graphql': 'graphql', '.groovy': 'groovy', '.h': 'c', '.hcl': 'hcl', '.hpp': 'cpp',
  '.hs': 'haskell', '.java': 'java', '.jl': 'julia', '.js': 'javascript', '.json': 'json', '.kt': 'kotlin', '.less': 'less',
  '.lua': 'lua', '.mjs': 'javascript', '.ml': 'ocaml', '.mli': 'ocaml', '.nim': 'nim', '.nix': 'nix', '.php': 'php',
  '.pl': 'perl', '.plantuml': 'plantuml', '.pm': 'perl', '.proto': 'protobuf', '.pu': 'plantuml', '.puml': 'plantuml',
  '.ps1': 'powershell', '.py': 'python', '.r': 'r', '.rb': 'ruby', '.rs': 'rust', '.sass': 'sass', '.scala': 'scala',
  '.scss': 'scss', '.sh': 'bash', '.sql': 'sql', '.svelte': 'svelte', '.swift': 'swift', '.tf': 'hcl', '.toml': 'toml',
  '.ts': 'typescript', '.tsx': 'tsx', '.vue': 'vue', '.xml': 'xml', '.yaml': 'yaml', '.yml': 'yaml', '.zig': 'zig',
};

export interface CodeConvertOptions extends ConvertOptions {
  /** The fence language (`python`, `typescript`, …). */
  language: string;
}

/**
 * A source file: `code` items with its language, titled by the file name. A file up to `CODE_ITEM_MAX_CHARS` is
 * one item; a longer one is cut into consecutive items at line ends (at a blank line when one falls in the second
 * half of an item), each covering its own lines, so a chunk of a long file cites the lines it holds rather than
 * the whole file (the chunker gives a chunk the union of its items' ranges).
 */
export function convertCode(text: string, options: CodeConvertOptions): ConvertedDocument {
  throwIfAborted(options.abortSignal);
  const builder = new DocumentBuilder();
  const lines = text.split(/\r\n|\r|\n/);
  // A final line end opens no line of its own.
  const lineCount = lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  const addLines = (from: number, to: number) => {
    // Blank lines at an item's edges belong to no item.
    while (from < to && !lines[from].trim()) {
      from++;
    }
    while (to > from && !lines[to - 1].trim()) {
      to--;
    }
    if (to > from) {
      builder.add({ label: 'code', text: lines.slice(from, to).join('\n'), language: options.language, sourceRange: { startLine: from, startColumn: 0, endLine: to - 1, endColumn: lines[to - 1].length } });
    }
  };
  let start = 0;
  let length = 0;
  let lastBlank = -1;
  for (let index = 0; index < lineCount; index++) {
    if (index % 1000 === 0) {
      throwIfAborted(options.abortSignal);
    }
    const lineLength = lines[index].length + 1;
    if (index > start && length + lineLength > CODE_ITEM_MAX_CHARS) {
      const cut = lastBlank > start && lastBlank - start >= (index - start) / 2 ? lastBlank : index;
      addLines(start, cut);
      start = cut;
      length = lines.slice(cut, index).reduce((sum, line) => sum + line.length + 1, 0);
      lastBlank = -1;
    }
    if (!lines[index].trim()) {
      lastBlank = index;
    }
    length += lineLength;
  }
  addLines(start, lineCount);
  return { format: 'code', title: options.fileName, items: builder.items, content: builder.toMarkdown(), warnings: builder.allWarnings() };
}
