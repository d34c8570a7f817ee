import type { Table as LanceTable } from '@lancedb/lancedb';
import { tableToIPC, type Table as ArrowTable } from 'apache-arrow';

/** The native table behind LanceDB 0.31.0's `Table` (not in its typings). */
interface NativeTable {
  add(buffer: Buffer, mode: string): Promise<unknown>;
}

/**
 * Appends an Arrow table built on LanceDB's apache-arrow instance, as `table.add(arrowTable)` would, without its
 * two JavaScript costs that a table with no embedding function does not need: it asks the native table for its
 * schema first (to look for embedding functions), and it copies the finished IPC file into a fresh `Buffer`
 * (`Buffer.from(uint8Array)` zero-fills, then copies: ~5 ns a byte, ~0.1 s of SciFact's 40 MB). The bytes are
 * the same Arrow IPC file either way. Falls back to `table.add` where the native table is not there.
 */
export async function addArrowTable(table: LanceTable, data: ArrowTable): Promise<void> {
  const native = (table as unknown as { inner?: Partial<NativeTable> }).inner;
  if (typeof native?.add !== 'function') {
    await table.add(data);
    return;
  }
  const bytes = tableToIPC(data, 'file');
  await native.add(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'append');
}
