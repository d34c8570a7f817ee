import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliCommand } from '../command';
import { HaikuError } from '../../../core/errors';
import { isInside } from '../../index/scanner';
import { DATABASE_OPTIONS, printJson, wantsJson, withStore } from '../indexAccess';

export const removeCommand: CliCommand = {
  name: 'remove',
  usage: 'remove <path or document id> [--db dir] [--json]',
  summary: 'Remove a document, or every document under a folder, from the index',
  options: { ...DATABASE_OPTIONS },
  async run(context) {
    const reference = context.positionals[0];
    if (!reference) {
      throw new HaikuError('not_found', 'Name a file, folder or document id to remove, e.g. `haiku remove docs/old.md`.');
    }
    const target = path.resolve(context.io.cwd, reference);
    const removed = await withStore(context, {}, async (store) => {
      const documents = await store.listDocuments();
      const normalized = reference.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/$/, '');
      const matches = documents.filter((document) => {
        const file = document.uri.startsWith('file:') ? fileURLToPath(document.uri) : undefined;
        return document.id === reference || document.relativePath === normalized || document.relativePath.startsWith(`${normalized}/`) || (file !== undefined && isInside(file, target));
      });
      if (matches.length === 0) {
        throw new HaikuError('not_found', `No indexed document matches '${reference}'. Run \`haiku docs\` to list them.`);
      }
      await store.removeDocuments(matches.map((document) => document.id));
      // A removed root is not re-indexed by `rebuild`.
      await store.forgetRoots(store.roots.filter((root) => isInside(root.path, target)).map((root) => root.path));
      await store.optimize();
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
