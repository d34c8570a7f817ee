import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliCommand } from '../command';
import { errorMessage, HaikuError } from '../../../core/errors';
import { isPathInside } from '../../../core/pathContainment';
import { DATABASE_OPTIONS, printJson, wantsJson, withStore } from '../indexAccess';

export const removeCommand: CliCommand = {
  name: 'remove',
  arguments: [{ syntax: '<path or id>', description: 'A file, a folder (every document under it), a document id or the URL of an added page.' }],
  summary: 'Remove a document, or every document under a folder, from the index',
  description: 'Remove a document, or every document under a folder, from the index. A removed indexed folder is also forgotten by `haiku rebuild`.',
  options: [...DATABASE_OPTIONS],
  examples: ['haiku remove docs/old.md', 'haiku remove docs/archive/'],
  async run(context) {
    const [reference] = context.positionals;
    const target = path.resolve(context.io.cwd, reference);
    const removed = await withStore(context, {}, async (store) => {
      const documents = await store.listDocuments();
      const normalized = reference.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '');
      const matches = documents.filter((document) => {
        const file = document.uri.startsWith('file:') ? fileURLToPath(document.uri) : undefined;
        return document.id === reference || document.uri === reference || document.relativePath === normalized || document.relativePath.startsWith(`${normalized}/`) || (file !== undefined && isPathInside(file, target));
      });
      if (matches.length === 0) {
        throw new HaikuError('not_found', `No indexed document matches '${reference}'. Run \`haiku docs\` to list them.`);
      }
      await store.removeDocuments(matches.map((document) => document.id));
      // A removed root is not re-indexed by `rebuild`.
      await store.forgetRoots(store.roots.filter((root) => isPathInside(root.path, target)).map((root) => root.path));
      try {
        await store.optimize();
      } catch (error) {
        // The documents are gone already: the command succeeded, only its upkeep (retried by the next write) did not.
        context.io.stderr(`haiku remove: warning: the documents were removed, but the index's upkeep failed and runs again next time: ${errorMessage(error)}\n`);
      }
      return matches.map((document) => document.relativePath);
    });
    if (wantsJson(context)) {
      printJson(context, { removed });
    } else {
      context.io.stdout(`Removed ${removed.length} document${removed.length === 1 ? '' : 's'}: ${removed.join(', ')}\n`);
    }
    return 0;
  },
};
