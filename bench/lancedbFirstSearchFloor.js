// The floor of a process's first search in raw LanceDB: connect and open the chunks table, then time one full-text
// query alone, or the same query beside one vector query through the table's ANN index (what our hybrid search asks
// of LanceDB, with the same probes, refinement and columns). Plain CommonJS run by `node`. Used by bench/coldStart.ts.
//   node bench/lancedbFirstSearchFloor.js <index folder> <fullText|hybrid> <query> <dimensions> <probes> <refine factor>
// Prints one JSON line: { wallMs, cpuMs }.
'use strict';
const lancedb = require('@lancedb/lancedb');

// src/node/store/schema.ts's CHUNK_RESULT_COLUMNS and src/core/limits.ts's HYBRID_CANDIDATES_PER_LIST.
const CHUNK_RESULT_COLUMNS = ['id', 'document_id', 'generation', 'chunk_order', 'content', 'doc_item_refs', 'labels', 'headings', 'page_numbers', 'source_range', 'first_position', 'last_position'];
const CANDIDATES_PER_LIST = 50;

/** A unit vector from a fixed seed: any query vector costs the index the same. */
function queryVector(dimensions) {
  let seed = 12345;
  const values = Array.from({ length: dimensions }, () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648 - 0.5;
  });
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
}

async function main() {
  const [folder, mode, query, dimensions, probes, refineFactor] = process.argv.slice(2);
  const table = await (await lancedb.connect(folder)).openTable('chunks');
  const vector = queryVector(Number(dimensions));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const fullText = table.query().fullTextSearch(query, { columns: ['search_text'] }).select([...CHUNK_RESULT_COLUMNS, '_score']).limit(CANDIDATES_PER_LIST).toArray();
  const nearest = mode === 'hybrid'
    ? table.query().nearestTo(vector).distanceType('dot').nprobes(Number(probes)).refineFactor(Number(refineFactor))
      .select([...CHUNK_RESULT_COLUMNS, 'vector', '_distance']).limit(CANDIDATES_PER_LIST + Math.ceil(CANDIDATES_PER_LIST / 4)).toArray()
    : Promise.resolve([]);
  await Promise.all([fullText, nearest]);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(`${JSON.stringify({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
