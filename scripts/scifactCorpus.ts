import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../src/core/embeddings/embedder';
import { indexPaths, type IndexProgress, type IndexSummary } from '../src/node/index/indexer';
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
