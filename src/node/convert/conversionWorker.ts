/**
 * The conversion worker (`dist/conversion-worker.js`): converts and chunks the files of each message one after
 * another (`prepareDocument`) and answers each with the document and its chunks or the serialised error as soon as
 * it is done. The pool enforces time, memory and cancellation from outside by terminating the thread, so nothing
 * here needs to be interruptible.
 */
import { parentPort } from 'node:worker_threads';
import { serializeError, type PoolToWorkerMessage, type WorkerToPoolMessage } from './conversionProtocol';
import { prepareDocument } from './prepareDocument';

const port = parentPort;
if (!port) {
  throw new Error('conversionWorker must run as a worker thread (see conversionPool.ts).');
}

function send(message: WorkerToPoolMessage): void {
  port!.postMessage(message);
}

/** Messages convert strictly in order: a batch arriving while one runs waits for it. */
let converting: Promise<void> = Promise.resolve();

port.on('message', (message: PoolToWorkerMessage) => {
  if (message.type !== 'convert') {
    return;
  }
  converting = converting.then(async () => {
    for (const { jobId, filePath, rootPath, maxBytes, pictures, pictureRoots, ocr } of message.jobs) {
      try {
        const { document, chunks } = await prepareDocument({ rootPath, filePath, maxBytes, pictures, pictureRoots, ocr });
        send({ type: 'converted', jobId, document, chunks });
      } catch (error) {
        send({ type: 'failed', jobId, error: serializeError(error) });
      }
    }
  });
});

send({ type: 'ready' });
