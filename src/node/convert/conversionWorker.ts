/**
 * The conversion worker (`dist/conversion-worker.js`): converts and chunks one file per job with `loadDocument` and
 * `chunkDocument`, and answers with the document and its chunks or the serialised error. The pool runs one job at a time per worker and enforces time, memory and
 * cancellation from outside by terminating the thread, so nothing here needs to be interruptible.
 */
import { parentPort } from 'node:worker_threads';
import { chunkDocumentWithinLimit } from '../../core/chunker';
import { MAX_DOCUMENT_CHUNKS } from '../../core/limits';
import { loadDocument } from './convertFile';
import { serializeError, type PoolToWorkerMessage, type WorkerToPoolMessage } from './conversionProtocol';

const port = parentPort;
if (!port) {
  throw new Error('conversionWorker must run as a worker thread (see conversionPool.ts).');
}

function send(message: WorkerToPoolMessage): void {
  port!.postMessage(message);
}

port.on('message', (message: PoolToWorkerMessage) => {
  if (message.type !== 'convert') {
    return;
  }
  const { jobId, filePath, rootPath, maxBytes, pictures, pictureRoots } = message.job;
  loadDocument({ rootPath, filePath, maxBytes, pictures, pictureRoots }).then(
    (document) => {
      const { chunks, truncated } = chunkDocumentWithinLimit({ id: document.id, items: document.items });
      if (truncated) {
        document.warnings.push(`The document gives more than ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} chunks; only the first ${MAX_DOCUMENT_CHUNKS.toLocaleString('en-US')} are indexed. Split the file to index all of it.`);
      }
      send({ type: 'converted', jobId, document, chunks });
    },
    (error: unknown) => send({ type: 'failed', jobId, error: serializeError(error) }),
  );
});

send({ type: 'ready' });
