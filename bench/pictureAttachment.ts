/**
 * The cost of showing a vision model the pictures of a search return, against the search itself, in one run:
 * for each query, the agent's search (hybrid off: full text, with context expansion) and then attaching the
 * results' own pictures (store reads, sniffing, base64) on a fresh per-response ledger.
 * Run: `npx tsx bench/pictureAttachment.ts [repeats]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PictureAttachmentLedger } from '../src/core/agent/pictureAttachments';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { formatMs, median } from './benchSupport';

const repeats = Number(process.argv[2] ?? 10);
const PICTURE_FOLDER = path.resolve(__dirname, '..', '..', 'shared', 'corpus', 'pdf-docx', 'docling');
/** The shared corpus's documents that hold pictures. */
const FILES = ['picture_classification.pdf', 'amt_handbook_sample.pdf', 'redp5110_sampled.pdf', 'word_sample.docx', 'docx_rich_cells.docx'];
const QUERIES = ['figure', 'example image', 'duckling', 'aircraft', 'table', 'security', 'figure image example', 'engine'];
const SEARCH_LIMIT = 5;

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-pictures-'));
  const store = await openStore({ uri: path.join(work, 'index') });
  try {
    const started = performance.now();
    const summary = await indexPaths({ roots: FILES.map((file) => path.join(PICTURE_FOLDER, file)), store, baseFolder: PICTURE_FOLDER });
    process.stdout.write(`Indexed ${summary.added.length} of ${FILES.length} documents in ${formatMs(performance.now() - started)}\n`);
    const searchMs: number[] = [];
    const attachMs: number[] = [];
    const perImageMs: number[] = [];
    let images = 0;
    let imageBytes = 0;
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const query of QUERIES) {
        const searchStarted = performance.now();
        const results = await store.search(query, { limit: SEARCH_LIMIT, expand: true });
        const searchEnded = performance.now();
        const attached = await new PictureAttachmentLedger().attach(0, results, store);
        const attachEnded = performance.now();
        searchMs.push(searchEnded - searchStarted);
        if (attached.length > 0) {
          attachMs.push(attachEnded - searchEnded);
          perImageMs.push((attachEnded - searchEnded) / attached.length);
          images += attached.length;
          imageBytes += attached.reduce((sum, picture) => sum + (picture.data.length * 3) / 4, 0);
        }
      }
    }
    const searchMedian = median(searchMs);
    const perImageMedian = median(perImageMs);
    process.stdout.write(
      [
        `Search (limit ${SEARCH_LIMIT}, expanded): median ${formatMs(searchMedian)} over ${searchMs.length} searches`,
        `Attaching pictures: median ${formatMs(median(attachMs))} per search return that had any (${attachMs.length} returns, ${images} images, mean ${Math.round(imageBytes / Math.max(1, images) / 1024)} KiB each)`,
        `Per attached image: median ${formatMs(perImageMedian)}`,
        `Ratio per image ÷ search: ${(perImageMedian / searchMedian).toFixed(2)}`,
      ].join('\n') + '\n',
    );
  } finally {
    await store.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

void main();
