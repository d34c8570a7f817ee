// An esbuild plugin for the bundles that can read PDFs (the conversion worker, the in-process converters, the CLI).
// unpdf loads its build of pdf.js (1.7 MB minified, 2.4 MB once bundled) with `import("unpdf/pdfjs")` on the first
// PDF; bundled, it was still compiled with the rest in every conversion worker and every CLI start. The plugin
// copies the file beside the bundle and leaves the import to it, so it is read only when a PDF is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PDFJS_FILE_NAME = 'pdfjs.mjs';

/** `outputFolder`: where the bundle is written (the file goes beside it). */
export function pdfjsFilePlugin(outputFolder) {
  return {
    name: 'pdfjs-file',
    setup(build) {
      build.onStart(() => {
        fs.mkdirSync(outputFolder, { recursive: true });
        fs.copyFileSync(fileURLToPath(import.meta.resolve('unpdf/pdfjs')), path.join(outputFolder, PDFJS_FILE_NAME));
      });
      // A dynamic import relative to the bundle: Node resolves it against the bundle's own file.
      build.onResolve({ filter: /^unpdf\/pdfjs$/ }, () => ({ path: `./${PDFJS_FILE_NAME}`, external: true }));
    },
  };
}
