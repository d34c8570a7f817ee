import type { List, ListItem, Nodes, RootContent, Table } from 'mdast';
import type { ConvertedDocument, SourceRange } from '../../core/model/document';
import { throwIfAborted } from '../../core/errors';
import { DocumentBuilder, LineIndex, markdownTable } from './documentBuilder';
import { firstHeadingText, jsonCommentTitle, parseHtml, walkHtml, type ConvertOptions } from './html';

type MarkdownModules = {
  fromMarkdown: typeof import('mdast-util-from-markdown', { with: { 'resolution-mode': 'import' } }).fromMarkdown;
  gfm: typeof import('micromark-extension-gfm', { with: { 'resolution-mode': 'import' } }).gfm;
  gfmFromMarkdown: typeof import('mdast-util-gfm', { with: { 'resolution-mode': 'import' } }).gfmFromMarkdown;
  frontmatter: typeof import('micromark-extension-frontmatter', { with: { 'resolution-mode': 'import' } }).frontmatter;
  frontmatterFromMarkdown: typeof import('mdast-util-frontmatter', { with: { 'resolution-mode': 'import' } }).frontmatterFromMarkdown;
};

let markdownModules: Promise<MarkdownModules> | undefined;

/** The unified/micromark packages are ESM-only; the bundles are CommonJS, so they are loaded with `import()`. */
function loadMarkdownModules(): Promise<MarkdownModules> {
  markdownModules ??= (async () => {
    const [fromMarkdownModule, gfmModule, gfmMdastModule, frontmatterModule, frontmatterMdastModule] = await Promise.all([
      import('mdast-util-from-markdown'),
      import('micromark-extension-gfm'),
      import('mdast-util-gfm'),
      import('micromark-extension-frontmatter'),
      import('mdast-util-frontmatter'),
    ]);
    return {
      fromMarkdown: fromMarkdownModule.fromMarkdown,
      gfm: gfmModule.gfm,
      gfmFromMarkdown: gfmMdastModule.gfmFromMarkdown,
      frontmatter: frontmatterModule.frontmatter,
      frontmatterFromMarkdown: frontmatterMdastModule.frontmatterFromMarkdown,
    };
  })();
  return markdownModules;
}

/** `## Title {#anchor}` (VitePress, the Go site): the attribute block is markup, not title text. */
const HEADING_ANCHOR = /\s*\{#[^}]*\}\s*$/;

/**
 * Converts CommonMark + GFM (tables, footnotes, task lists) with YAML/TOML front matter.
 * Front matter is not an item; its `title:` becomes the title. `content` is the source itself.
 */
export async function convertMarkdown(text: string, options: ConvertOptions): Promise<ConvertedDocument> {
  throwIfAborted(options.abortSignal);
  const modules = await loadMarkdownModules();
  const tree = modules.fromMarkdown(text, {
    extensions: [modules.gfm(), modules.frontmatter(['yaml', 'toml'])],
    mdastExtensions: [modules.gfmFromMarkdown(), modules.frontmatterFromMarkdown(['yaml', 'toml'])],
  });
  throwIfAborted(options.abortSignal);
  const converter = new MarkdownWalker(text, options.abortSignal);
  await converter.walkChildren(tree.children, 0);
  const title = converter.frontMatterTitle ?? firstHeadingText(converter.builder) ?? options.fileName;
  return { format: 'markdown', title, items: converter.builder.items, content: text, warnings: converter.builder.allWarnings() };
}

class MarkdownWalker {
  readonly builder = new DocumentBuilder();
  frontMatterTitle: string | undefined;
  private readonly lineIndex: LineIndex;

  constructor(
    source: string,
    private readonly abortSignal: AbortSignal | undefined,
  ) {
    this.lineIndex = new LineIndex(source);
  }

  async walkChildren(nodes: readonly RootContent[], depth: number): Promise<void> {
    for (const node of nodes) {
      await this.walkNode(node, depth);
    }
  }

  private async walkNode(node: RootContent, depth: number): Promise<void> {
    throwIfAborted(this.abortSignal);
    const type: string = node.type;
    if (type === 'yaml' || type === 'toml') {
      this.frontMatterTitle ??= titleFromFrontMatter((node as unknown as { value: string }).value);
      return;
    }
    switch (node.type) {
      case 'heading': {
        const text = this.plainText(node).replace(HEADING_ANCHOR, '').trim();
        if (text) {
          this.builder.add({ label: 'section_header', text, headingLevel: node.depth, treeDepth: depth, sourceRange: this.rangeOf(node) });
        }
        return;
      }
      case 'paragraph':
        this.addParagraph(node, depth);
        return;
      case 'list':
        await this.walkList(node, depth + 1);
        return;
      case 'code':
        this.builder.add({ label: 'code', text: node.value, treeDepth: depth, language: node.lang ?? undefined, sourceRange: this.rangeOf(node) });
        return;
      case 'table':
        this.addTable(node, depth);
        return;
      case 'html':
        await this.addHtml(node.value, node, depth);
        return;
      case 'blockquote':
        await this.walkChildren(node.children, depth);
        return;
      case 'footnoteDefinition': {
        const text = this.plainText(node);
        if (text) {
          this.builder.add({ label: 'footnote', text: `[^${node.label ?? node.identifier}]: ${text}`, treeDepth: depth, sourceRange: this.rangeOf(node) });
        }
        return;
      }
      default:
        // thematicBreak, definition: no content of their own.
        return;
    }
  }

  private addParagraph(node: Extract<RootContent, { type: 'paragraph' }>, depth: number): void {
    const meaningful = node.children.filter((child) => !(child.type === 'text' && !child.value.trim()) && child.type !== 'break');
    if (meaningful.length > 0 && meaningful.every((child) => child.type === 'image')) {
      // A paragraph holding only images is the Markdown way to place a figure.
      for (const image of meaningful) {
        this.builder.add({ label: 'picture', text: image.type === 'image' ? (image.alt ?? image.title ?? '') : '', treeDepth: depth, sourceRange: this.rangeOf(image) });
      }
      return;
    }
    const text = this.plainText(node);
    if (text) {
      this.builder.add({ label: 'paragraph', text, treeDepth: depth, sourceRange: this.rangeOf(node) });
    }
  }

  private async walkList(list: List, depth: number): Promise<void> {
    for (const item of list.children) {
      await this.walkListItem(item, depth, list.ordered ?? false);
    }
  }

  /** The item's first paragraph is its text; further blocks (nested lists, code, more paragraphs) follow as items. */
  private async walkListItem(item: ListItem, depth: number, ordered: boolean): Promise<void> {
    const [first, ...rest] = item.children;
    const checkbox = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
    if (first?.type === 'paragraph') {
      const text = this.plainText(first);
      this.builder.add({ label: 'list_item', text: checkbox + text, treeDepth: depth, sourceRange: this.rangeOf(item, first) }, { ordered });
      await this.walkChildren(rest, depth);
    } else {
      await this.walkChildren(item.children, depth);
    }
  }

  private addTable(table: Table, depth: number): void {
    const rows = table.children.map((row) => row.children.map((cell) => this.plainText(cell)));
    const text = markdownTable(rows);
    if (text) {
      this.builder.add({ label: 'table', text, treeDepth: depth, sourceRange: this.rangeOf(table) });
    }
  }

  /** Raw HTML blocks go through the HTML walker, so the Go docs' `<table>`s become table items. */
  private async addHtml(html: string, node: Nodes, depth: number): Promise<void> {
    const offset = node.position?.start.offset;
    if (this.builder.items.length === 0) {
      // The Go site's Markdown opens with the same JSON comment as its HTML fragments.
      this.frontMatterTitle ??= jsonCommentTitle(html);
    }
    if (!html.trim() || /^<!--[\s\S]*-->\s*$/.test(html.trim())) {
      return;
    }
    const parsed = await parseHtml(html);
    walkHtml(parsed.children, this.builder, { lineIndex: offset === undefined ? undefined : this.lineIndex, baseOffset: offset, baseDepth: depth, abortSignal: this.abortSignal });
  }

  private plainText(node: Nodes): string {
    return plainText(node).replace(/[ \t]+\n/g, '\n').trim();
  }

  /** mdast positions are 1-based with an exclusive end column; VS Code ranges are 0-based. */
  private rangeOf(start: Nodes, end: Nodes = start): SourceRange | undefined {
    const from = start.position?.start;
    const to = end.position?.end;
    if (!from || !to) {
      return undefined;
    }
    return { startLine: from.line - 1, startColumn: from.column - 1, endLine: to.line - 1, endColumn: to.column - 1 };
  }
}

/** Text without markup: hard breaks as newlines, images as their alt text, raw HTML dropped. */
function plainText(node: Nodes): string {
  switch (node.type) {
    case 'break':
      return '\n';
    case 'html':
    case 'footnoteReference':
      return '';
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    default:
      if ('value' in node) {
        return node.value;
      }
      return 'children' in node ? node.children.map((child) => plainText(child)).join('') : '';
  }
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
