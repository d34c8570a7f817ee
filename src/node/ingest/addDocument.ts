/**
 * Adding one document from a URL, from text or from a file with a title and metadata: the logic `haiku add` and the
 * MCP tools `add_document_from_url` / `add_document_from_text` share. Bytes go through the converters `haiku index`
 * uses (`convertBytes`), are chunked and embedded the same way, and are written atomically under the writer lease.
 * A re-add writes nothing when the source is unchanged: a 304 to the stored ETag / Last-Modified, or the same
 * sha256 content hash (and the same title and metadata).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversionError, errorMessage, HaikuError, isHaikuError, throwIfAborted } from '../../core/errors';
import { documentIdForPath } from '../../core/hash';
import { MAX_DOCUMENT_CHUNKS, URL_DOWNLOAD_MAX_BYTES } from '../../core/limits';
import type { ConvertedDocument, HaikuDocument } from '../../core/model/document';
import type { DocumentSummary } from '../../core/model/search';
import type { OpenedIndex } from '../backend/openIndex';
import { createConversionPool } from '../convert/conversionPool';
import type { ConverterKind, PictureProcessing } from '../convert/convertFile';
import { loadInProcessConverters } from '../convert/loadInProcessConverters';
import { convertsInProcess } from '../index/earlyWorkers';
import { embedBatch } from '../index/indexer';
import { describePictures, PictureDescriber } from '../index/pictureDescriptions';
import type { DocumentWrite } from '../store/lanceStore';
import { parseJson, type DocumentState } from '../store/schema';
import type { GuardWording } from './addressGuard';
import { fetchDocument, parseFetchableUrl, type FetchDocumentOptions } from './fetchDocument';

/** Metadata keys Haiku writes itself; a user's `--meta` may not set them. */
export const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set(['format', 'chunkCount', 'itemCount', 'pageCount', 'warnings', 'source', 'url', 'etag', 'last_modified', 'content_type', 'fetched_at', 'final_url']);

export interface AddDocumentOptions {
  /** Replaces the title the converter found. */
  title?: string;
  /** The user's pairs, stored in the document's metadata beside Haiku's own keys. */
  metadata?: Readonly<Record<string, unknown>>;
  abortSignal?: AbortSignal;
}

export interface AddUrlOptions extends AddDocumentOptions {
  /** Loopback addresses may be fetched (`haiku add --allow-loopback`, `haiku mcp --allow-loopback-urls`). */
  allowLoopback?: boolean;
  /** The flag named when loopback is refused. */
  wording?: GuardWording;
  /** Limits for tests (defaults: the `URL_*` limits, the index's file size limit). */
  fetch?: Pick<FetchDocumentOptions, 'maxBytes' | 'connectTimeoutMs' | 'totalTimeoutMs' | 'maxRedirects'>;
}

export interface AddTextOptions extends AddDocumentOptions {
  /** How the text is read (default Markdown). */
  format?: TextFormat;
  /** The document's URI (its identity); default `text:<title as a slug>`. */
  uri?: string;
}

export type TextFormat = 'markdown' | 'html' | 'text';

export interface AddedDocument {
  /** `unchanged`: nothing was written (a 304, or the same content, title and metadata). */
  status: 'added' | 'updated' | 'unchanged';
  /** Why an unchanged document was not converted again. */
  unchangedBecause?: 'not_modified' | 'same_content';
  document: DocumentSummary;
  chunks?: number;
  warnings: string[];
}

/** Content types Haiku converts, as the extension `convertBytes` picks its converter by. */
const EXTENSION_BY_CONTENT_TYPE: Readonly<Record<string, string>> = {
  'text/html': '.html',
  'application/xhtml+xml': '.html',
  'text/markdown': '.md',
  'text/x-markdown': '.md',
  'application/pdf': '.pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
  'application/vnd.oasis.opendocument.text': '.odt',
  'application/vnd.oasis.opendocument.presentation': '.odp',
  'application/vnd.oasis.opendocument.spreadsheet': '.ods',
  'text/csv': '.csv',
  'text/tab-separated-values': '.tsv',
  'application/json': '.json',
};

/** Types that say nothing about the format: the URL's extension decides (`text/plain`: a `.md` served raw is Markdown). */
const GENERIC_CONTENT_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'text/plain']);

/** Extensions a URL may name when its content type is generic: the formats above, plus plain text. */
const URL_EXTENSIONS = new Set([...Object.values(EXTENSION_BY_CONTENT_TYPE), '.htm', '.markdown', '.txt']);

/** Formats whose pictures are inside the bytes (PDF, office files); Markdown and HTML pictures would be local files. */
const SELF_CONTAINED_KINDS: ReadonlySet<ConverterKind> = new Set<ConverterKind>(['pdf', 'docx', 'pptx', 'odp', 'xlsx', 'ods', 'odt']);

/**
 * The extension a download converts as: by Content-Type, else by the URL's extension when the type is generic
 * (missing, octet-stream, text/plain), else HTML for a page without a type. Undefined: not a supported format.
 */
export function extensionForDownload(contentType: string | undefined, url: URL): string | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const byType = EXTENSION_BY_CONTENT_TYPE[type];
  if (byType !== undefined) {
    return byType;
  }
  if (!GENERIC_CONTENT_TYPES.has(type)) {
    return undefined;
  }
  const extension = path.posix.extname(decodeURIComponent(url.pathname)).toLowerCase();
  if (URL_EXTENSIONS.has(extension)) {
    return extension;
  }
  return type === 'text/plain' ? '.txt' : type === '' ? '.html' : undefined;
}

/** The document id of a URL: stable for the URL (fragment dropped), never equal to a file's (those hash relative paths). */
export function urlDocumentId(url: string): string {
  return documentIdForPath(url);
}

/** A URL as a readable relative path: host (and port), path and query, e.g. `example.com/docs/guide.html`. */
export function urlRelativePath(url: URL): string {
  return `${url.host}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
}

/** Lower-case words joined by hyphens, for ids and paths made from a title. */
function slug(title: string): string {
  return title.normalize('NFKD').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'untitled';
}

/** The user's pairs checked: no key Haiku writes itself. */
function checkedUserMetadata(metadata: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const pairs = { ...metadata };
  const reserved = Object.keys(pairs).filter((key) => RESERVED_METADATA_KEYS.has(key));
  if (reserved.length > 0) {
    throw new HaikuError('invalid_settings', `The metadata key${reserved.length === 1 ? '' : 's'} ${reserved.map((key) => `'${key}'`).join(', ')} ${reserved.length === 1 ? 'is' : 'are'} Haiku's own (${[...RESERVED_METADATA_KEYS].join(', ')}). Choose another name.`);
  }
  return pairs;
}

/** The user's pairs a stored document holds: its metadata without Haiku's keys. */
function storedUserMetadata(state: DocumentState): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parseJson<Record<string, unknown>>(state.metadata, {})).filter(([key]) => !RESERVED_METADATA_KEYS.has(key)));
}

function sameMetadata(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  const sorted = (value: Record<string, unknown>) => JSON.stringify(Object.keys(value).sort().map((key) => [key, value[key]]));
  return sorted(left) === sorted(right);
}

/** True when the title and the user's metadata asked for are what the stored document has. */
function sameDescription(state: DocumentState, options: AddDocumentOptions, userMetadata: Record<string, unknown>): boolean {
  return (options.title === undefined || options.title === state.title) && sameMetadata(storedUserMetadata(state), userMetadata);
}

async function storedState(index: OpenedIndex, id: string): Promise<DocumentState | undefined> {
  return (await index.store.documentStates()).get(id);
}

async function unchanged(index: OpenedIndex, id: string, because: AddedDocument['unchangedBecause']): Promise<AddedDocument> {
  const document = await index.store.getDocument(id);
  if (!document) {
    throw new HaikuError('not_found', `The document ${id} went missing while it was being added. Try again.`);
  }
  return { status: 'unchanged', unchangedBecause: because, document, warnings: [] };
}

/** A conversion error of the in-memory name reworded to name the source (the URL, or the text's title). */
function namingSource(error: unknown, fileName: string, source: string): unknown {
  if (error instanceof ConversionError && error.message.startsWith(`${fileName}: `)) {
    return new ConversionError(error.code, source, error.message.slice(fileName.length + 2), { cause: error });
  }
  return error;
}

/** Converts in-memory bytes named `fileName`; pictures only from inside the bytes, never from this machine's files. */
async function convertInMemory(index: OpenedIndex, fileName: string, bytes: Uint8Array, source: string, abortSignal: AbortSignal | undefined): Promise<ConvertedDocument> {
  const { converterFor, convertBytes } = loadInProcessConverters();
  const kind = converterFor(fileName);
  const maxBytes = index.rules.maxFileBytes;
  if (bytes.byteLength === 0) {
    throw new ConversionError('empty_file', source, 'is empty; there is nothing to index.');
  }
  if (bytes.byteLength > maxBytes) {
    throw new ConversionError('file_too_large', source, `is ${bytes.byteLength} bytes, over the index's ${maxBytes}-byte file size limit. Split it, or raise the size limit.`);
  }
  // A remote page's `<img src="notes.png">` must not read this machine's files into the index: Markdown and HTML
  // keep their images' alt text only.
  const pictures: PictureProcessing = SELF_CONTAINED_KINDS.has(kind) ? index.rules.pictures : 'none';
  if (convertsInProcess(1, bytes.byteLength)) {
    try {
      return await convertBytes(fileName, bytes, { abortSignal, maxBytes, pictures, pictureRoots: [] });
    } catch (error) {
      throw namingSource(error, fileName, source);
    }
  }
  // Bigger downloads convert on a worker thread, as `haiku index` converts files: under its time and heap limits,
  // so a hostile PDF cannot hang or exhaust the MCP server. The worker reads a file: a private temporary one.
  const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'haiku-add-'));
  const file = path.join(folder, fileName);
  const pool = createConversionPool({ size: 1 });
  try {
    await fs.promises.writeFile(file, bytes);
    const loaded = await pool.load(file, { rootPath: folder, abortSignal, maxBytes, pictures, pictureRoots: [folder], sizeBytes: bytes.byteLength });
    const { id: _id, uri: _uri, relativePath: _relativePath, contentHash: _contentHash, ...converted } = loaded;
    return converted;
  } catch (error) {
    throw namingSource(error, file, source);
  } finally {
    await pool.dispose();
    await fs.promises.rm(folder, { recursive: true, force: true });
  }
}

/**
 * Chunks, describes pictures (when the index does), embeds and writes one document under the writer lease, then
 * runs the upkeep an index run ends with. Returns whether it was added or replaced an existing one.
 */
async function writeDocument(index: OpenedIndex, document: HaikuDocument, file: DocumentWrite['file'], sourceMetadata: Record<string, unknown>, abortSignal: AbortSignal | undefined): Promise<{ status: 'added' | 'updated'; chunks: number; warnings: string[] }> {
  const { store, embedder, rules } = index;
  store.assertWritable();
  if (embedder && !store.hasVectors) {
    throw new HaikuError('rebuild_needed', `The index at ${store.uri} was built without the embedder ${embedder.id}. Rebuild the index to add documents with it.`);
  }
  // The converters and the tokenizer load on first use: `haiku` commands that add nothing never parse them.
  const chunked = loadInProcessConverters().chunkDocumentWithinLimit({ id: document.id, items: document.items });
  const warnings: string[] = [];
  if (chunked.truncated) {
    warnings.push(`The document gives more than ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} chunks; only the first ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} are indexed.`);
    document.warnings.push(warnings[0]);
  }
  let prepared = { document, chunks: chunked.chunks };
  if (rules.pictures === 'description') {
    prepared = await describePictures(prepared, new PictureDescriber(rules.pictureDescription), abortSignal);
  }
  const entry: DocumentWrite = { document: prepared.document, chunks: prepared.chunks, file, sourceMetadata };
  if (embedder) {
    await embedBatch([entry], embedder, abortSignal);
  }
  throwIfAborted(abortSignal, 'Adding the document');
  return store.withWriterLease(
    async () => {
      const existed = (await store.documentStates()).has(document.id);
      await store.writeDocuments([entry], { abortSignal, scheduleOptimize: false, copyToRecent: true });
      try {
        await store.optimize({ sweepOrphans: existed, keepRecent: true });
      } catch (error) {
        if (isHaikuError(error, 'cancelled')) {
          throw error;
        }
        warnings.push(`The document was written, but the index's upkeep failed and runs again next time: ${errorMessage(error)}`);
      }
      return { status: existed ? ('updated' as const) : ('added' as const), chunks: entry.chunks.length, warnings: [...warnings, ...prepared.document.warnings.filter((warning) => !warnings.includes(warning))] };
    },
    { abortSignal },
  );
}

async function written(index: OpenedIndex, id: string, result: { status: 'added' | 'updated'; chunks: number; warnings: string[] }): Promise<AddedDocument> {
  const document = await index.store.getDocument(id);
  if (!document) {
    throw new HaikuError('not_found', `The document ${id} was written but cannot be read back. Run \`haiku docs\` to check the index.`);
  }
  return { status: result.status, document, chunks: result.chunks, warnings: result.warnings };
}

/**
 * Fetches a URL (SSRF guard, limits) and adds or refreshes its document: `uri` the URL, id from the URL, relative
 * path host + path; metadata holds url, etag, last_modified, content_type, fetched_at and the user's pairs.
 */
export async function addDocumentFromUrl(index: OpenedIndex, address: string, options: AddUrlOptions = {}): Promise<AddedDocument> {
  throwIfAborted(options.abortSignal, 'Adding the document');
  index.store.assertWritable();
  const url = parseFetchableUrl(address);
  url.hash = '';
  const id = urlDocumentId(url.href);
  const userMetadata = checkedUserMetadata(options.metadata);
  const state = await storedState(index, id);
  const storedSource = state ? parseJson<Record<string, unknown>>(state.metadata, {}) : {};
  // A new title or new metadata needs the content again: no conditional request then.
  const conditional = state !== undefined && sameDescription(state, options, userMetadata);
  const fetched = await fetchDocument(url.href, {
    allowLoopback: options.allowLoopback,
    wording: options.wording,
    maxBytes: Math.min(options.fetch?.maxBytes ?? URL_DOWNLOAD_MAX_BYTES, index.rules.maxFileBytes),
    connectTimeoutMs: options.fetch?.connectTimeoutMs,
    totalTimeoutMs: options.fetch?.totalTimeoutMs,
    maxRedirects: options.fetch?.maxRedirects,
    etag: conditional && typeof storedSource.etag === 'string' ? storedSource.etag : undefined,
    lastModified: conditional && typeof storedSource.last_modified === 'string' ? storedSource.last_modified : undefined,
    abortSignal: options.abortSignal,
  });
  if (fetched.notModified) {
    if (!state) {
      throw new ConversionError('unreadable_file', url.href, 'the server answered 304 Not Modified to a request that asked for no condition. Try again.');
    }
    return unchanged(index, id, 'not_modified');
  }
  const contentHash = createHash('sha256').update(fetched.bytes).digest('hex');
  if (conditional && state!.content_hash === contentHash) {
    return unchanged(index, id, 'same_content');
  }
  const extension = extensionForDownload(fetched.contentType, new URL(fetched.url));
  if (extension === undefined) {
    throw new ConversionError('unsupported_format', url.href, `is ${fetched.contentType ?? 'of no declared type'}, not a format Haiku converts (HTML, Markdown, PDF, DOCX, PPTX, XLSX, OpenDocument, CSV, JSON, plain text).`);
  }
  const baseName = path.posix.basename(decodeURIComponent(new URL(fetched.url).pathname)).replace(/\.[^.]*$/, '').replace(/[^\p{L}\p{N}._-]+/gu, '-') || 'index';
  const fileName = `${baseName}${extension}`;
  const converted = await convertInMemory(index, fileName, fetched.bytes, url.href, options.abortSignal);
  const document: HaikuDocument = {
    ...converted,
    title: options.title ?? (converted.title === fileName ? urlRelativePath(url) : converted.title),
    id,
    uri: url.href,
    relativePath: urlRelativePath(url),
    contentHash,
  };
  const lastModifiedMs = fetched.lastModified === undefined ? NaN : Date.parse(fetched.lastModified);
  const sourceMetadata: Record<string, unknown> = {
    ...userMetadata,
    source: 'url',
    url: url.href,
    ...(fetched.url === url.href ? {} : { final_url: fetched.url }),
    etag: fetched.etag ?? null,
    last_modified: fetched.lastModified ?? null,
    content_type: fetched.contentType ?? null,
    fetched_at: new Date().toISOString(),
  };
  const file = { mtimeMs: Number.isFinite(lastModifiedMs) ? lastModifiedMs : Date.now(), size: fetched.bytes.byteLength };
  return written(index, id, await writeDocument(index, document, file, sourceMetadata, options.abortSignal));
}

const TEXT_EXTENSIONS: Readonly<Record<TextFormat, string>> = { markdown: '.md', html: '.html', text: '.txt' };

/**
 * Adds text (Markdown by default) as a document. Its title: the one given, else its first heading (or front matter
 * title); without either it is refused. Identity: the URI given, else `text:<title slug>`, and the id is a hash of
 * that URI, so adding text under the same title again replaces the document.
 */
export async function addDocumentFromText(index: OpenedIndex, text: string, options: AddTextOptions = {}): Promise<AddedDocument> {
  throwIfAborted(options.abortSignal, 'Adding the document');
  index.store.assertWritable();
  const format = options.format ?? 'markdown';
  const extension = TEXT_EXTENSIONS[format];
  if (extension === undefined) {
    throw new HaikuError('invalid_settings', `The text format '${String(format)}' is not one Haiku reads: give markdown, html or text.`);
  }
  const userMetadata = checkedUserMetadata(options.metadata);
  const source = options.title ?? options.uri ?? 'The text';
  if (text.trim() === '') {
    throw new ConversionError('empty_file', source, 'is empty; there is nothing to index. Give the document\'s text.');
  }
  const bytes = Buffer.from(text, 'utf8');
  const fileName = `text${extension}`;
  const converted = await convertInMemory(index, fileName, bytes, source, options.abortSignal);
  const title = options.title?.trim() || (converted.title !== fileName && converted.title.trim() !== '' ? converted.title : undefined);
  if (title === undefined) {
    throw new HaikuError('invalid_settings', 'The text has no title: give one (--title, or the title argument), or start the text with a heading (`# Title`).');
  }
  const uri = options.uri?.trim() || `text:${slug(title)}`;
  const id = documentIdForPath(uri);
  const contentHash = createHash('sha256').update(bytes).digest('hex');
  const state = await storedState(index, id);
  if (state && state.content_hash === contentHash && state.title === title && sameMetadata(storedUserMetadata(state), userMetadata)) {
    return unchanged(index, id, 'same_content');
  }
  const relativePath = /^https?:\/\//i.test(uri) ? urlRelativePath(new URL(uri)) : uri.startsWith('text:') ? `text/${slug(title)}${extension}` : uri;
  const document: HaikuDocument = { ...converted, title, id, uri, relativePath, contentHash };
  const sourceMetadata = { ...userMetadata, source: 'text' };
  return written(index, id, await writeDocument(index, document, { mtimeMs: Date.now(), size: bytes.byteLength }, sourceMetadata, options.abortSignal));
}

/**
 * Adds one file with a title or metadata of the user's (`haiku add file.pdf --title … --meta k=v`): converted as
 * `haiku index` converts it, with the id and relative path it gives it (from the index's base folder), and its root
 * recorded for `haiku rebuild`. A later `haiku index` of a changed file converts it again without them.
 */
export async function addDocumentFromFile(index: OpenedIndex, filePath: string, options: AddDocumentOptions = {}): Promise<AddedDocument> {
  throwIfAborted(options.abortSignal, 'Adding the document');
  index.store.assertWritable();
  const userMetadata = checkedUserMetadata(options.metadata);
  const absolute = path.resolve(filePath);
  let stats: fs.Stats;
  try {
    stats = fs.statSync(absolute);
  } catch {
    throw new ConversionError('not_found', absolute, 'does not exist. Check the path.');
  }
  if (!stats.isFile()) {
    throw new HaikuError('invalid_settings', `${absolute} is a folder: --title and --meta apply to one document. Add the folder without them, or name one file.`);
  }
  const { rules } = index;
  const document = await loadInProcessConverters().loadDocument({
    rootPath: rules.baseFolder,
    filePath: absolute,
    abortSignal: options.abortSignal,
    maxBytes: rules.maxFileBytes,
    pictures: rules.pictures,
    pictureRoots: [path.dirname(absolute)],
  });
  const state = await storedState(index, document.id);
  if (state && state.content_hash === document.contentHash && sameDescription(state, options, userMetadata)) {
    return unchanged(index, document.id, 'same_content');
  }
  if (options.title !== undefined) {
    document.title = options.title;
  }
  const result = await writeDocument(index, document, { mtimeMs: stats.mtimeMs, size: stats.size }, userMetadata, options.abortSignal);
  await index.store.recordRoots([{ path: absolute, baseFolder: rules.baseFolder }]);
  return written(index, document.id, result);
}
