import type { Citation, ExecutionRecord } from './conversationState';

/** One citation as JSON (snake_case): the CLI's `--json` answer and MCP's structured content share this shape. */
export function citationJson(citation: Citation) {
  return {
    index: citation.index,
    chunk_id: citation.chunkId,
    chunk_ids: citation.chunkIds,
    document_id: citation.documentId,
    uri: citation.uri,
    title: citation.title,
    headings: citation.headings,
    page_numbers: citation.pageNumbers,
    content: citation.content,
    source_range: citation.sourceRange ?? null,
    picture_refs: citation.pictureRefs,
    document_meta: citation.documentMeta ?? {},
    chunk_meta: citation.chunkMeta ?? {},
  };
}

/** One `execute_code` run as JSON (snake_case), for the CLI's `--json` and MCP's structured content. */
export function executionJson(execution: ExecutionRecord) {
  return { code: execution.code, stdout: execution.stdout, stderr: execution.stderr, success: execution.success, duration_ms: execution.durationMs };
}
