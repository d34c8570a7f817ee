import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument, countChunkTokens, CHUNK_TOKENIZER_NAME } from '../src/core/chunker';
import type { DocumentItem } from '../src/core/model/document';
import { CHUNK_MAX_TOKENS } from '../src/core/limits';

/**
 * Chunking throughput: the 5,183 SciFact abstracts (title + text as one paragraph each) and, when the
 * converters are present, every file of the shared corpus. Run: `npx tsx bench/chunking.ts`.
 */
const sharedRoot = process.env.HAIKU_SHARED_DIR ?? path.resolve(__dirname, '..', '..', 'shared');

function scifactDocuments(): Array<{ id: string; items: DocumentItem[] }> {
  const lines = fs.readFileSync(path.join(sharedRoot, 'eval', 'scifact', 'corpus.jsonl'), 'utf8').split('\n').filter((line) => line.trim());
  return lines.map((line) => {
    const record = JSON.parse(line) as { _id: string; title: string; text: string };
    return { id: record._id, items: [{ position: 0, selfRef: '#/texts/0', label: 'paragraph', text: `${record.title}\n${record.text}`, headingLevel: 0, pageNumbers: [], treeDepth: 0 }] };
  });
}

function measure(name: string, documents: ReadonlyArray<{ id: string; items: readonly DocumentItem[] }>): number {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let chunks = 0;
  let maximum = 0;
  let overLimit = 0;
  const all = [];
  for (const document of documents) {
    const result = chunkDocument(document);
    chunks += result.length;
    all.push(...result);
  }
  const elapsed = performance.now() - started;
  const cpu = cpuMilliseconds(cpuStarted);
  let underestimated = 0;
  for (const chunk of all) {
    const exact = countChunkTokens(chunk.searchText);
    maximum = Math.max(maximum, exact);
    if (exact > CHUNK_MAX_TOKENS) overLimit++;
    if (exact > chunk.tokenCount) underestimated++;
  }
  const exactCounts = all.map((chunk) => countChunkTokens(chunk.searchText)).sort((left, right) => left - right);
  const median = exactCounts[Math.floor(exactCounts.length / 2)] ?? 0;
  const small = exactCounts.filter((count) => count < 64).length;
  console.log(`${name}: ${documents.length} documents -> ${chunks} chunks in ${elapsed.toFixed(0)} ms (CPU ${cpu.toFixed(0)} ms); max exact tokens ${maximum}, over limit ${overLimit}, tokenCount under exact ${underestimated}; median ${median} tokens, ${small} chunks under 64 (${CHUNK_TOKENIZER_NAME})`);
  return cpu;
}

/** User + system CPU time since `since` (ms): steadier than wall time on a shared machine. */
function cpuMilliseconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** Reference: one plain token count per item text, the floor any token-bounded chunker pays. */
function countOnce(name: string, documents: ReadonlyArray<{ items: readonly DocumentItem[] }>): number {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let tokens = 0;
  for (const document of documents) {
    for (const item of document.items) {
      tokens += countChunkTokens(item.text);
    }
  }
  const elapsed = performance.now() - started;
  const cpu = cpuMilliseconds(cpuStarted);
  console.log(`${name}: counting every item's tokens once takes ${elapsed.toFixed(0)} ms (CPU ${cpu.toFixed(0)} ms, ${tokens} tokens)`);
  return cpu;
}

async function main(): Promise<void> {
  const scifact = scifactDocuments();
  measure('scifact (cold tokenizer)', scifact);
  const reference = countOnce('scifact reference', scifact);
  const warm = measure('scifact (warm)', scifact);
  console.log(`scifact chunking / reference CPU-time ratio: ${(warm / reference).toFixed(2)}`);
  const converterPath = path.resolve(__dirname, '..', 'src', 'node', 'convert', 'convertFile.ts');
  if (!fs.existsSync(converterPath)) {
    console.log('shared corpus: skipped (src/node/convert/convertFile.ts missing)');
    return;
  }
  let convertFile: (path: string) => Promise<{ items: DocumentItem[] }>;
  try {
    // Loaded lazily so the SciFact half still runs while the converters are incomplete.
    // Loaded late so the chunking figures leave out the converters' start-up.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ({ convertFile } = require('../src/node/convert/convertFile') as { convertFile: typeof convertFile });
  } catch (error) {
    console.log(`shared corpus: skipped (${(error as Error).message.split('\n')[0]})`);
    return;
  }
  const corpusRoot = path.join(sharedRoot, 'corpus');
  const files = fs.readdirSync(corpusRoot, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && /\.(md|html|pdf|docx)$/.test(entry.name) && !entry.name.endsWith('.groundtruth.md'));
  const documents = [];
  for (const entry of files) {
    const full = path.join(entry.parentPath, entry.name);
    try {
      const converted = await convertFile(full);
      documents.push({ id: full, items: converted.items });
    } catch (error) {
      console.log(`  ${full}: ${(error as Error).message}`);
    }
  }
  measure('shared corpus', documents);
}

void main();
