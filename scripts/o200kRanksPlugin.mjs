// An esbuild plugin for the bundles that count tokens (the conversion worker, the in-process converters).
// gpt-tokenizer ships o200k's 200k-token table as one JavaScript array literal of 2.4 MB, and V8 took about 230 ms
// to compile it in every conversion worker and process that loads it (about half of a worker's start-up). The same
// table as JSON, beside the bundle, parses in a third of that. The plugin writes `o200k_base.json` from the
// library's own table into the bundle's folder and replaces the library's table module with one that reads it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

export const O200K_RANKS_FILE_NAME = 'o200k_base.json';

const require = createRequire(import.meta.url);

/** `outputFolder`: where the bundle is written (the JSON goes beside it). */
export function o200kRanksPlugin(outputFolder) {
  return {
    name: 'o200k-ranks-json',
    setup(build) {
      build.onStart(() => {
        const ranks = require('gpt-tokenizer/bpeRanks/o200k_base').default;
        fs.mkdirSync(outputFolder, { recursive: true });
        fs.writeFileSync(path.join(outputFolder, O200K_RANKS_FILE_NAME), JSON.stringify(ranks));
      });
      // The encoding modules import the table as `../bpeRanks/o200k_base.js` (ESM and CommonJS builds alike).
      build.onResolve({ filter: /(^|[\\/])bpeRanks[\\/]o200k_base(\.js)?$/ }, () => ({ path: 'o200k_base', namespace: 'o200k-ranks-json' }));
      build.onLoad({ filter: /.*/, namespace: 'o200k-ranks-json' }, () => ({
        loader: 'js',
        // An ES module, so ESM and CommonJS importers alike get the table as its default export.
        contents: [
          "import * as fs from 'node:fs';",
          "import * as path from 'node:path';",
          `export default JSON.parse(fs.readFileSync(path.join(__dirname, ${JSON.stringify(O200K_RANKS_FILE_NAME)}), 'utf8'));`,
        ].join('\n'),
      }));
    },
  };
}
