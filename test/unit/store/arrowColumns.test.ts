import * as assert from 'node:assert/strict';
import '../../../src/node/store/lanceEnvironment';
import * as lancedb from '@lancedb/lancedb';
import type { Schema, Table } from 'apache-arrow';
import { prepareDocument } from '../../../src/node/convert/prepareDocument';
import { addArrowTable } from '../../../src/node/store/arrowAdd';
import { arrowTableOfRows } from '../../../src/node/store/arrowColumns';
import { chunkRow, chunksSchema, documentRow, documentsSchema, itemRow, itemsSchema } from '../../../src/node/store/schema';
import { HashingEmbedder, temporaryFolder } from '../../support/indexFixtures';
import { corpusRoot } from '../../support/paths';

type Row = Record<string, unknown>;

/** Every cell of `table` as plain values (bytes and vectors as arrays), row by row. */
function cells(table: Table): unknown[][] {
  const names = table.schema.fields.map((field) => field.name);
  return Array.from({ length: table.numRows }, (_, index) =>
    names.map((name) => {
      const value = table.getChild(name)!.get(index) as unknown;
      return value instanceof Uint8Array || (typeof value === 'object' && value !== null && Symbol.iterator in value) ? Array.from(value as Iterable<unknown>) : value;
    }),
  );
}

describe('Arrow tables built column by column', function () {
  this.timeout(60_000);
  const tables: Array<{ name: string; schema: Schema; rows: Row[] }> = [];

  before(async () => {
    // Markdown, HTML, a PDF with pictures (bytes, boxes), a DOCX; CJK and emoji text; nullable columns empty and set.
    const files = ['vite-docs/docs/guide/features.md', 'go-docs/doc/gc-guide.html', 'pdf-docx/docling/picture_classification.pdf', 'pdf-docx/docling/unit_test_headers.docx'];
    const embedder = new HashingEmbedder(16);
    const documents: Row[] = [];
    const chunks: Row[] = [];
    const chunksWithVectors: Row[] = [];
    const items: Row[] = [];
    for (const file of files) {
      const { document, chunks: prepared } = await prepareDocument({ rootPath: corpusRoot, filePath: file, pictures: 'image' });
      document.items[0].text += ' 全文検索 😀 lone \ud800 surrogate';
      const positions = new Map(document.items.map((item) => [item.selfRef, item.position]));
      const vectors = await embedder.embed(prepared.map((chunk) => chunk.searchText), { kind: 'document' });
      documents.push({ ...documentRow(document, prepared.length, 'g1', { mtimeMs: 1.5, size: 42 }, 'created', 'now') });
      prepared.forEach((chunk, index) => {
        chunks.push({ ...chunkRow(chunk, 'g1', undefined, positions) });
        chunksWithVectors.push({ ...chunkRow(chunk, 'g1', vectors[index], positions) });
      });
      items.push(...document.items.map((item) => ({ ...itemRow(document.id, item, 'g1') })));
    }
    assert.ok(items.some((row) => row.picture_data instanceof Uint8Array) && items.some((row) => row.picture_data === null), 'items with and without picture bytes');
    assert.ok(items.some((row) => row.boxes !== null) && chunks.some((row) => row.source_range === null), 'nullable columns set and empty');
    tables.push(
      { name: 'documents', schema: documentsSchema(), rows: documents },
      { name: 'chunks', schema: chunksSchema(undefined), rows: chunks },
      { name: 'chunks with vectors', schema: chunksSchema(16), rows: chunksWithVectors },
      { name: 'items', schema: itemsSchema(), rows: items },
    );
  });

  it("holds the same cells as LanceDB's makeArrowTable for every table's rows", () => {
    for (const { name, schema, rows } of tables) {
      const ours = arrowTableOfRows(rows, schema);
      assert.ok(ours, `${name}: built`);
      assert.deepEqual(ours.schema.fields.map((field) => `${field.name}:${String(field.type)}:${field.nullable}`), schema.fields.map((field) => `${field.name}:${String(field.type)}:${field.nullable}`), name);
      assert.deepEqual(cells(ours), cells(lancedb.makeArrowTable(rows, { schema })), name);
    }
  });

  it('leaves rows it cannot represent to makeArrowTable: a missing required value, text in a number column, a vector of the wrong length', () => {
    const [documents, chunks, vectors] = tables;
    const { title: _title, ...withoutTitle } = documents.rows[0];
    assert.equal(arrowTableOfRows([withoutTitle], documents.schema), undefined);
    assert.equal(arrowTableOfRows([{ ...documents.rows[0], size: 'large' }], documents.schema), undefined);
    assert.equal(arrowTableOfRows([{ ...vectors.rows[0], vector: new Float32Array(3) }], vectors.schema), undefined);
    assert.ok(arrowTableOfRows(chunks.rows.slice(0, 2), chunks.schema));
  });

  it('round-trips through a real LanceDB table, appended in two parts by addArrowTable', async () => {
    const folder = temporaryFolder('haiku-arrow-columns-');
    const connection = await lancedb.connect(folder.path);
    try {
      for (const { name, schema, rows } of tables) {
        const table = await connection.createEmptyTable(name.replace(/ /g, '_'), schema);
        const half = Math.ceil(rows.length / 2);
        await addArrowTable(table, arrowTableOfRows(rows.slice(0, half), schema)!);
        await addArrowTable(table, arrowTableOfRows(rows.slice(half), schema)!);
        const stored = await table.query().toArrow();
        assert.equal(stored.numRows, rows.length, name);
        assert.deepEqual(cells(stored), cells(lancedb.makeArrowTable(rows, { schema })), name);
      }
    } finally {
      connection.close();
      folder.cleanup();
    }
  });
});
