// The fresh-process floor of a one-shot search: require LanceDB, connect, open the chunks table, one FTS query, print
// the hits. Plain CommonJS run by `node` (no tsx), as `node dist/cli.js search` is. Used by bench/coldStart.ts.
//   node bench/lancedbColdFloor.js <index folder> <query>
'use strict';
const lancedb = require('@lancedb/lancedb');

// src/node/store/schema.ts's CHUNK_RESULT_COLUMNS, what our search reads (bench/run.ts's raw FTS reads the same).
const CHUNK_RESULT_COLUMNS = ['id', 'document_id', 'generation', 'chunk_order', 'content', 'doc_item_refs', 'labels', 'headings', 'page_numbers', 'source_range', 'first_position', 'last_position'];

async function main() {
  const [folder, query] = process.argv.slice(2);
  const database = await lancedb.connect(folder);
  const table = await database.openTable('chunks');
  const rows = await table.query().fullTextSearch(query, { columns: ['search_text'] }).select([...CHUNK_RESULT_COLUMNS, '_score']).limit(10).toArray();
  process.stdout.write(rows.map((row) => `${row.id} ${String(row.content).slice(0, 80)}`).join('\n') + '\n');
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
