/**
 * Retrieval lever study on SciFact TRAIN: each query-side or index-side change measured alone and combined,
 * on raw LanceDB 0.31.0 over the chunk rows OUR pipeline writes (title heading + abstract, chunked), with the
 * store's FTS settings. The baseline reproduces `npm run eval:scifact` (document = its best chunk, 300 chunks
 * per query). Never run it on the test qrels to choose settings.
 *
 *   npx tsx scripts/retrievalLevers.ts [--db <folder of `npm run eval:scifact -- --db <folder>`>] [--only <regex>]
 *   options: --qrels <file> (default train)  --depth 300  --concurrency 4  --json <file> (write every row)
 *
 * Without `--db` it indexes SciFact through our indexer into a temporary folder first (about a minute).
 */
import '../src/node/store/lanceEnvironment';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { reciprocalRankFusion } from '../src/core/search/rankFusion';
import { openStore } from '../src/node/store/lanceStore';
import { evaluateRuns, ndcgAtK, pairedRandomisationP } from './retrievalMetrics';
import { documentFrequencies, normaliseQuestion, queryTerms, relevanceModelTerms, tokenize, QUESTION_WORDS } from './retrievalLeverText';
import { indexScifact, loadQrels, loadScifactCorpus, loadScifactQueries, scifactFolder } from './scifactCorpus';

interface Hit {
  chunk: string;
  document: string;
  score: number;
}

interface Lever {
  lever: string;
  name: string;
  /** Ranked SciFact document ids, best first. */
  run(query: string): Promise<string[]>;
}

/** One column per lexical view; each gets its own FTS index. */
const VIEWS = {
  text: { stem: true, removeStopWords: true },
  text_unstemmed: { stem: false, removeStopWords: true },
  text_stop_words: { stem: true, removeStopWords: false },
  title: { stem: true, removeStopWords: true },
  body: { stem: true, removeStopWords: true },
  text_title2: { stem: true, removeStopWords: true },
  text_title3: { stem: true, removeStopWords: true },
  text_title2_unstemmed: { stem: false, removeStopWords: true },
} as const;
type View = keyof typeof VIEWS;

function fullTextIndex(view: View): lancedb.Index {
  // The store's configuration (src/node/store/lanceStore.ts `fullTextIndexConfig`), varied per view.
  return lancedb.Index.fts({ withPosition: false, baseTokenizer: 'simple', language: 'English', asciiFolding: true, lowercase: true, ...VIEWS[view] });
}

/** Chunk rows exactly as our store holds them (live generation only), with each chunk's SciFact id. */
async function pipelineRows(indexFolder: string): Promise<Array<{ id: string; document: string; order: number; searchText: string; headings: string[]; content: string }>> {
  const connection = await lancedb.connect(indexFolder);
  const documents = await (await connection.openTable('documents')).query().select(['id', 'generation', 'relative_path']).toArray();
  const scifactIdOf = new Map<string, { scifactId: string; generation: string }>();
  for (const row of documents) {
    scifactIdOf.set(String(row.id), { scifactId: path.basename(String(row.relative_path), '.md'), generation: String(row.generation) });
  }
  const chunks = await (await connection.openTable('chunks')).query().select(['id', 'document_id', 'generation', 'chunk_order', 'search_text', 'headings', 'content']).toArray();
  connection.close();
  return chunks
    .filter((row) => scifactIdOf.get(String(row.document_id))?.generation === String(row.generation))
    .map((row) => ({
      id: String(row.id),
      document: scifactIdOf.get(String(row.document_id))!.scifactId,
      order: Number(row.chunk_order),
      searchText: String(row.search_text),
      headings: JSON.parse(String(row.headings)) as string[],
      content: String(row.content),
    }));
}

async function mapConcurrently<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]);
      }
    }),
  );
  return results;
}

function documentsOf(hits: readonly Hit[]): string[] {
  return [...new Set(hits.map((hit) => hit.document))];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      qrels: { type: 'string', default: path.join(scifactFolder, 'qrels', 'train.tsv') },
      depth: { type: 'string', default: '300' },
      concurrency: { type: 'string', default: '4' },
      only: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const depth = Number(values.depth);
  const qrels = loadQrels(values.qrels!);
  const queries = loadScifactQueries();
  const log = (line: string) => process.stdout.write(`${line}\n`);

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-levers-'));
  try {
    let indexFolder: string;
    if (values.db) {
      indexFolder = path.join(values.db, 'index');
    } else {
      indexFolder = path.join(scratch, 'pipeline', 'index');
      const store = await openStore({ uri: indexFolder });
      try {
        await indexScifact(store, loadScifactCorpus(), { folder: path.join(scratch, 'pipeline', 'documents') });
      } finally {
        await store.close();
      }
    }
    const rows = await pipelineRows(indexFolder);
    const documentOfChunk = new Map(rows.map((row) => [row.id, row.document]));
    const documentText = new Map<string, string>();
    for (const row of [...rows].sort((left, right) => left.order - right.order)) {
      const title = row.headings.join('\n');
      documentText.set(row.document, documentText.has(row.document) ? `${documentText.get(row.document)}\n${row.content}` : `${title}\n${row.content}`);
    }
    const frequencies = documentFrequencies(documentText.values());
    log(`pipeline rows: ${rows.length} chunks of ${documentText.size} documents; qrels ${path.basename(values.qrels!)}, ${qrels.size} queries`);

    const connection = await lancedb.connect(path.join(scratch, 'replica'));
    const table = await connection.createTable(
      'chunks',
      rows.map((row) => {
        const title = row.headings.join('\n');
        return {
          id: row.id,
          document: row.document,
          text: row.searchText,
          text_unstemmed: row.searchText,
          text_stop_words: row.searchText,
          title,
          body: row.content,
          // A heading copy: the trail repeated before the content (searchText has it once).
          text_title2: `${title}\n${row.searchText}`,
          text_title3: `${title}\n${title}\n${row.searchText}`,
          text_title2_unstemmed: `${title}\n${row.searchText}`,
        };
      }),
    );
    for (const view of Object.keys(VIEWS) as View[]) {
      await table.createIndex(view, { config: fullTextIndex(view) });
    }

    const search = async (query: string | lancedb.FullTextQuery, view: View = 'text', limit = depth): Promise<Hit[]> => {
      if (typeof query === 'string' && tokenize(query).length === 0) {
        return [];
      }
      const builder = typeof query === 'string' ? table.query().fullTextSearch(query, { columns: [view] }) : table.query().fullTextSearch(query);
      const found = await builder.select(['id', 'document', '_score']).limit(limit).toArray();
      return found.map((row) => ({ chunk: String(row.id), document: String(row.document), score: Number(row._score) }));
    };
    const fuse = (lists: ReadonlyArray<{ hits: readonly Hit[]; weight: number }>): string[] =>
      [...new Set(reciprocalRankFusion(lists.map((list) => ({ ids: list.hits.map((hit) => hit.chunk), weight: list.weight }))).map((entry) => documentOfChunk.get(entry.id)!))].slice(0, depth);
    const match = (query: string, column: View, boost: number) => new lancedb.MatchQuery(query, column, { boost });
    const any = (clauses: lancedb.FullTextQuery[]) => new lancedb.BooleanQuery(clauses.map((clause) => [lancedb.Occur.Should, clause] as [lancedb.Occur, lancedb.FullTextQuery]));

    /** RM3 feedback from a first pass: the top `documents` documents' term model, `terms` terms. */
    const feedbackTerms = (firstPass: readonly Hit[], documents: number, terms: number) => {
      const best = new Map<string, number>();
      for (const hit of firstPass) {
        if (!best.has(hit.document) && best.size < documents) {
          best.set(hit.document, hit.score);
        }
      }
      return relevanceModelTerms(
        [...best].map(([document, score]) => ({ text: documentText.get(document) ?? '', score })),
        { terms, maxDocumentFrequency: 0.1, ...frequencies },
      );
    };
    type Expansion = 'rrf' | 'weighted' | 'or';
    /** Expands `query` from `firstPass` and runs the expanded search on `view`. */
    const expanded = async (query: string, firstPass: Hit[], documents: number, terms: number, how: Expansion, view: View, originalWeight = 0.5): Promise<string[]> => {
      const chosen = feedbackTerms(firstPass, documents, terms);
      if (chosen.length === 0) {
        return documentsOf(firstPass);
      }
      if (how === 'rrf') {
        return fuse([
          { hits: firstPass, weight: 1 },
          { hits: await search(chosen.map((entry) => entry.term).join(' '), view), weight: 1 },
        ]);
      }
      if (how === 'or') {
        return documentsOf(await search(`${query} ${chosen.map((entry) => entry.term).join(' ')}`, view));
      }
      // RM3 interpolation: each original term λ/|Q|, each feedback term (1-λ)·P(t|R), as boosted SHOULD clauses.
      const original = queryTerms(query);
      const clauses: lancedb.FullTextQuery[] = original.length > 0 ? [match(query, view, originalWeight / original.length)] : [];
      for (const entry of chosen) {
        clauses.push(match(entry.term, view, (1 - originalWeight) * entry.weight));
      }
      return documentsOf(await search(any(clauses)));
    };

    const levers: Lever[] = [];
    const add = (lever: string, name: string, run: Lever['run']) => levers.push({ lever, name, run });

    add('baseline', 'store default (search_text, stemmed, stop words removed)', async (query) => documentsOf(await search(query)));

    // 1. Title / heading weight.
    add('1 title', 'heading copied twice into the indexed text', async (query) => documentsOf(await search(query, 'text_title2')));
    add('1 title', 'heading copied three times into the indexed text', async (query) => documentsOf(await search(query, 'text_title3')));
    for (const weight of [0.25, 0.5, 1]) {
      add('1 title', `search_text + title column × ${weight} (summed BM25)`, async (query) => documentsOf(await search(any([match(query, 'text', 1), match(query, 'title', weight)]))));
    }
    for (const weight of [1, 2, 3]) {
      add('1 title', `body column + title column × ${weight} (summed BM25, two fields)`, async (query) => documentsOf(await search(any([match(query, 'body', 1), match(query, 'title', weight)]))));
    }
    for (const weight of [0.3, 0.5, 1]) {
      add('1 title', `RRF(search_text, title column × ${weight})`, async (query) => fuse([{ hits: await search(query), weight: 1 }, { hits: await search(query, 'title'), weight }]));
    }

    // 2. Pseudo-relevance feedback.
    for (const how of ['weighted', 'rrf', 'or'] as Expansion[]) {
      for (const documents of [3, 5, 10]) {
        for (const terms of [10, 20]) {
          const label = how === 'weighted' ? 'RM3 weighted (λ 0.5)' : how === 'rrf' ? 'RRF(original, expansion terms)' : "original OR'd with terms";
          add('2 feedback', `${label}, k ${documents}, ${terms} terms`, async (query) => expanded(query, await search(query), documents, terms, how, 'text'));
        }
      }
    }
    for (const originalWeight of [0.3, 0.7]) {
      add('2 feedback', `RM3 weighted (λ ${originalWeight}), k 10, 10 terms`, async (query) => expanded(query, await search(query), 10, 10, 'weighted', 'text', originalWeight));
    }
    // The grid above favours few documents and many terms, and every λ under 1 costs nDCG: probe lighter feedback.
    for (const originalWeight of [0.8, 0.9]) {
      add('2 feedback', `RM3 weighted (λ ${originalWeight}), k 3, 20 terms`, async (query) => expanded(query, await search(query), 3, 20, 'weighted', 'text', originalWeight));
    }
    add('2 feedback', 'RRF(original, expansion terms × 0.3), k 3, 20 terms', async (query) => {
      const firstPass = await search(query);
      const chosen = feedbackTerms(firstPass, 3, 20);
      return fuse([{ hits: firstPass, weight: 1 }, { hits: await search(chosen.map((entry) => entry.term).join(' ')), weight: 0.3 }]);
    });

    // 3. Question-style query normalisation.
    add('3 normalise', 'question words and punctuation stripped from questions', async (query) => documentsOf(await search(normaliseQuestion(query))));
    // SciFact queries are claims, so the lever above changes none; this shows what the same words weigh in claims.
    add('3 normalise', 'question words stripped from every query', async (query) => documentsOf(await search(normaliseQuestion(`${query}?`))));

    // 4. A second lexical view fused by RRF.
    add('4 second view', 'RRF(stemmed, unstemmed)', async (query) => fuse([{ hits: await search(query), weight: 1 }, { hits: await search(query, 'text_unstemmed'), weight: 1 }]));
    add('4 second view', 'RRF(stemmed, unstemmed × 0.5)', async (query) => fuse([{ hits: await search(query), weight: 1 }, { hits: await search(query, 'text_unstemmed'), weight: 0.5 }]));
    add('4 second view', 'RRF(stemmed, stop words kept)', async (query) => fuse([{ hits: await search(query), weight: 1 }, { hits: await search(query, 'text_stop_words'), weight: 1 }]));
    add('4 second view', 'RRF(stemmed, unstemmed, stop words kept)', async (query) =>
      fuse([{ hits: await search(query), weight: 1 }, { hits: await search(query, 'text_unstemmed'), weight: 1 }, { hits: await search(query, 'text_stop_words'), weight: 1 }]),
    );

    // 5. Combinations of the levers that did not lose on their own: the heading copy with a second view / light feedback.
    add('5 combined', 'heading copy ×2 + RRF(stemmed, unstemmed)', async (query) => fuse([{ hits: await search(query, 'text_title2'), weight: 1 }, { hits: await search(query, 'text_title2_unstemmed'), weight: 1 }]));
    add('5 combined', 'heading copy ×2 + RRF(stemmed, unstemmed × 0.5)', async (query) => fuse([{ hits: await search(query, 'text_title2'), weight: 1 }, { hits: await search(query, 'text_title2_unstemmed'), weight: 0.5 }]));
    add('5 combined', 'heading copy ×2 + question words stripped from every query', async (query) => documentsOf(await search(normaliseQuestion(`${query}?`), 'text_title2')));
    add('5 combined', 'heading copy ×2 + RM3 weighted (λ 0.9), k 3, 20 terms', async (query) => expanded(query, await search(query, 'text_title2'), 3, 20, 'weighted', 'text_title2', 0.9));

    const only = values.only ? new RegExp(values.only) : undefined;
    const queryIds = [...qrels.keys()];
    const questionLike = queryIds.filter((id) => normaliseQuestion(queries.get(id)!) !== queries.get(id)).length;
    log(`queries reading as questions (lever 3 changes them): ${questionLike} of ${queryIds.length} (question words: ${QUESTION_WORDS.size})`);
    log('');
    log('| lever | configuration | nDCG@10 | Recall@100 | queries better / worse (nDCG@10) | p (paired, vs baseline) | ms/query |');
    log('|---|---|---|---|---|---|---|');
    let baselineNdcg: number[] | undefined;
    const results: Array<Record<string, unknown>> = [];
    for (const lever of levers) {
      if (only && !only.test(`${lever.lever} ${lever.name}`) && lever.lever !== 'baseline') {
        continue;
      }
      const started = performance.now();
      const ranked = await mapConcurrently(queryIds, Number(values.concurrency), (id) => lever.run(queries.get(id)!));
      const elapsed = performance.now() - started;
      const metrics = evaluateRuns(new Map(queryIds.map((id, index) => [id, ranked[index]])), qrels);
      const perQuery = queryIds.map((id, index) => ndcgAtK([...new Set(ranked[index])], qrels.get(id)!, 10));
      baselineNdcg ??= perQuery;
      const differences = perQuery.map((value, index) => value - baselineNdcg![index]);
      const better = differences.filter((difference) => difference > 1e-12).length;
      const worse = differences.filter((difference) => difference < -1e-12).length;
      const p = lever.lever === 'baseline' ? '' : pairedRandomisationP(differences).toFixed(3);
      results.push({ lever: lever.lever, name: lever.name, ndcgAt10: metrics.ndcgAt10, recallAt100: metrics.recallAt100, better, worse, p });
      log(`| ${lever.lever} | ${lever.name} | ${metrics.ndcgAt10.toFixed(4)} | ${metrics.recallAt100.toFixed(4)} | ${better} / ${worse} | ${p} | ${(elapsed / queryIds.length).toFixed(1)} |`);
    }
    if (values.json) {
      fs.writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
    }
    connection.close();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
