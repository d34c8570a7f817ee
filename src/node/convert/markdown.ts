import MarkdownIt from 'markdown-it';
import type { ConvertedDocument, SourceRange } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { MARKDOWN_SEGMENT_CHARS } from '../../core/limits';
import { DocumentBuilder, LineIndex, markdownTable } from './documentBuilder';
import { firstHeadingText, jsonCommentTitle, parseHtml, readImages, walkHtml, type ConvertOptions, type LocalImageConvertOptions } from './html';
import { localPicturesFor, type LocalPictures } from './pictures/localImages';

type Markdown = InstanceType<typeof MarkdownIt>;
type Token = MarkdownIt.Token;
type BlockState = MarkdownIt.StateBlock;
type InlineState = MarkdownIt.StateInline;
type BlockRule = (state: BlockState, startLine: number, endLine: number, silent: boolean) => boolean;
type InlineRule = (state: InlineState, silent: boolean) => boolean;
type MarkdownEnv = Parameters<Markdown['parse']>[1];
/** Link reference definitions by label, as markdown-it keeps them in its `env`. */
type References = NonNullable<MarkdownEnv['references']>;

/** `## Title {#anchor}` (VitePress, the Go site): the attribute block is markup, not title text. */
const HEADING_ANCHOR = /\s*\{#[^}]*\}\s*$/;

/** Start and end offsets (in markdown-it's normalised source) recorded on tokens by the wrapped rules. */
interface TokenSpan {
  start: number;
  end: number;
}

const spans = new WeakMap<Token, TokenSpan>();

let parser: Markdown | undefined;

/**
 * markdown-it (CommonMark + GFM tables and strikethrough), with raw HTML on and links never rewritten.
 * Every block rule is wrapped to record where its tokens start (the first non-blank character of their line, inside
 * their containers) and end, since markdown-it's `map` only gives lines; images record their inline offsets.
 * GFM footnotes are recognised just enough to keep them out of the text (definitions become footnote items).
 */
function markdownParser(): Markdown {
  if (parser) {
    return parser;
  }
  const created = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
  // Links and images are never rendered, so their targets need no validation or normalisation (which would turn
  // a `javascript:` link back into text and cost time).
  created.validateLink = () => true;
  created.normalizeLink = (url) => url;
  created.normalizeLinkText = (text) => text;
  created.block.ruler.before('reference', 'footnote_definition', footnoteDefinition, { alt: ['paragraph', 'reference'] });
  created.inline.ruler.before('link', 'footnote_reference', footnoteReference);
  for (const name of blockRuleNames(created)) {
    const rule = blockRule(created, name);
    created.block.ruler.at(name, (state, startLine, endLine, silent) => {
      const before = state.tokens.length;
      const matched = rule(state, startLine, endLine, silent);
      if (matched && !silent) {
        recordBlockSpans(state, before);
      }
      return matched;
    }, { alt: blockRuleAlternatives(created, name) });
  }
  const backticks = inlineRule(created, 'backticks');
  created.inline.ruler.at('backticks', (state, silent) => {
    const start = state.pos;
    const before = state.tokens.length;
    const matched = backticks(state, silent);
    const token = state.tokens[state.tokens.length - 1];
    if (matched && !silent && state.tokens.length > before && token.type === 'code_inline') {
      token.content = codeSpanText(state.src.slice(start + token.markup.length, state.pos - token.markup.length));
    }
    return matched;
  });
  const image = inlineRule(created, 'image');
  created.inline.ruler.at('image', (state, silent) => {
    const start = state.pos;
    const matched = image(state, silent);
    if (matched && !silent) {
      spans.set(state.tokens[state.tokens.length - 1], { start, end: state.pos });
    }
    return matched;
  });
  parser = created;
  return created;
}

interface RuleEntry<T> {
  name: string;
  fn: T;
  alt: string[];
}

function blockRules(markdown: Markdown): Array<RuleEntry<BlockRule>> {
  return (markdown.block.ruler as unknown as { __rules__: Array<RuleEntry<BlockRule>> }).__rules__;
}

function blockRuleNames(markdown: Markdown): string[] {
  return blockRules(markdown).map((entry) => entry.name);
}

function blockRule(markdown: Markdown, name: string): BlockRule {
  return blockRules(markdown).find((entry) => entry.name === name)!.fn;
}

function blockRuleAlternatives(markdown: Markdown, name: string): string[] {
  return blockRules(markdown).find((entry) => entry.name === name)!.alt;
}

function inlineRule(markdown: Markdown, name: string): InlineRule {
  const rules = (markdown.inline.ruler as unknown as { __rules__: Array<RuleEntry<InlineRule>> }).__rules__;
  return rules.find((entry) => entry.name === name)!.fn;
}

/**
 * A code span's text as CommonMark defines it, except that line endings stay line endings (mdast kept them, and
 * chunk texts should not change with the parser): one space or line ending is stripped from each side when both
 * sides have one and the span is not all spaces.
 */
function codeSpanText(raw: string): string {
  return raw.length > 2 && /^[ \n]/.test(raw) && /[ \n]$/.test(raw) && /[^ \n]/.test(raw) ? raw.slice(1, -1) : raw;
}

/** Gives the tokens a rule just added their start (first non-blank character of the first line) and end offsets. */
function recordBlockSpans(state: BlockState, from: number): void {
  for (let index = from; index < state.tokens.length; index++) {
    const token = state.tokens[index];
    if (!token.map || spans.has(token) || token.nesting === -1) {
      continue;
    }
    const [firstLine, endLine] = token.map;
    // Indented code starts where its container's content starts, before the indentation (as mdast counted).
    const start = token.type === 'code_block' ? indentStart(state, firstLine) : state.bMarks[firstLine] + state.tShift[firstLine];
    let lastLine = Math.max(firstLine, endLine - 1);
    while (lastLine > firstLine && state.isEmpty(lastLine)) {
      lastLine--;
    }
    let end = state.eMarks[lastLine];
    while (end > start && isBlank(state.src.charCodeAt(end - 1))) {
      end--;
    }
    spans.set(token, { start, end });
  }
}

/** The offset on `line` where the current container's content column (`blkIndent`) is reached. */
function indentStart(state: BlockState, line: number): number {
  let offset = state.bMarks[line];
  let column = 0;
  const end = state.bMarks[line] + state.tShift[line];
  while (offset < end && column < state.blkIndent) {
    column = state.src.charCodeAt(offset) === 0x09 ? column + 4 - (column % 4) : column + 1;
    offset++;
  }
  return offset;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** `[^label]: text` up to the next blank line: a footnote token whose content is the text. */
function footnoteDefinition(state: BlockState, startLine: number, endLine: number, silent: boolean): boolean {
  const start = state.bMarks[startLine] + state.tShift[startLine];
  if (state.sCount[startLine] - state.blkIndent >= 4 || state.src.charCodeAt(start) !== 0x5b || state.src.charCodeAt(start + 1) !== 0x5e) {
    return false;
  }
  const lineEnd = state.eMarks[startLine];
  const match = /^\[\^([^\]\s]+)\]:/.exec(state.src.slice(start, Math.min(lineEnd, start + 1000)));
  if (!match) {
    return false;
  }
  if (silent) {
    return true;
  }
  let nextLine = startLine + 1;
  while (nextLine < endLine && !state.isEmpty(nextLine) && state.sCount[nextLine] >= state.blkIndent) {
    nextLine++;
  }
  const token = state.push('footnote_definition', '', 0);
  token.map = [startLine, nextLine];
  token.meta = { label: match[1] };
  token.content = state.getLines(startLine, nextLine, state.blkIndent, false).slice(match[0].length).trim();
  state.line = nextLine;
  return true;
}

/** `[^label]` in text: a footnote reference, left out of the text as mdast did. */
function footnoteReference(state: InlineState, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5b || state.src.charCodeAt(state.pos + 1) !== 0x5e) {
    return false;
  }
  const match = /^\[\^[^\]\s]+\]/.exec(state.src.slice(state.pos, Math.min(state.posMax, state.pos + 1000)));
  if (!match) {
    return false;
  }
  if (!silent) {
    state.push('footnote_reference', '', 0);
  }
  state.pos += match[0].length;
  return true;
}

/** A block token with the tokens between it and its closing token as children; `inline` holds its text. */
interface BlockNode {
  token: Token;
  children: BlockNode[];
  inline?: Token;
}

function blockTree(tokens: readonly Token[]): BlockNode[] {
  const root: BlockNode[] = [];
  const stack: BlockNode[] = [];
  for (const token of tokens) {
    const parent = stack[stack.length - 1];
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    if (token.type === 'inline') {
      if (parent) {
        parent.inline = token;
      }
      continue;
    }
    const node: BlockNode = { token, children: [] };
    (parent ? parent.children : root).push(node);
    if (token.nesting === 1) {
      stack.push(node);
    }
  }
  return root;
}

interface FrontMatter {
  /** The source with the front matter's lines blanked, so line numbers stay. */
  body: string;
  value: string;
  /** Where the blanked front matter ends in `body`. */
  bodyStart: number;
}

/** YAML (`---`) or TOML (`+++`) front matter on the first line, closed by the same fence. */
function splitFrontMatter(text: string): FrontMatter | undefined {
  const opening = /^(---|\+\+\+)[ \t]*(?:\r\n|\r|\n)/.exec(text);
  if (!opening) {
    return undefined;
  }
  const fence = opening[1];
  const closing = new RegExp(`(?:\\r\\n|\\r|\\n)${fence === '+++' ? '\\+\\+\\+' : '---'}[ \\t]*(?=\\r\\n|\\r|\\n|$)`, 'g');
  closing.lastIndex = opening[0].length - 1;
  const match = closing.exec(text);
  if (!match) {
    return undefined;
  }
  const end = match.index + match[0].length;
  const blanked = text.slice(0, end).replace(/[^\r\n]/g, '');
  return { body: blanked + text.slice(end), value: text.slice(opening[0].length, match.index), bodyStart: blanked.length };
}

/** `convertMarkdown`'s options; `segmentChars` only for tests (the default is `MARKDOWN_SEGMENT_CHARS`). */
export interface MarkdownConvertOptions extends ConvertOptions, LocalImageConvertOptions {
  segmentChars?: number;
}

/** What the walkers of one document's segments share. */
interface MarkdownDocumentState {
  builder: DocumentBuilder;
  frontMatterTitle: string | undefined;
}

/**
 * Converts CommonMark + GFM (tables, footnotes, task lists) with YAML/TOML front matter.
 * Front matter is not an item; its `title:` becomes the title. `content` is the source itself.
 * A big file is parsed segment by segment (see `markdownSegments`), so markdown-it's tokens for all of it never
 * exist at once (a 44 MB file: ~170 MB of tokens and 50 MB of line tables); the items are the same as whole.
 */
export async function convertMarkdown(text: string, options: MarkdownConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const plain = text.length <= (options.segmentChars ?? MARKDOWN_SEGMENT_CHARS) ? plainMarkdown(text) : undefined;
  if (plain) {
    return plainMarkdownDocument(text, plain, options);
  }
  const frontMatter = splitFrontMatter(text);
  const markdown = markdownParser();
  const parsed = frontMatter?.body ?? text;
  const localPictures = localPicturesFor(options);
  const document: MarkdownDocumentState = { builder: new DocumentBuilder(), frontMatterTitle: frontMatter ? titleFromFrontMatter(frontMatter.value) : undefined };
  // The front matter's blanked lines are shorter than the original's: offsets after it differ by this much.
  const sourceShift = text.length - parsed.length;
  for (const segment of markdownSegments(markdown, parsed, options.segmentChars ?? MARKDOWN_SEGMENT_CHARS, frontMatter?.bodyStart ?? 0, options.abortSignal)) {
    const source = segment.start === 0 ? text.slice(0, segment.end + sourceShift) : text.slice(segment.start + sourceShift, segment.end + sourceShift);
    const walker = new MarkdownWalker(document, source, segment.text, segment.firstLine, options.abortSignal, localPictures);
    await walker.walkChildren(blockTree(segment.tokens), 0);
  }
  document.builder.releaseHeldCaption();
  const title = document.frontMatterTitle ?? firstHeadingText(document.builder) ?? options.fileName;
  return { format: 'markdown', title, items: document.builder.items, content: text, warnings: [...document.builder.allWarnings(), ...(localPictures?.warnings() ?? [])] };
}

/** One block of a plain document (see `plainMarkdown`): an ATX heading or a paragraph, with its source offsets. */
interface PlainBlock {
  /** 1..6 for a heading, 0 for a paragraph. */
  headingLevel: number;
  text: string;
  start: number;
  end: number;
}

/**
 * What may make inline markup, a table or a different reading of the lines: escapes, code spans, emphasis and
 * strikethrough marks, table pipes, a tab (indentation arithmetic), CR (line ends markdown-it normalises) and NUL
 * (which it replaces); then inline links (`](`), footnote references, images, raw HTML and URL autolinks (`<` and a
 * letter, `!`, `?` or `/`) and entities. Brackets, `<`, `>` and `&` alone stay plain text (`[1]`, `P < 0.05`), since
 * without reference definitions (a line starting with `[`) a bracket makes no link.
 */
const INLINE_MARKUP = /[\\`*_~|\t\r\0]|\]\(|\[\^|!\[|<[A-Za-z!?/]|&[#A-Za-z]/;

/** Characters at the start of a line that may open a block other than a paragraph (lists, quotes, breaks, fences, HTML, setext underlines). */
const BLOCK_START = /^(?:[#>+\-*=_`~<|[]|\d+[.)])/;

/** `# Heading` with one space after the marks and no `#` in the text (no closing sequence, no `{#anchor}`). */
const PLAIN_HEADING = /^(#{1,6}) (?=\S)([^#]*[^#\s])$/;

/**
 * The blocks of a document made only of ATX headings and paragraphs of plain text, or undefined for anything else:
 * markdown-it would make exactly these blocks of it, with each paragraph's lines as its text, so `convertMarkdown`
 * can skip the parse (SciFact's 5,183 abstracts, `# title` then one paragraph, spent ~0.1 ms each in it). Refuses
 * whatever could read otherwise: front matter, inline markup characters, a line that could open another block, and
 * lines with leading or trailing white space (indented code, hard breaks, the trimming of soft breaks), and
 * documents longer than one segment.
 */
export function plainMarkdown(text: string): PlainBlock[] | undefined {
  // An e-mail autolink (`<a.b@c.d>`) may start with any of its characters.
  if (INLINE_MARKUP.test(text) || (text.includes('<') && text.includes('@'))) {
    return undefined;
  }
  const blocks: PlainBlock[] = [];
  let paragraph: PlainBlock | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) {
      lineEnd = text.length;
    }
    const line = text.slice(lineStart, lineEnd);
    if (line.length === 0) {
      paragraph = undefined;
    } else if (/^\s|\s$/.test(line)) {
      return undefined;
    } else if (line.charCodeAt(0) === 0x23) {
      const heading = PLAIN_HEADING.exec(line);
      if (!heading) {
        return undefined;
      }
      paragraph = undefined;
      blocks.push({ headingLevel: heading[1].length, text: heading[2], start: lineStart, end: lineEnd });
    } else if (BLOCK_START.test(line)) {
      return undefined;
    } else if (paragraph) {
      paragraph.text += `\n${line}`;
      paragraph.end = lineEnd;
    } else {
      paragraph = { headingLevel: 0, text: line, start: lineStart, end: lineEnd };
      blocks.push(paragraph);
    }
    lineStart = lineEnd + 1;
  }
  return blocks;
}

/** `convertMarkdown` of a plain document: the items the markdown-it walk gives it, from its blocks. */
function plainMarkdownDocument(text: string, blocks: readonly PlainBlock[], options: MarkdownConvertOptions): ConvertedDocument {
  const builder = new DocumentBuilder();
  const lines = new LineIndex(text);
  for (const block of blocks) {
    if (builder.full) {
      break;
    }
    const sourceRange = lines.range(block.start, block.end);
    if (block.headingLevel > 0) {
      builder.add({ label: 'section_header', text: block.text, headingLevel: block.headingLevel, treeDepth: 0, sourceRange });
    } else {
      builder.addCaptionCandidate({ label: 'paragraph', text: block.text, treeDepth: 0, sourceRange });
    }
  }
  builder.releaseHeldCaption();
  // No image syntax, so no local picture is read and none can warn.
  return { format: 'markdown', title: firstHeadingText(builder) ?? options.fileName, items: builder.items, content: text, warnings: builder.allWarnings() };
}

/** One part of a document parsed on its own: `[start, end)` of the parsed text, its first line, its tokens. */
interface MarkdownSegment {
  start: number;
  end: number;
  firstLine: number;
  text: string;
  tokens: Token[];
}

/**
 * A blank line, then an ATX heading at the start of a line. A heading there ends every open block (paragraph, list,
 * block quote, table) except a fenced code block or an HTML block of CommonMark types 1–5 (`<pre>`, `<!--` …), which
 * `endsInsideBlock` detects after parsing, so a cut there parses both sides exactly as the whole file.
 */
const SEGMENT_CUT = /(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)(?=#{1,6}(?:[ \t\r\n]|$))/g;

/**
 * A line that may start a link reference definition, `[label]:` after any container markers (block quotes, list items),
 * the label up to 999 characters (line ends allowed). Looser than CommonMark, never stricter: a false match only costs
 * `markdownSegments` a block-only pass.
 */
const REFERENCE_DEFINITION_START = /^[ \t>\-+*\d.)]*\[(?:[^\]\\]|\\[\s\S]){0,999}\]:/m;

/**
 * The document's tokens, segment by segment, each at least `segmentChars` long and cut before a heading (`SEGMENT_CUT`);
 * a file without such headings is one segment. Link reference definitions apply document-wide: when the text may
 * hold any (`REFERENCE_DEFINITION_START`), a first pass block-parses every segment to collect them, and each segment's inline parse sees all.
 * Tokens are produced lazily: the caller walks one segment's before the next is parsed.
 */
function* markdownSegments(markdown: Markdown, parsed: string, segmentChars: number, firstCut: number, abortSignal: AbortSignal | undefined): Generator<MarkdownSegment> {
  const cuts = segmentCuts(parsed, segmentChars, firstCut);
  if (cuts.length === 0) {
    yield { start: 0, end: parsed.length, firstLine: 0, text: parsed, tokens: markdown.parse(parsed, {}) };
    return;
  }
  const references: References = {};
  const mayHoldReferences = REFERENCE_DEFINITION_START.test(parsed);
  // Without references one pass parses and checks each segment; with them the first pass checks (block rules only).
  const segments = mayHoldReferences ? [...checkedSegments(markdown, parsed, cuts, references, true, abortSignal)].map(({ start, end, firstLine }) => ({ start, end, firstLine })) : undefined;
  if (!segments) {
    yield* checkedSegments(markdown, parsed, cuts, references, false, abortSignal);
    return;
  }
  for (const { start, end, firstLine } of segments) {
    throwIfAborted(abortSignal);
    const text = parsed.slice(start, end);
    yield { start, end, firstLine, text, tokens: markdown.parse(text, { references: Object.create(references) as References }) };
  }
}

/** Cut offsets (and their 0-based lines) at least `segmentChars` apart, none before `firstCut`. */
function segmentCuts(parsed: string, segmentChars: number, firstCut: number): Array<{ offset: number; line: number }> {
  const cuts: Array<{ offset: number; line: number }> = [];
  let previous = 0;
  let line = 0;
  let from = Math.max(firstCut, segmentChars);
  while (from < parsed.length) {
    SEGMENT_CUT.lastIndex = from - 1;
    const match = SEGMENT_CUT.exec(parsed);
    if (!match) {
      break;
    }
    const offset = match.index + match[0].length;
    line += lineBreaks(parsed, previous, offset);
    cuts.push({ offset, line });
    previous = offset;
    from = offset + segmentChars;
  }
  return cuts;
}

/** Line ends in `[start, end)`, counted as `LineIndex` counts them (CRLF, LF and a lone CR each one). */
function lineBreaks(text: string, start: number, end: number): number {
  let count = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code === 10 || (code === 13 && text.charCodeAt(index + 1) !== 10)) {
      count++;
    }
  }
  return count;
}

/**
 * Parses from cut to cut; a segment that ends inside a fenced code block or an HTML block takes in the next one and
 * is parsed again. Each segment's reference definitions join `references` once the segment is kept (the first
 * definition of a label wins, as in one parse). `blockOnly`: block rules only (the first of two passes).
 */
function* checkedSegments(
  markdown: Markdown,
  parsed: string,
  cuts: ReadonlyArray<{ offset: number; line: number }>,
  references: References,
  blockOnly: boolean,
  abortSignal: AbortSignal | undefined,
): Generator<MarkdownSegment> {
  const bounds = [{ offset: 0, line: 0 }, ...cuts, { offset: parsed.length, line: -1 }];
  let first = 0;
  while (first < bounds.length - 1) {
    let last = first + 1;
    for (;;) {
      throwIfAborted(abortSignal);
      const start = bounds[first].offset;
      const end = bounds[last].offset;
      const text = parsed.slice(start, end);
      const env = { references: Object.create(references) as References };
      const tokens = blockOnly ? blockTokens(markdown, text, env) : markdown.parse(text, env);
      if (last < bounds.length - 1 && endsInsideBlock(tokens, bounds[last].line - bounds[first].line)) {
        last++;
        continue;
      }
      Object.assign(references, env.references);
      yield { start, end, firstLine: bounds[first].line, text, tokens };
      break;
    }
    first = last;
  }
}

/** Block tokens only (markdown-it's core rules `normalize` and `block`), with reference definitions collected in `env`. */
function blockTokens(markdown: Markdown, text: string, env: MarkdownEnv): Token[] {
  const state = new markdown.core.State(text, markdown, env);
  const rules = (markdown.core.ruler as unknown as { __rules__: Array<RuleEntry<(state: InstanceType<Markdown['core']['State']>) => void>> }).__rules__;
  for (const name of ['normalize', 'block']) {
    rules.find((entry) => entry.name === name)!.fn(state);
  }
  return state.tokens;
}

/**
 * Whether the segment's last top-level block is a fenced code block or an HTML block running to its end (`lineCount`
 * lines, the last one blank): unclosed there, so in the whole file it would go on past the cut.
 */
function endsInsideBlock(tokens: readonly Token[], lineCount: number): boolean {
  for (let index = tokens.length - 1; index >= 0; index--) {
    const token = tokens[index];
    if (token.level === 0 && token.map) {
      return (token.type === 'fence' || token.type === 'html_block') && token.map[1] >= lineCount;
    }
  }
  return false;
}

/** A segment's lines: offsets within the segment, ranges counted from the document's first line. */
class SegmentLineIndex extends LineIndex {
  constructor(
    text: string,
    private readonly firstLine: number,
  ) {
    super(text);
  }

  override range(start: number, end: number): SourceRange {
    const range = super.range(start, end);
    return this.firstLine === 0 ? range : { ...range, startLine: range.startLine! + this.firstLine, endLine: range.endLine! + this.firstLine };
  }
}

/** Walks the tokens of one segment into the document's builder. */
class MarkdownWalker {
  readonly builder: DocumentBuilder;
  /** Lines of the original text: offsets into markdown-it's normalised source map to the same line and column. */
  private readonly lineIndex: LineIndex;
  private readonly normalizedLines: LineIndex;

  /**
   * `parsed` is `source` with its front matter blanked (same lines); markdown-it's offsets count in it. Both are the
   * segment starting at the document's line `firstLine`.
   */
  constructor(
    private readonly document: MarkdownDocumentState,
    private readonly source: string,
    parsed: string,
    firstLine: number,
    private readonly abortSignal: AbortSignal | undefined,
    /** Reads local images; undefined: images keep their alt text only. */
    private readonly localPictures: LocalPictures | undefined,
  ) {
    this.builder = document.builder;
    this.lineIndex = new SegmentLineIndex(source, firstLine);
    // markdown-it turns CRLF and CR into LF; its offsets count one character per line end.
    this.normalizedLines = parsed === source && !/\r/.test(source) ? this.lineIndex : new SegmentLineIndex(parsed.replace(/\r\n?/g, '\n'), firstLine);
  }

  async walkChildren(nodes: readonly BlockNode[], depth: number): Promise<void> {
    for (const node of nodes) {
      await this.walkNode(node, depth);
    }
  }

  private async walkNode(node: BlockNode, depth: number): Promise<void> {
    throwIfAborted(this.abortSignal);
    if (this.builder.full) {
      return;
    }
    const token = node.token;
    switch (token.type) {
      case 'heading_open': {
        const text = this.plainText(node.inline).replace(HEADING_ANCHOR, '').trim();
        if (text) {
          this.builder.add({ label: 'section_header', text, headingLevel: Number(token.tag.slice(1)), treeDepth: depth, sourceRange: this.rangeOf(token) });
        }
        return;
      }
      case 'paragraph_open':
        await this.addParagraph(node, depth);
        return;
      case 'bullet_list_open':
      case 'ordered_list_open':
        for (const item of node.children) {
          await this.walkListItem(item, depth + 1, token.type === 'ordered_list_open');
        }
        return;
      case 'fence':
      case 'code_block': {
        const language = token.type === 'fence' ? token.info.trim().split(/\s+/)[0] : '';
        this.builder.add({ label: 'code', text: token.content.replace(/\n$/, ''), treeDepth: depth, language: language || undefined, sourceRange: this.rangeOf(token) });
        return;
      }
      case 'table_open':
        this.addTable(node, depth);
        return;
      case 'html_block':
        await this.addHtml(token, depth);
        return;
      case 'blockquote_open':
        await this.walkChildren(node.children, depth);
        return;
      case 'footnote_definition': {
        const text = this.plainText(this.parseInline(token.content));
        if (text) {
          this.builder.add({ label: 'footnote', text: `[^${(token.meta as { label: string }).label}]: ${text}`, treeDepth: depth, sourceRange: this.rangeOf(token) });
        }
        return;
      }
      default:
        // hr: no content of its own.
        return;
    }
  }

  private async addParagraph(node: BlockNode, depth: number): Promise<void> {
    const children = node.inline?.children ?? [];
    const meaningful = children.filter((child) => !(child.type === 'text' && !child.content.trim()) && child.type !== 'softbreak' && child.type !== 'hardbreak');
    if (meaningful.length > 0 && meaningful.every((child) => child.type === 'image')) {
      // A paragraph holding only images is the Markdown way to place a figure.
      for (const image of meaningful) {
        const source = String(image.attrGet('src') ?? '');
        const picture = source && this.localPictures ? await this.localPictures.read(source) : undefined;
        this.builder.add({ label: 'picture', text: inlineText(image.children ?? []) || String(image.attrGet('title') ?? ''), treeDepth: depth, sourceRange: this.inlineRange(node, image), picture });
      }
      return;
    }
    const text = this.plainText(node.inline);
    if (text) {
      // "Figure 3: …" next to a figure is its caption.
      this.builder.addCaptionCandidate({ label: 'paragraph', text, treeDepth: depth, sourceRange: this.rangeOf(node.token) });
    }
    // Images inside text (an icon, a small diagram mid-sentence) follow the paragraph when a local file backs them;
    // remote badges keep only their alt text in the paragraph.
    for (const image of children) {
      const picture = image.type === 'image' && this.localPictures ? await this.localPictures.read(String(image.attrGet('src') ?? '')) : undefined;
      if (picture) {
        this.builder.add({ label: 'picture', text: inlineText(image.children ?? []), treeDepth: depth, sourceRange: this.inlineRange(node, image), picture });
      }
    }
  }

  /** The item's first paragraph is its text; further blocks (nested lists, code, more paragraphs) follow as items. */
  private async walkListItem(item: BlockNode, depth: number, ordered: boolean): Promise<void> {
    const [first, ...rest] = item.children;
    if (first?.token.type === 'paragraph_open') {
      let text = this.plainText(first.inline);
      const task = /^\[([ xX])\][ \t]+(?=\S)/.exec(text);
      if (task) {
        text = (task[1] === ' ' ? '[ ] ' : '[x] ') + text.slice(task[0].length);
      }
      this.builder.add({ label: 'list_item', text, treeDepth: depth, sourceRange: this.rangeOf(item.token, first.token) }, { ordered });
      await this.walkChildren(rest, depth);
    } else {
      await this.walkChildren(item.children, depth);
    }
  }

  private addTable(table: BlockNode, depth: number): void {
    const rows: string[][] = [];
    for (const section of table.children) {
      for (const row of section.children) {
        rows.push(row.children.map((cell) => this.plainText(cell.inline)));
      }
    }
    const text = markdownTable(rows);
    if (text) {
      this.builder.add({ label: 'table', text, treeDepth: depth, sourceRange: this.rangeOf(table.token) });
    }
  }

  /** Raw HTML blocks go through the HTML walker, so the Go docs' `<table>`s become table items. */
  private async addHtml(token: Token, depth: number): Promise<void> {
    const html = token.content.replace(/\n$/, '');
    if (this.builder.items.length === 0) {
      // The Go site's Markdown opens with the same JSON comment as its HTML fragments.
      this.document.frontMatterTitle ??= jsonCommentTitle(html);
    }
    if (!html.trim() || /^<!--[\s\S]*-->\s*$/.test(html.trim())) {
      return;
    }
    const span = spans.get(token);
    let offset: number | undefined;
    let parsedText = html;
    if (span) {
      const from = this.normalizedLines.position(span.start);
      offset = this.lineIndex.offset(from.line, from.column);
      const to = this.normalizedLines.position(span.end);
      const original = this.source.slice(offset, this.lineIndex.offset(to.line, to.column));
      // Parse the original text (CRLF kept) when it is the block as markdown-it saw it, so offsets match the source.
      if (original === html || original.replace(/\r\n?/g, '\n') === html) {
        parsedText = original;
      } else {
        offset = undefined;
      }
    }
    const parsed = await parseHtml(parsedText);
    const pictures = this.localPictures ? await readImages(parsed.children, this.localPictures, this.abortSignal) : undefined;
    walkHtml(parsed.children, this.builder, {
      lineIndex: offset === undefined ? undefined : this.lineIndex,
      baseOffset: offset,
      baseDepth: depth,
      abortSignal: this.abortSignal,
      pictures: pictures && ((image) => pictures.get(image)),
    });
  }

  private parseInline(text: string): Token {
    const tokens = markdownParser().parseInline(text, {});
    return tokens[0];
  }

  private plainText(inline: Token | undefined): string {
    return inlineText(inline?.children ?? []).replace(/[ \t]+\n/g, '\n').trim();
  }

  /** From the start of `start` to the end of `end` (0-based lines and UTF-16 columns, as VS Code counts them). */
  private rangeOf(start: Token, end: Token = start): SourceRange | undefined {
    const from = spans.get(start);
    const to = spans.get(end);
    if (!from || !to) {
      return undefined;
    }
    return this.normalizedLines.range(from.start, to.end);
  }

  /** An image's range: its inline offsets mapped through the paragraph's lines (indentation stripped by markdown-it). */
  private inlineRange(paragraph: BlockNode, image: Token): SourceRange | undefined {
    const inline = paragraph.inline;
    const span = spans.get(image);
    const block = spans.get(paragraph.token);
    if (!inline || !span || !block || !inline.map) {
      return this.rangeOf(paragraph.token);
    }
    const contentLines = inline.content.split('\n');
    const locate = (offset: number): number | undefined => {
      let lineOffset = 0;
      for (let line = 0; line < contentLines.length; line++) {
        const length = contentLines[line].length;
        if (offset <= lineOffset + length) {
          const sourceLine = inline.map![0] + line;
          const lineStart = this.normalizedLines.offset(sourceLine, 0);
          const lineText = this.normalizedSlice(sourceLine);
          const shift = Math.max(0, lineText.indexOf(contentLines[line]));
          return lineStart + shift + (offset - lineOffset);
        }
        lineOffset += length + 1;
      }
      return undefined;
    };
    const start = locate(span.start);
    const end = locate(span.end);
    return start === undefined || end === undefined ? this.rangeOf(paragraph.token) : this.normalizedLines.range(start, end);
  }

  private normalizedSlice(line: number): string {
    return this.normalizedLines.lineText(line);
  }
}

/** Text without markup: hard and soft breaks as newlines, images as their alt text, raw HTML dropped. */
function inlineText(tokens: readonly Token[]): string {
  let text = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'text_special':
      case 'code_inline':
        text += token.content;
        break;
      case 'softbreak':
      case 'hardbreak':
        text += '\n';
        break;
      case 'image':
        text += inlineText(token.children ?? []);
        break;
      default:
        // html_inline, footnote references, link and emphasis markers: no text of their own.
        break;
    }
  }
  return text;
}

/** `title:` at the top level of YAML (or TOML `title =`) front matter; quotes removed. */
function titleFromFrontMatter(matter: string): string | undefined {
  const match = /^title\s*[:=]\s*(.+?)\s*$/m.exec(matter);
  if (!match) {
    return undefined;
  }
  const value = match[1].replace(/^(['"])(.*)\1$/, '$2').trim();
  return value && value !== '|' && value !== '>' ? value : undefined;
}
