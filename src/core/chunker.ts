// o200k_base is the encoding of current OpenAI models; the package exposes one entry point per encoding
// (`gpt-tokenizer/encoding/<name>`, mapped by its `exports` "./*" pattern), so only this table is loaded.
import { countTokens as countTokensWhole, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { asciiPieceTokenCount, longPieceTokenCount, longPieceTokens } from './asciiPieceTokens';
import { asciiPieceEnd } from './preTokenizer';
import { contiguousCopy } from './contiguousString';
import { stableHash } from './hash';
import { unionSourceRanges } from './sourceRanges';
import { PieceCountTable } from './pieceCountTable';
import { CHUNK_MAX_TOKENS, CHUNK_MIN_CONTENT_TOKENS, CHUNK_TOKEN_CACHE_PIECE_CHARS, CHUNK_TOKEN_CACHE_PIECES, MAX_DOCUMENT_CHUNKS } from './limits';
import { chunkSearchText, type Chunk } from './model/chunk';
import { NOISE_LABELS, type DocumentItem, type ItemLabel } from './model/document';

/** How chunk sizes are measured, for reports and the index's metadata. */
export const CHUNK_TOKENIZER_NAME = 'o200k_base (gpt-tokenizer)';

/** Separator between the items of one chunk (the same one context expansion uses). */
const ITEM_SEPARATOR = '\n\n';

/**
 * Tokens a join may add on top of the two sides' own counts. BPE pieces never span a whitespace join, so
 * joining costs at most the separator's token; the corpus test re-counts every chunk to keep this honest.
 */
const JOIN_TOKENS = 1;

/** Texts longer than this many characters per budget token are measured sentence by sentence (English averages ~4.5). */
const LONG_TEXT_CHARS_PER_TOKEN = 4;

/** Characters per budget token examined when cutting between characters (no o200k token is this long). */
const CHARACTER_WINDOW_CHARS_PER_TOKEN = 64;

type ItemSource = Pick<DocumentItem, 'selfRef' | 'label' | 'text' | 'headingLevel' | 'pageNumbers' | 'sourceRange'> & { position?: number };

/**
 * Splits a document into retrievable chunks, structure-aware (like Docling's HybridChunker with merge_peers):
 * - chunks follow item boundaries; consecutive items under the same heading trail merge while they fit;
 * - a `title` or `section_header` closes the open chunk; its text joins the heading trail (a title is the
 *   level-0 root, a header of level L replaces trail entries of level ≥ L) and its ref goes into the first
 *   chunk of its section; a header whose section has no content becomes a chunk of its own text, so every
 *   header is searchable;
 * - the token limit covers what is embedded: the heading trail, a newline and the content (`searchText`),
 *   except that a very long trail leaves at least `CHUNK_MIN_CONTENT_TOKENS` for content;
 * - an item over the budget is split into balanced parts at sentence boundaries (line boundaries for code
 *   and tables), then at whitespace, and as a last resort between characters, so no chunk exceeds the
 *   limit, not even for an unbroken 10 kB token run; items that fit (tables and code included) are never split;
 * - noise items (page headers/footers, footnotes, document indexes) are left out; text-less items (pictures
 *   without a caption) only lend their ref to the chunk they sit in;
 * - a picture and the caption right after it share a chunk, so the picture's text (alt text, description) and its
 *   caption find the chunk holding its ref.
 * Ids hash the document id, the chunk's `searchText` and its occurrence index among identical texts, so they
 * survive re-indexing as long as the chunk and its heading trail are unchanged (and an unchanged id always
 * means an unchanged embedding input). `tokenCount` is an upper bound of `searchText`'s tokens: exact per
 * item, plus one token per join.
 */
export function chunkDocument(document: { id: string; items: readonly ItemSource[] }, options?: ChunkOptions): Chunk[] {
  return chunkDocumentWithinLimit(document, options).chunks;
}

export interface ChunkOptions {
  maxTokens?: number;
  /** Chunks kept at most; defaults to `MAX_DOCUMENT_CHUNKS`. */
  maxChunks?: number;
}

/** `chunkDocument` that also says whether chunks past `maxChunks` were dropped (the caller warns about it). */
export function chunkDocumentWithinLimit(document: { id: string; items: readonly ItemSource[] }, options?: ChunkOptions): { chunks: Chunk[]; truncated: boolean } {
  const { take, truncated } = chunkDocumentInParts(document, options);
  return { chunks: take(Number.POSITIVE_INFINITY), truncated };
}

/**
 * `chunkDocumentWithinLimit` for a big document sent in parts: the same chunks, made in order only as they are taken
 * (`take`), so a 60,000-chunk document's chunks never all exist at once beside its items.
 */
export function chunkDocumentInParts(document: { id: string; items: readonly ItemSource[] }, options?: ChunkOptions): ChunksInParts {
  const chunking = chunkItemsAsTheyCome(document.id, options);
  chunking.add(document.items);
  return chunking.finish();
}

/** A big document's chunks, made in order as they are taken. */
export interface ChunksInParts {
  /** Chunks in all, those already made (`chunkItemsAsTheyCome`'s `ready`) included. */
  count: number;
  truncated: boolean;
  /** The next chunks, at least one while any is left, up to about `maxChars` of text; none at the end. */
  take(maxChars: number): Chunk[];
}

/**
 * `chunkDocumentInParts` over items given a few at a time, in order (`add`), so that a caller can chunk a part of
 * the items while the part before is written. `ready` makes the chunks already complete (their items all given), so
 * they can go with the items part that completed them; `finish`, once every item was given, makes the rest.
 */
export function chunkItemsAsTheyCome(documentId: string, options?: ChunkOptions): { add(items: readonly ItemSource[]): void; ready(): Chunk[]; finish(): ChunksInParts } {
  const maxChunks = options?.maxChunks ?? MAX_DOCUMENT_CHUNKS;
  const builder = new ChunkBuilder(options?.maxTokens ?? CHUNK_MAX_TOKENS);
  const maker = new ChunkMaker(documentId);
  const drafts = builder.drafts;
  let next = 0;
  /** Makes the next chunk: made is made, so the draft (and the items only it still holds) can go. */
  const makeNext = (): Chunk => {
    const chunk = maker.make(drafts[next]);
    drafts[next++] = undefined as unknown as DraftChunk;
    return chunk;
  };
  return {
    add(items: readonly ItemSource[]): void {
      for (const item of items) {
        // Past the limit, chunking the rest would only be thrown away.
        if (builder.draftCount > maxChunks) {
          return;
        }
        builder.add(item);
      }
    },
    ready(): Chunk[] {
      const chunks: Chunk[] = [];
      while (next < Math.min(drafts.length, maxChunks)) {
        chunks.push(makeNext());
      }
      return chunks;
    },
    finish(): ChunksInParts {
      builder.finish();
      const truncated = drafts.length > maxChunks;
      const count = Math.min(drafts.length, maxChunks);
      return {
        count,
        truncated,
        take(maxChars: number): Chunk[] {
          const chunks: Chunk[] = [];
          let chars = 0;
          while (next < count && (chunks.length === 0 || chars < maxChars)) {
            const chunk = makeNext();
            chars += chunk.content.length + chunk.searchText.length;
            chunks.push(chunk);
          }
          return chunks;
        },
      };
    },
  };
}

/**
 * Turns drafts, in order, into chunks. A chunk's id hashes its document, its text and how many chunks before it had
 * the same text; repeats are counted by the id of the text's first occurrence, not by the text (which kept every
 * chunk's text alive a second time).
 */
class ChunkMaker {
  private readonly repeats = new Map<string, number>();
  private order = 0;

  constructor(private readonly documentId: string) {}

  make(draft: DraftChunk): Chunk {
    const searchText = chunkSearchText(draft);
    const firstId = stableHash(`${this.documentId}\u0000${searchText}\u00000`);
    const occurrence = this.repeats.get(firstId) ?? 0;
    this.repeats.set(firstId, occurrence + 1);
    return {
      id: occurrence === 0 ? firstId : stableHash(`${this.documentId}\u0000${searchText}\u0000${occurrence}`),
      documentId: this.documentId,
      order: this.order++,
      content: draft.content,
      searchText,
      docItemRefs: draft.items.map((item) => item.selfRef),
      labels: draft.items.map((item) => item.label),
      headings: draft.headings,
      pageNumbers: distinctSorted(draft.items.flatMap((item) => item.pageNumbers)),
      sourceRange: unionSourceRanges(draft.items.map((item) => item.sourceRange)),
      tokenCount: draft.tokenCount,
    };
  }
}

export function countChunkTokens(text: string): number {
  return countTokens(text);
}

/**
 * o200k's pre-tokenizer: BPE never merges across its pieces, so a text's count is the sum of its pieces' counts.
 * A copy, so our `lastIndex` never leaks into the library's own `matchAll` (which starts from the original's).
 */
const TOKEN_PIECE = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);
const pieceTokenCounts = new PieceCountTable({ maxEntries: CHUNK_TOKEN_CACHE_PIECES, maxPieceLength: CHUNK_TOKEN_CACHE_PIECE_CHARS });

function countPieceTokens(piece: string): number {
  return asciiPieceTokenCount(piece) ?? longPieceTokenCount(piece) ?? countTokensWhole(piece);
}

/**
 * Exact o200k token count, piece by piece with the counts of recurring pieces (words) remembered: a fraction of
 * the CPU time of the tokenizer's own `countTokens`, which looks every piece up in its 200k-entry table and
 * reorders its merge cache on each hit. Pieces are found by `asciiPieceEnd` where ASCII decides them and by the
 * pre-tokenizer regex elsewhere. Special-token text such as `<|endoftext|>` counts as the plain text it is in a
 * document: the pre-tokenizer splits it, and no special token is a piece of its own (the library's `countTokens`
 * throws on the whole text).
 */
function countTokens(text: string): number {
  let count = 0;
  let start = 0;
  while (start < text.length) {
    let pieceStart = start;
    let end = asciiPieceEnd(text, start);
    if (end < 0) {
      TOKEN_PIECE.lastIndex = start;
      const match = TOKEN_PIECE.exec(text);
      if (match === null) {
        break;
      }
      pieceStart = match.index;
      end = pieceStart + match[0].length;
    }
    count += pieceTokenCounts.countOf(text, pieceStart, end, countPieceTokens);
    start = end;
  }
  return count;
}

/** A contiguous piece of one item's text: the whole item, or one part of a split item. */
interface Segment {
  item: ItemSource;
  text: string;
  tokens: number;
  /** Separator before this segment when it follows a part of the same item. */
  joiner: string;
}

interface OpenChunk {
  segments: Segment[];
  /** Upper bound of the content's tokens. */
  tokens: number;
  /** Refs without text of their own (headers, empty pictures) that belong to this chunk, before its segments. */
  leadingItems: ItemSource[];
  /** Empty-text items met after the first segment, with the segment count at that moment. */
  trailingItems: Array<{ item: ItemSource; afterSegment: number }>;
}

interface HeadingEntry {
  level: number;
  text: string;
}

interface DraftChunk {
  content: string;
  headings: string[];
  items: ItemSource[];
  tokenCount: number;
}

class ChunkBuilder {
  /** Finished drafts, in order: one is never changed once here (`chunkItemsAsTheyCome` makes chunks of them early). */
  readonly drafts: DraftChunk[] = [];
  private trail: HeadingEntry[] = [];
  /** Headers (and text-less items) waiting for the first content of their section. */
  private pending: ItemSource[] = [];
  private open: OpenChunk | undefined;
  /** A picture waiting for the next item: a caption right after it joins its chunk. */
  private heldPicture: ItemSource | undefined;
  private readonly trailCosts = new Map<string, number>();
  /** Content tokens the current trail leaves (cached until the trail changes). */
  private budget: number | undefined;

  constructor(private readonly maxTokens: number) {}

  get draftCount(): number {
    return this.drafts.length;
  }

  add(item: ItemSource): void {
    if (NOISE_LABELS.has(item.label)) {
      return;
    }
    const picture = this.heldPicture;
    this.heldPicture = undefined;
    if (picture && item.label === 'caption') {
      this.addPictureWithCaption(picture, item);
      return;
    }
    if (picture) {
      this.addItem(picture);
    }
    if (item.label === 'picture') {
      this.heldPicture = item;
      return;
    }
    this.addItem(item);
  }

  /**
   * A picture and the caption after it go into one chunk, so full-text search for the caption's words (or the
   * picture's alt text or description) returns the chunk that holds the picture's ref. They join the open chunk
   * when both fit, else start the next one together; only a pair over the budget is split like any text.
   */
  private addPictureWithCaption(picture: ItemSource, caption: ItemSource): void {
    const pictureText = picture.text.trim();
    const captionText = caption.text.trim();
    const pairTokens = countTokens(pictureText) + JOIN_TOKENS + countTokens(captionText);
    const budget = this.contentBudget();
    if (pairTokens <= budget && this.open && this.open.tokens + JOIN_TOKENS + pairTokens > budget) {
      this.closeOpen();
    }
    this.addItem(picture);
    this.addItem(caption);
  }

  private addItem(item: ItemSource): void {
    if (item.label === 'title' || item.label === 'section_header') {
      this.startSection(item);
      return;
    }
    // Code keeps the indentation of its first line.
    // One contiguous copy: converters build texts by concatenation, and every part measured is cut from it.
    const text = contiguousCopy(item.label === 'code' ? item.text.replace(/^\s*\n/, '').trimEnd() : item.text.trim());
    if (text.length === 0) {
      if (this.open) {
        this.open.trailingItems.push({ item, afterSegment: this.open.segments.length });
      } else {
        this.pending.push(item);
      }
      return;
    }
    const budget = this.contentBudget();
    const levels = splitLevelsFor(item.label);
    // Each text is tokenised once. A long text is measured unit by unit (sentences or lines) straight away:
    // it most likely needs splitting, and the unit counts then serve both the fit test and the packing.
    const units = text.length > budget * LONG_TEXT_CHARS_PER_TOKEN ? measureUnits(text, levels[0] as Exclude<SplitLevel, 'character'>) : undefined;
    let tokens: number | undefined;
    if (units === undefined) {
      tokens = countTokens(text);
    } else {
      const unitTokens = units.reduce((sum, unit) => sum + unit.tokens, 0);
      const upperBound = unitTokens + JOIN_TOKENS * (units.length - 1);
      if (upperBound <= budget) {
        tokens = upperBound;
      } else if (unitTokens <= budget) {
        // Only the join allowance is in doubt: settle it with one exact count.
        const exact = countTokens(text);
        tokens = exact <= budget ? exact : undefined;
      }
    }
    if (tokens !== undefined && tokens <= budget) {
      this.append({ item, text, tokens, joiner: ITEM_SEPARATOR }, budget);
      return;
    }
    // Oversized: its parts become chunks of their own; the last one stays open for following peers.
    this.closeOpen();
    const parts = packUnits(text, units ?? measureUnits(text, levels[0] as Exclude<SplitLevel, 'character'>), budget, levels);
    for (const part of parts) {
      this.append({ item, text: part.text, tokens: part.tokens, joiner: part.joiner }, budget);
    }
  }

  finish(): DraftChunk[] {
    if (this.heldPicture) {
      this.addItem(this.heldPicture);
      this.heldPicture = undefined;
    }
    this.closeOpen();
    this.closeEmptySections(Number.NEGATIVE_INFINITY);
    return this.drafts;
  }

  private append(segment: Segment, budget: number): void {
    const open = this.open;
    if (open && open.tokens + JOIN_TOKENS + segment.tokens <= budget) {
      open.segments.push(segment);
      open.tokens += JOIN_TOKENS + segment.tokens;
      return;
    }
    this.closeOpen();
    this.open = { segments: [segment], tokens: segment.tokens, leadingItems: this.pending, trailingItems: [] };
    this.pending = [];
  }

  private startSection(header: ItemSource): void {
    this.closeOpen();
    const level = header.label === 'title' ? 0 : header.headingLevel;
    this.closeEmptySections(level);
    this.trail = this.trail.filter((entry) => entry.level < level);
    this.budget = undefined;
    const text = header.text.trim();
    if (text.length > 0) {
      this.trail.push({ level, text });
    }
    this.pending.push(header);
  }

  /**
   * Pending headers at `level` or deeper are sections that ended without content: they become one chunk
   * of their own text under the trail above them (with every pending ref), so they stay searchable.
   */
  private closeEmptySections(level: number): void {
    const firstClosing = this.pending.findIndex((item) => isHeader(item) && headerLevel(item) >= level && item.text.trim().length > 0);
    if (firstClosing < 0) {
      if (level === Number.NEGATIVE_INFINITY) {
        this.pending = [];
      }
      return;
    }
    const closingLevel = headerLevel(this.pending[firstClosing]);
    const headings = this.trail.filter((entry) => entry.level < closingLevel).map((entry) => entry.text);
    const closing = this.pending.filter((item, index) => index >= firstClosing && isHeader(item) && item.text.trim().length > 0);
    const content = closing.map((item) => item.text.trim()).join(ITEM_SEPARATOR);
    this.drafts.push({ content, headings, items: this.pending, tokenCount: this.trailCost(headings) + countTokens(content) });
    this.pending = [];
  }

  private closeOpen(): void {
    const open = this.open;
    if (!open) {
      return;
    }
    this.open = undefined;
    const items: ItemSource[] = [...open.leadingItems];
    let trailingIndex = 0;
    open.segments.forEach((segment, index) => {
      while (trailingIndex < open.trailingItems.length && open.trailingItems[trailingIndex].afterSegment <= index) {
        items.push(open.trailingItems[trailingIndex++].item);
      }
      // Parts of one split item share its ref once per chunk.
      if (items[items.length - 1] !== segment.item) {
        items.push(segment.item);
      }
    });
    for (; trailingIndex < open.trailingItems.length; trailingIndex++) {
      items.push(open.trailingItems[trailingIndex].item);
    }
    const headings = this.trail.map((entry) => entry.text);
    const single = open.segments.length === 1;
    const content = single ? open.segments[0].text : joinSegments(open.segments);
    this.drafts.push({ content, headings, items, tokenCount: this.trailCost(headings) + open.tokens });
  }

  private contentBudget(): number {
    if (this.budget === undefined) {
      const headings = this.trail.map((entry) => entry.text);
      this.budget = Math.max(this.maxTokens - this.trailCost(headings), Math.min(CHUNK_MIN_CONTENT_TOKENS, this.maxTokens));
    }
    return this.budget;
  }

  /** Tokens the heading trail and its newline add to `searchText` (counted once per distinct trail). */
  private trailCost(headings: readonly string[]): number {
    if (headings.length === 0) {
      return 0;
    }
    const key = headings.join('\n');
    let cost = this.trailCosts.get(key);
    if (cost === undefined) {
      cost = countTokens(key) + JOIN_TOKENS;
      this.trailCosts.set(key, cost);
    }
    return cost;
  }
}

/** Items are separated by a blank line; parts of one split item by what split them. */
function joinSegments(segments: readonly Segment[]): string {
  let content = segments[0].text;
  for (let index = 1; index < segments.length; index++) {
    const segment = segments[index];
    const separator = segment.item !== segments[index - 1].item ? ITEM_SEPARATOR : segment.joiner;
    content += separator + segment.text;
  }
  return content;
}

function isHeader(item: ItemSource): boolean {
  return item.label === 'title' || item.label === 'section_header';
}

function headerLevel(item: ItemSource): number {
  return item.label === 'title' ? 0 : item.headingLevel;
}

type SplitLevel = 'sentence' | 'line' | 'word' | 'character';

/** Prose splits at sentences; code and tables keep whole lines (a table row is a line). */
function splitLevelsFor(label: ItemLabel): SplitLevel[] {
  return label === 'code' || label === 'table' ? ['line', 'word', 'character'] : ['sentence', 'word', 'character'];
}

interface TextPart {
  text: string;
  tokens: number;
  /** What separates this part from the previous part of the same item: a space, a line end, or nothing (characters). */
  joiner: string;
}

interface MeasuredUnit {
  /** [start, end) in the measured text, trimmed. */
  start: number;
  end: number;
  tokens: number;
}

/** Sentence ends: terminal punctuation (plus closing quotes/brackets) before whitespace and a capital, digit or opening mark; or CJK full stops. */
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s+["'“‘([]?[\p{Lu}\p{N}])|[。！？]+/gu;

/** The units of `text` at one level (sentences, lines or words), trimmed and counted. */
function measureUnits(text: string, level: Exclude<SplitLevel, 'character'>): MeasuredUnit[] {
  return unitSpans(text, level).map(([spanStart, spanEnd]) => {
    const [start, end] = trimSpan(text, spanStart, spanEnd, level);
    return { start, end, tokens: countTokens(text.slice(start, end)) };
  });
}

/**
 * Packs consecutive units of `text` into parts of at most `budget` tokens (one token allowed per join, an
 * upper bound), keeping the original text between them. Parts are balanced: a part closes where a unit's
 * middle would cross its share of the total, so 300 tokens become two parts of ~150 rather than 256 + 44.
 * A unit that alone exceeds the budget is split at the next level.
 */
function packUnits(text: string, units: readonly MeasuredUnit[], budget: number, levels: readonly SplitLevel[]): TextPart[] {
  const joiner = levels[0] === 'line' ? '\n' : ' ';
  const total = units.reduce((sum, unit) => sum + Math.min(unit.tokens, budget) + JOIN_TOKENS, -JOIN_TOKENS);
  const share = total / Math.max(1, Math.ceil(total / budget));
  const parts: TextPart[] = [];
  let current: MeasuredUnit | undefined;
  let consumed = 0;
  let boundary = share;
  const flush = (): void => {
    if (current) {
      parts.push({ text: text.slice(current.start, current.end), tokens: current.tokens, joiner });
      current = undefined;
      boundary = Math.max(boundary + share, consumed + share);
    }
  };
  for (const unit of units) {
    if (unit.tokens > budget) {
      flush();
      parts.push(...splitText(text.slice(unit.start, unit.end), budget, levels.slice(1), joiner));
      consumed += unit.tokens + JOIN_TOKENS;
      boundary = consumed + share;
      continue;
    }
    const fits = current !== undefined && current.tokens + JOIN_TOKENS + unit.tokens <= budget;
    if (current && fits && consumed + unit.tokens / 2 <= boundary) {
      current = { start: current.start, end: unit.end, tokens: current.tokens + JOIN_TOKENS + unit.tokens };
    } else {
      flush();
      current = { ...unit };
    }
    consumed += unit.tokens + JOIN_TOKENS;
  }
  flush();
  return parts;
}

/** Splits a text over the budget at the first of `levels`; the first part joins what came before with `firstJoiner`. */
function splitText(text: string, budget: number, levels: readonly SplitLevel[], firstJoiner: string): TextPart[] {
  const level = levels[0];
  const parts = level === undefined || level === 'character' ? splitCharacters(text, budget) : packUnits(text, measureUnits(text, level), budget, levels);
  if (parts.length > 0) {
    parts[0] = { ...parts[0], joiner: firstJoiner };
  }
  return parts;
}

function trimSpan(text: string, start: number, end: number, level: SplitLevel): [number, number] {
  // Code keeps its indentation: only line ends are dropped at the start.
  while (start < end && (level === 'line' ? text[start] === '\n' || text[start] === '\r' : /\s/.test(text[start]))) {
    start++;
  }
  while (end > start && /\s/.test(text[end - 1])) {
    end--;
  }
  return [start, end];
}

/** [start, end) spans of the units of `text`, each non-empty, in order, covering every non-space character. */
function unitSpans(text: string, level: Exclude<SplitLevel, 'character'>): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  if (level === 'word') {
    for (const match of text.matchAll(/\S+/g)) {
      spans.push([match.index, match.index + match[0].length]);
    }
    return spans;
  }
  let start = 0;
  const push = (end: number): void => {
    if (/\S/.test(text.slice(start, end))) {
      spans.push([start, end]);
    }
    start = end;
  };
  if (level === 'line') {
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) {
      push(index);
    }
  } else {
    for (const match of text.matchAll(SENTENCE_END)) {
      push(match.index + match[0].length);
    }
  }
  push(text.length);
  return spans;
}

/** Special-token text (`<|endoftext|>`) in a document is plain text, as for the counts. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Last resort for an unbroken run longer than the budget (a URL, base64, minified code): each part is the
 * text of the next `budget` tokens, found by encoding a bounded window once and decoding its first tokens.
 */
function splitCharacters(text: string, budget: number): TextPart[] {
  const parts: TextPart[] = [];
  let rest = text;
  while (rest.length > 0) {
    // BPE over one long piece is superlinear: start with a small window and widen it only while it fits.
    let windowChars = budget * 4;
    let window = rest.slice(0, windowChars);
    let tokens = encodeWindow(window);
    while (tokens.length <= budget && window.length < rest.length && windowChars < budget * CHARACTER_WINDOW_CHARS_PER_TOKEN) {
      windowChars *= 2;
      window = rest.slice(0, windowChars);
      tokens = encodeWindow(window);
    }
    let cut: number;
    if (tokens.length <= budget) {
      cut = window.length;
    } else {
      // A decoded prefix can end in half a character (U+FFFD): keep only what matches the text.
      const decoded = decode(tokens.slice(0, budget));
      cut = 0;
      while (cut < decoded.length && decoded[cut] === rest[cut]) {
        cut++;
      }
    }
    cut = Math.max(1, cut);
    if (cut < rest.length && /[\uDC00-\uDFFF]/.test(rest[cut])) {
      // Never separate a surrogate pair.
      cut = cut > 1 ? cut - 1 : cut + 1;
    }
    let piece = rest.slice(0, cut);
    let pieceTokens = countTokens(piece);
    while (pieceTokens > budget && cut > 1) {
      cut = Math.max(1, Math.floor(cut * 0.9));
      piece = rest.slice(0, cut);
      pieceTokens = countTokens(piece);
    }
    parts.push({ text: piece, tokens: pieceTokens, joiner: '' });
    rest = rest.slice(cut);
  }
  return parts;
}

/**
 * The library's `encode(window)`. A window inside an unbroken run of letters is one pre-tokenizer piece, which the
 * library merges by a scan per merge (quadratic): `longPieceTokens` gives the same tokens in O(n log n).
 */
function encodeWindow(window: string): number[] {
  return (isOnePiece(window) ? longPieceTokens(window) : undefined) ?? encode(window, PLAIN_TEXT);
}

function isOnePiece(text: string): boolean {
  const end = asciiPieceEnd(text, 0);
  if (end >= 0) {
    return end === text.length;
  }
  TOKEN_PIECE.lastIndex = 0;
  const match = TOKEN_PIECE.exec(text);
  return match !== null && match.index === 0 && match[0].length === text.length;
}

function distinctSorted(numbers: readonly number[]): number[] {
  return [...new Set(numbers)].sort((left, right) => left - right);
}
