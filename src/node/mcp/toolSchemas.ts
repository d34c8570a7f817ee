import { z } from 'zod';

/**
 * The arguments of one tool as a strict object: an unknown argument (a misspelt `limt`, an argument of another
 * tool) is refused with the arguments the tool takes, instead of being dropped silently, which would run the
 * call without what the client meant to ask. The SDK answers a refused call with an `isError` result.
 */
export function strictArguments<Shape extends z.ZodRawShape>(toolName: string, shape: Shape) {
  const accepted = Object.keys(shape).join(', ') || '(none)';
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `Unknown argument${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `'${key}'`).join(', ')}: ${toolName} takes ${accepted}.` : undefined,
  });
}

const metadataSchema = z.record(z.string(), z.unknown());

/** `locationJson`: 1-based inclusive lines and pages, and the place's own name (slide, sheet and cells, notebook cell). */
export const locationOutputSchema = z.object({
  start_line: z.number().int().nullable(),
  end_line: z.number().int().nullable(),
  pages: z.array(z.number().int()),
  place: z.string().nullable(),
});

/** A stored `SourceRange` (0-based lines, exclusive end) as it is in the index; loose, as stored JSON may carry more. */
const sourceRangeOutputSchema = z.looseObject({
  startLine: z.number().int().optional(),
  startColumn: z.number().int().optional(),
  endLine: z.number().int().optional(),
  endColumn: z.number().int().optional(),
  page: z.number().int().optional(),
});

/** `documentJson` of list_documents, get_document and add_document_from_file. */
export const documentOutputSchema = z.object({
  id: z.string(),
  title: z.string(),
  uri: z.string(),
  relative_path: z.string(),
  format: z.string(),
  metadata: metadataSchema,
  created: z.string(),
  updated: z.string(),
});

/** `citationOutput`: the fields of the CLI's `--json` citation, plus the document's path in the index and a 1-based location. */
export const citationOutputSchema = z.object({
  index: z.number().int(),
  chunk_id: z.string(),
  chunk_ids: z.array(z.string()),
  document_id: z.string(),
  uri: z.string(),
  title: z.string(),
  headings: z.array(z.string()),
  page_numbers: z.array(z.number().int()),
  content: z.string(),
  source_range: sourceRangeOutputSchema.nullable(),
  picture_refs: z.array(z.string()),
  document_meta: metadataSchema,
  chunk_meta: metadataSchema,
  relative_path: z.string(),
  location: locationOutputSchema,
});

/** `executionOutput`: one `execute_code` run of an analysis. */
export const executionOutputSchema = z.object({
  code: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  success: z.boolean(),
  duration_ms: z.number(),
});

export const citationStatusOutputSchema = z.enum(['missing', 'grounded', 'ungrounded', 'none']);

/** The user's metadata of add_document_from_url / add_document_from_text: flat pairs of plain values. */
export const addMetadataInputSchema = z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** What add_document_from_url and add_document_from_text return: the document and whether it was written. */
export const addedDocumentOutputSchema = {
  document_id: z.string(),
  status: z.enum(['added', 'updated', 'unchanged']),
  unchanged_because: z.enum(['not_modified', 'same_content']).nullable(),
  document: documentOutputSchema,
  chunks: z.number().int().nullable(),
  warnings: z.array(z.string()),
};
