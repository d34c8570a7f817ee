import type { ChunkRecord, KnowledgeBase, SearchResult } from '../model/search';
import { CITE_REPAIR_MAX_IDS, CITE_REPAIR_SIMILARITY, CITED_ID_MAX_CHARS } from '../limits';
import { previewOf } from './hostInputLimits';
import type { Citation, ConversationState } from './conversationState';

/**
 * Similarity of two strings as Python's `difflib.SequenceMatcher.ratio()` computes it (Ratcliff/Obershelp:
 * 2·matches / total length). Two unrelated UUIDs score about 0.5; a dropped or doubled character stays above 0.9.
 */
export function stringSimilarity(left: string, right: string): number {
  const total = left.length + right.length;
  return total === 0 ? 1 : (2 * matchingCharacters(left, 0, left.length, right, 0, right.length)) / total;
}

function matchingCharacters(left: string, leftStart: number, leftEnd: number, right: string, rightStart: number, rightEnd: number): number {
  let bestLength = 0;
  let bestLeft = leftStart;
  let bestRight = rightStart;
  // Longest common substring by dynamic programming over one row; ids are short, so O(n·m) is fine.
  let previous = new Array<number>(rightEnd - rightStart + 1).fill(0);
  for (let i = leftStart; i < leftEnd; i++) {
    const current = new Array<number>(rightEnd - rightStart + 1).fill(0);
    for (let j = rightStart; j < rightEnd; j++) {
      if (left[i] === right[j]) {
        const length = previous[j - rightStart] + 1;
        current[j - rightStart + 1] = length;
        if (length > bestLength) {
          bestLength = length;
          bestLeft = i - length + 1;
          bestRight = j - length + 1;
        }
      }
    }
    previous = current;
  }
  if (bestLength === 0) {
    return 0;
  }
  return (
    bestLength +
    matchingCharacters(left, leftStart, bestLeft, right, rightStart, bestRight) +
    matchingCharacters(left, bestLeft + bestLength, leftEnd, right, bestRight + bestLength, rightEnd)
  );
}

const LEADING_WRAPPERS = new Set(['[', '(', '"', "'", '`']);
const TRAILING_WRAPPERS = new Set([']', ')', '"', "'", '`']);
const WHITESPACE = /\s/;

/**
 * Strips what models wrap ids in: brackets, quotes, whitespace, a leading `chunk_id:`. Linear in the length
 * (a regular expression for the trailing part backtracked quadratically on long runs of spaces).
 */
export function normalizeCitedId(raw: string): string {
  let text = raw.trim();
  const prefix = /^chunk[_ ]?id\s*[:=]\s*/i.exec(text);
  if (prefix) {
    text = text.slice(prefix[0].length);
  }
  let start = 0;
  let end = text.length;
  while (start < end && (LEADING_WRAPPERS.has(text[start]) || WHITESPACE.test(text[start]))) {
    start++;
  }
  while (end > start && (TRAILING_WRAPPERS.has(text[end - 1]) || WHITESPACE.test(text[end - 1]))) {
    end--;
  }
  return text.slice(start, end);
}

/** The retrieved id closest to `id` when it is at least `CITE_REPAIR_SIMILARITY` alike and unambiguous. */
export function repairChunkId(id: string, knownIds: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = 0;
  let tie = false;
  for (const candidate of knownIds) {
    const score = stringSimilarity(id, candidate);
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
      tie = false;
    } else if (score === bestScore && candidate !== best) {
      tie = true;
    }
  }
  return best !== undefined && bestScore >= CITE_REPAIR_SIMILARITY && !tie ? best : undefined;
}

type CitationContent = Omit<Citation, 'index' | 'chunkId'>;

/**
 * A chunk's own metadata (`chunk_meta`): the store keeps no free-form chunk metadata, so this is the chunk's
 * structural columns as stored, in snake_case like the rest of the JSON the CLI and MCP print.
 */
export function chunkMetaOf(record: ChunkRecord): Record<string, unknown> {
  return {
    headings: [...record.headings],
    labels: [...record.labels],
    doc_item_refs: [...record.docItemRefs],
    page_numbers: [...record.pageNumbers],
    picture_refs: [...(record.pictureRefs ?? [])],
    source_range: record.sourceRange ?? null,
  };
}

/** A search result cites every chunk its expanded context merged; a plain record cites itself. */
function contentFromSearchResult(result: SearchResult): CitationContent {
  const content: CitationContent = { ...contentFromChunkRecord(result), chunkIds: result.mergedChunkIds && result.mergedChunkIds.length > 0 ? [...result.mergedChunkIds] : [result.chunkId] };
  if (result.chunkSourceRange) {
    content.chunkSourceRange = result.chunkSourceRange;
  }
  return content;
}

function contentFromChunkRecord(record: ChunkRecord): CitationContent {
  return {
    chunkIds: [record.chunkId],
    documentId: record.documentId,
    uri: record.uri,
    title: record.title,
    pageNumbers: [...record.pageNumbers],
    headings: [...record.headings],
    content: record.content,
    docItemRefs: [...record.docItemRefs],
    pictureRefs: [...(record.pictureRefs ?? [])],
    labels: [...record.labels],
    sourceRange: record.sourceRange,
    chunkMeta: chunkMetaOf(record),
  };
}

/** Every chunk id the question's searches showed, each mapped to the (expanded) result that showed it. */
export function retrievedResultsById(state: ConversationState): Map<string, SearchResult> {
  const byId = new Map<string, SearchResult>();
  for (const results of Object.values(state.searches)) {
    for (const result of results) {
      byId.set(result.chunkId, result);
      for (const merged of result.mergedChunkIds ?? []) {
        if (!byId.has(merged)) {
          byId.set(merged, result);
        }
      }
    }
  }
  return byId;
}

export interface CitationReport {
  /** Chunk ids registered, after repair. */
  accepted: string[];
  /** Ids as the model wrote them that resolved nowhere. */
  unknown: string[];
  /** Original id → the retrieved id it was repaired to. */
  repaired: Record<string, string>;
}

/**
 * Registers citations for the current question: exact ids of this question's searches (or of an earlier citation)
 * first, then near misses repaired to a retrieved id, then — for what is still unresolved, in one call — a direct
 * lookup in the knowledge base (ids surfaced by the sandbox's `items.jsonl` / `toc.json`), always within the
 * document filter.
 */
export async function registerCitations(
  state: ConversationState,
  knowledgeBase: KnowledgeBase,
  rawIds: readonly string[],
  options: { onCitationAdded?: (citation: Citation) => void } = {},
): Promise<CitationReport> {
  const retrieved = retrievedResultsById(state);
  const report: CitationReport = { accepted: [], unknown: [], repaired: {} };
  // One slot per id, in the model's order, so citations keep the order the model gave.
  const slots: Array<{ raw: string; id: string; content?: CitationContent }> = [];
  for (const rawId of rawIds) {
    const raw = String(rawId);
    if (raw.length > CITED_ID_MAX_CHARS) {
      // Callers refuse these first; never spend time on (or echo) a huge id here either.
      report.unknown.push(previewOf(raw));
      continue;
    }
    const id = normalizeCitedId(raw);
    if (id !== '') {
      const hit = retrieved.get(id);
      slots.push({ raw, id, content: hit ? contentFromSearchResult(hit) : contentOfEarlierCitation(state, id) });
    }
  }
  // Near misses are repaired against this run's retrieved ids first (reference §5.5); only what is left is
  // looked up in the store (ids the sandbox's `items.jsonl` / `toc.json` surfaced).
  let repairsLeft = CITE_REPAIR_MAX_IDS;
  for (const slot of slots) {
    if (slot.content !== undefined) {
      continue;
    }
    // Each repair scans every retrieved id: bounded per call so that a long list of junk ids stays cheap.
    const repairedId = repairsLeft-- > 0 ? repairChunkId(slot.id, retrieved.keys()) : undefined;
    const repairedHit = repairedId === undefined ? undefined : retrieved.get(repairedId);
    if (repairedId !== undefined && repairedHit) {
      report.repaired[slot.raw] = repairedId;
      slot.id = repairedId;
      slot.content = contentFromSearchResult(repairedHit);
    }
  }
  const pending = slots.filter((slot) => slot.content === undefined);
  if (pending.length > 0) {
    const records = await knowledgeBase.getChunks(
      pending.map((slot) => slot.id),
      { filter: state.documentFilter ?? undefined },
    );
    const recordsById = new Map(records.map((record) => [record.chunkId, record]));
    for (const slot of pending) {
      const record = recordsById.get(slot.id);
      if (record) {
        slot.content = contentFromChunkRecord(record);
      } else {
        report.unknown.push(slot.raw);
      }
    }
  }
  await addDocumentMeta(knowledgeBase, slots);
  for (const entry of slots) {
    if (!entry.content || report.accepted.includes(entry.id)) {
      continue;
    }
    const existing = state.citationIndex[entry.id];
    const index = existing?.index ?? nextCitationIndex(state);
    const citation: Citation = { index, chunkId: entry.id, ...entry.content };
    state.citationIndex[entry.id] = citation;
    if (!state.citations.includes(entry.id)) {
      state.citations.push(entry.id);
      options.onCitationAdded?.(citation);
    }
    report.accepted.push(entry.id);
  }
  return report;
}

/** A follow-up may cite what an earlier question cited: the same content, as the model saw it then. */
function contentOfEarlierCitation(state: ConversationState, chunkId: string): CitationContent | undefined {
  const earlier = state.citationIndex[chunkId];
  if (!earlier) {
    return undefined;
  }
  const { index: _index, chunkId: _chunkId, ...content } = earlier;
  return content;
}

/** Fills `documentMeta` from each cited document's stored metadata (one lookup per document). */
async function addDocumentMeta(knowledgeBase: KnowledgeBase, slots: ReadonlyArray<{ content?: CitationContent }>): Promise<void> {
  const byDocument = new Map<string, Promise<Record<string, unknown>>>();
  for (const slot of slots) {
    const content = slot.content;
    if (!content || content.documentMeta) {
      continue;
    }
    let meta = byDocument.get(content.documentId);
    if (!meta) {
      meta = knowledgeBase.getDocument(content.documentId).then((document) => ({ ...(document?.metadata ?? {}) }), () => ({}));
      byDocument.set(content.documentId, meta);
    }
    content.documentMeta = await meta;
  }
}

function nextCitationIndex(state: ConversationState): number {
  let highest = 0;
  for (const citation of Object.values(state.citationIndex)) {
    highest = Math.max(highest, citation.index);
  }
  return highest + 1;
}

/** What the cite tools answer the model. */
export function describeCitationReport(report: CitationReport, requested: number): string {
  if (requested === 0) {
    return 'Recorded: this answer cites no knowledge-base evidence. Answer now; say plainly if the knowledge base does not cover the question.';
  }
  if (report.accepted.length === 0) {
    return (
      `None of the ${requested} chunk id(s) matched a retrieved chunk: ${report.unknown.join(', ')}. Nothing was registered, so the answer has no citation yet. ` +
      'Copy chunk ids verbatim from the search results (the text inside the first [...] of a result) and call the cite tool again.'
    );
  }
  const repairs = Object.entries(report.repaired).map(([from, to]) => `${from} → ${to}`);
  let text = `Registered ${report.accepted.length} citation(s).`;
  if (repairs.length > 0) {
    text += ` Repaired near-miss id(s): ${repairs.join(', ')}.`;
  }
  if (report.unknown.length > 0) {
    text += ` Ignored ${report.unknown.length} unresolvable id(s): ${report.unknown.join(', ')}.`;
  }
  return text;
}
