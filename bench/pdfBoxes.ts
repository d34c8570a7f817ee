import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertPdf } from '../src/node/convert/pdf';
import { IDENTITY_MATRIX, mapToPageBox } from '../src/node/convert/pdfMatrix';
import { corpusRoot, filesBelow } from '../test/support/paths';

/**
 * What recording item boxes costs PDF conversion, on the shared corpus's PDFs (`npx tsx bench/pdfBoxes.ts`).
 * Conversion has no "boxes off" switch, so the box work is measured on its own: one `mapToPageBox` per recorded
 * box (what the converter does per text line), repeated and timed, against the whole conversion (median of runs).
 * Also the storage: the boxes' JSON (the items' `boxes` column) against the items' text.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const files = filesBelow(corpusRoot).filter((file) => file.toLowerCase().endsWith('.pdf'));
  let totalConversion = 0;
  let totalBoxWork = 0;
  let totalBoxBytes = 0;
  let totalTextBytes = 0;
  console.log('file | pages | items | boxes | convert ms (median) | box work ms | box JSON bytes | text bytes');
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(corpusRoot, file));
    const conversionTimes: number[] = [];
    let document: Awaited<ReturnType<typeof convertPdf>> | undefined;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      try {
        document = await convertPdf(bytes, { fileName: file, pictures: 'none' });
      } catch (error) {
        console.log(`${file}: not converted (${(error as Error).message})`);
        break;
      }
      conversionTimes.push(performance.now() - started);
    }
    if (!document || conversionTimes.length === 0) {
      continue;
    }
    const boxes = document.items.flatMap((item) => item.boxes ?? []);
    // The converter's per-line work for a box: map the line's rectangle to user space and build the record.
    const repeats = 50;
    const started = performance.now();
    let sink = 0;
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const box of boxes) {
        sink += mapToPageBox(IDENTITY_MATRIX, box.page, box.x, box.y, box.x + box.width, box.y + box.height).width;
      }
    }
    const boxWork = (performance.now() - started) / repeats + (sink < 0 ? 1 : 0);
    const boxBytes = document.items.reduce((sum, item) => sum + (item.boxes && item.boxes.length > 0 ? JSON.stringify(item.boxes).length : 0), 0);
    const textBytes = document.items.reduce((sum, item) => sum + item.text.length, 0);
    const conversion = median(conversionTimes);
    totalConversion += conversion;
    totalBoxWork += boxWork;
    totalBoxBytes += boxBytes;
    totalTextBytes += textBytes;
    console.log(`${file} | ${document.pageCount ?? '?'} | ${document.items.length} | ${boxes.length} | ${conversion.toFixed(1)} | ${boxWork.toFixed(3)} | ${boxBytes} | ${textBytes}`);
  }
  console.log(`\nAll PDFs: conversion ${totalConversion.toFixed(0)} ms; box work ${totalBoxWork.toFixed(2)} ms`);
  console.log(`Conversion time with boxes / without (estimated): ${(totalConversion / (totalConversion - totalBoxWork)).toFixed(4)}`);
  console.log(`Stored boxes: ${totalBoxBytes} bytes of JSON against ${totalTextBytes} bytes of item text (ratio ${(totalBoxBytes / totalTextBytes).toFixed(2)})`);
}

void main();
