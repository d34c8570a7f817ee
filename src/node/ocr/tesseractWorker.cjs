/* global console, process, require */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS run by Node as is (a worker thread script) */
'use strict';

/**
 * The thread tesseract.js runs Tesseract in (its own `worker-script/node/index.js`, adapted): plain CommonJS so
 * Node runs it as is from the sources and esbuild bundles it into `dist/ocr/tesseract-worker.js`.
 * Differences from the stock script, each for a reason:
 * - only the SIMD LSTM core loads: Haiku never asks for the legacy engine, and every Node Haiku runs on (20+, VS Code's
 *   Electron) has WebAssembly SIMD, so the VSIX carries no other core (each is ~1 MB compressed);
 * - nothing is fetched: language data is read from local files only (see `readLanguageFile`), so OCR works offline;
 * - Tesseract's console output is dropped: it would land in the parent's stdout, which carries the MCP protocol.
 */
const fs = require('fs');
const zlib = require('zlib');
const { parentPort } = require('worker_threads');

console.log = () => undefined;
console.info = () => undefined;
console.debug = () => undefined;
console.warn = () => undefined;
console.error = () => undefined;
process.stdout.write = () => true;
process.stderr.write = () => true;

const worker = require('tesseract.js/src/worker-script');

let core = null;

/** tesseract.js's `getCore`: the SIMD LSTM build. */
async function getCore() {
  if (core === null) {
    const { simd } = require('wasm-feature-detect');
    if (!(await simd())) {
      throw new Error('OCR needs WebAssembly SIMD, which this Node.js lacks; run Haiku on Node.js 20 or later');
    }
    core = require('tesseract.js-core/tesseract-core-simd-lstm');
  }
  return core;
}

/**
 * Language data paths come from the parent as `haiku-ocr:<URI-encoded JSON {code: file}>/<code>.traineddata.gz`
 * (tesseract.js reads every language from one folder; Haiku's may sit in several packages).
 */
function readLanguageFile(requested) {
  const marker = 'haiku-ocr:';
  if (!requested.startsWith(marker)) {
    return fs.promises.readFile(requested);
  }
  const slash = requested.lastIndexOf('/');
  const files = JSON.parse(decodeURIComponent(requested.slice(marker.length, slash)));
  const code = requested.slice(slash + 1).replace(/\.traineddata(\.gz)?$/, '');
  const file = files[code];
  if (typeof file !== 'string') {
    return Promise.reject(new Error(`no data file for language '${code}'`));
  }
  return fs.promises.readFile(file);
}

parentPort.on('message', (packet) => {
  worker.dispatchHandlers(packet, (message) => parentPort.postMessage(message));
});

worker.setAdapter({
  getCore,
  gunzip: (bytes) => zlib.gunzipSync(bytes),
  fetch: (url) => Promise.reject(new Error(`Haiku's OCR reads local files only; refused to fetch ${url}`)),
  readCache: readLanguageFile,
  writeCache: () => Promise.resolve(),
  deleteCache: () => Promise.resolve(),
  checkCache: () => Promise.resolve(false),
});
