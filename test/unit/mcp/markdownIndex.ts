import * as path from 'node:path';
import { indexPaths } from '../../../src/node/index/indexer';
import { openStore } from '../../../src/node/store/lanceStore';
import { temporaryFolder, writeFiles } from '../../support/indexFixtures';

/** A real LanceDB index (full text, no embedder) of a few Markdown files in a temp folder, closed for a server to open. */
export interface MarkdownIndex {
  folder: string;
  databasePath: string;
  cleanup(): void;
}

export async function buildMarkdownIndex(files: Record<string, string>): Promise<MarkdownIndex> {
  const folder = temporaryFolder('haiku-mcp-contracts-');
  const documents = path.join(folder.path, 'docs');
  writeFiles(documents, files);
  const databasePath = path.join(folder.path, 'index');
  const store = await openStore({ uri: databasePath });
  try {
    const summary = await indexPaths({ roots: [documents], store, baseFolder: documents });
    if (summary.added.length !== Object.keys(files).length) {
      throw new Error(`indexing the test documents failed: ${JSON.stringify(summary.failed)}`);
    }
  } finally {
    await store.close();
  }
  return { folder: documents, databasePath, cleanup: folder.cleanup };
}

/** Two short guides: enough for a search, a section, a citation with lines. */
export const GUIDE_DOCUMENTS: Record<string, string> = {
  'ferrets.md': '# Ferret care\n\n## Sleep\n\nFerrets sleep eighteen hours a day in a dark, quiet hammock.\n\n## Food\n\nFerrets eat meat: a ferret cannot digest fibre.\n',
  'guides/otters.md': '# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.\n',
};
