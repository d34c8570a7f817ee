import type { CliCommand } from '../command';
import { requireDocument } from '../../../core/documents/documentAccess';
import type { SectionNode } from '../../../core/model/document';
import { buildSectionTree } from '../../../core/toc';
import { DATABASE_OPTIONS, locationText, printJson, wantsJson, withStore } from '../indexAccess';
import { terminalFileName } from '../terminalText';

export const tocCommand: CliCommand = {
  name: 'toc',
  arguments: [{ syntax: '<document>', description: 'A document id or its path relative to the indexed folder (see `haiku docs`).' }],
  summary: "Print a document's section tree with chunk counts",
  description: "Print a document's section tree: each heading with its line or page and how many chunks it holds.",
  options: [...DATABASE_OPTIONS],
  examples: ['haiku toc docs/guide.md'],
  async run(context) {
    const [reference] = context.positionals;
    const { document, items } = await withStore(context, {}, async (store) => {
      // By id, path or unique path suffix, as the VS Code and MCP tools find documents.
      const found = await requireDocument(store, reference, { listHint: 'Run `haiku docs` to list them.', abortSignal: context.abortSignal });
      return { document: found, items: await store.getDocumentItems(found.id) };
    });
    const chunkIdsByRef = new Map(items.map((item) => [item.selfRef, item.chunkIds]));
    const tree = buildSectionTree(items, chunkIdsByRef);
    if (wantsJson(context)) {
      printJson(context, { document, sections: tree });
      return 0;
    }
    const itemsByRef = new Map(items.map((item) => [item.selfRef, item]));
    const lines = [`${terminalFileName(document.title)} (${terminalFileName(document.relativePath)}, ${document.id})`];
    const visit = (nodes: readonly SectionNode[], depth: number) => {
      for (const node of nodes) {
        const item = itemsByRef.get(node.selfRef);
        const where = locationText(document.relativePath, item?.sourceRange, node.pageNumbers);
        lines.push(`${'  '.repeat(depth + 1)}${node.title}  [${where}, ${node.chunkIds.length} chunk${node.chunkIds.length === 1 ? '' : 's'}]`);
        visit(node.children, depth + 1);
      }
    };
    visit(tree, 0);
    if (tree.length === 0) {
      lines.push('  (no section headings)');
    }
    context.io.stdout(lines.join('\n') + '\n');
    return 0;
  },
};
