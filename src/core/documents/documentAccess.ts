/**
 * How every front end's tools name documents and places in them: a document by id, path or unique path suffix,
 * a section by title or heading trail, a location as text. The VS Code language-model tools, the MCP tools and the
 * CLI share this module, so `guide.md` finds the same document everywhere. Pure (in core) because the extension's
 * first bundle loads no `src/node` module.
 */
import { HaikuError } from '../errors';
import { DOCUMENT_CANDIDATES_SHOWN } from '../limits';
import type { SectionNode, SourceRange } from '../model/document';
import type { DocumentSummary, KnowledgeBase } from '../model/search';
import { compileDocumentFilter } from '../search/documentFilter';
import { walkSections } from '../toc';
import { namedLocation } from '../sourceRanges';

/** A path compared with forward slashes, without a trailing one, Windows drive letters in lower case. */
function comparablePath(file: string): string {
  const forward = file.replace(/\\/g, '/').replace(/\/+$/, '');
  return /^[A-Za-z]:/.test(forward) ? forward[0].toLowerCase() + forward.slice(1) : forward;
}

/** The local path of a `file:` URI (`/C:/x` becomes `C:/x`), or undefined for other URIs. */
function filePathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) {
    return undefined;
  }
  try {
    const pathname = decodeURIComponent(new URL(uri).pathname);
    return comparablePath(/^\/[A-Za-z]:/.test(pathname) ? pathname.slice(1) : pathname);
  } catch {
    return undefined;
  }
}

function isAbsolutePath(reference: string): boolean {
  return reference.startsWith('/') || /^[A-Za-z]:[\\/]/.test(reference) || reference.startsWith('\\\\');
}

/** A reference as paths are stored: forward slashes, no leading `./`. */
function normalizedReference(reference: string): string {
  return reference.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/**
 * The document a reference names: its id, its exact relative path, its URI or absolute path, its relative path in
 * another case, or a path suffix that ends at a `/` and matches one document only. `candidates` lists the documents
 * an ambiguous suffix matches (then `document` is undefined).
 */
export function matchDocument(documents: readonly DocumentSummary[], reference: string): { document?: DocumentSummary; candidates: DocumentSummary[] } {
  const trimmed = reference.trim();
  const wanted = normalizedReference(reference);
  if (wanted === '') {
    return { candidates: [] };
  }
  const exact = documents.find((document) => document.id === trimmed)
    ?? documents.find((document) => document.relativePath === wanted)
    ?? documents.find((document) => document.uri === trimmed)
    ?? (isAbsolutePath(trimmed) ? documents.find((document) => filePathOf(document.uri) === comparablePath(trimmed)) : undefined);
  if (exact) {
    return { document: exact, candidates: [] };
  }
  const lower = wanted.toLowerCase();
  const caseless = documents.filter((document) => document.relativePath.toLowerCase() === lower);
  if (caseless.length === 1) {
    return { document: caseless[0], candidates: [] };
  }
  const suffixed = documents.filter((document) => document.relativePath.endsWith(`/${wanted}`));
  const matches = suffixed.length > 0 ? suffixed : documents.filter((document) => document.relativePath.toLowerCase().endsWith(`/${lower}`));
  return matches.length === 1 ? { document: matches[0], candidates: [] } : { candidates: [...caseless, ...matches] };
}

/** `matchDocument`, or a typed error: none matches (how to list them), or several do (naming them). */
export function resolveDocument(documents: readonly DocumentSummary[], reference: string, listHint: string): DocumentSummary {
  const { document, candidates } = matchDocument(documents, reference);
  if (document) {
    return document;
  }
  if (candidates.length > 1) {
    const shown = candidates.slice(0, DOCUMENT_CANDIDATES_SHOWN).map((candidate) => candidate.relativePath);
    const more = candidates.length > shown.length ? ` and ${candidates.length - shown.length} more` : '';
    throw new HaikuError('not_found', `'${reference}' matches ${candidates.length} documents: ${shown.join(', ')}${more}. Give more of the path, or the document id.`);
  }
  throw new HaikuError('not_found', `No indexed document matches '${reference}'. ${listHint}`);
}

/** The document a reference names in a knowledge base (see `resolveDocument`). */
export async function requireDocument(knowledgeBase: Pick<KnowledgeBase, 'listDocuments'>, reference: string, options: { listHint: string; abortSignal?: AbortSignal }): Promise<DocumentSummary> {
  return resolveDocument(await knowledgeBase.listDocuments({ abortSignal: options.abortSignal }), reference, options.listHint);
}

/** A search filter that keeps one document, named by id, path or unique path suffix; undefined without a reference. */
export async function documentFilterFor(knowledgeBase: Pick<KnowledgeBase, 'listDocuments'>, reference: string | undefined, options: { listHint: string; abortSignal?: AbortSignal }): Promise<string | undefined> {
  if (reference === undefined || reference.trim() === '') {
    return undefined;
  }
  const document = await requireDocument(knowledgeBase, reference, options);
  return compileDocumentFilter({ documentIds: [document.id] });
}

function comparable(title: string): string {
  return title.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * A section by title or by heading trail (`Guide > Install`). An exact trail or title wins; else a title that
 * contains the text, when only one does. Returns the candidates' titles when the reference is ambiguous.
 */
export function lookUpSection(tree: readonly SectionNode[], reference: string): { section?: SectionNode; ambiguous: string[] } {
  const wanted = reference.split('>').map(comparable).filter((part) => part !== '');
  if (wanted.length === 0) {
    return { ambiguous: [] };
  }
  const trails: Array<{ node: SectionNode; trail: string[] }> = [];
  const collect = (nodes: readonly SectionNode[], parents: string[]) => {
    for (const node of nodes) {
      const trail = [...parents, comparable(node.title)];
      trails.push({ node, trail });
      collect(node.children, trail);
    }
  };
  collect(tree, []);
  const endsWithWanted = (trail: string[]) => trail.length >= wanted.length && wanted.every((part, index) => trail[trail.length - wanted.length + index] === part);
  const exact = trails.filter((entry) => endsWithWanted(entry.trail));
  if (exact.length > 0) {
    return { section: exact[0].node, ambiguous: [] };
  }
  const last = wanted[wanted.length - 1];
  const partial = [...walkSections(tree)].filter((node) => comparable(node.title).includes(last));
  return partial.length === 1 ? { section: partial[0], ambiguous: [] } : { ambiguous: partial.map((node) => node.title) };
}

/**
 * `path (slide 3)`, `path (sheet Sales, A1:D9)` or `path (cell 4)` where the format names its places;
 * `path:line` for text formats (1-based line), `path (page n)` for PDFs, else the path.
 */
export function locationText(relativePath: string, sourceRange: SourceRange | undefined, pageNumbers: readonly number[]): string {
  const named = namedLocation(sourceRange);
  if (named !== undefined) {
    return `${relativePath} (${named})`;
  }
  if (sourceRange?.startLine !== undefined) {
    return `${relativePath}:${sourceRange.startLine + 1}`;
  }
  const page = sourceRange?.page ?? pageNumbers[0];
  return page !== undefined ? `${relativePath} (page ${page})` : relativePath;
}
