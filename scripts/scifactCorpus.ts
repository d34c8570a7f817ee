import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../src/core/embeddings/embedder';
import { indexPaths, type IndexProgress, type IndexSummary } from '../src/node/index/indexer';
import type { SearchMode } from '../src/node/search/searchEngine';
import type { LanceStore } from '../src/node/store/lanceStore';
import { parseJsonLines, parseQrels, type BeirDocument, type BeirQuery, type Qrels } from './retrievalMetrics';

/** `shared/eval/scifact` beside the checkout (as CI lays it out); `HAIKU_SHARED_DIR` overrides `shared/`. */
export const scifactFolder = path.join(process.env.HAIKU_SHARED_DIR ?? path.resolve(__dirname, '..', '..', 'shared'), 'eval', 'scifact');

export function loadScifactCorpus(limitDocuments?: number): BeirDocument[] {
  const corpus = parseJsonLines<BeirDocument>(fs.readFileSync(path.join(scifactFolder, 'corpus.jsonl'), 'utf8'));
  return limitDocuments ? corpus.slice(0, limitDocuments) : corpus;
}

export function loadScifactQueries(): Map<string, string> {
  return new Map(parseJsonLines<BeirQuery>(fs.readFileSync(path.join(scifactFolder, 'queries.jsonl'), 'utf8')).map((query) => [query._id, query.text]));
}

export function loadQrels(file: string): Qrels {
  return parseQrels(fs.readFileSync(file, 'utf8'));
}

/** The Markdown file a SciFact document becomes: the title as the H1, the abstract as the body. */
export function scifactMarkdown(document: BeirDocument): string {
  return `# ${document.title.replace(/\s+/g, ' ').trim()}\n\n${document.text}\n`;
}

/** Writes `<folder>/<id>.md` per document (what a user's workspace would hold). */
export function writeScifactFiles(folder: string, corpus: readonly BeirDocument[]): void {
  fs.mkdirSync(folder, { recursive: true });
  for (const document of corpus) {
    fs.writeFileSync(path.join(folder, `${document._id}.md`), scifactMarkdown(document));
  }
}

/**
 * Indexes SciFact through OUR indexer (scanner, Markdown converter, chunker, embedder, store, optimize)
 * from files written to `folder`. Returns our document id → SciFact id.
 */
export async function indexScifact(
  store: LanceStore,
  corpus: readonly BeirDocument[],
  options: { folder: string; embedder?: Embedder; onProgress?: (progress: IndexProgress) => void; abortSignal?: AbortSignal },
): Promise<{ scifactIdByDocumentId: Map<string, string>; summary: IndexSummary }> {
  writeScifactFiles(options.folder, corpus);
  const summary = await indexPaths({ roots: [options.folder], baseFolder: options.folder, store, embedder: options.embedder, onProgress: options.onProgress, abortSignal: options.abortSignal });
  if (summary.failed.length > 0) {
    throw new Error(`${summary.failed.length} SciFact documents failed to index, e.g. ${summary.failed[0].path}: ${summary.failed[0].reason}`);
  }
  const scifactIdByDocumentId = new Map<string, string>();
  for (const document of await store.listDocuments()) {
    scifactIdByDocumentId.set(document.id, path.basename(document.relativePath, '.md'));
  }
  return { scifactIdByDocumentId, summary };
}

/**
 * Runs every judged query and ranks SciFact documents by their best chunk: `depth` chunks are retrieved so
 * that the top 100 documents are filled. Returns query id → SciFact ids, best first, and each query's time.
 */
export async function scifactRuns(
  store: LanceStore,
  scifactIdByDocumentId: ReadonlyMap<string, string>,
  qrels: Qrels,
  queries: ReadonlyMap<string, string>,
  options: { mode: SearchMode; depth: number },
): Promise<{ runs: Map<string, string[]>; latencies: number[] }> {
  const runs = new Map<string, string[]>();
  const latencies: number[] = [];
  for (const queryId of qrels.keys()) {
    const text = queries.get(queryId);
    if (text === undefined) {
      throw new Error(`Query ${queryId} of the qrels is not in queries.jsonl.`);
    }
    const started = performance.now();
    const results = await store.searchWith(text, { mode: options.mode, limit: options.depth, rerank: false, expand: false });
    latencies.push(performance.now() - started);
    const ranked: string[] = [];
    const seen = new Set<string>();
    for (const result of results) {
      const scifactId = scifactIdByDocumentId.get(result.documentId);
      if (scifactId !== undefined && !seen.has(scifactId)) {
        seen.add(scifactId);
        ranked.push(scifactId);
      }
    }
    runs.set(queryId, ranked);
  }
  return { runs, latencies };
}

/** With a corpus subset, judgments of documents outside it go, and so do queries left without any. */
export function restrictToCorpus(qrels: Qrels, documentIds: ReadonlySet<string>): Qrels {
  const restricted: Qrels = new Map();
  for (const [queryId, judged] of qrels) {
    const kept = new Map([...judged].filter(([documentId]) => documentIds.has(documentId)));
    if (kept.size > 0) {
      restricted.set(queryId, kept);
    }
  }
  return restricted;
}
