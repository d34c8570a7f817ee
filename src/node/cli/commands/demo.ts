import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CliCommand } from '../command';
import { HaikuError } from '../../../core/errors';
import { DEFAULT_EXCLUDE_GLOBS } from '../../../core/limits';
import { indexPaths } from '../../index/indexer';
import { defaultConfig } from '../../../core/config';
import { openIndex } from '../../backend/openIndex';
import { JSON_OPTION, locationText, printJson, snippet, summaryText, wantsJson } from '../indexAccess';

/** A query the samples answer: Vite's "npm Dependency Resolving and Pre-Bundling" section ranks first. */
export const DEMO_QUERY = 'dependency pre-bundling';

/** The repository's `samples/` folder: beside `dist/` when bundled, four levels up from this file under tsx. */
export function findSamplesFolder(start = __dirname): string | undefined {
  for (let folder = start; ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, 'samples');
    if (fs.existsSync(path.join(candidate, 'guides', 'features.md'))) {
      return candidate;
    }
    if (path.dirname(folder) === folder) {
      return undefined;
    }
  }
}

export const demoCommand: CliCommand = {
  name: 'demo',
  arguments: [{ syntax: '[query...]', description: `What to search for in the samples (default: "${DEMO_QUERY}").` }],
  summary: 'Index the bundled samples (md, html, pdf, docx) into a temporary index and search them',
  options: [JSON_OPTION, { flags: '--keep', description: 'Keep the temporary index and print its folder, to try other commands on it.' }],
  async run(context) {
    const samples = findSamplesFolder();
    if (!samples) {
      throw new HaikuError('not_found', 'The samples/ folder was not found next to the Haiku installation; run the demo from a clone of the repository.');
    }
    const query = context.positionals.join(' ').trim() || DEMO_QUERY;
    const databaseFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-demo-'));
    // The demo's own index with the defaults (full text, no models), whatever the current folder's configuration says.
    const config = defaultConfig();
    config.index.databaseUri = databaseFolder;
    const index = await openIndex({ config, cwd: databaseFolder, mustExist: false, models: {}, abortSignal: context.abortSignal });
    const { store } = index;
    try {
      // The samples' README describes their sources (and is a document of the VS Code tests' workspace), not a demo document.
      const summary = await indexPaths({ roots: [samples], baseFolder: samples, store, exclude: [...DEFAULT_EXCLUDE_GLOBS, 'README.md'], abortSignal: context.abortSignal });
      const results = await store.search(query, { limit: 5, abortSignal: context.abortSignal });
      const documents = new Map((await store.listDocuments()).map((document) => [document.id, document]));
      if (wantsJson(context)) {
        printJson(context, { database: databaseFolder, summary, query, results });
        return 0;
      }
      const out = context.io.stdout;
      out(`Indexed ${samples} into ${databaseFolder}\n`);
      out(summaryText(summary));
      const pathWidth = Math.max(0, ...[...documents.values()].map((document) => document.relativePath.length));
      for (const document of documents.values()) {
        out(`  ${document.relativePath.padEnd(pathWidth)} ${document.format.padEnd(8)} ${document.title}\n`);
      }
      out(`\nSearch (full text): "${query}"\n\n`);
      for (const result of results) {
        const relativePath = documents.get(result.documentId)?.relativePath ?? result.uri;
        const trail = [result.title, ...result.headings.filter((heading) => heading !== result.title)].join(' > ');
        out(`${result.rank}. [${result.score.toFixed(2)}] ${trail}\n   ${locationText(relativePath, result.sourceRange, result.pageNumbers)}\n   ${snippet(result.content)}\n\n`);
      }
      if (results.length === 0) {
        out('No results.\n');
      }
      out(context.flags.keep ? `Index kept at ${databaseFolder} (try: haiku search "…" --db ${databaseFolder}).\n` : 'Next: haiku index <your folder>, then haiku search "<question>".\n');
      return 0;
    } finally {
      await index.close();
      if (!context.flags.keep) {
        fs.rmSync(databaseFolder, { recursive: true, force: true });
      }
    }
  },
};
