import type { DocumentSummary, SearchResult } from '../model/search';
import { SANDBOX_CODE_TIMEOUT_SECONDS, SANDBOX_HOST_CALLS_IN_FLIGHT_MAX, SANDBOX_MAX_OUTPUT_CHARS, SANDBOX_MEMORY_LIMIT_BYTES, SANDBOX_PATH_MAX_CHARS, SANDBOX_SEARCH_DEFAULT_LIMIT, SANDBOX_SEARCH_MAX_LIMIT } from '../limits';
import { citedIdsProblem, searchQueryProblem } from '../agent/hostInputLimits';

/**
 * What guest code sees of the host: the shapes below are what `search()` and `list_documents()` return inside
 * the sandbox (snake_case, like the files of the VFS), and `SANDBOX_API_DESCRIPTION` documents exactly the
 * globals the guest prelude (`src/node/sandbox/guestPrelude.ts`) installs. Keep the three in step.
 */

/** Host methods the guest may call (the worker forwards nothing else). */
export const SANDBOX_HOST_METHODS = ['search', 'list_documents', 'cite', 'readFile', 'listDir'] as const;
export type SandboxHostMethod = (typeof SANDBOX_HOST_METHODS)[number];

export function isSandboxHostMethod(name: unknown): name is SandboxHostMethod {
  return typeof name === 'string' && (SANDBOX_HOST_METHODS as readonly string[]).includes(name);
}

/**
 * What is wrong with a host call's arguments by size alone (constant time per argument), or undefined. Checked in
 * the worker before a call crosses to the host thread, and again on the host thread before any work.
 */
export function hostCallSizeProblem(method: string, args: readonly unknown[]): string | undefined {
  switch (method) {
    case 'search':
      return typeof args[0] === 'string' ? searchQueryProblem(args[0]) : undefined;
    case 'cite':
      return citedIdsProblem(args.filter((id): id is string => typeof id === 'string'));
    case 'readFile':
    case 'listDir':
      return typeof args[0] === 'string' && args[0].length > SANDBOX_PATH_MAX_CHARS
        ? `${method}(path): the path is ${args[0].length} characters long; paths are at most ${SANDBOX_PATH_MAX_CHARS} (they look like /documents/{id}/toc.json).`
        : undefined;
    default:
      return undefined;
  }
}

/** The globals the guest prelude installs (frozen, read-only). */
export const SANDBOX_GLOBAL_NAMES: ReadonlySet<string> = new Set(['search', 'list_documents', 'cite', 'readFile', 'readJson', 'readLines', 'listDir', 'exists', 'Path', 'console']);

/** One element of `await search(...)` inside the sandbox. */
export interface GuestSearchHit {
  chunk_id: string;
  document_id: string;
  uri: string;
  title: string;
  content: string;
  headings: string[];
  labels: string[];
  page_numbers: number[];
  /** `self_ref`s of the items the chunk was built from (match `items.jsonl` lines). */
  doc_item_refs: string[];
  /** The pictures among (or captioned by) `doc_item_refs`; their `items.jsonl` lines hold label and caption text, never bytes. */
  picture_refs: string[];
  score: number;
  rank: number;
  /** Present when context expansion merged overlapping hits: every constituent chunk id. */
  merged_chunk_ids?: string[];
}

/** One element of `await list_documents()` inside the sandbox. */
export interface GuestDocument {
  id: string;
  title: string;
  uri: string;
  relative_path: string;
  format: string;
  created_at: string;
}

export function toGuestSearchHit(result: SearchResult): GuestSearchHit {
  const hit: GuestSearchHit = {
    chunk_id: result.chunkId,
    document_id: result.documentId,
    uri: result.uri,
    title: result.title,
    content: result.content,
    headings: result.headings,
    labels: result.labels,
    page_numbers: result.pageNumbers,
    doc_item_refs: result.docItemRefs,
    picture_refs: result.pictureRefs ?? [],
    score: result.score,
    rank: result.rank,
  };
  if (result.mergedChunkIds && result.mergedChunkIds.length > 0) {
    hit.merged_chunk_ids = result.mergedChunkIds;
  }
  return hit;
}

export function toGuestDocument(summary: DocumentSummary): GuestDocument {
  return {
    id: summary.id,
    title: summary.title,
    uri: summary.uri,
    relative_path: summary.relativePath,
    format: summary.format,
    created_at: summary.createdAt,
  };
}

/**
 * The `execute_code` tool's reference for the model: every global that exists in the sandbox, and nothing more.
 * The `{limit}` default, the timeout and the output cap are filled by `sandboxApiDescription` when they differ.
 */
export function sandboxApiDescription(limits: { codeTimeoutSeconds: number; maxOutputChars: number }): string {
  return `Runs JavaScript (ES2023, QuickJS) in an isolated sandbox. There is no require/import, no process, no network, no timers and no real filesystem.
Top-level \`await\` works. Variables, functions and \`const\`/\`let\` declarations persist between execute_code calls (until code that computes past the time limit is stopped, which resets the session).
The value of the last expression, if not undefined, is printed after the output (a Promise is awaited first), like a REPL.

Top-level const/let act like var, so re-running a snippet that declares the same names is fine.

Globals (all async functions must be awaited; they are read-only, so do not declare variables with these names):
- await search(query, limit = ${SANDBOX_SEARCH_DEFAULT_LIMIT}) -> [{chunk_id, document_id, uri, title, content, headings, labels, page_numbers, doc_item_refs, picture_refs, score, rank, merged_chunk_ids?}]
    Hybrid search with section-aware context expansion over the documents of this question; best first, rank is 1-based;
    limit is capped at ${SANDBOX_SEARCH_MAX_LIMIT}.
- await list_documents() -> [{id, title, uri, relative_path, format, created_at}]
- await cite(chunkIds) -> {accepted: [...], unknown: [...]}   chunkIds: one chunk id or an array. Registers citations for the answer.
    Chunk ids come from search() hits, items.jsonl lines or toc.json nodes; never cite self_refs or positions.
- await readFile(path) -> string          await readJson(path) -> parsed JSON
- await readLines(path) -> string[]       (split on newlines; for items.jsonl, index = item position)
- await listDir(path) -> string[]         await exists(path) -> boolean
- Path.join(...parts), Path.basename(path), Path.dirname(path)   (string helpers, no I/O)
- console.log / info / debug print to the output; console.warn / error to the error output. Objects print as compact JSON.

Read-only files (the only ones that exist):
- /documents/                            one folder per document id
- /documents/{id}/metadata.json          {id, title, uri, created_at, relative_path, format}
- /documents/{id}/content.txt            the whole document as Markdown
- /documents/{id}/items.jsonl            one JSON object per line, line index = item position:
                                         {self_ref, label, text, page_numbers, heading_level, chunk_ids}
                                         label: title, section_header, paragraph, list_item, table (text is Markdown), code,
                                         picture, caption, formula, footnote, page_header, page_footer, document_index
- /documents/{id}/toc.json               {doc_id, title, tree: [{self_ref, level, title, page_numbers,
                                         item_range: [start, end), chunk_ids, children: [...]}]}; tree is [] without headings.
                                         item_range slices items.jsonl lines; chunk_ids are every chunk in the section.
A missing path rejects with an Error whose message starts with ENOENT (code property 'ENOENT').

Limits per call: ${limits.codeTimeoutSeconds} s wall-clock (past it no search or read starts; one already running finishes and the call
returns what was printed, variables kept; code still computing is stopped and the session reset, so earlier variables are gone); output beyond ${limits.maxOutputChars} characters is cut;
memory is about ${Math.round(SANDBOX_MEMORY_LIMIT_BYTES / 1024 / 1024)} MiB (read a large file once and keep slices, not copies);
at most ${SANDBOX_HOST_CALLS_IN_FLIGHT_MAX} searches and reads may be pending at once (Promise.all over more: await them in batches).

Example:
const toc = await readJson(\`/documents/\${id}/toc.json\`);
const lines = await readLines(\`/documents/\${id}/items.jsonl\`);
const [start, end] = toc.tree[0].item_range;
console.log(lines.slice(start, end).map((line) => JSON.parse(line).text).join('\\n'));
await cite(toc.tree[0].chunk_ids);`;
}

/** The description with the default limits; use `sandboxApiDescription` when settings change them. */
export const SANDBOX_API_DESCRIPTION = sandboxApiDescription({ codeTimeoutSeconds: SANDBOX_CODE_TIMEOUT_SECONDS, maxOutputChars: SANDBOX_MAX_OUTPUT_CHARS });
