/**
 * Query-side text helpers of the retrieval lever study (`scripts/retrievalLevers.ts`): a tokenizer that splits
 * like LanceDB's `simple` tokenizer, question-style query normalisation, and RM3 pseudo-relevance feedback
 * term selection. Pure functions, so they can move to `src/core/search` unchanged if a lever is adopted.
 */

/** The English stop words LanceDB's FTS removes (tantivy's list, the same as Lucene's). */
export const INDEX_STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** Words that make a query a question without carrying its topic. */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'what which who whom whose when where why how does do did is are was were can could should would will may might has have had'.split(' '),
);

/** Frequent function words beyond the index's list; expansion terms must not be these. */
export const FEEDBACK_STOP_WORDS: ReadonlySet<string> = new Set([
  ...INDEX_STOP_WORDS,
  ...QUESTION_WORDS,
  ...'also after all among although any been before being between both each from further here its more most other our over same she some than them those through under until very we were which while who whom within without would you your than however thus only these using used use both'.split(' '),
]);

/** Lowercase, accents folded, split on anything that is not a letter or digit (as LanceDB's `simple` tokenizer). */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

/**
 * A question-style query reduced to its topic words: question words (only when the query reads as a
 * question: it ends with "?" or starts with one) and punctuation go; claims are returned unchanged.
 */
export function normaliseQuestion(query: string): string {
  const tokens = tokenize(query);
  const isQuestion = /\?\s*$/.test(query) || (tokens.length > 0 && QUESTION_WORDS.has(tokens[0]));
  if (!isQuestion) {
    return query;
  }
  const kept = tokens.filter((token) => !QUESTION_WORDS.has(token));
  return kept.length > 0 ? kept.join(' ') : query;
}

/**
 * A crude plural folding used only to count "cell" and "cells" as one feedback term (LanceDB stems the
 * chosen surface form itself at query time).
 */
export function foldPlural(token: string): string {
  if (token.length > 4 && token.endsWith('ies')) {
    return `${token.slice(0, -3)}y`;
  }
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss') && !token.endsWith('us') && !token.endsWith('is')) {
    return token.slice(0, -1);
  }
  return token;
}

export interface FeedbackDocument {
  text: string;
  /** First-pass relevance (any positive scale; normalised over the feedback documents). */
  score: number;
}

export interface FeedbackOptions {
  /** Expansion terms kept. */
  terms: number;
  /** Terms in more than this share of the corpus's documents are never chosen (they carry no topic). */
  maxDocumentFrequency: number;
  /** Corpus document frequency by folded term, and the corpus size. */
  documentFrequency: ReadonlyMap<string, number>;
  documentCount: number;
}

/**
 * RM1 (relevance model) term weights from the feedback documents, as Anserini's RM3 computes them:
 * Σ_D P(D|Q) · tf(t, D) / |D| with P(D|Q) the normalised first-pass score, pruned to the top `terms` and
 * renormalised to sum 1. Returns surface forms (the most frequent spelling of each folded term), best first.
 */
export function relevanceModelTerms(documents: readonly FeedbackDocument[], options: FeedbackOptions): Array<{ term: string; weight: number }> {
  const totalScore = documents.reduce((sum, document) => sum + Math.max(0, document.score), 0);
  const weights = new Map<string, number>();
  const spellings = new Map<string, Map<string, number>>();
  for (const document of documents) {
    const documentWeight = totalScore > 0 ? Math.max(0, document.score) / totalScore : 1 / documents.length;
    const tokens = tokenize(document.text);
    if (tokens.length === 0) {
      continue;
    }
    const counts = new Map<string, number>();
    for (const token of tokens) {
      if (token.length < 3 || /^\p{N}+$/u.test(token) || FEEDBACK_STOP_WORDS.has(token)) {
        continue;
      }
      const folded = foldPlural(token);
      counts.set(folded, (counts.get(folded) ?? 0) + 1);
      const spelled = spellings.get(folded) ?? new Map<string, number>();
      spelled.set(token, (spelled.get(token) ?? 0) + 1);
      spellings.set(folded, spelled);
    }
    for (const [folded, count] of counts) {
      weights.set(folded, (weights.get(folded) ?? 0) + (documentWeight * count) / tokens.length);
    }
  }
  const limit = options.maxDocumentFrequency * options.documentCount;
  const kept = [...weights]
    .filter(([folded]) => (options.documentFrequency.get(folded) ?? 0) <= limit)
    .sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1))
    .slice(0, options.terms);
  const sum = kept.reduce((total, [, weight]) => total + weight, 0);
  return kept.map(([folded, weight]) => {
    const spelled = [...spellings.get(folded)!].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1));
    return { term: spelled[0][0], weight: sum > 0 ? weight / sum : 0 };
  });
}

/** Document frequency of each folded term over a corpus of texts (for `relevanceModelTerms`). */
export function documentFrequencies(texts: Iterable<string>): { documentFrequency: Map<string, number>; documentCount: number } {
  const documentFrequency = new Map<string, number>();
  let documentCount = 0;
  for (const text of texts) {
    documentCount++;
    for (const folded of new Set(tokenize(text).map(foldPlural))) {
      documentFrequency.set(folded, (documentFrequency.get(folded) ?? 0) + 1);
    }
  }
  return { documentFrequency, documentCount };
}

/** Query tokens that count as query terms for RM3's interpolation (what the index would keep). */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query).filter((token) => !INDEX_STOP_WORDS.has(token)))];
}
