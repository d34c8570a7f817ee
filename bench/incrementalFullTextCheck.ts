/**
 * Does a LanceDB build return the right rows after its incremental FTS update? The watcher's pattern on raw
 * LanceDB: 2,000 SciFact rows with an FTS index, then 40 rounds of replacing one row (a new term each round),
 * `optimize()` (which folds the new row into the index incrementally), and four searches for the new term.
 * Haiku never relies on this path on 0.31.0 (see `StoreMaintenance`); the script checks other versions.
 *   npx tsx bench/incrementalFullTextCheck.ts [path to an @lancedb/lancedb package folder]
 * (e.g. after `npm i @lancedb/lancedb@0.39.0` in a scratch folder; default: this checkout's own 0.31.0).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { loadScifactCorpus } from '../scripts/scifactCorpus';

type LanceModule = typeof import('@lancedb/lancedb');

async function main(): Promise<void> {
  const packageFolder = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'node_modules', '@lancedb', 'lancedb'));
  process.env.LANCE_CPU_THREADS ??= String(Math.max(4, os.cpus().length));
  // That package's own entry point (its `main`), whatever version it is.
  const lancedb = createRequire(path.join(packageFolder, 'package.json'))(packageFolder) as LanceModule;
  const version = (JSON.parse(fs.readFileSync(path.join(packageFolder, 'package.json'), 'utf8')) as { version: string }).version;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-incremental-fts-'));
  try {
    const connection = await lancedb.connect(work);
    const rows = loadScifactCorpus(2000).map((document, index) => ({ id: `c${index}`, generation: 'g0', search_text: `${document.title}\n${document.text}` }));
    const table = await connection.createTable('chunks', rows);
    const config = () => lancedb.Index.fts({ withPosition: false, baseTokenizer: 'simple', language: 'English', stem: true, removeStopWords: true, asciiFolding: true, lowercase: true });
    await table.createIndex('search_text', { config: config() });
    const misses: string[] = [];
    let text = rows[42].search_text;
    for (let round = 0; round < 40; round++) {
      text += `\nAn added sentence about benchmark token${round}.`;
      await table.delete("id = 'c42'");
      await table.add([{ id: 'c42', generation: `g${round + 1}`, search_text: text }]);
      await table.optimize();
      for (const limit of [1, 1, 10, 10]) {
        const hits = (await table.query().fullTextSearch(`benchmark token${round}`, { columns: ['search_text'] }).select(['id', 'generation', '_score']).limit(limit).toArray()) as Array<{ id: string; generation: string }>;
        if (hits[0]?.id !== 'c42' || hits[0].generation !== `g${round + 1}`) {
          misses.push(`round ${round}, limit ${limit}: ${hits[0] ? `${hits[0].id} ${hits[0].generation}` : 'nothing'}`);
        }
      }
    }
    process.stdout.write(`@lancedb/lancedb ${version}: ${misses.length} wrong first hits of 160 searches${misses.length > 0 ? ` (${misses.slice(0, 5).join('; ')})` : ''}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

void main();
