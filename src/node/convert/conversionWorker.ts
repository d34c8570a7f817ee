/**
 * The conversion worker (`dist/conversion-worker.js`): converts and chunks the files of each message one after
 * another and answers each with the document and its chunks or the serialised error as soon as it is done. A big
 * document goes in parts when the caller takes parts (`inParts`), one part at a time, each dropped here once sent.
 * The pool enforces time, memory and cancellation from outside by terminating the thread, so nothing here needs to
 * be interruptible.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { CONVERSION_PART_CHARS, CONVERSION_PARTS_MIN_CHARS, CONVERSION_PARTS_MIN_ITEMS, CONVERSION_PARTS_PER_COLLECTION } from '../../core/limits';
import type { Chunk } from '../../core/model/chunk';
import type { DocumentItem, HaikuDocument } from '../../core/model/document';
import { serializeError, type PoolToWorkerMessage, type PartOnTheWire, type WorkerToPoolMessage } from './conversionProtocol';
import { loadDocument } from './convertFile';
import { chunkItemsAsTheyCome } from '../../core/chunker';
import { chunkLoadedDocument, warnIfTruncated } from './prepareDocument';

const port = parentPort;
if (!port) {
  throw new Error('conversionWorker must run as a worker thread (see conversionPool.ts).');
}

function send(message: WorkerToPoolMessage, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

/** Messages convert strictly in order: a batch arriving while one runs waits for it. */
let converting: Promise<void> = Promise.resolve();
/** Set while a part waits to be taken by the caller. */
let partTaken: (() => void) | undefined;

port.on('message', (message: PoolToWorkerMessage) => {
  if (message.type === 'taken') {
    partTaken?.();
    partTaken = undefined;
    return;
  }
  converting = converting.then(async () => {
    for (const { jobId, filePath, rootPath, maxBytes, pictures, pictureRoots, ocr, inParts } of message.jobs) {
      try {
        const document = await loadDocument({ rootPath, filePath, maxBytes, pictures, pictureRoots, ocr });
        if (inParts && isBig(document)) {
          await sendInParts(jobId, document);
        } else {
          send({ type: 'converted', jobId, document, chunks: chunkLoadedDocument(document) });
        }
      } catch (error) {
        send({ type: 'failed', jobId, error: serializeError(error) });
      }
    }
  });
});

function isBig(document: HaikuDocument): boolean {
  return document.items.length > CONVERSION_PARTS_MIN_ITEMS || document.content.length > CONVERSION_PARTS_MIN_CHARS;
}

/**
 * The document without its items first (the caller starts its write), then its items in parts of about
 * `CONVERSION_PART_CHARS`, each chunked here while the caller writes it. The chunks an items part completed go with
 * the next items part (their items are then all sent), so the caller's writing of items and the chunking here overlap
 * from the first part to the last; the chunks left at the end follow in parts of their own, made as they go.
 * A part is sent when the last was taken and dropped here once chunked or sent, so the document exists about once in
 * the process instead of three times.
 */
async function sendInParts(jobId: number, document: HaikuDocument): Promise<void> {
  const { items } = document;
  const warningsBefore = document.warnings.length;
  send({ type: 'converted', jobId, document: { ...document, items: [], content: '' }, chunks: [], inParts: true });
  // The content goes last, as UTF-8 outside the heap: the caller needs it only for the document's row at the end.
  const content = new TextEncoder().encode(document.content);
  document.content = '';
  document.items = [];
  collectGarbage();
  const chunking = chunkItemsAsTheyCome(document.id);
  let completed: Chunk[] = [];
  while (items.length > 0) {
    const part = items.splice(0, partLength(items, itemChars));
    const taken = sendPart(jobId, { items: part, chunks: completed.map(withoutSearchText) });
    chunking.add(part);
    completed = chunking.ready();
    await taken;
  }
  const chunks = chunking.finish();
  warnIfTruncated(document, chunks);
  for (let part = [...completed, ...chunks.take(CONVERSION_PART_CHARS)]; part.length > 0; part = chunks.take(CONVERSION_PART_CHARS)) {
    await sendPart(jobId, { items: [], chunks: part.map(withoutSearchText) });
  }
  send({ type: 'parts-end', jobId, warnings: document.warnings.slice(warningsBefore), content }, [content.buffer]);
}

/** The search text is the headings and the content again: the pool makes it anew instead of receiving a copy. */
function withoutSearchText({ searchText: _searchText, ...chunk }: Chunk): Omit<Chunk, 'searchText'> {
  return chunk;
}

/** Parts sent since the last full collection. */
let partsSinceCollection = 0;

/**
 * Sends one part and waits until the caller has taken it. Every few parts, what was sent is collected while the
 * caller writes: the heap shrinks as the document leaves instead of staying at its peak until the end.
 */
async function sendPart(jobId: number, part: PartOnTheWire): Promise<void> {
  const taken = new Promise<void>((resolve) => (partTaken = resolve));
  send({ type: 'part', jobId, part });
  if (++partsSinceCollection >= CONVERSION_PARTS_PER_COLLECTION) {
    partsSinceCollection = 0;
    collectGarbage();
  }
  await taken;
}

/** How many entries from the front of `list` make one part: at least one, then up to `CONVERSION_PART_CHARS`. */
function partLength<T>(list: readonly T[], charsOf: (entry: T) => number): number {
  let chars = 0;
  let length = 0;
  while (length < list.length && (length === 0 || chars < CONVERSION_PART_CHARS)) {
    chars += charsOf(list[length]);
    length++;
  }
  return length;
}

function itemChars(item: DocumentItem): number {
  return item.text.length + (item.picture?.bytes?.byteLength ?? 0) + 64;
}

/**
 * A full collection between the steps of a big document: the parse's and the chunking's garbage would otherwise
 * stay in this thread's heap while the caller writes the parts (V8 gives pages back only after such a collection).
 */
const collectGarbage: () => void = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return () => undefined;
  }
})();

send({ type: 'ready' });
