/**
 * What pictures cost at ingest, on the shared corpus, measured in one run: conversion time with
 * `processing.pictures=image` against `none` (same files, in-process, modes alternated per file so machine load
 * hits both alike; median of the passes), and the index's size on disk for both (LanceDB folder after `optimize`).
 * Run alone: `npx tsx bench/pictures.ts [passes]`; `npm run bench` includes it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { convertFile, type PictureProcessing } from '../src/node/convert/convertFile';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { corpusRoot, filesBelow } from '../test/support/paths';
import type { BenchRow } from './benchSupport';

/** Goals: pictures may at most double conversion time and triple the index (the PDFs' figures are most of their bytes). */
const CONVERSION_RATIO_GOAL = 2;
const SIZE_RATIO_GOAL = 3;

function corpusFiles(): string[] {
  return filesBelow(corpusRoot).filter((relative) => !relative.endsWith('LICENSE')).map((relative) => path.join(corpusRoot, relative));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

function folderBytes(folder: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
    }
  }
  return total;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}

async function timeConversion(filePath: string, pictures: PictureProcessing): Promise<{ ms: number; pictures: number; bytes: number }> {
  const started = performance.now();
  try {
    const document = await convertFile(filePath, { pictures });
    const withBytes = document.items.filter((item) => item.picture?.bytes);
    return { ms: performance.now() - started, pictures: withBytes.length, bytes: withBytes.reduce((sum, item) => sum + item.picture!.bytes!.length, 0) };
  } catch {
    // Files that fail to convert cost their time in both modes.
    return { ms: performance.now() - started, pictures: 0, bytes: 0 };
  }
}

export async function pictureBenchmarks(work: string, rows: BenchRow[], notes: string[], passes = 3): Promise<void> {
  const files = corpusFiles();
  const totals: Record<'image' | 'none', number[]> = { image: [], none: [] };
  let extracted = { pictures: 0, bytes: 0 };
  // One untimed pass warms pdf.js, mammoth and the tokenizer.
  for (const file of files) {
    await timeConversion(file, 'image');
  }
  for (let pass = 0; pass < passes; pass++) {
    const sums = { image: 0, none: 0 };
    for (const [index, file] of files.entries()) {
      const order: PictureProcessing[] = (index + pass) % 2 === 0 ? ['image', 'none'] : ['none', 'image'];
      for (const mode of order) {
        const result = await timeConversion(file, mode);
        sums[mode as 'image' | 'none'] += result.ms;
        if (mode === 'image' && pass === 0) {
          extracted = { pictures: extracted.pictures + result.pictures, bytes: extracted.bytes + result.bytes };
        }
      }
    }
    totals.image.push(sums.image);
    totals.none.push(sums.none);
  }
  const image = median(totals.image);
  const none = median(totals.none);
  rows.push({ measure: `Conversion of the shared corpus (${files.length} files), pictures=image vs none`, ours: `${image.toFixed(0)} ms`, reference: `${none.toFixed(0)} ms`, ratio: image / none, goal: `≤ ${CONVERSION_RATIO_GOAL}×`, met: image / none <= CONVERSION_RATIO_GOAL });
  notes.push(`Pictures: ${extracted.pictures} pictures with bytes (${megabytes(extracted.bytes)} encoded) extracted from the shared corpus; conversion medians of ${passes} passes (image ${totals.image.map((value) => value.toFixed(0)).join(' / ')} ms, none ${totals.none.map((value) => value.toFixed(0)).join(' / ')} ms).`);

  const sizes: Record<'image' | 'none', number> = { image: 0, none: 0 };
  for (const mode of ['none', 'image'] as const) {
    const folder = path.join(work, `pictures-index-${mode}`);
    const store = await openStore({ uri: folder });
    try {
      await indexPaths({ roots: [corpusRoot], baseFolder: corpusRoot, store, pictures: mode });
    } finally {
      await store.close();
    }
    sizes[mode] = folderBytes(folder);
  }
  rows.push({ measure: 'Index size on disk of the shared corpus, pictures=image vs none', ours: megabytes(sizes.image), reference: megabytes(sizes.none), ratio: sizes.image / sizes.none, goal: `≤ ${SIZE_RATIO_GOAL}×`, met: sizes.image / sizes.none <= SIZE_RATIO_GOAL });
}

if (require.main === module) {
  void (async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-pictures-'));
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    try {
      await pictureBenchmarks(work, rows, notes, Number(process.argv[2] ?? 3));
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
    for (const row of rows) {
      process.stdout.write(`${row.measure}: ${row.ours} vs ${row.reference} = ${row.ratio.toFixed(2)}× (goal ${row.goal}: ${row.met ? 'met' : 'NOT met'})\n`);
    }
    process.stdout.write(notes.map((note) => `- ${note}\n`).join(''));
  })();
}
