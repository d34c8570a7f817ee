import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Worker as TesseractWorker, Block as TesseractBlock, Bbox as TesseractBbox } from 'tesseract.js';
import { CancelledError, errorMessage, HaikuError, throwIfAborted } from '../../core/errors';
import { sniffImage } from '../../core/pictures/imageInfo';
import {
  OCR_MAX_IMAGE_PIXELS, OCR_PAGE_TIMEOUT_MS, OCR_ROTATION_PROBE_MAX_SIDE_PX, OCR_ROTATION_MIN_GAIN, OCR_UPRIGHT_CONFIDENCE, OCR_WORKER_IDLE_MS,
  OCR_WORKER_START_TIMEOUT_MS,
} from '../../core/limits';
import type { OcrOptions } from '../convert/convertFile';
import { decodeCommonPng } from '../convert/pictures/pngDecoder';
import { downscale, type RawImage } from '../convert/pictures/pngEncoder';
import { raceDeadline } from '../convert/conversionDeadline';

/**
 * OCR with tesseract.js (Tesseract 5's LSTM engine compiled to WebAssembly), offline: the engine, its worker script
 * and the language data are local files (the VSIX and the npm package carry English; see `languageDataFile`).
 * One Tesseract thread per calling thread (a conversion worker), started on the first OCR (about a second) and
 * stopped after `OCR_WORKER_IDLE_MS` without work, on abort or time-out, and by `shutdownOcrEngine`.
 */

/** A rectangle in pixels of the image as given to `recognizeImage`, origin top-left. */
export interface OcrBox { x: number; y: number; width: number; height: number }
export interface OcrWord { text: string; confidence: number; box: OcrBox }
export interface OcrLine { text: string; confidence: number; box: OcrBox; words: OcrWord[] }
export interface OcrParagraph { text: string; box: OcrBox; lines: OcrLine[] }
export interface OcrResult {
  text: string;
  lines: OcrLine[];
  paragraphs: OcrParagraph[];
  /** The clockwise turn (degrees) that makes the given image upright; boxes are in the given image's pixels regardless. */
  rotation: 0 | 90 | 180 | 270;
  /** Mean word confidence, 0–100 as Tesseract reports it (0 when no text was found). */
  confidence: number;
}

/** Pixels (RGBA, 4 bytes each, rows packed) or an encoded image (PNG, JPEG, TIFF, WebP, BMP, PNM). */
export type OcrImage = { data: Uint8Array | Uint8ClampedArray; width: number; height: number } | Uint8Array;

export interface RecognizeImageOptions {
  /** Tesseract language codes (`eng`, `deu`, `chi_sim`, …), recognized together. */
  languages: readonly string[];
  abortSignal?: AbortSignal;
  /** Time allowed for this image, rotation probes included (default `OCR_PAGE_TIMEOUT_MS`). */
  timeoutMilliseconds?: number;
}

type Rotation = OcrResult['rotation'];

/** OCR as the settings default it (`processing.ocr`): on, English. */
export const DEFAULT_OCR_OPTIONS: OcrOptions = { enabled: true, languages: ['eng'] };

/** A greyscale raster: one byte per pixel. */
interface GreyImage { width: number; height: number; data: Uint8Array }

/** Recognizes the text of one image: paragraphs, lines and words with boxes; turned pages are detected and read upright. */
export async function recognizeImage(image: OcrImage, options: RecognizeImageOptions): Promise<OcrResult> {
  throwIfAborted(options.abortSignal, 'OCR');
  const languages = normalizedLanguages(options.languages);
  const languageFiles = Object.fromEntries(languages.map((code) => [code, languageDataFile(code)]));
  const raw = image instanceof Uint8Array ? undefined : image;
  let grey: GreyImage | undefined;
  let encoded: Uint8Array;
  if (raw) {
    grey = greyFromRgba(raw);
    encoded = encodePgm(grey);
  } else {
    encoded = image as Uint8Array;
    const format = encodedImageFormat(encoded);
    if (format === undefined) {
      throw new HaikuError('corrupt_file', 'The image is not in a format OCR reads (PNG, JPEG, TIFF, WebP, BMP or PNM); convert it to PNG and try again.');
    }
    const size = sniffImage(encoded) ?? (format === 'tiff' ? tiffSize(encoded) : undefined);
    if (size) {
      checkSize(size.width, size.height);
    }
  }
  const deadline = Date.now() + (options.timeoutMilliseconds ?? OCR_PAGE_TIMEOUT_MS);
  const engine = await ocrEngine(languages, languageFiles, options.abortSignal, deadline);
  const upright = parsePage(await engine.run((worker) => worker.recognize(asBuffer(encoded), {}, { text: false, blocks: true }), options.abortSignal, deadline));
  if (upright.confidence >= OCR_UPRIGHT_CONFIDENCE) {
    // Tesseract reads text running top to bottom (a page turned 90° clockwise) as vertical lines, well and in
    // place: the boxes are right already; only the turn is named.
    return { ...upright, rotation: mostlyVertical(upright.lines) ? 270 : 0 };
  }
  if (upright.lines.length === 0) {
    return { ...upright, rotation: 0 };
  }
  // Low confidence: the page may be turned. Try the three other turns on a small copy (cheap; the full-size upright
  // reading competes with its own, higher, confidence) and read the page again turned only if one is clearly better.
  grey ??= await greyFromEncoded(engine, encoded, options.abortSignal, deadline);
  const probe = toRaw(downscale({ ...grey, channels: 1 }, OCR_ROTATION_PROBE_MAX_SIDE_PX));
  let best: { rotation: Rotation; confidence: number } = { rotation: 0, confidence: upright.confidence };
  for (const rotation of [90, 180, 270] as const) {
    const turned = encodePgm(rotateClockwise(probe, rotation));
    const { data } = await engine.run((worker) => worker.recognize(asBuffer(turned), {}, { text: true }), options.abortSignal, deadline);
    const confidence = typeof data.confidence === 'number' ? data.confidence : 0;
    if (confidence > best.confidence) {
      best = { rotation, confidence };
    }
  }
  if (best.rotation === 0 || best.confidence < upright.confidence + OCR_ROTATION_MIN_GAIN) {
    return { ...upright, rotation: 0 };
  }
  const turned = rotateClockwise(grey, best.rotation);
  const page = parsePage(await engine.run((worker) => worker.recognize(asBuffer(encodePgm(turned)), {}, { text: false, blocks: true }), options.abortSignal, deadline));
  const unturn = (box: OcrBox): OcrBox => unrotateBox(box, best.rotation, grey!.width, grey!.height);
  const lines = page.lines.map((line) => ({ ...line, box: unturn(line.box), words: line.words.map((word) => ({ ...word, box: unturn(word.box) })) }));
  const lineIndex = new Map(page.lines.map((line, index) => [line, lines[index]]));
  const paragraphs = page.paragraphs.map((paragraph) => ({ ...paragraph, box: unturn(paragraph.box), lines: paragraph.lines.map((line) => lineIndex.get(line)!) }));
  return { text: page.text, lines, paragraphs, rotation: best.rotation, confidence: page.confidence };
}

/**
 * Decodes an encoded image with Tesseract's own readers (Leptonica: PNG, JPEG, TIFF, WebP, …) and returns it as PNG:
 * the image converter keeps TIFF pictures this way. Shares the OCR thread.
 */
export async function encodedImageToPng(bytes: Uint8Array, options: RecognizeImageOptions): Promise<{ png: Uint8Array; width: number; height: number }> {
  throwIfAborted(options.abortSignal, 'Reading the image');
  const size = sniffImage(bytes) ?? tiffSize(bytes);
  if (size) {
    checkSize(size.width, size.height);
  }
  const languages = normalizedLanguages(options.languages);
  const languageFiles = Object.fromEntries(languages.map((code) => [code, languageDataFile(code)]));
  const deadline = Date.now() + (options.timeoutMilliseconds ?? OCR_PAGE_TIMEOUT_MS);
  const engine = await ocrEngine(languages, languageFiles, options.abortSignal, deadline);
  const png = await engine.run(async (worker) => pngFromDataUrl((await worker.recognize(asBuffer(bytes), {}, { text: false, imageColor: true })).data.imageColor), options.abortSignal, deadline);
  const decoded = decodeCommonPng(png);
  return { png, width: decoded?.width ?? 0, height: decoded?.height ?? 0 };
}

/** Stops this thread's Tesseract worker (conversion worker shutdown; tests). The next OCR starts a new one. */
export async function shutdownOcrEngine(): Promise<void> {
  const engine = current;
  current = undefined;
  await engine?.stop();
}

// --- Languages ---

const LANGUAGE_CODE = /^[a-z]{3}(_[a-z]+)*$/i;

function normalizedLanguages(requested: readonly string[]): string[] {
  const languages = [...new Set(requested.map((code) => code.trim()).filter((code) => code.length > 0))];
  if (languages.length === 0) {
    throw new HaikuError('invalid_settings', 'No OCR language is set; set processing.ocr.languages to at least one Tesseract language code, e.g. ["eng"].', { remedy: { settings: ['processing.ocr.languages'] } });
  }
  for (const code of languages) {
    if (!LANGUAGE_CODE.test(code)) {
      throw new HaikuError('invalid_settings', `'${code}' is not a Tesseract language code (three letters, e.g. eng, deu, fra, or chi_sim); fix processing.ocr.languages.`, { remedy: { settings: ['processing.ocr.languages'] } });
    }
  }
  return languages;
}

/**
 * The traineddata file of a language: beside the bundle (`dist/ocr/<code>.traineddata.gz`, how the VSIX and the
 * npm package carry English) or in the npm package `@tesseract.js-data/<code>` (LSTM "best_int" data).
 */
export function languageDataFile(code: string, bundleFolder: string = path.join(__dirname, 'ocr')): string {
  const bundled = ['.traineddata.gz', '.traineddata'].map((suffix) => path.join(bundleFolder, `${code}${suffix}`));
  const candidates = [...bundled];
  try {
    const packageFolder = path.dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
    candidates.push(path.join(packageFolder, '4.0.0_best_int', `${code}.traineddata.gz`), path.join(packageFolder, '4.0.0', `${code}.traineddata.gz`));
  } catch {
    // Not installed: the error below says how to install it.
  }
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (found === undefined) {
    // From the sources there is no bundle folder to name; the package is the way.
    const bundle = fs.existsSync(bundleFolder);
    throw new HaikuError('invalid_settings', `The OCR language '${code}' is not installed (no npm package @tesseract.js-data/${code}${bundle ? ` and no ${code}.traineddata.gz in ${bundleFolder}` : ''}). `
      + `Install it next to Haiku (\`npm install @tesseract.js-data/${code}\`)${bundle ? `, or copy ${code}.traineddata.gz (from that package's 4.0.0_best_int folder) into ${bundleFolder}` : ''}, `
      + `or remove '${code}' from processing.ocr.languages.`,
    { remedy: { settings: ['processing.ocr.languages'] } });
  }
  return found;
}

// --- The Tesseract thread ---

interface OcrEngine {
  key: string;
  run<T>(job: (worker: TesseractWorker) => Promise<T>, abortSignal: AbortSignal | undefined, deadline: number): Promise<T>;
  stop(): Promise<void>;
}

let current: OcrEngine | undefined;
let starting: Promise<OcrEngine> | undefined;

/** The script tesseract.js runs its thread from: bundled beside the bundle, else the source. */
function tesseractWorkerScript(): string {
  const candidates = [path.join(__dirname, 'ocr', 'tesseract-worker.js'), path.join(__dirname, 'tesseractWorker.cjs'), path.resolve(__dirname, '..', '..', '..', '..', 'src', 'node', 'ocr', 'tesseractWorker.cjs')];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (found === undefined) {
    throw new HaikuError('unsupported_format', `OCR is not available: its worker script is missing (looked for ${candidates.join(', ')}). Reinstall Haiku, or turn OCR off (processing.ocr.enabled: false).`,
      { remedy: { settings: ['processing.ocr.enabled'] } });
  }
  return found;
}

async function ocrEngine(languages: string[], languageFiles: Record<string, string>, abortSignal: AbortSignal | undefined, deadline: number): Promise<OcrEngine> {
  const key = JSON.stringify(languageFiles);
  if (starting) {
    await starting.catch(() => undefined);
  }
  if (current?.key === key) {
    return current;
  }
  await shutdownOcrEngine();
  starting = startEngine(languages, languageFiles, key, abortSignal, deadline);
  try {
    current = await starting;
    return current;
  } finally {
    starting = undefined;
  }
}

async function startEngine(languages: string[], languageFiles: Record<string, string>, key: string, abortSignal: AbortSignal | undefined, deadline: number): Promise<OcrEngine> {
  const { createWorker, OEM, PSM } = await import('tesseract.js');
  const workerPath = tesseractWorkerScript();
  let failure: string | undefined;
  const creation = createWorker(languages, OEM.LSTM_ONLY, {
    workerPath,
    // Read by tesseractWorker.cjs: every language's file, wherever it is (tesseract.js expects one folder).
    langPath: `haiku-ocr:${encodeURIComponent(JSON.stringify(languageFiles))}`,
    cacheMethod: 'none',
    gzip: true,
    // Without a handler tesseract.js throws a failed job's message from its message listener (an uncaught exception).
    errorHandler: (error: unknown) => {
      failure = String(error);
    },
  });
  let worker: TesseractWorker;
  try {
    worker = await withLimits(creation, abortSignal, Math.min(deadline, Date.now() + OCR_WORKER_START_TIMEOUT_MS), 'Starting OCR');
  } catch (error) {
    void creation.then((late) => late.terminate()).catch(() => undefined);
    if (error instanceof HaikuError) {
      throw error;
    }
    throw new HaikuError('unsupported_format', `OCR could not start (${failure ?? errorMessage(error)}). Check that the language data is intact, or turn OCR off (processing.ocr.enabled: false).`,
      { cause: error, remedy: { settings: ['processing.ocr.enabled'] } });
  }
  const thread = (worker as unknown as { worker: { ref(): void; unref(): void; on(event: 'error', listener: (error: Error) => void): void } }).worker;
  let crashed: Error | undefined;
  const started: { engine?: OcrEngine } = {};
  // A thread that dies (Tesseract out of WebAssembly memory) answers no job: its jobs fail at once instead of at the deadline.
  let rejectCrashed: (error: Error) => void = () => undefined;
  const crashedThread = new Promise<never>((_, reject) => {
    rejectCrashed = reject;
  });
  crashedThread.catch(() => undefined);
  thread.on('error', (error) => {
    crashed = error;
    rejectCrashed(error);
    if (started.engine && current === started.engine) {
      current = undefined;
    }
  });
  // Automatic page segmentation (tesseract.js defaults to one uniform block, which merges columns).
  await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
  // Between jobs the thread must not keep the process alive (a CLI run would wait for the idle timer).
  thread.unref();
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let busy = 0;
  let stopped = false;
  const engine: OcrEngine = {
    key,
    async run(job, jobAbortSignal, jobDeadline) {
      if (stopped || crashed) {
        throw new HaikuError('unsupported_format', `OCR stopped (${crashed?.message ?? 'shut down'}); try again.`);
      }
      busy += 1;
      clearTimeout(idleTimer);
      thread.ref();
      try {
        return await withLimits(Promise.race([job(worker), crashedThread]), jobAbortSignal, jobDeadline, 'OCR');
      } catch (error) {
        // A job cannot be stopped inside Tesseract: on time-out or abort the thread goes, and a crashed one too.
        if (error instanceof CancelledError || (error instanceof HaikuError && error.code === 'conversion_timeout') || crashed) {
          if (current === engine) {
            current = undefined;
          }
          await engine.stop();
          if (crashed && !(error instanceof HaikuError)) {
            throw new HaikuError('corrupt_file', `OCR stopped while reading the image (${errorMessage(crashed)}); the image may be too large or damaged.`, { cause: crashed });
          }
          throw error;
        }
        throw new HaikuError('corrupt_file', `The image could not be read for OCR (${failure ?? errorMessage(error)}).`, { cause: error });
      } finally {
        failure = undefined;
        busy -= 1;
        if (busy === 0 && !stopped) {
          thread.unref();
          idleTimer = setTimeout(() => {
            if (current === engine) {
              current = undefined;
            }
            void engine.stop();
          }, OCR_WORKER_IDLE_MS);
          idleTimer.unref();
        }
      }
    },
    async stop() {
      if (stopped) {
        return;
      }
      stopped = true;
      clearTimeout(idleTimer);
      await worker.terminate().catch(() => undefined);
    },
  };
  started.engine = engine;
  return engine;
}

/** Races work against a deadline and an abort signal (the caller stops what the work runs on). */
function withLimits<T>(work: Promise<T>, abortSignal: AbortSignal | undefined, deadline: number, what: string): Promise<T> {
  throwIfAborted(abortSignal, what);
  const milliseconds = Math.max(0, deadline - Date.now());
  const timeoutError = () => new HaikuError('conversion_timeout', `${what} took longer than ${Math.max(1, Math.round(milliseconds / 1000))} s and was stopped; the image may be huge or unusually complex.`);
  return raceDeadline(work, { timeoutMilliseconds: milliseconds, abortSignal, timeoutError, cancelled: what });
}

// --- Tesseract's output ---

/** Whether most words (of three characters or more) stand taller than wide: text running down the page. */
function mostlyVertical(lines: readonly OcrLine[]): boolean {
  const words = lines.flatMap((line) => line.words).filter((word) => word.text.length >= 3);
  const vertical = words.filter((word) => word.box.height > word.box.width * 1.5).length;
  return words.length > 0 && vertical > words.length / 2;
}

function toBox(bbox: TesseractBbox): OcrBox {
  return { x: bbox.x0, y: bbox.y0, width: Math.max(0, bbox.x1 - bbox.x0), height: Math.max(0, bbox.y1 - bbox.y0) };
}

function parsePage(result: { data: { blocks: TesseractBlock[] | null } }): Omit<OcrResult, 'rotation'> {
  const paragraphs: OcrParagraph[] = [];
  const lines: OcrLine[] = [];
  let confidenceSum = 0;
  let wordCount = 0;
  for (const block of result.data.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      const paragraphLines: OcrLine[] = [];
      for (const line of paragraph.lines) {
        const words = line.words
          .map((word) => ({ text: word.text.trim(), confidence: word.confidence, box: toBox(word.bbox) }))
          .filter((word) => word.text.length > 0);
        if (words.length === 0) {
          continue;
        }
        for (const word of words) {
          confidenceSum += word.confidence;
          wordCount += 1;
        }
        const parsed: OcrLine = { text: words.map((word) => word.text).join(' '), confidence: line.confidence, box: toBox(line.bbox), words };
        paragraphLines.push(parsed);
        lines.push(parsed);
      }
      if (paragraphLines.length > 0) {
        paragraphs.push({ text: joinLines(paragraphLines.map((line) => line.text)), box: toBox(paragraph.bbox), lines: paragraphLines });
      }
    }
  }
  return { text: paragraphs.map((paragraph) => paragraph.text).join('\n\n'), lines, paragraphs, confidence: wordCount === 0 ? 0 : confidenceSum / wordCount };
}

/** Lines of a paragraph as running text: a word hyphenated across a line break is joined. */
function joinLines(lines: string[]): string {
  let text = '';
  for (const line of lines) {
    if (text.length === 0) {
      text = line;
    } else if (/[a-z]-$/.test(text) && /^[a-z]/.test(line)) {
      text = text.slice(0, -1) + line;
    } else {
      text += ` ${line}`;
    }
  }
  return text;
}

// --- Pixels ---

function greyFromRgba(image: { data: Uint8Array | Uint8ClampedArray; width: number; height: number }): GreyImage {
  const { width, height, data } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || data.length < width * height * 4) {
    throw new HaikuError('corrupt_file', `The image to OCR is malformed: ${width}x${height} RGBA needs ${width * height * 4} bytes, got ${data.length}.`);
  }
  checkSize(width, height);
  const grey = new Uint8Array(width * height);
  for (let pixel = 0, offset = 0; pixel < grey.length; pixel++, offset += 4) {
    // Transparent pixels count as white paper.
    const alpha = data[offset + 3] / 255;
    const luminance = 0.299 * data[offset] + 0.587 * data[offset + 1] + 0.114 * data[offset + 2];
    grey[pixel] = Math.round(luminance * alpha + 255 * (1 - alpha));
  }
  return { width, height, data: grey };
}

function checkSize(width: number, height: number): void {
  if (width * height > OCR_MAX_IMAGE_PIXELS) {
    throw new HaikuError('file_too_large', `The image is ${width}x${height} pixels, more than OCR reads (${OCR_MAX_IMAGE_PIXELS.toLocaleString('en-US')}); scale it down and try again.`);
  }
}

async function greyFromEncoded(engine: OcrEngine, encoded: Uint8Array, abortSignal: AbortSignal | undefined, deadline: number): Promise<GreyImage> {
  const png = await engine.run(async (worker) => pngFromDataUrl((await worker.recognize(asBuffer(encoded), {}, { text: false, imageGrey: true })).data.imageGrey), abortSignal, deadline);
  const decoded = decodeCommonPng(png);
  if (!decoded) {
    throw new HaikuError('corrupt_file', 'The image could not be decoded for OCR.');
  }
  const grey = new Uint8Array(decoded.width * decoded.height);
  for (let pixel = 0; pixel < grey.length; pixel++) {
    grey[pixel] = decoded.data[pixel * decoded.channels];
  }
  return { width: decoded.width, height: decoded.height, data: grey };
}

function pngFromDataUrl(dataUrl: string | null | undefined): Uint8Array {
  const comma = dataUrl?.indexOf(',') ?? -1;
  if (!dataUrl || comma < 0) {
    throw new HaikuError('corrupt_file', 'The image could not be decoded.');
  }
  return new Uint8Array(Buffer.from(dataUrl.slice(comma + 1), 'base64'));
}

/** tesseract.js takes a Buffer (a view, not a copy). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function toRaw(image: RawImage): GreyImage {
  return { width: image.width, height: image.height, data: image.data instanceof Uint8Array ? image.data : new Uint8Array(image.data) };
}

/** Binary PGM: the cheapest encoding Tesseract reads (no compression to undo). */
function encodePgm(image: GreyImage): Uint8Array {
  const header = Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'ascii');
  const bytes = new Uint8Array(header.length + image.data.length);
  bytes.set(header, 0);
  bytes.set(image.data.subarray(0, image.width * image.height), header.length);
  return bytes;
}

/** The image turned clockwise by `rotation` degrees. */
export function rotateClockwise(image: GreyImage, rotation: Rotation): GreyImage {
  const { width, height, data } = image;
  if (rotation === 0) {
    return image;
  }
  const out = new Uint8Array(width * height);
  if (rotation === 180) {
    for (let index = 0; index < out.length; index++) {
      out[index] = data[out.length - 1 - index];
    }
    return { width, height, data: out };
  }
  // 90 and 270 swap the sides: the turned image is `height` wide.
  for (let y = 0; y < width; y++) {
    for (let x = 0; x < height; x++) {
      const source = rotation === 90 ? (height - 1 - x) * width + y : x * width + (width - 1 - y);
      out[y * height + x] = data[source];
    }
  }
  return { width: height, height: width, data: out };
}

/** A box found in the image turned clockwise by `rotation`, in the pixels of the unturned `width`x`height` image. */
export function unrotateBox(box: OcrBox, rotation: Rotation, width: number, height: number): OcrBox {
  switch (rotation) {
    case 0:
      return box;
    case 90:
      return { x: box.y, y: height - (box.x + box.width), width: box.height, height: box.width };
    case 180:
      return { x: width - (box.x + box.width), y: height - (box.y + box.height), width: box.width, height: box.height };
    case 270:
      return { x: width - (box.y + box.height), y: box.x, width: box.height, height: box.width };
  }
}

/** The format of an encoded image, by its signature. */
export function encodedImageFormat(bytes: Uint8Array): 'png' | 'jpeg' | 'tiff' | 'webp' | 'bmp' | 'pnm' | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes.length < 12) {
    return undefined;
  }
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') {
    return 'png';
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return 'jpeg';
  }
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') {
    return 'tiff';
  }
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') {
    return 'webp';
  }
  if (ascii(0, 2) === 'BM') {
    return 'bmp';
  }
  if (/^P[2356]\s$/.test(ascii(0, 3))) {
    return 'pnm';
  }
  return undefined;
}

/** Width and height from a TIFF's first directory (tags 256 and 257), or undefined. */
export function tiffSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 8) {
    return undefined;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = bytes[0] === 0x49;
  const directory = view.getUint32(4, little);
  if (directory + 2 > bytes.length) {
    return undefined;
  }
  const count = view.getUint16(directory, little);
  let width: number | undefined;
  let height: number | undefined;
  for (let index = 0; index < count && directory + 2 + (index + 1) * 12 <= bytes.length; index++) {
    const entry = directory + 2 + index * 12;
    const tag = view.getUint16(entry, little);
    const type = view.getUint16(entry + 2, little);
    const value = type === 3 ? view.getUint16(entry + 8, little) : view.getUint32(entry + 8, little);
    if (tag === 256) {
      width = value;
    } else if (tag === 257) {
      height = value;
    }
  }
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}
