import { DataType, makeVector, Precision, type Data, type Table as ArrowTable, type Vector } from 'apache-arrow';
import { errorMessage } from '../../core/errors';
import type { DocumentState, SettingsRow, StoredChunkFields } from './schema';

/**
 * Query results as plain objects, built from whole columns (`columnValues`): accessing fields of `toArray()`'s
 * row proxies cost 51 ms for 1.4k item rows, and a `get` per cell still spent most of 2.7 s on 90k item rows.
 */
export async function plainRows<T>(query: { toArrow(): Promise<ArrowTable> }): Promise<T[]> {
  return rowsFromColumns<T>(await query.toArrow());
}

/** The rows of an Arrow table as plain objects, one column converted at a time. */
export function rowsFromColumns<T>(table: ArrowTable): T[] {
  const names = table.schema.fields.map((field) => field.name);
  const columns = names.map((name) => columnValues(table.getChild(name)!));
  // Arrow's `numRows` sums the batches' lengths on every read: read once.
  const rowCount = table.numRows;
  const rows = new Array<T>(rowCount);
  for (let index = 0; index < rowCount; index++) {
    const row: Record<string, unknown> = {};
    for (let column = 0; column < names.length; column++) {
      row[names[column]] = columns[column][index];
    }
    rows[index] = row as T;
  }
  return rows;
}

/** Longest text compared with the row before it to share its string (ids and generations are far shorter). */
const REPEAT_CHECK_MAX_BYTES = 64;

/**
 * One column's values as a plain array, equal to `vector.get(i)` for each row: UTF-8 text is decoded straight
 * from each batch's buffer and numbers read from its typed array, where `get` walks Arrow's visitor per cell.
 * One small function per kind of column: V8 optimizes the hot loop alone (as one function with Arrow's generic
 * `get` inlined, its optimization took 25 ms on a background thread that a one-shot search waited for at exit).
 */
export function columnValues(vector: Vector): unknown[] {
  const values = new Array<unknown>(vector.length);
  let at = 0;
  for (const data of vector.data) {
    if (DataType.isUtf8(data.type)) {
      textValues(data, values, at);
    } else if ((DataType.isInt(data.type) || (DataType.isFloat(data.type) && data.type.precision !== Precision.HALF)) && data.stride === 1) {
      numberValues(data, values, at);
    } else {
      const chunk = makeVector(data);
      for (let index = 0; index < data.length; index++) {
        values[at + index] = chunk.get(index);
      }
    }
    at += data.length;
  }
  return values;
}

/** The batch's null bitmap when some value is null (read here: `getValid` checks for a union type on every call). */
function nullBitmapOf(data: Data): Uint8Array | undefined {
  return data.nullable && data.nullCount > 0 ? data.nullBitmap : undefined;
}

function isValidAt(data: Data, nullBitmap: Uint8Array, index: number): boolean {
  const bit = data.offset + index;
  return (nullBitmap[bit >> 3] & (1 << (bit & 7))) !== 0;
}

/** A UTF-8 batch's values into `values` from `at`. */
function textValues(data: Data, values: unknown[], at: number): void {
  const nullBitmap = nullBitmapOf(data);
  const bytes = Buffer.from(data.values.buffer, data.values.byteOffset, data.values.byteLength);
  const offsets = data.valueOffsets;
  let previous: string | undefined;
  for (let index = 0; index < data.length; index++) {
    if (nullBitmap && !isValidAt(data, nullBitmap, index)) {
      values[at + index] = null;
      previous = undefined;
      continue;
    }
    const start = offsets[index];
    const end = offsets[index + 1];
    // A short value repeating the row before (a document's id and generation on each of its rows) is shared,
    // not decoded again: fewer strings for the collector.
    if (previous !== undefined && end - start <= REPEAT_CHECK_MAX_BYTES && sameBytes(bytes, offsets[index - 1], start, end)) {
      values[at + index] = previous;
      continue;
    }
    const text = bytes.toString('utf8', start, end);
    // Arrow's TextDecoder drops a leading byte order mark; Buffer keeps it.
    previous = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    values[at + index] = previous;
  }
}

/** An integer or float batch's values into `values` from `at`. */
function numberValues(data: Data, values: unknown[], at: number): void {
  const nullBitmap = nullBitmapOf(data);
  const numbers = data.values as ArrayLike<unknown>;
  for (let index = 0; index < data.length; index++) {
    values[at + index] = nullBitmap && !isValidAt(data, nullBitmap, index) ? null : numbers[index];
  }
}

/** Whether the bytes from `start` to `end` repeat those just before them, from `previousStart` to `start`. */
function sameBytes(bytes: Uint8Array, previousStart: number, start: number, end: number): boolean {
  if (start - previousStart !== end - start) {
    return false;
  }
  for (let offset = 0; offset < end - start; offset++) {
    if (bytes[previousStart + offset] !== bytes[start + offset]) {
      return false;
    }
  }
  return true;
}

/** The underlying reason of a LanceDB error, without the stream-plumbing prefix. */
export function lanceReason(error: unknown): string {
  const message = errorMessage(error);
  const match = /lance error: (.*)$/s.exec(message);
  return (match ? match[1] : message).split('. Valid fields are')[0].trim();
}

// Arrow row proxies become plain objects, so callers can keep and mutate them.
export function plainDocumentState(row: DocumentState): DocumentState {
  return {
    id: String(row.id),
    generation: String(row.generation),
    uri: String(row.uri),
    relative_path: String(row.relative_path),
    title: String(row.title),
    format: String(row.format),
    content_hash: String(row.content_hash),
    metadata: String(row.metadata),
    mtime_ms: Number(row.mtime_ms),
    size: Number(row.size),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

export function plainChunkFields(row: StoredChunkFields): StoredChunkFields {
  return {
    id: String(row.id),
    document_id: String(row.document_id),
    generation: String(row.generation),
    chunk_order: Number(row.chunk_order),
    content: String(row.content),
    doc_item_refs: String(row.doc_item_refs),
    labels: String(row.labels),
    headings: String(row.headings),
    page_numbers: String(row.page_numbers),
    source_range: row.source_range === null || row.source_range === undefined ? null : String(row.source_range),
    first_position: Number(row.first_position),
    last_position: Number(row.last_position),
  };
}

export function plainSettings(row: SettingsRow): SettingsRow {
  return {
    id: String(row.id),
    schema_version: Number(row.schema_version),
    chunker_version: Number(row.chunker_version),
    embedder_id: row.embedder_id === null || row.embedder_id === undefined ? null : String(row.embedder_id),
    embedder_dimensions: row.embedder_dimensions === null || row.embedder_dimensions === undefined ? null : Number(row.embedder_dimensions),
    roots: String(row.roots),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}
