import { pdfjsLib } from './pdfjsGlobal';
import { EventBus, PDFFindController, PDFLinkService, PDFViewer } from 'pdfjs-dist/web/pdf_viewer.mjs';
import type { DrawnRectangle, PdfBox, PdfHighlight, PdfHostToWebviewMessage, PdfLoadFailure, PdfWebviewToHostMessage } from '../../shared/pdfViewerProtocol';
import { highlightedPages, rectangleOnPage, type ViewportTransform } from './highlightGeometry';

/**
 * The PDF viewer webview: pdf.js's viewer component (canvas pages, selectable text layer, find controller) with a
 * toolbar, and a highlight layer per page that draws a chunk's own boxes strongly and its context faintly. The
 * bytes come from the host; the worker is started from a blob of the shipped `pdf.worker.mjs` (a webview cannot
 * start a worker from its resource origin).
 */

interface PageViewLike {
  div: HTMLDivElement;
  viewport: ViewportTransform;
  renderingState: number;
}

// Acquired by the page's first script, which also reports errors raised while pdf.js initialises.
const vscodeApi = (window as unknown as { haikuVscodeApi: { postMessage(message: unknown): void } }).haikuVscodeApi;
const resources = document.body.dataset;
const RENDERING_FINISHED = 3;

function post(message: PdfWebviewToHostMessage): void {
  vscodeApi.postMessage(message);
}

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

const container = byId<HTMLDivElement>('viewerContainer');
const pageInput = byId<HTMLInputElement>('pageNumber');
const pageCountLabel = byId<HTMLSpanElement>('pageCount');
const findInput = byId<HTMLInputElement>('findInput');
const findResult = byId<HTMLSpanElement>('findResult');
const statusLabel = byId<HTMLSpanElement>('status');

const eventBus = new EventBus();
const linkService = new PDFLinkService({ eventBus });
const findController = new PDFFindController({ eventBus, linkService });
const viewer = new PDFViewer({ container, eventBus, linkService, findController, textLayerMode: 1, annotationMode: 0 });
linkService.setViewer(viewer);

let currentHighlight: PdfHighlight | undefined;
let pending: { highlight: PdfHighlight; started: number } | undefined;
let loadedDocument: { numPages: number; getPage(page: number): Promise<{ getTextContent(): Promise<{ items: unknown[] }> }> } | undefined;
const drawn = new Map<number, DrawnRectangle[]>();

window.addEventListener('unhandledrejection', (event) => post({ type: 'problem', message: String((event.reason as Error)?.stack ?? event.reason) }));

async function startWorker(): Promise<void> {
  const response = await fetch(resources.worker!);
  if (!response.ok) {
    throw new Error(`The PDF worker script did not load (${response.status} ${response.statusText}).`);
  }
  const source = await response.text();
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url, { type: 'module' });
  worker.addEventListener('error', (event) => post({ type: 'problem', message: `PDF worker: ${event.message}` }));
  pdfjsLib.GlobalWorkerOptions.workerPort = worker;
}

const workerReady = startWorker();

function pageView(page: number): PageViewLike | undefined {
  return viewer.getPageView(page - 1) as PageViewLike | undefined;
}

/** (Re)draws the highlight layer of one page; pdf.js empties a page's div when it re-renders it (zoom). */
function drawPage(page: number): void {
  const view = pageView(page);
  if (!view) {
    return;
  }
  view.div.querySelectorAll('.haiku-highlights').forEach((layer) => layer.remove());
  const highlight = currentHighlight;
  if (!highlight) {
    drawn.delete(page);
    return;
  }
  const layer = document.createElement('div');
  layer.className = 'haiku-highlights';
  const rectangles: DrawnRectangle[] = [];
  const add = (boxes: readonly PdfBox[], strength: DrawnRectangle['strength']): void => {
    for (const box of boxes.filter((candidate) => candidate.page === page)) {
      const rectangle = rectangleOnPage(box, view.viewport, strength);
      const mark = document.createElement('div');
      mark.className = `haiku-${strength}`;
      mark.style.left = `${rectangle.left}px`;
      mark.style.top = `${rectangle.top}px`;
      mark.style.width = `${rectangle.width}px`;
      mark.style.height = `${rectangle.height}px`;
      layer.append(mark);
      rectangles.push(rectangle);
    }
  };
  // Context first, so the chunk's own marks paint over it.
  add(highlight.contextBoxes, 'context');
  add(highlight.chunkBoxes, 'chunk');
  view.div.append(layer);
  drawn.set(page, rectangles);
}

function applyHighlight(highlight: PdfHighlight): void {
  for (const page of drawn.keys()) {
    currentHighlight = undefined;
    drawPage(page);
  }
  currentHighlight = highlight;
  pending = { highlight, started: performance.now() };
  const pages = highlightedPages(highlight.chunkBoxes, highlight.contextBoxes);
  pages.forEach(drawPage);
  const first = highlight.chunkBoxes.find((box) => box.page === highlight.page) ?? highlight.contextBoxes.find((box) => box.page === highlight.page);
  if (first) {
    // Scroll so the chunk's first box sits near the top (a margin above it), whatever the zoom and rotation.
    viewer.scrollPageIntoView({ pageNumber: highlight.page, destArray: [null, { name: 'XYZ' }, first.x, first.y + first.height + 24, null], allowNegativeOffset: true, ignoreDestinationZoom: true });
  } else {
    viewer.currentPageNumber = highlight.page;
  }
  void reportWhenPainted();
}

async function reportWhenPainted(): Promise<void> {
  const current = pending;
  if (!current || !loadedDocument) {
    return;
  }
  const view = pageView(current.highlight.page);
  if (!view || view.renderingState !== RENDERING_FINISHED) {
    return;
  }
  pending = undefined;
  const text = await (await loadedDocument.getPage(current.highlight.page)).getTextContent();
  const mark = view.div.querySelector('.haiku-chunk')?.getBoundingClientRect();
  const visible = container.getBoundingClientRect();
  const chunkInView = mark !== undefined && mark.bottom > visible.top && mark.top < visible.bottom;
  const memory = (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory;
  post({
    type: 'highlighted',
    report: {
      jumpId: current.highlight.jumpId,
      page: current.highlight.page,
      chunkInView,
      rectangles: [...drawn.values()].flat(),
      textLayer: text.items.length > 0,
      elapsedMs: performance.now() - current.started,
      ...(memory ? { usedHeapBytes: memory.usedJSHeapSize } : {}),
    },
  });
}

eventBus.on('pagerendered', (event: { pageNumber: number }) => {
  if (currentHighlight && highlightedPages(currentHighlight.chunkBoxes, currentHighlight.contextBoxes).includes(event.pageNumber)) {
    drawPage(event.pageNumber);
  }
  if (pending && event.pageNumber === pending.highlight.page) {
    void reportWhenPainted();
  }
});
eventBus.on('pagesinit', () => {
  viewer.currentScaleValue = 'page-width';
});
eventBus.on('pagechanging', (event: { pageNumber: number }) => {
  pageInput.value = String(event.pageNumber);
  post({ type: 'pageChanged', page: event.pageNumber });
});
eventBus.on('updatefindmatchescount', (event: { matchesCount: { current: number; total: number } }) => {
  findResult.textContent = event.matchesCount.total > 0 ? `${event.matchesCount.current} of ${event.matchesCount.total}` : 'No matches';
});

function failureReason(error: unknown): PdfLoadFailure {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'PasswordException' ? 'password' : name === 'InvalidPDFException' ? 'invalid' : 'other';
}

async function open(message: Extract<PdfHostToWebviewMessage, { type: 'open' }>): Promise<void> {
  document.title = message.title;
  statusLabel.textContent = 'Loading…';
  try {
    const response = await fetch(message.url);
    if (!response.ok) {
      throw new Error(`The file could not be read (${response.status} ${response.statusText}).`);
    }
    const data = new Uint8Array(await response.arrayBuffer());
    await workerReady;
    const task = pdfjsLib.getDocument({
      data,
      standardFontDataUrl: resources.fonts,
      cMapUrl: resources.cmaps,
      cMapPacked: true,
      wasmUrl: resources.wasm,
      // The webview's CSP allows no eval; pdf.js then interprets fonts instead of compiling them.
      isEvalSupported: false,
      // Fonts and cmaps are fetched by this page (its CSP names the extension's resources), not by the worker.
      useWorkerFetch: false,
    });
    // The password is not known: fail (the host falls back to the text rendering) instead of prompting.
    task.onPassword = () => {
      void task.destroy();
    };
    const pdf = await task.promise;
    loadedDocument = pdf;
    viewer.setDocument(pdf);
    linkService.setDocument(pdf, null);
    pageCountLabel.textContent = `/ ${pdf.numPages}`;
    pageInput.max = String(pdf.numPages);
    await new Promise<void>((resolve) => eventBus.on('pagesinit', () => resolve(), { once: true }));
    const firstText = await (await pdf.getPage(message.highlight?.page ?? message.page ?? 1)).getTextContent();
    statusLabel.textContent = firstText.items.length > 0 ? '' : 'This page has no text layer (scanned?): text selection and search find nothing here.';
    post({ type: 'loaded', pageCount: pdf.numPages, hasText: firstText.items.length > 0 });
    if (message.highlight) {
      applyHighlight(message.highlight);
    } else if (message.page) {
      viewer.currentPageNumber = message.page;
    }
  } catch (error) {
    const reason = failureReason(error);
    statusLabel.textContent = reason === 'password' ? 'This PDF is encrypted and needs a password.' : `This PDF could not be opened: ${String((error as Error)?.message ?? error)}`;
    post({ type: 'loadFailed', reason, message: String((error as Error)?.message ?? error) });
  }
}

window.addEventListener('message', (event: MessageEvent<PdfHostToWebviewMessage>) => {
  const message = event.data;
  switch (message?.type) {
    case 'open':
      void open(message);
      break;
    case 'highlight':
      if (loadedDocument) {
        applyHighlight(message.highlight);
      }
      break;
    case 'goToPage':
      if (loadedDocument) {
        viewer.currentPageNumber = Math.min(Math.max(1, message.page), loadedDocument.numPages);
      }
      break;
  }
});

function find(type: '' | 'again', findPrevious = false): void {
  eventBus.dispatch('find', { source: null, type, query: findInput.value, caseSensitive: false, entireWord: false, highlightAll: true, findPrevious, matchDiacritics: false });
}

byId('previous').addEventListener('click', () => viewer.previousPage());
byId('next').addEventListener('click', () => viewer.nextPage());
byId('zoomOut').addEventListener('click', () => viewer.decreaseScale());
byId('zoomIn').addEventListener('click', () => viewer.increaseScale());
byId<HTMLSelectElement>('zoom').addEventListener('change', (event) => {
  viewer.currentScaleValue = (event.target as HTMLSelectElement).value;
});
pageInput.addEventListener('change', () => {
  const page = Number(pageInput.value);
  if (loadedDocument && Number.isInteger(page) && page >= 1 && page <= loadedDocument.numPages) {
    viewer.currentPageNumber = page;
  }
});
findInput.addEventListener('input', () => find(''));
findInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    find('again', event.shiftKey);
  }
});
byId('findPrevious').addEventListener('click', () => find('again', true));
byId('findNext').addEventListener('click', () => find('again'));

post({ type: 'ready' });
