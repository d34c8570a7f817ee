import * as path from 'node:path';
import { indexWithRules } from '../../backend/indexWithRules';
import { addDocumentFromFile, addDocumentFromText, addDocumentFromUrl, type AddedDocument, type TextFormat } from '../../ingest/addDocument';
import { booleanFlag, listFlag, stringFlag, UsageError, type CliCommand, type CommandContext } from '../command';
import { DATABASE_OPTIONS, EMBEDDING_OPTIONS, embedderFromFlags, printJson, summaryText, wantsJson, withIndex } from '../indexAccess';
import { readStandardInput } from '../textInput';
import { warningsText } from './indexFiles';

/** An argument with a scheme (`https://`, `ftp://`) is a URL; the fetch refuses anything but http and https by name. */
const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `--meta key=value` pairs as an object (a later key wins); a pair without `=` or with an empty key is a usage error. */
export function metadataFlags(context: CommandContext): Record<string, string> | undefined {
  const pairs = listFlag(context, 'meta');
  if (pairs === undefined) {
    return undefined;
  }
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) {
      throw new UsageError(`--meta takes key=value (e.g. --meta team=docs), got '${pair}'.`);
    }
    metadata[pair.slice(0, equals).trim()] = pair.slice(equals + 1);
  }
  return metadata;
}

function textFormatFlag(context: CommandContext): TextFormat | undefined {
  const format = stringFlag(context, 'format');
  if (format !== undefined && format !== 'markdown' && format !== 'html' && format !== 'text') {
    throw new UsageError(`--format takes 'markdown', 'html' or 'text', got '${format}'.`);
  }
  return format;
}

function addedText(added: AddedDocument): string {
  const { document } = added;
  const what =
    added.status === 'unchanged'
      ? `Unchanged (${added.unchangedBecause === 'not_modified' ? 'the server answered 304 Not Modified' : 'same content'})`
      : `${added.status === 'added' ? 'Added' : 'Updated'} (${added.chunks} chunk${added.chunks === 1 ? '' : 's'})`;
  return `${what}: ${document.title} — ${document.relativePath} (id ${document.id})\n${added.warnings.map((warning) => `  warning: ${warning}\n`).join('')}`;
}

export const addCommand: CliCommand = {
  name: 'add',
  arguments: [{ syntax: '<url, path or ->', description: 'An http(s) URL to fetch, a file or folder, or - to read Markdown from standard input.' }],
  summary: 'Add a document from a URL, a file or standard input, with a title and metadata',
  description:
    'Add one document to the index: a URL is fetched (HTML, Markdown, PDF, DOCX, PPTX, XLSX, CSV, text by Content-Type, else by extension) and identified by the URL, ' +
    'so adding it again refreshes it and writes nothing when it is unchanged (ETag / Last-Modified, else the content hash). Private, link-local and cloud metadata ' +
    'addresses are refused, and this machine unless --allow-loopback. `-` reads Markdown from standard input; its title is --title or its first heading, and the title ' +
    'identifies it. A file or folder is indexed as `haiku index` does; --title and --meta then need one file.',
  options: [
    ...DATABASE_OPTIONS,
    ...EMBEDDING_OPTIONS,
    { flags: '--title <title>', description: 'The title to store instead of the one found in the document (required for - without a heading).' },
    { flags: '--meta <key=value>', description: 'A metadata pair stored with the document (repeat for more), e.g. --meta team=docs.', value: 'repeatable' },
    { flags: '--format <format>', description: "How - reads standard input: 'markdown' (default), 'html' or 'text'." },
    { flags: '--allow-loopback', description: 'Let a URL reach this machine (127.0.0.0/8, ::1), e.g. a local docs server; private and metadata addresses stay refused.' },
  ],
  examples: ['haiku add https://example.com/guide.html --meta team=docs', 'haiku add http://127.0.0.1:8000/notes.md --allow-loopback', 'cat notes.md | haiku add - --title "Meeting notes"'],
  async run(context) {
    const [source] = context.positionals;
    const title = stringFlag(context, 'title');
    if (title !== undefined && title.trim() === '') {
      throw new UsageError('--title is empty. Give the title, or leave --title out.');
    }
    const metadata = metadataFlags(context);
    const format = textFormatFlag(context);
    if (format !== undefined && source !== '-') {
      throw new UsageError('--format applies to - (standard input) only; a URL\'s format comes from its Content-Type, a file\'s from its extension.');
    }
    if (booleanFlag(context, 'allow-loopback') && !URL_PATTERN.test(source)) {
      throw new UsageError('--allow-loopback applies to URLs only.');
    }
    const embedder = embedderFromFlags(context);
    const abortSignal = context.abortSignal;
    if (source === '-' || URL_PATTERN.test(source) || title !== undefined || metadata !== undefined) {
      const text = source === '-' ? await readStandardInput(context) : undefined;
      const added = await withIndex(context, { embedder, createIfMissing: true }, (index) =>
        text !== undefined
          ? addDocumentFromText(index, text, { title, metadata, format, abortSignal })
          : URL_PATTERN.test(source)
            ? addDocumentFromUrl(index, source, { title, metadata, abortSignal, allowLoopback: booleanFlag(context, 'allow-loopback') })
            : addDocumentFromFile(index, path.resolve(context.io.cwd, source), { title, metadata, abortSignal }),
      );
      if (wantsJson(context)) {
        printJson(context, { status: added.status, unchanged_because: added.unchangedBecause ?? null, chunks: added.chunks ?? null, warnings: added.warnings, document: added.document });
      } else {
        context.io.stdout(addedText(added));
      }
      return 0;
    }
    // A file or folder without a title or metadata: exactly `haiku index <path>` (the configured rules).
    const summary = await withIndex(context, { embedder, createIfMissing: true }, (index) => indexWithRules(index, [path.resolve(context.io.cwd, source)], { abortSignal }));
    if (wantsJson(context)) {
      printJson(context, summary);
    } else {
      context.io.stdout(summaryText(summary) + warningsText(summary.warnings));
    }
    return summary.failed.length > 0 && summary.added.length + summary.updated.length + summary.unchanged === 0 ? 1 : 0;
  },
};
